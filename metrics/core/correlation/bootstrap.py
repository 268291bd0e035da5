"""Bootstrap percentile intervals of a coefficient, and Fisher-z intervals of Pearson's r.

Resampling ``items`` draws K items (segments) with replacement, each with all its systems;
``systems`` draws S systems (rows) with replacement, each with all its items (spec §2.9's
recommendation: resample source sentences with all their system candidates). A resample is
described by its multiplicities (how often each unit was drawn, ``resampling.multiplicities``),
and every coefficient is computed on the materialised resample — duplicated cells included —
without materialising it:

* when the grouping runs along the resampled axis (``item`` grouping with item resampling,
  ``system`` with ``systems``), each group's value is computed once and a resample is a
  weighted mean of them;
* Pearson: weighted sums as batched matrix products (:func:`._values.pearson_weighted`);
* pair statistics (the Kendall family, acc23, accuracy): weighted pair counts, B resamples per
  pass of the O(N log N) kernel (:mod:`._pairs`);
* Spearman and PCE: the resamples are materialised one by one.

With ``calibrate_ties=True`` the ε is searched once on the full data and kept for every
resample (as mt-metrics-eval's pairwise permutation test does; re-searching per resample would
cost a full calibration each time).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..resampling import DEFAULT_SEED, multiplicities
from ..significance import fisher_interval
from ._layout import as_inputs, coefficient_for, grouped, valid_cells
from ._values import aggregate, group_values
from .coefficients import KENDALL_FAMILY
from .core import correlate, resolve_options
from .errors import CorrelationError
from .results import Correlations
from .ties import calibrate

FloatArray = npt.NDArray[np.float64]

RESAMPLE = ("items", "systems")
CHUNK = 256
"""Resamples per pass of the weighted kernels (bounds their memory)."""


def _cell_weights(
    counts: FloatArray, grouping: str, resample: str, shape: tuple[int, int]
) -> FloatArray:
    """Cell multiplicities in the grouped layout, (B, G, L) or (B, 1, L), from (B, units)."""
    systems, items = shape
    if grouping == "none":
        if resample == "items":
            return np.tile(counts, (1, systems))[:, None, :]
        return np.repeat(counts, items, axis=1)[:, None, :]
    # item grouping with systems resampled, or system grouping with items resampled: the same
    # multiplicities in every group.
    return counts[:, None, :]


def bootstrap_distribution(
    human: npt.ArrayLike,
    metrics: npt.ArrayLike,
    *,
    coefficient: str,
    grouping: str = "none",
    resample: str = "items",
    samples: int = 1000,
    seed: int = DEFAULT_SEED,
    **coefficient_options: Any,
) -> FloatArray:
    """The coefficient on each bootstrap resample: (samples, M), NaN where undefined.

    The resamples are drawn as ``numpy.random.default_rng(seed).integers(0, units, (samples,
    units))`` (units = K items or S systems), the convention of ``resampling.paired_bootstrap``.
    Options as :func:`~.core.correlate` (``threshold``, ``epsilon``, ``calibrate_ties``,
    ``weighted``).
    """
    h, m = as_inputs(human, metrics)
    coefficient_for(coefficient, h, grouping)
    if resample not in RESAMPLE:
        raise CorrelationError(f"resample must be 'items' or 'systems', not {resample!r}")
    if samples < 1:
        raise CorrelationError("samples must be >= 1")
    options = resolve_options(coefficient, m.shape[0], coefficient_options)
    systems, items = h.shape
    units = items if resample == "items" else systems
    if units < 2:
        raise CorrelationError(f"cannot resample {resample}: there is only one")
    hy, mx = grouped(h, m, grouping)
    valid = valid_cells(hy, mx)
    eps = options["epsilon"]
    if options["calibrate_ties"]:
        eps = calibrate(hy, mx, valid, grouping=grouping)
    picks = np.random.default_rng(seed).integers(0, units, (samples, units))
    counts = multiplicities(picks, units)
    kwargs = {"epsilon": eps, "threshold": options["threshold"]}
    along = (grouping, resample) in (("item", "items"), ("system", "systems"))
    if along and coefficient != "pce":
        values, n = group_values(coefficient, hy, mx, valid, **kwargs)
        used = np.isfinite(values[0]) & ((n[0] > 0) if options["weighted"] else True)
        weight = np.where(used, n[0] if options["weighted"] else 1.0, 0.0)  # (M, G)
        numerator = counts @ (weight * np.where(used, values[0], 0.0)).T  # (B, M)
        denominator = counts @ weight.T
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denominator > 0, numerator / denominator, np.nan)
    if coefficient == "pearson" or coefficient in KENDALL_FAMILY:
        out = np.empty((samples, m.shape[0]))
        for lo in range(0, samples, CHUNK):
            block = counts[lo : lo + CHUNK]
            weights = _cell_weights(block, grouping, resample, h.shape)
            values, n = group_values(coefficient, hy, mx, valid, weights=weights, **kwargs)
            out[lo : lo + CHUNK] = aggregate(values, n, weighted=options["weighted"])[0]
        return out
    # Spearman, PCE: materialise each resample.
    out = np.empty((samples, m.shape[0]))
    for b, pick in enumerate(picks):
        if resample == "items":
            hb, mb = h[:, pick], m[:, :, pick]
        else:
            hb, mb = h[pick], m[:, pick]
        out[b] = correlate(
            hb,
            mb,
            coefficient=coefficient,
            grouping=grouping,
            threshold=options["threshold"] if coefficient == "kendall-like" else None,
            epsilon=eps,
            weighted=options["weighted"],
        ).values
    return out


def bootstrap_intervals(
    human: npt.ArrayLike,
    metrics: npt.ArrayLike,
    *,
    coefficient: str,
    grouping: str = "none",
    resample: str = "items",
    samples: int = 1000,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    **coefficient_options: Any,
) -> tuple[FloatArray, FloatArray]:
    """Bootstrap percentile interval of the coefficient per measure: (low (M,), high (M,)).

    The (1 - confidence)/2 and (1 + confidence)/2 quantiles (numpy's linear interpolation) of
    :func:`bootstrap_distribution`; resamples where the coefficient is undefined are left out,
    and a measure with no defined resample gets NaN. ``resample="items"`` resamples segments
    with all their systems (for system-level data, K = 1, resample ``systems``).
    """
    if not 0.0 < confidence < 1.0:
        raise CorrelationError("confidence must be between 0 and 1")
    draws = bootstrap_distribution(
        human,
        metrics,
        coefficient=coefficient,
        grouping=grouping,
        resample=resample,
        samples=samples,
        seed=seed,
        **coefficient_options,
    )
    alpha = (1.0 - confidence) / 2.0
    low = np.full(draws.shape[1], np.nan)
    high = np.full(draws.shape[1], np.nan)
    for j in range(draws.shape[1]):
        finite = draws[:, j][np.isfinite(draws[:, j])]
        if finite.size:
            low[j], high[j] = np.quantile(finite, [alpha, 1.0 - alpha])
    return low, high


def fisher_intervals(
    result: Correlations, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Fisher-z interval tanh(atanh r ± z/√(n − 3)) of pooled Pearson r per measure (spec §2.9).

    The thesis' "95%-Conf." ranges are the half-widths of this interval with n = K·S judged
    sentences (e.g. r = 0.285, n = 7,902 → ±0.020). Defined for ``pearson`` with grouping
    ``none`` (n = cells); NaN where ``significance.fisher_interval`` gives none (n <= 3, |r| = 1).
    """
    if result.coefficient != "pearson" or result.grouping != "none":
        raise CorrelationError("Fisher-z intervals are defined for pooled Pearson r only")
    low = np.full(result.values.shape, np.nan)
    high = np.full(result.values.shape, np.nan)
    for j, (r, n) in enumerate(zip(result.values, result.n, strict=True)):
        interval = fisher_interval(float(r), int(n), confidence)
        if interval is not None:
            low[j], high[j] = interval
    return low, high
