"""Significance statistics: confidence intervals of correlations and the level of a test.

* **Fisher z interval** of Pearson's r (spec §2.9): ``tanh(atanh(r) ± z_{1-α/2} / sqrt(n - 3))``.
* :data:`SIGNIFICANCE_LEVEL`: the α below which a test's p-value counts as significant.

Pure functions over numbers; used by the human-score panels and the metric correlations alike.
"""

from __future__ import annotations

import math

SIGNIFICANCE_LEVEL = 0.05
"""Two-sided level of the significance tests: ``p < SIGNIFICANCE_LEVEL`` is significant."""


def fisher_interval(r: float, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Fisher-z confidence interval of Pearson's r over n pairs (spec §2.9); None if n <= 3."""
    if n <= 3 or not math.isfinite(r) or abs(r) >= 1.0:
        return None
    from scipy.stats import norm

    half = float(norm.ppf(0.5 + confidence / 2.0)) / math.sqrt(n - 3)
    centre = math.atanh(r)
    return math.tanh(centre - half), math.tanh(centre + half)
