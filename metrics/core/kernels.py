"""Compiled (numba) kernels: the edit-distance DP shared by WER with word costs and CDER, the
merge that clips m-gram counts (:func:`merged_minimum`), the count of m-gram keys grouped by
segment (:func:`grouped_counts`) and a radix sort of keys (:func:`sorted_keys`).

One dynamic program serves WER (Levenshtein, measures spec §7, Alg. 4.1) and CDER (the
CDCD-distance with long jumps, §9.2–9.4, Alg. 4.2 corrected). The grid follows the thesis:
nodes (i, l) lie between words, i over candidate positions (columns) and l over reference
positions (rows); a horizontal edge deletes candidate word e_i (c_DEL), a vertical edge
inserts reference word ẽ_l (c_INS), a diagonal edge matches or substitutes (s(e_i, ẽ_l)),
and a long jump (c_LJ) moves to any column of the current row, column 0 included (§9.3).
Row 0 is min(i·c_DEL, c_LJ) with a fixed start and 0 with a free start; the result is
Q(I, L) with a fixed end and min_i Q(i, L) with a free end (§9.4).

Why compiled: CDER is to take at most three times WER's time, and WER runs on rapidfuzz's
C++ Levenshtein. A numpy DP vectorised over rows cannot get there; this plain two-loop DP over
integer word ids, compiled by numba, does (docs/performance.md). It runs many pairs per call,
so the Python work per pair is only looking up and packing the ids. Plain loops and offsets
instead of array slices keep the compile time down (slice assignments tripled it);
:mod:`.compiled` caches the machine code.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .compiled import compiled

NO_JUMP = math.inf
"""``jump_cost`` for plain Levenshtein: a jump of infinite cost never improves a cell."""


@compiled
def _fill(
    hyp_ids: npt.NDArray[np.int64],
    hyp_start: int,
    width: int,
    ref_ids: npt.NDArray[np.int64],
    ref_start: int,
    height: int,
    costs: npt.NDArray[np.float64],
    cost_start: int,
    unit: bool,
    c_ins: float,
    c_del: float,
    jump_cost: float,
    start_fixed: bool,
    end_fixed: bool,
    row: npt.NDArray[np.float64],
    grid: npt.NDArray[np.float64],
    keep_grid: bool,
) -> float:
    """DP of one pair in ``row`` (length ≥ I + 1); the distance, and every row in ``grid``.

    The pair's words are ``hyp_ids[hyp_start:hyp_start + width]`` (I = width) and likewise for
    the reference (L = height); offsets rather than slices keep the compile time down. With
    ``unit`` costs s(e_i, ẽ_l) = [id of e_i ≠ id of ẽ_l]; otherwise it is
    ``costs[cost_start + (i − 1)·L + (l − 1)]`` (the pair's (I, L) matrix, row-major).
    """
    jumps = jump_cost < math.inf
    for i in range(width + 1):
        if start_fixed:
            row[i] = min(i * c_del, jump_cost)
        else:
            row[i] = 0.0
    if keep_grid:
        for i in range(width + 1):
            grid[0, i] = row[i]
    for j in range(1, height + 1):  # row j: reference position l = j
        diagonal = row[0]  # Q(i − 1, l − 1) while row[i − 1] already holds Q(i − 1, l)
        row[0] = diagonal + c_ins
        row_min = row[0]
        for i in range(1, width + 1):
            if unit:
                sub = 0.0 if hyp_ids[hyp_start + i - 1] == ref_ids[ref_start + j - 1] else 1.0
            else:
                sub = costs[cost_start + (i - 1) * height + (j - 1)]
            above = row[i]
            value = min(diagonal + sub, above + c_ins, row[i - 1] + c_del)
            diagonal = above
            row[i] = value
            row_min = min(row_min, value)
        if jumps:
            # One relaxation per row is exact: a jump cannot lower the row minimum (§9.3).
            limit = row_min + jump_cost
            for i in range(width + 1):
                row[i] = min(row[i], limit)
        if keep_grid:
            for i in range(width + 1):
                grid[j, i] = row[i]
    if end_fixed:
        return row[width]
    best = row[0]
    for i in range(1, width + 1):
        best = min(best, row[i])
    return best


@compiled
def _packed_distances(
    hyp_ids: npt.NDArray[np.int64],
    hyp_starts: npt.NDArray[np.int64],
    ref_ids: npt.NDArray[np.int64],
    ref_starts: npt.NDArray[np.int64],
    costs: npt.NDArray[np.float64],
    cost_starts: npt.NDArray[np.int64],
    unit: bool,
    c_ins: float,
    c_del: float,
    jump_cost: float,
    start_fixed: bool,
    end_fixed: bool,
) -> npt.NDArray[np.float64]:
    pairs = hyp_starts.size - 1
    result = np.empty(pairs)
    longest = 0
    for p in range(pairs):
        longest = max(longest, hyp_starts[p + 1] - hyp_starts[p])
    row = np.empty(longest + 1)
    no_grid = np.empty((0, 0))
    for p in range(pairs):
        result[p] = _fill(
            hyp_ids,
            hyp_starts[p],
            hyp_starts[p + 1] - hyp_starts[p],
            ref_ids,
            ref_starts[p],
            ref_starts[p + 1] - ref_starts[p],
            costs,
            0 if unit else cost_starts[p],
            unit,
            c_ins,
            c_del,
            jump_cost,
            start_fixed,
            end_fixed,
            row,
            no_grid,
            False,
        )
    return result


@compiled
def _grid(
    costs: npt.NDArray[np.float64],
    width: int,
    height: int,
    c_ins: float,
    c_del: float,
    jump_cost: float,
    start_fixed: bool,
    end_fixed: bool,
) -> tuple[float, npt.NDArray[np.float64]]:
    # No word ids: with unit=False every cost comes from the matrix.
    no_ids = np.empty(0, dtype=np.int64)
    grid = np.empty((height + 1, width + 1))
    row = np.empty(width + 1)
    distance = _fill(
        no_ids,
        0,
        width,
        no_ids,
        0,
        height,
        costs,
        0,
        False,
        c_ins,
        c_del,
        jump_cost,
        start_fixed,
        end_fixed,
        row,
        grid,
        True,
    )
    return distance, grid


def packed_distances(
    hyp_ids: npt.NDArray[np.int64],
    hyp_starts: npt.NDArray[np.int64],
    ref_ids: npt.NDArray[np.int64],
    ref_starts: npt.NDArray[np.int64],
    costs: npt.NDArray[np.float64] | None = None,
    cost_starts: npt.NDArray[np.int64] | None = None,
    *,
    c_ins: float = 1.0,
    c_del: float = 1.0,
    jump_cost: float = NO_JUMP,
    start_fixed: bool = True,
    end_fixed: bool = True,
) -> npt.NDArray[np.float64]:
    """Distances of P pairs packed into flat arrays.

    Args:
        hyp_ids, ref_ids: the word ids of all pairs, one after another (equal id = equal word).
        hyp_starts, ref_starts: P + 1 offsets; pair p is ``ids[starts[p]:starts[p + 1]]``.
        costs: None for unit costs (s = 0 for equal ids, else 1); otherwise every pair's
            (I_p, L_p) substitution matrix, row-major, one after another, with
            ``cost_starts`` (P offsets) where each begins.
        c_ins, c_del: costs of vertical and horizontal edges. jump_cost: c_LJ, or
            :data:`NO_JUMP` for Levenshtein. start_fixed, end_fixed: the pad rule (§9.4).
    """
    unit = costs is None
    empty = np.empty(0, dtype=np.int64)
    return _packed_distances(
        hyp_ids.astype(np.int64, copy=False),
        hyp_starts.astype(np.int64, copy=False),
        ref_ids.astype(np.int64, copy=False),
        ref_starts.astype(np.int64, copy=False),
        np.empty(0) if costs is None else costs.astype(np.float64, copy=False),
        empty if cost_starts is None else cost_starts.astype(np.int64, copy=False),
        unit,
        float(c_ins),
        float(c_del),
        float(jump_cost),
        bool(start_fixed),
        bool(end_fixed),
    )


def distance_grid(
    sub: npt.NDArray[np.float64],
    *,
    c_ins: float = 1.0,
    c_del: float = 1.0,
    jump_cost: float = NO_JUMP,
    start_fixed: bool = True,
    end_fixed: bool = True,
) -> tuple[float, npt.NDArray[np.float64]]:
    """Distance and full DP grid (L + 1, I + 1) of one pair from its (I, L) cost matrix."""
    width, height = sub.shape
    distance, grid = _grid(
        np.ascontiguousarray(sub, dtype=np.float64).ravel(),
        width,
        height,
        float(c_ins),
        float(c_del),
        float(jump_cost),
        bool(start_fixed),
        bool(end_fixed),
    )
    return float(distance), grid


@compiled
def _merged_minimum(
    keys: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    other_keys: npt.NDArray[np.int64],
    other_counts: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    result = np.zeros(keys.size, dtype=np.int64)
    j = 0
    for i in range(keys.size):
        while j < other_keys.size and other_keys[j] < keys[i]:
            j += 1
        if j == other_keys.size:
            break
        if other_keys[j] == keys[i]:
            result[i] = min(counts[i], other_counts[j])
    return result


def merged_minimum(
    keys: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    other_keys: npt.NDArray[np.int64],
    other_counts: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    """min(count, other count) per key, 0 where ``other_keys`` lacks it; both key arrays sorted.

    One pass over both arrays. Clipping a chunk's m-gram counts against a test set's reference
    counts by binary search reads the large reference array at random; this reads it in order,
    which is faster and suffers less when two workers share a cache.
    """
    return _merged_minimum(
        keys.astype(np.int64, copy=False),
        counts.astype(np.int64, copy=False),
        other_keys.astype(np.int64, copy=False),
        other_counts.astype(np.int64, copy=False),
    )


@compiled
def _radix_sorted(values: npt.NDArray[np.int64], low: int, span: int) -> npt.NDArray[np.int64]:
    source = values - low
    target = np.empty_like(source)
    shift = 0
    while shift < 63 and (span >> shift) > 0:  # a shift by 64 is undefined (x86: by 0)
        starts = np.zeros(RADIX + 1, dtype=np.int64)
        for value in source:
            starts[((value >> shift) & (RADIX - 1)) + 1] += 1
        for digit in range(RADIX):
            starts[digit + 1] += starts[digit]
        for value in source:
            digit = (value >> shift) & (RADIX - 1)
            target[starts[digit]] = value
            starts[digit] += 1
        source, target = target, source
        shift += RADIX_BITS
    return source + low


RADIX_BITS = 16
RADIX = 1 << RADIX_BITS


def sorted_keys(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``np.sort`` of int64 keys by a least-significant-digit radix sort (16 bits a pass).

    m-gram keys span up to about 2^40, so three passes. numpy's sort is slow on processors
    without its SIMD sort (such as the project's AMD EPYC), where this is several times
    faster. Fewer keys than digits, or keys spanning more than 2^62, go to numpy.
    """
    values = values.astype(np.int64, copy=False)
    if values.size < RADIX:  # a pass clears and sums a histogram of 2^16 digits
        return np.sort(values)
    low, high = int(values.min()), int(values.max())
    if high - low >= 1 << 62:
        return np.sort(values)
    return _radix_sorted(values, low, high - low)


@compiled
def _grouped_counts(
    values: npt.NDArray[np.int64], groups: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    ordered = values.copy()
    start = 0
    while start < ordered.size:
        end = start + 1
        while end < ordered.size and groups[end] == groups[start]:
            end += 1
        ordered[start:end].sort()
        start = end
    distinct = np.empty(ordered.size, dtype=np.int64)
    counts = np.empty(ordered.size, dtype=np.int64)
    found = 0
    for i in range(ordered.size):
        if found > 0 and distinct[found - 1] == ordered[i]:
            counts[found - 1] += 1
        else:
            distinct[found] = ordered[i]
            counts[found] = 1
            found += 1
    return distinct[:found], counts[:found]


def grouped_counts(
    values: npt.NDArray[np.int64], groups: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct ``values``, sorted, with their counts, where ``values`` already ascend from
    one run of equal ``groups`` to the next (keys owner·n + type, owners in order).

    Sorting each run (a segment's few dozen m-grams) instead of the whole array: numpy's sort
    of 10^5-10^6 int64 keys is slow on processors without its SIMD sort, and m-gram counting
    is most of chrF's time.
    """
    return _grouped_counts(values.astype(np.int64, copy=False), groups.astype(np.int64, copy=False))


def warm_up(*others: Callable[[], object]) -> None:
    """Load (or compile) every kernel of this module now rather than at its first use, then
    call ``others``: the warm-ups of kernels kept beside their measures, such as
    ``invwer.warm_up`` and ``ljwer.warm_up`` (those modules import this one, so the caller
    passes them in).

    A worker process calls this once at start, so the first chunk of a run does not wait for
    numba.
    """
    ids = np.zeros(2, dtype=np.int64)
    starts = np.array([0, 2], dtype=np.int64)
    packed_distances(ids, starts, ids, starts)
    packed_distances(ids, starts, ids, starts, np.zeros(4), np.zeros(1, dtype=np.int64))
    distance_grid(np.zeros((2, 2)))
    merged_minimum(ids, ids, ids, ids)
    grouped_counts(ids, ids)
    sorted_keys(np.arange(RADIX, dtype=np.int64))
    for other in others:
        other()
