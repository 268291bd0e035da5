"""Compiled kernels of the PERM-BOTH permutation test (:mod:`.comparison`).

Each draw swaps the z-normalised scores of two measures i and j in a random half of the cells:
hybrid 1 takes z_i where the draw's bit is 1 and z_j elsewhere, hybrid 2 the opposite. The
kernels return the coefficient of both hybrids for every draw, averaged over the groups as
:func:`._values.aggregate` does; where no group is defined the value is 0, as in
mt-metrics-eval's ``PermutationSigDiff`` (``np.average`` of nothing is replaced by 0).

* :func:`pearson_draws`: Pearson's r is a function of Σz, Σz², Σzy and the fixed human sums,
  each linear in the bits (z_i and z_j never mix within a cell), so the per-group sums of every
  measure are one batched matrix product per block of draws, shared by all pairs; the kernel
  turns them into r per group and pair. A hybrid whose variance is below 1e-12 of its
  second moment counts as constant (NaN).

The pair statistics of hybrids are counted by the weighted kernel of :mod:`._pairs` over
doubled cells (:class:`.comparison._SwapTester`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..compiled import compiled
from ._pairs import _C as _C_ROW
from ._pairs import _D as _D_ROW
from ._pairs import _TYF as _TYF_ROW
from ._pairs import _W as _W_ROW
from ._pairs import _YTIE as _YTIE_ROW

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@compiled
def pearson_draws(  # pragma: no cover - compiled
    pairs: IntArray,
    sa: FloatArray,
    sq: FloatArray,
    sp: FloatArray,
    ta: FloatArray,
    tq: FloatArray,
    tp: FloatArray,
    n: FloatArray,
    sy: FloatArray,
    syy: FloatArray,
    gok: npt.NDArray[np.bool_],
    weighted: bool,
) -> tuple[FloatArray, FloatArray]:
    """Mean Pearson r over groups of both hybrids, per pair and draw: two (P, k) arrays.

    ``sa``, ``sq``, ``sp`` (M, k, G): per draw and group Σ bit·z, Σ bit·z², Σ bit·z·y of each
    measure; ``ta``, ``tq``, ``tp`` (M, G) the same sums over all cells; ``n``, ``sy``, ``syy``
    (G) the cells and human sums; ``gok`` groups with n >= 2 and non-constant human scores.
    """
    npairs = pairs.shape[0]
    draws = sa.shape[1]
    groups = sa.shape[2]
    out1 = np.zeros((npairs, draws))
    out2 = np.zeros((npairs, draws))
    for p in range(npairs):
        i = pairs[p, 0]
        j = pairs[p, 1]
        for b in range(draws):
            s1 = 0.0
            w1 = 0.0
            s2 = 0.0
            w2 = 0.0
            for g in range(groups):
                if not gok[g]:
                    continue
                ng = n[g]
                vy = ng * syy[g] - sy[g] * sy[g]
                x1 = sa[i, b, g] - sa[j, b, g] + ta[j, g]
                q1 = sq[i, b, g] - sq[j, b, g] + tq[j, g]
                c1 = sp[i, b, g] - sp[j, b, g] + tp[j, g]
                x2 = ta[i, g] + ta[j, g] - x1
                q2 = tq[i, g] + tq[j, g] - q1
                c2 = tp[i, g] + tp[j, g] - c1
                wg = ng if weighted else 1.0
                v1 = ng * q1 - x1 * x1
                if v1 > 1e-12 * ng * q1:
                    s1 += wg * (ng * c1 - x1 * sy[g]) / math.sqrt(v1 * vy)
                    w1 += wg
                v2 = ng * q2 - x2 * x2
                if v2 > 1e-12 * ng * q2:
                    s2 += wg * (ng * c2 - x2 * sy[g]) / math.sqrt(v2 * vy)
                    w2 += wg
            out1[p, b] = s1 / w1 if w1 > 0 else 0.0
            out2[p, b] = s2 / w2 if w2 > 0 else 0.0
    return out1, out2


@compiled
def doubled_layout(  # pragma: no cover - compiled
    zi: FloatArray,
    zj: FloatArray,
    order_i: IntArray,
    order_j: IntArray,
    hy: FloatArray,
    hy_order: IntArray,
    mask: npt.NDArray[np.bool_],
) -> tuple[IntArray, FloatArray, IntArray, IntArray, IntArray]:
    """The doubled cells of one measure pair, sorted by z within each group, in O(cells).

    Every usable cell appears twice, with z_i (cell ``g·2L + l``) and with z_j (``g·2L + L +
    l``), as the pair kernel's weights expect. z-scoring is an increasing affine map, so the
    per-group order of a measure's raw scores (``order_i``, ``order_j``: argsort along the
    group, computed once per measure) is the order of its z-scores over any mask: the sorted
    doubled group is a merge. Dense y ranks come from ``hy_order`` the same way.

    Returns (seg_start, x, yrank, ny_seg, cell) as :func:`._pairs.sort_segments` does.
    """
    groups, length = zi.shape
    total = 0
    for g in range(groups):
        for k in range(length):
            if mask[g, k]:
                total += 2
    seg_start = np.zeros(groups + 1, np.int64)
    x = np.empty(total)
    yrank = np.empty(total, np.int64)
    cell = np.empty(total, np.int64)
    ny_seg = np.zeros(groups, np.int64)
    rank_of = np.zeros(length, np.int64)
    pos = 0
    for g in range(groups):
        seg_start[g] = pos
        rank = -1
        last = 0.0
        for k in range(length):
            c = hy_order[g, k]
            if mask[g, c]:
                if rank < 0 or hy[g, c] != last:
                    rank += 1
                    last = hy[g, c]
                rank_of[c] = rank
        ny_seg[g] = rank + 1
        a = 0
        b = 0
        while True:
            while a < length and not mask[g, order_i[g, a]]:
                a += 1
            while b < length and not mask[g, order_j[g, b]]:
                b += 1
            if a >= length and b >= length:
                break
            if b >= length or (a < length and zi[g, order_i[g, a]] <= zj[g, order_j[g, b]]):
                c = order_i[g, a]
                x[pos] = zi[g, c]
                cell[pos] = g * 2 * length + c
                a += 1
            else:
                c = order_j[g, b]
                x[pos] = zj[g, c]
                cell[pos] = g * 2 * length + length + c
                b += 1
            yrank[pos] = rank_of[c]
            pos += 1
    seg_start[groups] = pos
    return seg_start, x, yrank, ny_seg, cell


# Coefficients hybrid_means computes, by code.
HYBRID_CODES = {"kendall-a": 0, "kendall-b": 1, "acc23": 2, "accuracy": 2, "tau23": 3}


@compiled
def _pair_value(  # pragma: no cover - compiled
    code: int, c: float, d: float, tyf: float, ytie: float, tot: float
) -> float:
    """A coefficient of one group from its counts, as ``_pairs.pair_values`` (NaN: undefined)."""
    if tot <= 0.0:
        return np.nan
    if code == 0:
        return (c - d) / tot
    if code == 1:
        xtie = tot - c - d - tyf
        if xtie >= tot or ytie >= tot:
            return np.nan
        value = (c - d) / math.sqrt(tot - xtie) / math.sqrt(tot - ytie)
        return min(max(value, -1.0), 1.0)
    both = ytie - tyf
    if code == 2:
        return (c + both) / tot
    return 2.0 * (c + both) / tot - 1.0


@compiled
def hybrid_means(  # pragma: no cover - compiled
    raw: FloatArray,
    units: FloatArray,
    linear: FloatArray,
    code: int,
    weighted: bool,
) -> tuple[FloatArray, FloatArray]:
    """Mean coefficient over groups of both hybrids of each draw: two (B,) arrays.

    ``raw`` (G, rows, B): the pair kernel's counts of hybrid 1 over the doubled layout;
    ``units`` (G, rows, 1) the counts with unit weights; ``linear`` (G, B, 3) per draw
    Σ_a w_a r_a, r_a a doubled cell's concordant, discordant and y-only-tied partners
    (:func:`hybrid_linear_terms`). Hybrid 2 weighs every cell 1 - w: a pair count is a
    bilinear form Σ_{a<b} c_ab w_a w_b, so with weights 1 - w it is F - Σ_a w_a r_a + (the
    count with w), F the unit count. The y-tie count and the total weight are the same for
    both hybrids. Groups average as ``_values.aggregate`` does; with no defined group, 0.
    """
    groups = raw.shape[0]
    draws = raw.shape[2]
    sum1 = np.zeros(draws)
    sum2 = np.zeros(draws)
    weight1 = np.zeros(draws)
    weight2 = np.zeros(draws)
    for g in range(groups):
        for b in range(draws):
            w = raw[g, _W_ROW, b]
            tot = w * (w - 1.0) * 0.5
            c1 = raw[g, _C_ROW, b]
            d1 = raw[g, _D_ROW, b]
            tyf1 = raw[g, _TYF_ROW, b]
            ytie = raw[g, _YTIE_ROW, b]
            c2 = units[g, _C_ROW, 0] - linear[g, b, 0] + c1
            d2 = units[g, _D_ROW, 0] - linear[g, b, 1] + d1
            tyf2 = units[g, _TYF_ROW, 0] - linear[g, b, 2] + tyf1
            n = tot if weighted else 1.0  # a defined value has tot > 0
            v1 = _pair_value(code, c1, d1, tyf1, ytie, tot)
            if math.isfinite(v1):
                sum1[b] += v1 * n
                weight1[b] += n
            v2 = _pair_value(code, c2, d2, tyf2, ytie, tot)
            if math.isfinite(v2):
                sum2[b] += v2 * n
                weight2[b] += n
    mean1 = np.zeros(draws)
    mean2 = np.zeros(draws)
    for b in range(draws):
        if weight1[b] > 0.0:
            mean1[b] = sum1[b] / weight1[b]
        if weight2[b] > 0.0:
            mean2[b] = sum2[b] / weight2[b]
    return mean1, mean2


def hybrid_linear_terms(partners: FloatArray, bits: FloatArray) -> FloatArray:
    """(G, B, 3): Σ_a w_a r_a over the doubled cells of each group and draw.

    ``partners`` (G, 2, L, 3) each doubled cell's partners (z_i copies, then z_j copies);
    ``bits`` (G, B, L) the draws as float64. Hybrid 1 weighs the z_i copy u and the z_j copy
    1 - u: Σ_l r_j + Σ_l u_l (r_i - r_j), one batched product (exact: integers below 2^53).
    """
    own, other = partners[:, 0], partners[:, 1]
    if bits.shape[0] == 1:  # one group: a plain product (numpy's stacked one is far slower)
        swapped = (bits[0] @ (own[0] - other[0]))[None]
    else:
        swapped = np.matmul(bits, own - other)
    return other.sum(axis=1)[:, None, :] + swapped
