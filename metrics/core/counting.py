"""Sorting, counting and merging m-gram keys: numpy, or the compiled kernels where they pay.

The compiled versions (:mod:`.kernels`) are faster on a test set's worth of chrF keys, but
numba costs a process about 0.7 s before its first kernel runs (its import, which brings
scipy, and its code generator's set-up), more than numpy loses on one system of a few
thousand lines. So a call uses the compiled kernel when numba is already loaded in the
process (a worker warms it up at start; a run has paid it) or once the process has counted
enough keys to pay the set-up back (``COMPILED_MIN_KEYS``); until then numpy. Both give
identical results.
"""

from __future__ import annotations

import sys

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]

COMPILED_MIN_KEYS = 200_000_000
"""Keys counted in a process after which it loads numba. numpy's counting was about 0.012 s
slower per 10^6 chrF keys than the compiled kernels (16 WMT17 systems, 7.5·10^7 keys: 3.7 s
against 2.8 s), so numba's 0.7 s set-up equals some 6·10^7 keys of that; the switch was at
10^7. But the command line now scores 2,048 segments at a time (``Measure.whole_score``),
where numpy's sorts are small and fast: chrF of 48,064 lines (8.7·10^7 keys counted) took
3.2-3.7 s on numpy against 3.7-4.6 s with numba, whose import and kernels also add 130 MB
to the process. Processes that run many systems load numba anyway (workers warm it up);
one that stays on numpy for 2·10^8 keys has lost at most about 2.4 s at the rate above."""

_counted = 0


def _use_compiled(size: int) -> bool:
    global _counted
    _counted += size
    return "numba" in sys.modules or _counted >= COMPILED_MIN_KEYS


def _numpy_sorted(values: IntArray) -> IntArray:
    """``np.sort``, through int32 where the keys span less than 2^31: numpy sorts 32-bit
    integers about 1.7 times as fast as 64-bit ones (one system's chrF keys fit)."""
    if values.size == 0:
        return values.copy()
    low = int(values.min())
    if int(values.max()) - low >= 2**31:
        return np.sort(values)
    return np.sort((values - low).astype(np.int32)).astype(np.int64) + low


def sorted_keys(values: IntArray) -> IntArray:
    """``np.sort`` of int64 keys (compiled: a radix sort, :func:`.kernels.sorted_keys`)."""
    values = values.astype(np.int64, copy=False)
    if _use_compiled(values.size):
        from . import kernels

        return kernels.sorted_keys(values)
    return _numpy_sorted(values)


def grouped_counts(values: IntArray, groups: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct ``values``, sorted, with their counts, where ``values`` already ascend from
    one run of equal ``groups`` to the next (keys owner·n + type, owners in order).

    The compiled kernel sorts each run alone (a segment's few dozen m-grams); numpy sorts the
    whole array, which gives the same order because the runs ascend.
    """
    values = values.astype(np.int64, copy=False)
    if _use_compiled(values.size):
        from . import kernels

        return kernels.grouped_counts(values, groups.astype(np.int64, copy=False))
    return run_counts(_numpy_sorted(values))


def run_counts(ordered: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct values of a sorted array and how often each occurs, in one pass."""
    if ordered.size == 0:
        return ordered, np.zeros(0, dtype=np.int64)
    first = np.empty(ordered.size, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return ordered[starts], np.diff(starts, append=ordered.size)


def merged_minimum(
    keys: IntArray, counts: IntArray, other_keys: IntArray, other_counts: IntArray
) -> IntArray:
    """min(count, other count) per key, 0 where ``other_keys`` lacks it; both key arrays sorted.

    Compiled: one pass over both arrays (reads the large reference array in order); numpy: a
    binary search per key.
    """
    keys = keys.astype(np.int64, copy=False)
    counts = counts.astype(np.int64, copy=False)
    other_keys = other_keys.astype(np.int64, copy=False)
    other_counts = other_counts.astype(np.int64, copy=False)
    if _use_compiled(keys.size + other_keys.size):
        from . import kernels

        return kernels.merged_minimum(keys, counts, other_keys, other_counts)
    if other_keys.size == 0:
        return np.zeros(keys.size, dtype=np.int64)
    index = np.minimum(np.searchsorted(other_keys, keys), other_keys.size - 1)
    return np.where(other_keys[index] == keys, np.minimum(counts, other_counts[index]), 0)
