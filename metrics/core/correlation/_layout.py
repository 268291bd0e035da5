"""Input checks and the grouped layout every statistic of the package works on.

The public functions take human scores ``human`` (S, K) and metric scores ``metrics``
(M, S, K), NaN where missing. A grouping turns them into G groups of L cells each:

* ``none``: G = 1, L = S·K (every cell, flattened by system as mt-metrics-eval does);
* ``item``: G = K, L = S (one group per item, over the systems);
* ``system``: G = S, L = K (one group per system, over the items).

``hy`` is (G, L) and ``mx`` (M, G, L); a cell takes part for measure m where both ``hy`` and
``mx[m]`` are finite (pairwise deletion).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .coefficients import COEFFICIENTS, GROUPINGS, Coefficient
from .errors import CorrelationError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def as_inputs(human: npt.ArrayLike, metrics: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``human`` (S, K) and ``metrics`` (M, S, K) as float arrays; CorrelationError otherwise."""
    try:
        h = np.asarray(human, dtype=np.float64)
        m = np.asarray(metrics, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise CorrelationError(f"scores must be numeric arrays: {error}") from None
    if h.ndim != 2:
        raise CorrelationError(
            f"human scores must be 2-D (systems x items), got shape {h.shape}; "
            "system-level scores are one column (S, 1)"
        )
    if m.ndim != 3:
        raise CorrelationError(
            f"metric scores must be 3-D (measures x systems x items), got shape {m.shape}"
        )
    if m.shape[1:] != h.shape:
        raise CorrelationError(
            f"metric scores {m.shape} do not match human scores {h.shape}: "
            "expected (M, S, K) with (S, K) the human shape"
        )
    if h.shape[0] == 0 or h.shape[1] == 0:
        raise CorrelationError(f"no systems or no items: human shape {h.shape}")
    return h, m


def coefficient_for(name: str, human: FloatArray, grouping: str) -> Coefficient:
    """The :class:`Coefficient` ``name``, checked against the level of ``human`` and the grouping.

    The level is the system level when ``human`` has one column (K = 1), else the segment level.
    """
    if name not in COEFFICIENTS:
        raise CorrelationError(
            f"unknown coefficient {name!r}; choose one of {', '.join(COEFFICIENTS)}"
        )
    if grouping not in GROUPINGS:
        raise CorrelationError(
            f"unknown grouping {grouping!r}; choose one of {', '.join(GROUPINGS)}"
        )
    coefficient = COEFFICIENTS[name]
    systems, items = human.shape
    if coefficient.needs_segments:
        if items < 2:
            raise CorrelationError(
                f"{name} is a system-level statistic computed from segment scores: "
                "give the (S, K) segment matrices, K >= 2"
            )
        if grouping != "none":
            raise CorrelationError(f"{name} takes no grouping (it describes whole systems)")
        if systems < 2:
            raise CorrelationError(f"{name} needs at least 2 systems, got {systems}")
        return coefficient
    if items == 1:
        if not coefficient.system_level:
            raise CorrelationError(f"{name} is not defined at system level")
        if grouping != "none":
            raise CorrelationError(
                f"grouping {grouping!r} needs segment scores; system-level scores (K = 1) "
                "take grouping 'none'"
            )
        if systems < 3:
            raise CorrelationError(
                f"system-level correlation needs at least 3 systems, got {systems}"
            )
    elif not coefficient.segment_level:
        raise CorrelationError(
            f"{name} is a system-level statistic: give one score per system (shape (S, 1))"
        )
    return coefficient


def grouped(human: FloatArray, metrics: FloatArray, grouping: str) -> tuple[FloatArray, FloatArray]:
    """(hy (G, L), mx (M, G, L)) for the grouping (module docstring)."""
    systems, items = human.shape
    if grouping == "none":
        return human.reshape(1, systems * items), metrics.reshape(metrics.shape[0], 1, -1)
    if grouping == "item":
        return np.ascontiguousarray(human.T), np.ascontiguousarray(metrics.transpose(0, 2, 1))
    return human, metrics


def valid_cells(hy: FloatArray, mx: FloatArray) -> BoolArray:
    """(M, G, L): both the human and measure m's score are finite."""
    return np.isfinite(hy)[None, :, :] & np.isfinite(mx)
