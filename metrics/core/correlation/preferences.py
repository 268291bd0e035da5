"""WMT's segment-level Kendall's τ-like over human pairwise preferences (relative ranking).

The WMT 2012-2016 metrics tasks scored a metric at segment level against the relative-ranking
judgments: every judge's comparison of two systems on one segment that is not a tie is a human
preference ``better > worse``. Over those pairs (Macháček & Bojar 2014, Stanojević et al. 2015,
Bojar et al. 2016)::

    τ = (Concordant − Discordant) / (Concordant + Discordant)

Concordant: the metric scores ``better`` above ``worse``; Discordant: below. Human ties are
left out before (the caller passes only preferences). The metric's own ties:

* ``"discordant"`` (default; WMT 2012 and WMT 2014-2016, and WMT DARR's Kendall-like from
  2017): a metric tie counts as Discordant — a metric cannot gain by declaring ties;
* ``"excluded"`` (WMT 2013): a metric tie counts in neither, so it leaves the denominator.

A pair judged by several judges (or several times by one on different screens) counts once per
judgment, as in WMT. Scores must be oriented "higher is better" (negate error measures such as
WER before); a pair with a NaN score of either system is left out for that measure. Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..resampling import DEFAULT_SEED, multiplicities
from .errors import CorrelationError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

METRIC_TIES = ("discordant", "excluded")
"""How a metric tie counts: WMT 2012, 2014-2016 (``discordant``) or WMT 2013 (``excluded``)."""


@dataclass(frozen=True)
class PreferenceTau:
    """:func:`preference_tau` per measure (M,): τ (NaN without a counted pair), the pairs
    counted Concordant and Discordant, the metric ties among the pairs (Discordant under
    ``"discordant"``, uncounted under ``"excluded"``), ``n`` = Concordant + Discordant, and the
    bootstrap percentile interval when asked (else None)."""

    values: FloatArray
    concordant: IntArray
    discordant: IntArray
    metric_ties: IntArray
    n: IntArray
    low: FloatArray | None = None
    high: FloatArray | None = None


def _as_index(name: str, values: npt.ArrayLike, size: int | None = None) -> IntArray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise CorrelationError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise CorrelationError(f"{name} must hold integer indices")
    array = array.astype(np.int64)
    if size is not None and array.size and (array.min() < 0 or array.max() >= size):
        raise CorrelationError(f"{name} holds an index outside 0..{size - 1}")
    return array


def _segment_counts(
    scores: FloatArray,
    segment: IntArray,
    better: IntArray,
    worse: IntArray,
    metric_ties: str,
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Concordant, Discordant and metric ties per measure and segment group (M, G), and the
    group of every pair (P,)."""
    groups, group_of = np.unique(segment, return_inverse=True)
    first = scores[:, better, segment]
    second = scores[:, worse, segment]
    usable = ~(np.isnan(first) | np.isnan(second))
    concordant = usable & (first > second)
    ties = usable & (first == second)
    discordant = usable & (first < second)
    if metric_ties == "discordant":
        discordant = discordant | ties
    shape = (scores.shape[0], groups.size)

    def per_group(mask: npt.NDArray[np.bool_]) -> IntArray:
        counts = np.zeros(shape, dtype=np.int64)
        for m in range(shape[0]):
            counts[m] = np.bincount(group_of, weights=mask[m], minlength=groups.size).astype(
                np.int64
            )
        return counts

    return per_group(concordant), per_group(discordant), per_group(ties), group_of


def _tau(concordant: npt.NDArray[np.floating], discordant: npt.NDArray[np.floating]) -> FloatArray:
    total = concordant + discordant
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            total > 0, (concordant - discordant) / np.where(total > 0, total, 1), np.nan
        )


def preference_tau(
    scores: npt.ArrayLike,
    segment: npt.ArrayLike,
    better: npt.ArrayLike,
    worse: npt.ArrayLike,
    *,
    metric_ties: str = "discordant",
    bootstrap: int = 0,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> PreferenceTau:
    """WMT's Kendall's τ-like of every measure against human preferences (module docstring).

    Args:
        scores: (M, S, K) oriented metric scores (systems × segments), or (S, K) for one.
        segment: (P,) the segment (column of ``scores``) of every preference.
        better: (P,) the preferred system (row of ``scores``) of every preference.
        worse: (P,) the other system.
        metric_ties: ``"discordant"`` (WMT 2012, 2014-2016) or ``"excluded"`` (WMT 2013).
        bootstrap: resamples of the percentile interval (0: none). The resampled unit is the
            segment with all its preferences, drawn as ``default_rng(seed).integers(0, G,
            (bootstrap, G))`` over the G segments that have preferences.
        seed: the generator's seed.
        confidence: the interval's coverage.

    Raises:
        CorrelationError: bad shapes or indices, a pair of a system with itself, an unknown
            tie rule, a negative number of resamples.
    """
    if metric_ties not in METRIC_TIES:
        raise CorrelationError(
            f"unknown metric tie rule {metric_ties!r} (known: {', '.join(METRIC_TIES)})"
        )
    if bootstrap < 0:
        raise CorrelationError("bootstrap must be 0 or more resamples")
    if not 0 < confidence < 1:
        raise CorrelationError("confidence must lie strictly between 0 and 1")
    matrix = np.asarray(scores, dtype=np.float64)
    if matrix.ndim == 2:
        matrix = matrix[None]
    if matrix.ndim != 3:
        raise CorrelationError(f"scores must be (M, S, K) or (S, K), got shape {matrix.shape}")
    n_systems, n_segments = matrix.shape[1], matrix.shape[2]
    seg = _as_index("segment", segment, n_segments)
    first = _as_index("better", better, n_systems)
    second = _as_index("worse", worse, n_systems)
    if not seg.size == first.size == second.size:
        raise CorrelationError("segment, better and worse must have one entry per preference")
    if np.any(first == second):
        raise CorrelationError("a preference compares two different systems")
    concordant, discordant, ties, _ = _segment_counts(matrix, seg, first, second, metric_ties)
    c, d = concordant.sum(axis=1), discordant.sum(axis=1)
    low = high = None
    if bootstrap > 0:
        low, high = _bootstrap(concordant, discordant, bootstrap, seed, confidence)
    return PreferenceTau(
        values=_tau(c.astype(np.float64), d.astype(np.float64)),
        concordant=c,
        discordant=d,
        metric_ties=ties.sum(axis=1),
        n=c + d,
        low=low,
        high=high,
    )


def _bootstrap(
    concordant: IntArray, discordant: IntArray, samples: int, seed: int, confidence: float
) -> tuple[FloatArray, FloatArray]:
    """Percentile interval of τ, resampling segments: every count is a sum over segments, so a
    resample is one product with the segments' multiplicities."""
    measures, units = concordant.shape
    low = np.full(measures, np.nan)
    high = np.full(measures, np.nan)
    if units == 0:
        return low, high
    picks = np.random.default_rng(seed).integers(0, units, (samples, units))
    counts = multiplicities(picks, units)
    taus = _tau(counts @ concordant.T.astype(np.float64), counts @ discordant.T.astype(np.float64))
    alpha = (1.0 - confidence) / 2
    for m in range(measures):
        finite = taus[:, m][np.isfinite(taus[:, m])]
        if finite.size:
            low[m], high[m] = np.quantile(finite, [alpha, 1.0 - alpha])
    return low, high
