"""Pair counts of Kendall-type statistics in O(N log N) per group, optionally weighted.

For each measure m and group g, over the cells both scores have, the kernel counts the pairs
of cells by how the metric x and the human y order them. With a tie threshold ε a pair is a
metric tie when |x_i - x_j| <= ε (mt-metrics-eval ``KendallVariants(epsilon)``; ε = 0 is the
plain tie). The counts are

* ``C`` concordant (|Δx| > ε, Δy ≠ 0, same sign), ``D`` discordant;
* ``T_y`` tied in y only (|Δx| > ε, Δy = 0), ``T_x`` tied in x only, ``T_xy`` tied in both;
* ``M`` all pairs = W(W − 1)/2 with W the number of cells;
* with a Kendall-like threshold t > 0: ``N_t`` pairs with |Δy| >= t and ``C_t`` those of them
  concordant with strict metric order (|Δx| > 0); with t = 0, ``N_t = M`` and ``C_t = C``;
* ``nx``, ``ny`` the numbers of distinct x and y values (for τ-c).

**Weights** (bootstrap): cell i may stand for w_i copies (a resample drawn with replacement).
The counts are then those of the materialised sample: a pair of cells counts w_i·w_j times,
and the w_i(w_i − 1)/2 pairs of copies of one cell are tied in both. B weight vectors are
counted in one pass (the Fenwick tree holds a vector of B sums per node).

**Algorithm** (as scipy's ``kendalltau`` and mt-metrics-eval's Fenwick variant, extended to ε
and weights): cells sorted by x; walking up, a cell j enters a Fenwick tree over the dense
ranks of y once x_i - x_j > ε (a second pointer, so ε costs nothing); the tree gives the weight
of entered cells below, at and above y_i. T_xy, T_x follow from the per-rank sums of y
(y ties) and M. O(N log N) per group and weight vector. Below ``SINGLE_PRECISION_CELLS``
cells the tree holds float32 (twice the SIMD width; exact, as its sums never exceed the total
weight, which is the cell count for a resample or 0/1 choices) and the counts, products of
such sums, accumulate in float64. The kernel is serial: numba's OpenMP pool
cost about 8 ms per call on the loaded 2-core machine (its barrier waits for descheduled
threads), more than it saved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..compiled import compiled

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


SINGLE_PRECISION_CELLS = 2**24
"""Below this many cells the kernel's tree sums are float32 (integers are exact below 2^24)."""

# Output rows of the kernel.
_C, _D, _TYF, _CT, _NT, _W, _YTIE, _NX, _NY = range(9)
_ROWS = 9


@compiled
def _pair_kernel(  # pragma: no cover - compiled
    seg_start: IntArray,
    x: FloatArray,
    yrank: IntArray,
    cut: IntArray,
    cell: IntArray,
    weights: FloatArray,
    eps: FloatArray,
    ny_seg: IntArray,
    use_cut: bool,
    distinct_x: bool,
) -> FloatArray:
    """Counts of every segment (measure, group): rows of the module constants, B columns.

    Within segment s = [seg_start[s], seg_start[s + 1]) the cells are sorted by ``x``;
    ``yrank`` is the dense rank of y in the segment, ``cut`` the highest rank r with
    y_i - u_r >= t (-1 if none), ``cell`` the row of ``weights`` (cells × B). The distinct x
    values (τ-c only) are counted only with ``distinct_x``: it costs about a sixth of the time.
    """
    segments = seg_start.shape[0] - 1
    width = weights.shape[1]
    out = np.zeros((segments, _ROWS, width), np.float64)
    most = 1
    for s in range(segments):
        if ny_seg[s] > most:
            most = ny_seg[s]
    # Buffers allocated once and cleared per segment (small groups: allocation would dominate).
    tree = np.zeros((most + 1, width), weights.dtype)
    ysum = np.zeros((most, width), weights.dtype)
    entered = np.zeros(width, weights.dtype)
    lt = np.zeros(width, weights.dtype)
    le = np.zeros(width, weights.dtype)
    ct = np.zeros(width, weights.dtype)
    xclass = np.zeros(width, weights.dtype)
    for s in range(segments):
        a = seg_start[s]
        e = seg_start[s + 1]
        if e <= a:
            continue
        ny = ny_seg[s]
        for r in range(ny + 1):
            for b in range(width):
                tree[r, b] = 0.0
        for r in range(ny):
            for b in range(width):
                ysum[r, b] = 0.0
        for b in range(width):
            entered[b] = 0.0
            xclass[b] = 0.0
        res = out[s]
        eps_s = eps[s]
        ptr = a
        for i in range(a, e):
            # Cells far enough below x_i enter the tree.
            while ptr < i and x[i] - x[ptr] > eps_s:
                wp = weights[cell[ptr]]
                k = yrank[ptr] + 1
                while k <= ny:
                    row = tree[k]
                    for b in range(width):
                        row[b] += wp[b]
                    k += k & (-k)
                for b in range(width):
                    entered[b] += wp[b]
                ptr += 1
            wi = weights[cell[i]]
            # Prefix sums: ranks < r (lt) and <= r (le).
            r = yrank[i]
            for b in range(width):
                lt[b] = 0.0
            k = r
            while k > 0:
                row = tree[k]
                for b in range(width):
                    lt[b] += row[b]
                k -= k & (-k)
            # le = lt + the weight at rank r itself (Fenwick point query).
            k = r + 1
            row = tree[k]
            for b in range(width):
                le[b] = lt[b] + row[b]
            z = k - (k & (-k))
            k -= 1
            while k > z:
                row = tree[k]
                for b in range(width):
                    le[b] -= row[b]
                k -= k & (-k)
            for b in range(width):
                res[_C, b] += np.float64(wi[b]) * lt[b]
                res[_D, b] += np.float64(wi[b]) * (entered[b] - le[b])
                res[_TYF, b] += np.float64(wi[b]) * (le[b] - lt[b])
                ysum[r, b] += wi[b]
                res[_W, b] += wi[b]
            if use_cut:
                c = cut[i]
                for b in range(width):
                    ct[b] = 0.0
                k = c + 1
                while k > 0:
                    row = tree[k]
                    for b in range(width):
                        ct[b] += row[b]
                    k -= k & (-k)
                for b in range(width):
                    res[_CT, b] += np.float64(wi[b]) * ct[b]
            # Distinct x values with positive weight (tau-c).
            if distinct_x:
                if i > a and x[i] != x[i - 1]:
                    for b in range(width):
                        if xclass[b] > 0.0:
                            res[_NX, b] += 1.0
                        xclass[b] = 0.0
                for b in range(width):
                    xclass[b] += wi[b]
        if distinct_x:
            for b in range(width):
                if xclass[b] > 0.0:
                    res[_NX, b] += 1.0
        # y ties, distinct y values, and the Kendall-like pair count N_t.
        for r in range(ny):
            for b in range(width):
                v = np.float64(ysum[r, b])
                res[_YTIE, b] += v * (v - 1.0) * 0.5
                if v > 0.0:
                    res[_NY, b] += 1.0
        if use_cut:
            for r in range(1, ny):
                for b in range(width):
                    ysum[r, b] += ysum[r - 1, b]
            for i in range(a, e):
                c = cut[i]
                if c >= 0:
                    wi = weights[cell[i]]
                    for b in range(width):
                        res[_NT, b] += np.float64(wi[b]) * ysum[c, b]
    return out


@compiled
def _cut_ranks(  # pragma: no cover - compiled
    seg_start: IntArray, y: FloatArray, yrank: IntArray, ny_seg: IntArray, threshold: float
) -> IntArray:
    """Per cell: the highest dense y-rank r of its segment with y_i - u_r >= threshold, or -1.

    The distinct values u of a segment are gathered from the cells; the test is the
    subtraction mt-metrics-eval makes (``abs(a - b) >= thresh``), so rounding agrees with it.
    """
    n = y.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for s in range(seg_start.shape[0] - 1):
        a = seg_start[s]
        e = seg_start[s + 1]
        ny = ny_seg[s]
        if e <= a:
            continue
        values = np.empty(ny)
        for i in range(a, e):
            values[yrank[i]] = y[i]
        for i in range(a, e):
            lo = 0
            hi = yrank[i]  # candidates: ranks < own rank (threshold > 0)
            # Largest r in [0, hi) with y_i - values[r] >= threshold: the test is monotone in r.
            best = -1
            while lo < hi:
                mid = (lo + hi) // 2
                if y[i] - values[mid] >= threshold:
                    best = mid
                    lo = mid + 1
                else:
                    hi = mid
            out[i] = best
    return out


@compiled
def _partner_kernel(  # pragma: no cover - compiled
    seg_start: IntArray, x: FloatArray, yrank: IntArray, eps: FloatArray, ny_seg: IntArray
) -> FloatArray:
    """Per sorted cell, its partners in its segment (unit weights): concordant, discordant, tied
    in y only. Two sweeps of a Fenwick tree over y ranks: cells further than ε below in x,
    then above.
    """
    n = x.shape[0]
    out = np.zeros((n, 3))
    most = 1
    for s in range(seg_start.shape[0] - 1):
        if ny_seg[s] > most:
            most = ny_seg[s]
    tree = np.zeros(most + 1)
    for s in range(seg_start.shape[0] - 1):
        a = seg_start[s]
        e = seg_start[s + 1]
        ny = ny_seg[s]
        for direction in (1, -1):
            tree[:] = 0.0
            entered = 0.0
            first = a if direction == 1 else e - 1
            ptr = first
            for step in range(e - a):
                i = first + direction * step
                while ptr != i and direction * (x[i] - x[ptr]) > eps[s]:
                    k = yrank[ptr] + 1
                    while k <= ny:
                        tree[k] += 1.0
                        k += k & (-k)
                    entered += 1.0
                    ptr += direction
                below = 0.0
                k = yrank[i]
                while k > 0:
                    below += tree[k]
                    k -= k & (-k)
                at_or_below = 0.0
                k = yrank[i] + 1
                while k > 0:
                    at_or_below += tree[k]
                    k -= k & (-k)
                above = entered - at_or_below
                # Entered cells are below in x (first sweep) or above (second).
                out[i, 0] += below if direction == 1 else above
                out[i, 1] += above if direction == 1 else below
                out[i, 2] += at_or_below - below
    return out


@dataclass(frozen=True)
class PairCounts:
    """Counts per (weight vector b, measure m, group g): arrays of shape (B, M, G)."""

    concordant: FloatArray
    discordant: FloatArray
    tied_x: FloatArray
    tied_y: FloatArray
    tied_both: FloatArray
    pairs: FloatArray
    units: FloatArray
    threshold_concordant: FloatArray
    threshold_pairs: FloatArray
    distinct_x: FloatArray
    distinct_y: FloatArray


def sort_segments(
    hy: FloatArray, mx: FloatArray, valid: npt.NDArray[np.bool_]
) -> tuple[IntArray, FloatArray, FloatArray, IntArray, IntArray, IntArray]:
    """Cells of every segment (m, g), sorted by x within the segment.

    Returns (seg_start (M·G + 1), x, y, yrank, ny_seg (M·G), cell) where ``cell`` indexes the
    flattened (G, L) layout.
    """
    measures, groups, length = mx.shape
    xs, ys, ranks, cells, counts, nys = [], [], [], [], [], []
    flat_h = hy.ravel()
    group_of = np.repeat(np.arange(groups), length)
    for m in range(measures):
        idx = np.flatnonzero(valid[m].ravel())
        g = group_of[idx]
        x = mx[m].ravel()[idx]
        y = flat_h[idx]
        order = np.lexsort((x, g))
        idx, g, x, y = idx[order], g[order], x[order], y[order]
        # Dense rank of y within its group.
        yorder = np.lexsort((y, g))
        gy, yy = g[yorder], y[yorder]
        new = np.ones(yy.shape[0], dtype=bool)
        new[1:] = (gy[1:] != gy[:-1]) | (yy[1:] != yy[:-1])
        dense = np.cumsum(new) - 1
        per_group = np.bincount(gy[new], minlength=groups) if yy.size else np.zeros(groups, int)
        first = np.concatenate(([0], np.cumsum(per_group)[:-1]))
        rank_sorted = dense - first[gy]
        rank = np.empty_like(rank_sorted)
        rank[yorder] = rank_sorted
        xs.append(x)
        ys.append(y)
        ranks.append(rank)
        cells.append(idx)
        counts.append(np.bincount(g, minlength=groups))
        nys.append(per_group)
    seg_sizes = np.concatenate(counts) if counts else np.zeros(0, int)
    seg_start = np.concatenate(([0], np.cumsum(seg_sizes))).astype(np.int64)
    return (
        seg_start,
        np.concatenate(xs).astype(np.float64),
        np.concatenate(ys).astype(np.float64),
        np.concatenate(ranks).astype(np.int64),
        np.concatenate(nys).astype(np.int64),
        np.concatenate(cells).astype(np.int64),
    )


@dataclass(frozen=True)
class Segments:
    """Cells of every (measure, group) sorted for the kernel; reusable across weight vectors."""

    measures: int
    groups: int
    length: int
    seg_start: IntArray
    x: FloatArray
    yrank: IntArray
    ny_seg: IntArray
    cell: IntArray
    cut: IntArray
    use_cut: bool


def prepare(
    hy: FloatArray,
    mx: FloatArray,
    valid: npt.NDArray[np.bool_],
    *,
    threshold: float | None = None,
) -> Segments:
    """Sort the cells of ``mx`` (M, G, L) for :func:`count` (``threshold``: Kendall-like's)."""
    measures, groups, length = mx.shape
    seg_start, x, y, yrank, ny_seg, cell = sort_segments(hy, mx, valid)
    use_cut = threshold is not None and threshold > 0
    if use_cut:
        cut = _cut_ranks(seg_start, y, yrank, ny_seg, float(threshold))
    else:
        cut = np.zeros(x.shape[0], dtype=np.int64)
    return Segments(measures, groups, length, seg_start, x, yrank, ny_seg, cell, cut, use_cut)


def kernel_weights(segments: Segments, weights: FloatArray | None) -> FloatArray:
    """(B, G, L) or (B, 1, L) weights laid out as the kernel reads them: cells × B, contiguous."""
    groups, length = segments.groups, segments.length
    # float32 doubles the SIMD width of the tree; its sums stay below the total weight (the
    # cell count, for a resample or 0/1 choices), exact below 2^24.
    dtype = np.float32 if groups * length < SINGLE_PRECISION_CELLS else np.float64
    if weights is None:
        return np.ones((groups * length, 1), dtype=dtype)
    full = np.broadcast_to(weights, (weights.shape[0], groups, length))
    return np.ascontiguousarray(full.reshape(weights.shape[0], -1).T, dtype=dtype)


def raw_counts(
    segments: Segments,
    epsilon: FloatArray | None,
    cell_weights: FloatArray,
    *,
    distinct_x: bool = True,
) -> FloatArray:
    """The kernel's counts: (M·G, rows, B), rows as the module constants (``_NX`` is 0
    without ``distinct_x``)."""
    measures, groups = segments.measures, segments.groups
    eps = np.zeros(measures) if epsilon is None else np.asarray(epsilon, dtype=np.float64)
    if eps.shape != (measures,):
        eps = np.broadcast_to(eps, (measures,)).astype(np.float64)
    return _pair_kernel(
        segments.seg_start,
        segments.x,
        segments.yrank,
        segments.cut,
        segments.cell,
        cell_weights,
        np.repeat(eps, groups),
        segments.ny_seg,
        segments.use_cut,
        distinct_x,
    )


def count(
    segments: Segments,
    *,
    epsilon: FloatArray | None = None,
    weights: FloatArray | None = None,
    cell_weights: FloatArray | None = None,
) -> PairCounts:
    """The counts of :func:`pair_counts` from prepared segments.

    ``cell_weights`` gives the weights already in the kernel's layout (from
    :func:`kernel_weights`), for callers that count many segments with the same weights.
    """
    measures, groups = segments.measures, segments.groups
    if cell_weights is None:
        cell_weights = kernel_weights(segments, weights)
    width = cell_weights.shape[1]
    raw = raw_counts(segments, epsilon, cell_weights)
    # (M·G, rows, B) -> rows of (B, M, G)
    raw = raw.reshape(measures, groups, _ROWS, width).transpose(2, 3, 0, 1)
    units = raw[_W]
    pairs = units * (units - 1.0) * 0.5
    c, d, tyf = raw[_C], raw[_D], raw[_TYF]
    metric_ties = pairs - c - d - tyf
    both = raw[_YTIE] - tyf
    if segments.use_cut:
        tc, tn = raw[_CT], raw[_NT]
    else:
        tc, tn = c, pairs
    return PairCounts(
        concordant=c,
        discordant=d,
        tied_x=metric_ties - both,
        tied_y=tyf,
        tied_both=both,
        pairs=pairs,
        units=units,
        threshold_concordant=tc,
        threshold_pairs=tn,
        distinct_x=raw[_NX],
        distinct_y=raw[_NY],
    )


def pair_counts(
    hy: FloatArray,
    mx: FloatArray,
    valid: npt.NDArray[np.bool_],
    *,
    epsilon: FloatArray | None = None,
    threshold: float | None = None,
    weights: FloatArray | None = None,
) -> PairCounts:
    """Pair counts (module docstring) of every measure and group, for each weight vector.

    Args:
        hy: (G, L) human scores of the grouped layout.
        mx: (M, G, L) metric scores.
        valid: (M, G, L) cells that take part.
        epsilon: (M,) metric tie threshold per measure (default 0).
        threshold: Kendall-like minimum |Δy| (None or 0: every pair, ``N_t = M``).
        weights: (B, G, L) or (B, 1, L) cell multiplicities (default: one vector of ones).
    """
    return count(prepare(hy, mx, valid, threshold=threshold), epsilon=epsilon, weights=weights)


def pair_values(name: str, counts: PairCounts) -> tuple[FloatArray, FloatArray]:
    """(values, n) of a pair coefficient from its counts, both (B, M, G); NaN where undefined.

    ``n`` is the number of pairs: M for every coefficient but Kendall-like (N_t).
    """
    c, d = counts.concordant, counts.discordant
    tot = counts.pairs
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "kendall-a":
            value = np.where(tot > 0, (c - d) / tot, np.nan)
        elif name == "kendall-b":
            xtie = counts.tied_x + counts.tied_both
            ytie = counts.tied_y + counts.tied_both
            defined = (tot > 0) & (xtie < tot) & (ytie < tot)
            value = np.where(defined, (c - d) / np.sqrt(tot - xtie) / np.sqrt(tot - ytie), np.nan)
        elif name == "kendall-c":
            xtie = counts.tied_x + counts.tied_both
            ytie = counts.tied_y + counts.tied_both
            classes = np.minimum(counts.distinct_x, counts.distinct_y)
            size = counts.units
            defined = (tot > 0) & (xtie < tot) & (ytie < tot) & (classes > 1)
            value = np.where(defined, 2.0 * (c - d) / (size**2 * (classes - 1.0) / classes), np.nan)
        elif name == "kendall-like":
            tc, tn = counts.threshold_concordant, counts.threshold_pairs
            # mt-metrics-eval's KendallLike returns 0 when no pair reaches the threshold.
            value = np.where(tn > 0, (2.0 * tc - tn) / tn, np.where(counts.units >= 2, 0.0, np.nan))
            return np.clip(value, -1.0, 1.0), tn
        elif name in ("acc23", "accuracy"):
            value = np.where(tot > 0, (c + counts.tied_both) / tot, np.nan)
        elif name == "tau23":
            value = np.where(tot > 0, 2.0 * (c + counts.tied_both) / tot - 1.0, np.nan)
        else:  # pragma: no cover - guarded by the callers
            raise ValueError(name)
    if name in ("kendall-b", "kendall-c"):
        value = np.clip(value, -1.0, 1.0)
    return value, tot


def partner_counts(segments: Segments, epsilon: FloatArray | None = None) -> FloatArray:
    """(M, G·L, 3): each cell's concordant, discordant and y-only-tied partners (unit weights)."""
    measures, groups = segments.measures, segments.groups
    eps = np.zeros(measures) if epsilon is None else np.asarray(epsilon, dtype=np.float64)
    eps = np.broadcast_to(eps, (measures,)).astype(np.float64)
    sorted_partners = _partner_kernel(
        segments.seg_start, segments.x, segments.yrank, np.repeat(eps, groups), segments.ny_seg
    )
    cells = groups * segments.length
    out = np.zeros((measures, cells, 3))
    measure = np.repeat(
        np.arange(measures), np.diff(segments.seg_start).reshape(measures, -1).sum(1)
    )
    out[measure, segments.cell] = sorted_partners
    return out
