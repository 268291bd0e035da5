"""Meta-evaluation: how well each automatic measure agrees with human scores.

Pure statistics (numpy, scipy, numba; never Django), the definitions of Google's
mt-metrics-eval (WMT metrics tasks; spec ``meta-evaluation.md``) plus the thesis' τ-a, τ̄,
Fisher intervals, regression lines and optimal combinations (spec
``human-eval-and-correlation.md`` §2).

Data layout: human scores ``human`` (S, K) = systems × items (segments), NaN where missing;
metric scores ``metrics`` (M, S, K) for M measures at once. System level is K = 1 (one column)
with grouping ``none``. Cells where the human score or that measure's score is NaN are left out
pairwise. Scores must be oriented "higher is better" (negate error measures such as WER).

* :func:`correlate` → :class:`Correlations` — ``COEFFICIENTS``, ``GROUPINGS``
  (:mod:`.core`; tie calibration in :mod:`.ties`; PCE in :mod:`.pce`).
* :func:`bootstrap_intervals`, :func:`bootstrap_distribution`, :func:`fisher_intervals`
  (:mod:`.bootstrap`).
* :func:`compare` (Williams, PERM-BOTH), :func:`significance_clusters` (:mod:`.comparison`).
* :func:`regression_lines` (:mod:`.regression`).
* :func:`optimal_weights`, :func:`combination_r`, :func:`combination_curve`,
  :func:`cross_validated_r` (:mod:`.combination`).

Every function raises :class:`CorrelationError` (a ``ValueError``) on bad input.
"""

from __future__ import annotations

from .bootstrap import bootstrap_distribution, bootstrap_intervals, fisher_intervals
from .coefficients import COEFFICIENTS, GROUPINGS, Coefficient
from .combination import (
    combination_curve,
    combination_r,
    cross_validated_predictions,
    cross_validated_r,
    optimal_weights,
)
from .comparison import compare, significance_clusters, williams_p
from .core import correlate
from .errors import CorrelationError
from .pce import pairwise_confidence_accuracy
from .preferences import PreferenceTau, preference_tau
from .regression import Line, RegressionLines, regression_lines
from .results import Correlations, format_value
from .ties import calibrate

__all__ = [
    "COEFFICIENTS",
    "GROUPINGS",
    "Coefficient",
    "CorrelationError",
    "Correlations",
    "Line",
    "PreferenceTau",
    "RegressionLines",
    "bootstrap_distribution",
    "bootstrap_intervals",
    "calibrate",
    "combination_curve",
    "combination_r",
    "compare",
    "correlate",
    "cross_validated_predictions",
    "cross_validated_r",
    "fisher_intervals",
    "format_value",
    "optimal_weights",
    "pairwise_confidence_accuracy",
    "preference_tau",
    "regression_lines",
    "significance_clusters",
    "williams_p",
]
