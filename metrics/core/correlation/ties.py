"""Tie calibration: the metric tie threshold ε that maximises acc23 (and so τ23).

Deutsch et al. 2023 ("Ties Matter", arXiv 2305.14324), mt-metrics-eval ``KendallWithTiesOpt``
/ ``tau_optimization.tau_optimization`` with ``sample_rate=1.0`` (every pair, no sampling):
the candidates are ε = 0 and every distinct |x_i - x_j| of a pair in one group; at ε a pair
with |Δx| <= ε is a metric tie; the objective is acc23 = (C + T_xy) / M of the pooled cells
(grouping ``none``) or the plain mean of the groups' acc23 over the groups that have a pair.
τ23 = 2·acc23 - 1 for every pair count, so both have the same optimum.

Raising ε past a pair's |Δx| changes the objective by +1 (human tie becomes a tie in both),
-1 (concordant becomes a metric tie) or 0 (discordant becomes a metric tie), times the
group's weight 1/(M_g · R). The first maximum, in increasing ε, is returned, so ε = 0 wins a
tie with it (mt-metrics-eval's ``np.nanargmax`` over its list does the same; its running
float sum may break exact ties between candidates differently — ours is exact for ``none``,
where the weights are 1, and uses a tolerance of 1e-9 of the smallest group weight otherwise).

Pooled segment level has N(N - 1)/2 pairs (27 M for 7,400 cells), too many to sort in memory.
The search is a two-pass branch and bound: a histogram of the changes over bins of |Δx|
(edges from the quantiles of a strided sample of pairs) bounds the objective inside each bin
by its value at the bin's start plus the bin's positive changes; only bins whose bound reaches
the best value seen at a bin edge are gathered and swept exactly. Memory stays at the size of
the gathered bins; time is two passes over the pairs (each pair: a subtraction and a compare).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..compiled import compiled
from ._pairs import sort_segments

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

BINS = 4096
"""Histogram bins of the branch and bound."""
SAMPLE_PAIRS = 250_000
"""About this many pairs are sampled to place the bin edges."""


@compiled
def _sample_diffs(
    seg_start: IntArray, x: FloatArray, stride: int
) -> FloatArray:  # pragma: no cover
    """Positive |Δx| of the pairs among every ``stride``-th cell of each segment."""
    total = 0
    for s in range(seg_start.shape[0] - 1):
        k = (seg_start[s + 1] - seg_start[s] + stride - 1) // stride
        total += k * (k - 1) // 2
    out = np.empty(total)
    n = 0
    for s in range(seg_start.shape[0] - 1):
        a = seg_start[s]
        e = seg_start[s + 1]
        for i in range(a, e, stride):
            for j in range(i + stride, e, stride):
                d = x[j] - x[i]
                if d > 0.0:
                    out[n] = d
                    n += 1
    return out[:n]


@compiled
def _histogram(  # pragma: no cover - compiled
    seg_start: IntArray,
    x: FloatArray,
    y: FloatArray,
    seg_w: FloatArray,
    edges: FloatArray,
    nbins: IntArray,
    measure_segments: IntArray,
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Per measure and bin [edges[m, b], edges[m, b+1]): net change, positive change, pairs.

    Measure m owns segments ``measure_segments[m]:measure_segments[m + 1]``. Within a row i the bins only move up, so sums stay in registers until the bin
    changes (no branch on the sign of Δy).
    """
    measures = measure_segments.shape[0] - 1
    width = edges.shape[1] - 1
    net = np.zeros((measures, width))
    pos = np.zeros((measures, width))
    count = np.zeros((measures, width), dtype=np.int64)
    for m in range(measures):
        e_m = edges[m]
        for s in range(measure_segments[m], measure_segments[m + 1]):
            a = seg_start[s]
            e = seg_start[s + 1]
            w = seg_w[s]
            first = a
            for i in range(a, e):
                xi = x[i]
                yi = y[i]
                if first <= i:
                    first = i + 1
                while first < e and x[first] <= xi:
                    first += 1
                b = 0
                limit = e_m[1]
                acc_net = 0.0
                acc_pos = 0.0
                acc_cnt = 0
                for j in range(first, e):
                    d = x[j] - xi
                    if d >= limit:
                        net[m, b] += w * acc_net
                        pos[m, b] += w * acc_pos
                        count[m, b] += acc_cnt
                        acc_net = 0.0
                        acc_pos = 0.0
                        acc_cnt = 0
                        b += 1
                        while d >= e_m[b + 1]:
                            b += 1
                        limit = e_m[b + 1]
                    dy = y[j] - yi
                    tie = 1.0 if dy == 0.0 else 0.0
                    up = 1.0 if dy > 0.0 else 0.0
                    acc_net += tie - up
                    acc_pos += tie
                    acc_cnt += 1 if dy >= 0.0 else 0
                net[m, b] += w * acc_net
                pos[m, b] += w * acc_pos
                count[m, b] += acc_cnt
    return net, pos, count


@compiled
def _gather(  # pragma: no cover - compiled
    seg_start: IntArray,
    x: FloatArray,
    y: FloatArray,
    seg_w: FloatArray,
    edges: FloatArray,
    take: npt.NDArray[np.bool_],
    size: int,
) -> tuple[FloatArray, FloatArray]:
    """|Δx| and change of every changing pair in the bins marked ``take``.

    Only the j whose |Δx| lies between the first and the last taken bin are visited: a binary
    search on the same subtraction finds the first.
    """
    diffs = np.empty(size)
    changes = np.empty(size)
    lo_bin = 0
    while not take[lo_bin]:
        lo_bin += 1
    hi_bin = take.shape[0] - 1
    while not take[hi_bin]:
        hi_bin -= 1
    low = edges[lo_bin]
    high = edges[hi_bin + 1]
    n = 0
    for s in range(seg_start.shape[0] - 1):
        a = seg_start[s]
        e = seg_start[s + 1]
        w = seg_w[s]
        for i in range(a, e):
            xi = x[i]
            yi = y[i]
            # first j > i with x[j] - xi > 0 and >= low
            left = i + 1
            right = e
            while left < right:
                mid = (left + right) // 2
                d = x[mid] - xi
                if d > 0.0 and d >= low:
                    right = mid
                else:
                    left = mid + 1
            b = lo_bin
            for j in range(left, e):
                d = x[j] - xi
                if d >= high:
                    break
                while d >= edges[b + 1]:
                    b += 1
                if take[b]:
                    dy = y[j] - yi
                    if dy >= 0.0:
                        diffs[n] = d
                        changes[n] = w if dy == 0.0 else -w
                        n += 1
    return diffs[:n], changes[:n]


def _edges(seg_start: IntArray, x: FloatArray) -> FloatArray:
    """Bin edges 0 = e_0 < ... < e_nb = inf from the quantiles of sampled positive |Δx|."""
    sizes = np.diff(seg_start)
    pairs = float((sizes * (sizes - 1) // 2).sum())
    stride = max(1, int(np.ceil(np.sqrt(pairs / SAMPLE_PAIRS))))
    sample = _sample_diffs(seg_start, x, stride)
    if sample.size == 0:
        return np.array([0.0, np.inf])
    inner = np.unique(np.quantile(sample, np.linspace(0.0, 1.0, BINS + 1)[1:-1]))
    inner = inner[inner > 0.0]
    return np.concatenate(([0.0], inner, [np.inf]))


def _tolerance(seg_w: FloatArray) -> float:
    positive = seg_w[seg_w > 0]
    if positive.size == 0 or bool(np.all(seg_w == np.round(seg_w))):
        return 0.0
    return 1e-9 * float(positive.min())


def _best(
    seg_start: IntArray,
    x: FloatArray,
    y: FloatArray,
    seg_w: FloatArray,
    edges: FloatArray,
    net: FloatArray,
    pos: FloatArray,
    count: IntArray,
) -> float:
    """The first maximising ε of one measure, from its histogram (module docstring)."""
    tol = _tolerance(seg_w)
    start = np.concatenate(([0.0], np.cumsum(net)[:-1]))  # value just before each bin
    best_seen = max(0.0, float((start + net).max()) if net.size else 0.0)
    take = (pos > 0) & (start + pos >= best_seen - tol)
    if not take.any():
        return 0.0
    diffs, changes = _gather(seg_start, x, y, seg_w, edges, take, int(count[take].sum()))
    order = np.argsort(diffs, kind="stable")
    diffs, changes = diffs[order], changes[order]
    which = np.searchsorted(edges, diffs, side="right") - 1
    running = np.cumsum(changes)
    # Restart the running sum at each gathered bin: value = start of bin + changes so far.
    first = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
    offset = np.repeat(running[first] - changes[first], np.diff(np.r_[first, running.size]))
    value = start[which] + running - offset
    last = np.r_[diffs[1:] != diffs[:-1], True]  # value after every pair at this |Δx|
    value, candidates = value[last], diffs[last]
    top = float(value.max())
    if top <= tol:
        return 0.0
    return float(candidates[np.flatnonzero(value >= top - tol)[0]])


def calibrate(
    hy: FloatArray, mx: FloatArray, valid: npt.NDArray[np.bool_], *, grouping: str
) -> FloatArray:
    """The acc23-maximising ε of every measure (module docstring), shape (M,).

    ``hy`` (G, L), ``mx`` (M, G, L), ``valid`` (M, G, L) as :mod:`._layout` builds them. The
    objective is relative to ε = 0; the smallest maximising candidate is returned.
    """
    measures, groups, _ = mx.shape
    seg_start, x, y, _, _, _ = sort_segments(hy, mx, valid)
    sizes = np.diff(seg_start).reshape(measures, groups).astype(np.float64)
    pairs = sizes * (sizes - 1) / 2.0
    if grouping == "none":
        seg_w = np.ones(measures * groups)
    else:
        rows = np.maximum((pairs > 0).sum(axis=1, keepdims=True), 1)
        with np.errstate(divide="ignore"):
            seg_w = np.where(pairs > 0, 1.0 / (pairs * rows), 0.0).ravel()
    all_edges = [
        _edges(
            seg_start[m * groups : (m + 1) * groups + 1] - seg_start[m * groups],
            x[seg_start[m * groups] : seg_start[(m + 1) * groups]],
        )
        for m in range(measures)
    ]
    width = max(e.size for e in all_edges)
    edges = np.full((measures, width), np.inf)
    for m, e in enumerate(all_edges):
        edges[m, : e.size] = e
    nbins = np.array([e.size - 1 for e in all_edges], dtype=np.int64)
    measure_segments = np.arange(0, measures * groups + 1, groups, dtype=np.int64)
    net, pos, count = _histogram(seg_start, x, y, seg_w, edges, nbins, measure_segments)
    result = np.zeros(measures)
    for m in range(measures):
        lo, hi = m * groups, (m + 1) * groups
        a, e = seg_start[lo], seg_start[hi]
        k = nbins[m]
        result[m] = _best(
            seg_start[lo : hi + 1] - a,
            x[a:e],
            y[a:e],
            seg_w[lo:hi],
            all_edges[m],
            net[m, :k],
            pos[m, :k],
            count[m, :k],
        )
    return result
