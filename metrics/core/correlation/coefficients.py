"""The coefficients :func:`~.core.correlate` knows, and the groupings it averages over.

Every coefficient compares a human score vector y with a metric score vector x over the cells
(system, item) both have (spec ``meta-evaluation.md``; thesis spec ``human-eval-and-correlation.md``
§2). Pair statistics count, over the pairs of cells i < j, the concordant pairs C (x and y
differ in the same direction), the discordant pairs D, the pairs tied in x only (T_x), in y only
(T_y), and in both (T_xy); M = C + D + T_x + T_y + T_xy = N(N − 1)/2.
"""

from __future__ import annotations

from dataclasses import dataclass

GROUPINGS = ("none", "item", "system")
"""``none`` pools every cell (WMT "no grouping", mt-metrics-eval ``average_by='none'``);
``item`` computes one coefficient per item (segment) over the systems and averages
(group-by-item, the thesis' local τ̄); ``system`` one per system over the items."""


@dataclass(frozen=True)
class Coefficient:
    """What :func:`~.core.correlate` needs to know about a coefficient.

    Attributes:
        description: one line for menus and table headers.
        segment_level: defined on a systems × items matrix (K > 1).
        system_level: defined on one score per system (K = 1). ``pce`` is a system-level
            statistic that needs the segment matrix (it permutes segments), so it has
            ``system_level=True`` and ``needs_segments=True``.
        pairs: a statistic over pairs of cells (``Correlations.n`` counts pairs, not cells).
        rank: depends on the scores only through their order (Spearman and the pair
            statistics; not Pearson, not PCE).
        needs_segments: computed from the segment matrix although it describes systems.
    """

    description: str
    segment_level: bool
    system_level: bool
    pairs: bool
    rank: bool
    needs_segments: bool = False


def _pair(description: str, *, segment_level: bool = True) -> Coefficient:
    return Coefficient(description, segment_level, True, pairs=True, rank=True)


COEFFICIENTS: dict[str, Coefficient] = {
    "pearson": Coefficient(
        "Pearson's r (population moments; scipy.stats.pearsonr)",
        True,
        True,
        pairs=False,
        rank=False,
    ),
    "spearman": Coefficient(
        "Spearman's rho: Pearson's r of mid-ranks (scipy.stats.spearmanr)",
        True,
        True,
        pairs=False,
        rank=True,
    ),
    "kendall-a": _pair("Kendall's tau-a (C - D) / M, ties stay in M (the thesis' tau)"),
    "kendall-b": _pair("Kendall's tau-b (scipy.stats.kendalltau; mt-metrics-eval Kendall)"),
    "kendall-c": _pair("Kendall's tau-c (scipy.stats.kendalltau variant='c')"),
    "kendall-like": _pair(
        "WMT DARR Kendall-like: pairs with |human diff| >= threshold, metric ties discordant"
    ),
    "tau23": _pair("tau_23 (C + T_xy - D - T_x - T_y) / M (Deutsch et al. 2023, 'Ties Matter')"),
    "acc23": _pair("acc_23 (C + T_xy) / M: pairwise accuracy with ties (Deutsch et al. 2023)"),
    "accuracy": _pair(
        "System-level pairwise accuracy: sign(metric diff) == sign(human diff) (Kocmi et al. 2021)",
        segment_level=False,
    ),
    "pce": Coefficient(
        "1 - pairwise confidence error: 1 - mean |p_human - p_metric| over system pairs, p from "
        "paired permutation tests over segments (WMT24)",
        False,
        True,
        pairs=True,
        rank=False,
        needs_segments=True,
    ),
}
"""Name -> :class:`Coefficient`. The names are those of the command line and the dashboards."""

KENDALL_FAMILY = (
    "kendall-a",
    "kendall-b",
    "kendall-c",
    "kendall-like",
    "tau23",
    "acc23",
    "accuracy",
)
"""Coefficients computed from the pair counts of :mod:`._pairs`."""
EPSILON_COEFFICIENTS = ("kendall-a", "kendall-b", "tau23", "acc23")
"""Coefficients that accept a metric tie threshold ε (|x_i - x_j| <= ε is a tie)."""
CALIBRATED_COEFFICIENTS = ("tau23", "acc23")
"""Coefficients whose ε can be searched (tie calibration, mt-metrics-eval KendallWithTiesOpt)."""
