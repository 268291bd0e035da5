"""The result type of :func:`~.core.correlate`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Correlations:
    """What :func:`correlate` returns; arrays have one entry per measure (M,).

    Attributes:
        coefficient: the coefficient's name (a key of ``COEFFICIENTS``).
        grouping: ``none``, ``item`` or ``system``.
        values: the coefficient (mean over the used groups), NaN where undefined.
        n: cells (Pearson, Spearman) or pairs (every pair statistic; for Kendall-like the
            pairs with |human diff| >= threshold; for ``accuracy`` and ``pce`` system pairs),
            summed over the used groups.
        groups_used: groups with a defined value that enter the mean (``none``: 1, or 0 when
            the value is NaN).
        groups_skipped: the other groups: fewer than two usable cells, or undefined (a constant
            vector for Pearson, Spearman, τ-b, τ-c).
        epsilon: the metric tie threshold ε per measure when one was given or calibrated
            (``calibrate_ties=True``: the acc23-maximising ε), else None.
        group_values: (M, G) the value of every group (NaN where skipped); None for ``none``.
    """

    coefficient: str
    grouping: str
    values: FloatArray
    n: IntArray
    groups_used: IntArray
    groups_skipped: IntArray
    epsilon: FloatArray | None = None
    group_values: FloatArray | None = None


def format_value(value: float | None, digits: int = 3, missing: str = "") -> str:
    """A coefficient as text with ``digits`` decimals; a value that rounds to zero is "0.000",
    never "-0.000"; None, NaN and ±inf give ``missing``."""
    if value is None or not math.isfinite(value):
        return missing
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text
