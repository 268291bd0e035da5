"""Pairwise confidence error (PCE), the WMT24 system-level meta-evaluation statistic.

mt-metrics-eval ``stats.PairwiseConfidenceError`` / ``pce.py`` (Brian Thompson, 2024): for
every pair of systems i < j, a paired permutation test over the segments gives the p-value of
"system i is better than system j", once from the human segment scores and once from the
metric's; PCE is the mean |p_human - p_metric| over the pairs, and the reported statistic is
1 - PCE (in [0, 1], higher is better, comparable with pairwise accuracy).

The permutation test: with a random sign s_k ∈ {-1, +1} per segment (one matrix of P draws,
shared by every system pair and by the human and metric scores), the null difference of the
pair is Σ_k s_k (x_ik - x_jk); p = the share of draws with null difference >= the observed
Σ_k (x_ik - x_jk). The draws are MTME's: ``numpy.random.default_rng(4)``, uniform floats of
shape (P, K) in float32, rounded to 0/1, mapped to ±1; P = 1000.

It needs the (S, K) segment matrices. Only segments where every system has both a human and
the measure's score are used (MTME filters missing gold scores, which must leave the same
segments for every system). Sums are float64 where MTME's are float32: a p-value can move by
1/P when a permuted difference equals the observed one within float32 rounding.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .errors import CorrelationError
from .results import Correlations

FloatArray = npt.NDArray[np.float64]

PCE_SEED = 4
"""mt-metrics-eval's seed of the sign matrix (``compute_pairwise_p_values(seed=4)``)."""
PCE_PERMUTATIONS = 1000


def sign_matrix(permutations: int, segments: int, seed: int = PCE_SEED) -> FloatArray:
    """MTME's ±1 draws: rint of float32 uniforms, times 2, minus 1."""
    draws = np.random.default_rng(seed).random(size=(permutations, segments), dtype=np.float32)
    return np.rint(draws).astype(np.float64) * 2.0 - 1.0


def pairwise_p_values(scores: FloatArray, signs: FloatArray) -> FloatArray:
    """(S, S) p-values of "row system better than column system"; lower triangle NaN.

    ``scores`` (S, K) segment scores, ``signs`` (P, K) from :func:`sign_matrix`.
    """
    totals = scores.sum(axis=1)
    partial = signs @ scores.T  # (P, S)
    systems = scores.shape[0]
    p = np.full((systems, systems), np.nan)
    for i in range(systems):
        null = partial[:, i : i + 1] - partial[:, i + 1 :]
        test = totals[i] - totals[i + 1 :]
        p[i, i + 1 :] = (null >= test).mean(axis=0)
    return p


def pairwise_confidence_accuracy(
    human: FloatArray,
    metrics: FloatArray,
    *,
    permutations: int = PCE_PERMUTATIONS,
    seed: int = PCE_SEED,
) -> tuple[FloatArray, FloatArray]:
    """1 - PCE of each measure (module docstring): (values (M,), segments used (M,)).

    ``human`` (S, K) and ``metrics`` (M, S, K) segment scores; NaN where no segment is usable.
    """
    systems = human.shape[0]
    if systems < 2:
        raise CorrelationError(f"pce needs at least 2 systems, got {systems}")
    upper = np.triu_indices(systems, 1)
    complete_h = np.all(np.isfinite(human), axis=0)
    values = np.full(metrics.shape[0], np.nan)
    used = np.zeros(metrics.shape[0])
    cache: dict[bytes, tuple[FloatArray, FloatArray]] = {}
    for m in range(metrics.shape[0]):
        keep = complete_h & np.all(np.isfinite(metrics[m]), axis=0)
        used[m] = keep.sum()
        if used[m] < 1:
            continue
        key = keep.tobytes()
        if key not in cache:
            signs = sign_matrix(permutations, int(used[m]), seed)
            cache[key] = (signs, pairwise_p_values(human[:, keep], signs))
        signs, p_human = cache[key]
        p_metric = pairwise_p_values(metrics[m][:, keep], signs)
        values[m] = 1.0 - np.mean(np.abs(p_human - p_metric)[upper])
    return values, used


def pce_correlations(human: FloatArray, metrics: FloatArray) -> Correlations:
    """:func:`pairwise_confidence_accuracy` as :class:`~.results.Correlations` (n = system pairs)."""
    values, _ = pairwise_confidence_accuracy(human, metrics)
    systems = human.shape[0]
    ok = np.isfinite(values)
    return Correlations(
        coefficient="pce",
        grouping="none",
        values=values,
        n=np.where(ok, systems * (systems - 1) // 2, 0).astype(np.int64),
        groups_used=ok.astype(np.int64),
        groups_skipped=(~ok).astype(np.int64),
    )
