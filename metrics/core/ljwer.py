"""LJWER, the long-jump distance: block movement with every word covered once (spec §8).

Thesis §4.4.1; Lopresti & Tomkins, "Block edit models for approximate string matching",
Theoretical Computer Science 181, 1997 (NP-hard). Candidate and reference are split into
blocks that cover both sentences completely and disjointly; words within a block are
Levenshtein-aligned and every block boundary costs a long jump (c_LJ = 1). The path starts at
(0, 0) and ends at (I, L), so a first block not starting at the first candidate word, or a
last one not ending at the last, costs a jump too (spec §8 [R]).

Exact algorithm (spec §8 [R]): a Held–Karp DP over states (row l, column i, covered
candidate positions C), time and space O(L · I · 2^I); d_LJ is symmetric, so the shorter
sentence is the bitmask side. Two implementations:

* :func:`long_jump_distance`, the DP as the spec writes it, every state, vectorised with
  numpy per popcount level. It is the reference the tests hold the other one to.
* :func:`bounded_long_jump_distance`, compiled (numba), which scores and aligns: given the
  cost of a real path (``upper``), it keeps only the states from which a path can still
  finish below it. The cost to come from (l, i, C) is at least d_PER of the uncovered words
  against the reference words after l, plus one jump into every run of uncovered words not
  starting at i (and one back to column I at the end). On real pairs a few hundred of the
  2^I sets survive per row, and :func:`long_jump_between` asks for lower bound + 1, + 2, …
  so the bound stays tight and real pairs take a small fraction of the full DP's time.

Bounds (spec §8, §9.6), with unit costs and c_LJ = 1 as here:

    max(d_CDCD(E, Ẽ), d_CDCD(Ẽ, E), d_ΔI) ≤ d_LJ(E, Ẽ) ≤ d_LEV(E, Ẽ)

d_CDCD (CDER forward, pad rule ``both``: the same fixed start and end) relaxes the LJ
constraints, so it is a lower bound; so is the backward direction, as d_LJ is symmetric; a
Levenshtein path is an LJ path without jumps. Where the lower bound reaches d_LEV, d_LJ = d_LEV
exactly and no DP runs (:func:`long_jump_lower_bounds`); on real data this settles most
pairs. Eq. 4.19's other lower bound is false (spec §9.6) and is not used.

The DP runs when the shorter side has at most ``max-length`` words (default 20, the spec's
app policy; at most 24, as the arrays have 2^I rows). Longer pairs whose bounds differ get
the upper bound d_LEV and are counted in ``approximated_segments``. The thesis' own
approximation beyond ~25 words is not described (spec §8), so none is imitated.

Alignment (:func:`long_jump_path`, ``LJWER.align``): the pruned DP at ``upper`` = d_LJ + 1
records the states it keeps, every state of every optimal path among them with its exact
value, and the best path is backtracked from (L, I, all covered). When the candidate is the
longer sentence the DP runs transposed, over candidate rows, so its blocks come in candidate
order; they are put back in reference order (:func:`_in_reference_order`) with the same
number of jumps. The result is the edges, the long jumps (``jump`` operations, as in CDER)
and the blocks, whose costs add up to d_LJ. Beyond ``max-length`` the Levenshtein path is
returned, marked approximate unless the bounds meet (then it is an optimal LJ path).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein

from .alignment import Alignment, EditOp, edit_distances, grid_and_path, unit_substitution_matrix
from .base import Option
from .compiled import compiled
from .error_rate import REF_LENGTH_OPTION, TEXT_OPTIONS, ErrorRateMeasure, TokenPair

_UNREACHABLE = 1 << 30
"""Start value of unreached states; int32 headroom for the +1 per row and column."""
JUMP_COST = 1
MAX_EXACT_LENGTH = 24
"""Highest ``max-length``: the DP's arrays have 2^I rows (24 words: six 128 MB arrays of
marks and lists, and 1.6 GB of address space per value array)."""
IntArray = npt.NDArray[np.int64]
Layer = npt.NDArray[np.int32]
"""One row l of the DP: ``layer[C, i]`` = D(l, i, C), C a bitmask over the columns."""


@lru_cache(maxsize=32)
def _levels(width: int) -> list[tuple[IntArray, list[tuple[int, IntArray, IntArray]]]]:
    """Per popcount k: its masks, and (column i, masks containing i, the same without i)."""
    masks = np.arange(1 << width, dtype=np.int64)
    popcounts = np.array([bin(mask).count("1") for mask in range(1 << width)])
    levels = []
    for k in range(width + 1):
        level_masks = masks[popcounts == k]
        entries = []
        for i in range(1, width + 1):
            bit = 1 << (i - 1)
            with_i = level_masks[(level_masks & bit) != 0]
            entries.append((i, with_i, with_i ^ bit))
        levels.append((level_masks, entries))
    return levels


def _held_karp(columns: Sequence[str], rows: Sequence[str]) -> int:
    """The DP of spec §8 with ``columns`` as the bitmask side, every state: d_LJ.

    Rows are int32: the values are path costs, at most L + 2I + 2, and the smaller type is
    also faster than int64. Two rows are alive at a time.
    """
    width = len(columns)
    levels = _levels(width)
    previous: Layer | None = None
    for row_index in range(len(rows) + 1):
        row = np.full((1 << width, width + 1), _UNREACHABLE, dtype=np.int32)
        if previous is None:
            row[0, 0] = 0
        else:
            row[:] = previous + 1  # insertion of the row's word
            # Python ints, so that adding them keeps int32 (a numpy int64 would upcast).
            sub = [int(word != rows[row_index - 1]) for word in columns]
        for masks, entries in levels:
            for i, with_i, without_i in entries:
                best = row[without_i, i - 1] + 1  # deletion of column word i
                if previous is not None:
                    np.minimum(best, previous[without_i, i - 1] + sub[i - 1], out=best)
                row[with_i, i] = np.minimum(row[with_i, i], best)
            jumps = row[masks].min(axis=1, keepdims=True) + JUMP_COST
            row[masks] = np.minimum(row[masks], jumps)
        previous = row
    assert previous is not None
    return int(previous[(1 << width) - 1, width])


def long_jump_distance(hyp: Sequence[str], ref: Sequence[str]) -> int:
    """d_LJ with unit costs, exactly (exponential in the shorter length).

    Example:
        >>> long_jump_distance("c d a b".split(), "a b c d".split())
        3
    """
    if len(hyp) > len(ref):
        hyp, ref = ref, hyp  # symmetric with c_INS = c_DEL
    return _held_karp(hyp, ref)


def bounded_long_jump_distance(hyp: Sequence[str], ref: Sequence[str], upper: int) -> int:
    """min(d_LJ, ``upper``), where ``upper`` is the cost of a real LJ path (such as d_LEV).

    The same DP as :func:`long_jump_distance`, compiled, that drops every coverage set from
    which no path can finish below ``upper`` (:func:`_pruned_held_karp`). On real sentence
    pairs, whose d_LJ lies within a few edits of d_LEV, the bound drops most sets, and even
    on random pairs it drops enough to be far faster than the full DP.

    Example:
        >>> bounded_long_jump_distance("c d a b".split(), "a b c d".split(), 4)
        3
    """
    if len(hyp) > len(ref):
        hyp, ref = ref, hyp
    columns, rows, vocabulary = _word_ids(hyp, ref)
    nothing = np.zeros(0, dtype=np.int64)
    no_values = np.zeros((0, len(hyp) + 1), dtype=np.int32)
    distance, _ = _SCRATCH.run(columns, rows, vocabulary, upper, nothing, no_values, nothing)
    return int(distance)


class _Scratch(threading.local):
    """Working memory of :func:`_pruned_held_karp`, kept from call to call in each thread.

    At 20 words the DP needs 2 × 88 MB of value rows (touched only where sets survive) and
    six 8 MB arrays of marks and lists; allocating and clearing them took longer than the
    DP itself on most real pairs. Marks from earlier calls stay below ``base``.
    """

    def __init__(self) -> None:
        self.width = -1
        self.base = 0

    def run(
        self,
        columns: IntArray,
        rows: IntArray,
        vocabulary: int,
        upper: int,
        record_masks: IntArray,
        record_values: Layer,
        record_offsets: IntArray,
    ) -> tuple[int, int]:
        width = len(columns)
        if width > self.width:
            masks = 1 << width
            self.values = np.empty((2, masks * (width + 1)), dtype=np.int32)
            self.marks = np.full((3, masks), -1, dtype=np.int64)
            self.lists = np.empty((3, masks), dtype=np.int64)
            self.width, self.base = width, 0
        base = self.base
        self.base += len(rows) + 2  # past this call's marks, base + 0 … base + L
        return _pruned_held_karp(
            columns,
            rows,
            vocabulary,
            upper,
            record_masks,
            record_values,
            record_offsets,
            self.values,
            self.marks,
            self.lists,
            base,
        )


_SCRATCH = _Scratch()


def _word_ids(columns: Sequence[str], rows: Sequence[str]) -> tuple[IntArray, IntArray, int]:
    """Both sentences as ids 0..V-1 of their common vocabulary, and V."""
    ids: dict[str, int] = {}
    column_ids = np.array([ids.setdefault(word, len(ids)) for word in columns], dtype=np.int64)
    row_ids = np.array([ids.setdefault(word, len(ids)) for word in rows], dtype=np.int64)
    return column_ids, row_ids, len(ids)


class SparseLayer:
    """One row of the pruned DP: the kept coverage sets and their values, indexed like a
    dense layer (``layer[C, i]``, ``layer[C]``); a set that was not kept reads unreachable."""

    def __init__(self, masks: IntArray, values: Layer) -> None:
        self.index = {int(mask): k for k, mask in enumerate(masks)}
        self.values = values
        self.missing = np.full(values.shape[1], _UNREACHABLE, dtype=np.int32)

    def __getitem__(self, key: int | tuple[int, int]) -> Any:
        mask, column = key if isinstance(key, tuple) else (key, None)
        k = self.index.get(int(mask))
        row = self.missing if k is None else self.values[k]
        return row if column is None else row[column]


def _pruned_layers(columns: Sequence[str], rows: Sequence[str]) -> tuple[int, list[SparseLayer]]:
    """d_LJ and the kept states of every row of the pruned DP, for the backtrace.

    Run at ``upper`` = d_LJ + 1, every state of every optimal path is kept with its exact
    value (its prefix is optimal and its cost to come is bounded below by what pruning
    uses), so the backtrace of the dense DP works on these rows unchanged.
    """
    lower = int(long_jump_lower_bounds([(columns, rows)])[0])
    upper = Levenshtein.distance(columns, rows)
    distance = long_jump_between(columns, rows, lower, upper) if lower < upper else upper
    column_ids, row_ids, vocabulary = _word_ids(columns, rows)
    capacity = 1 << 12
    while True:
        masks = np.zeros(capacity, dtype=np.int64)
        values = np.zeros((capacity, len(columns) + 1), dtype=np.int32)
        offsets = np.zeros(len(rows) + 2, dtype=np.int64)
        _, kept = _SCRATCH.run(
            column_ids, row_ids, vocabulary, distance + 1, masks, values, offsets
        )
        if kept <= capacity:
            break
        capacity = kept
    layers = [
        SparseLayer(masks[offsets[row] : offsets[row + 1]], values[offsets[row] : offsets[row + 1]])
        for row in range(len(rows) + 1)
    ]
    return distance, layers


def long_jump_between(hyp: Sequence[str], ref: Sequence[str], lower: int, upper: int) -> int:
    """d_LJ, given a lower bound and the cost of a real LJ path (``upper``, such as d_LEV).

    Asks :func:`bounded_long_jump_distance` whether a path costs less than lower + 1, then
    lower + 2, and so on up to ``upper``: the tighter the bound, the more states the DP drops,
    and on real pairs d_LJ lies within a few edits of the lower bound. Each step costs a
    fraction of the next, so the deepening is cheaper than one search under ``upper``.

    Example:
        >>> long_jump_between("c d a b".split(), "a b c d".split(), 2, 4)
        3
    """
    for bound in range(lower + 1, upper + 1):
        value = bounded_long_jump_distance(hyp, ref, bound)
        if value < bound:
            return value
    return upper


def warm_up() -> None:
    """Load (or compile) this module's kernels now; workers pass it to ``kernels.warm_up``."""
    bounded_long_jump_distance(["a", "b"], ["b", "a"], 2)


@compiled
def popcount(value: int) -> int:
    """The number of set bits."""
    count = 0
    while value:
        value &= value - 1
        count += 1
    return count


@compiled
def _queue(
    sources: IntArray,
    extend: int,
    width: int,
    mark: int,
    queued: IntArray,
    candidates: IntArray,
    found: int,
) -> int:
    """Append to ``candidates[found:]`` the sets not yet queued in this row (``queued[C] ==
    mark``): each source itself (``extend`` 0), or each source plus one column it lacks
    (``extend`` 1)."""
    for base in sources:
        for i in range(width if extend else 1):
            if extend and base >> i & 1:
                continue
            mask = base | (1 << i) if extend else base
            if queued[mask] != mark:
                queued[mask] = mark
                candidates[found] = mask
                found += 1
    return found


@compiled
def _pruned_held_karp(
    columns: IntArray,
    rows: IntArray,
    vocabulary: int,
    upper: int,
    record_masks: IntArray,
    record_values: Layer,
    record_offsets: IntArray,
    scratch_values: Layer,
    scratch_marks: IntArray,
    scratch_lists: IntArray,
    base: int,
) -> tuple[int, int]:
    """The DP of spec §8 over word ids, keeping only states that can still beat ``upper``.

    A coverage set C of row l is dropped when its row minimum over i plus a lower bound of the
    cost still to come reaches ``upper``: from (l, C) the path must still cover the words
    outside C and read the reference words after l, so it costs at least their d_PER (unit
    costs: the longer count minus the common words). Every state of a path cheaper than
    ``upper`` stays, so the result is exact below it; ``upper`` is returned otherwise.

    Only sets that can be reached from a kept one are visited: a row's sets go by popcount
    k, and those of level k come from the previous row's level k (insertion) and level k − 1
    plus one column (diagonal), and from this row's level k − 1 plus one column (deletion).
    On real pairs a few hundred of the 2^I sets stay per row. Kept sets are listed per row
    and level; ``kept[mask] == base + row`` marks them (two arrays, this row's and the last),
    so nothing is ever cleared.

    Every kept state is also copied to ``record_*`` while they have room (row l's sets are
    ``record_masks[record_offsets[l]:record_offsets[l + 1]]``, their values the same rows of
    ``record_values``), for the backtrace of :func:`long_jump_path`. Returns min(d_LJ,
    ``upper``) and the number of states kept: more than ``record_masks.size`` means the
    record is incomplete.

    Working memory comes from the caller (:class:`_Scratch`), reused from pair to pair, so
    a call neither allocates nor clears 2^I-sized arrays: marks are row numbers offset by
    ``base``, which the caller raises past every mark of earlier calls.
    """
    width, height = columns.size, rows.size
    recorded = 0
    masks = 1 << width
    unreached = upper + width + height + 2
    cells = masks * (width + 1)
    previous = scratch_values[0, :cells].reshape((masks, width + 1))
    current = scratch_values[1, :cells].reshape((masks, width + 1))
    previous_kept, kept, queued = scratch_marks[0], scratch_marks[1], scratch_marks[2]
    previous_list, kept_list, candidates = scratch_lists[0], scratch_lists[1], scratch_lists[2]
    previous_levels = np.zeros(width + 2, dtype=np.int64)  # level k: list[levels[k]:levels[k+1]]
    levels = np.zeros(width + 2, dtype=np.int64)
    column_total = np.zeros(vocabulary, dtype=np.int64)
    for i in range(width):
        column_total[columns[i]] += 1
    remaining = np.zeros(vocabulary, dtype=np.int64)
    for j in range(height):
        remaining[rows[j]] += 1
    uncovered = column_total.copy()
    for row in range(height + 1):
        if row > 0:
            remaining[rows[row - 1]] -= 1
        rest = height - row
        mark = base + row
        count = 0
        for k in range(width + 1):
            levels[k] = count
            found = 0
            if row == 0 and k == 0:
                candidates[0] = 0
                found = 1
            # Insertion keeps the set; the diagonal (last row) and deletion (this row) add a
            # column to a set of level k - 1.
            found = _queue(
                previous_list[previous_levels[k] : previous_levels[k + 1]],
                0,
                width,
                mark,
                queued,
                candidates,
                found,
            )
            if k > 0:
                found = _queue(
                    previous_list[previous_levels[k - 1] : previous_levels[k]],
                    1,
                    width,
                    mark,
                    queued,
                    candidates,
                    found,
                )
                found = _queue(
                    kept_list[levels[k - 1] : levels[k]], 1, width, mark, queued, candidates, found
                )
            for index in range(found):
                mask = candidates[index]
                if abs(k - row) + abs((width - k) - rest) >= upper:
                    continue
                # d_PER of (the words outside C, the reference words after this row).
                for i in range(width):
                    uncovered[columns[i]] = column_total[columns[i]]
                for i in range(width):
                    if mask >> i & 1:
                        uncovered[columns[i]] -= 1
                common = 0
                for i in range(width):
                    w = columns[i]
                    if uncovered[w] > 0 and remaining[w] > 0:
                        common += min(uncovered[w], remaining[w])
                    uncovered[w] = 0  # count each word once
                ahead = max(width - k, rest) - common
                best = unreached
                for i in range(width + 1):
                    value = unreached
                    if row == 0:
                        if mask == 0 and i == 0:
                            value = 0
                    elif previous_kept[mask] == mark - 1:
                        value = previous[mask, i] + 1  # insertion of the row's word
                    if i > 0 and mask >> (i - 1) & 1:
                        without = mask ^ (1 << (i - 1))
                        if kept[without] == mark:
                            value = min(value, current[without, i - 1] + 1)  # deletion
                        if row > 0 and previous_kept[without] == mark - 1:
                            cost = 0 if columns[i - 1] == rows[row - 1] else 1
                            value = min(value, previous[without, i - 1] + cost)
                    current[mask, i] = value
                    best = min(best, value)
                if best + ahead >= upper:
                    continue
                # Jumps still needed: one into every run of uncovered words but one that
                # starts at the current column, and one back to column I at the end when
                # the last word is covered (unless the path already stands there).
                free = (masks - 1) ^ mask
                starts = free & ~(free << 1)
                runs = popcount(starts)
                last_covered = width > 0 and mask >> (width - 1) & 1
                alive = False
                for i in range(width + 1):
                    value = min(current[mask, i], best + JUMP_COST)
                    jumps = runs
                    if i < width and starts >> i & 1:
                        jumps -= 1
                    if last_covered and (runs > 0 or i != width):
                        jumps += 1
                    if value + jumps * JUMP_COST + ahead >= upper:
                        value = unreached
                    else:
                        alive = True
                    current[mask, i] = value
                if not alive:
                    continue
                kept[mask] = mark
                kept_list[count] = mask
                count += 1
        levels[width + 1] = count
        for index in range(count):
            if recorded < record_masks.size:
                mask = kept_list[index]
                record_masks[recorded] = mask
                record_values[recorded, :] = current[mask, :]
            recorded += 1
        if row + 1 < record_offsets.size:
            record_offsets[row + 1] = min(recorded, record_masks.size)
        previous, current = current, previous
        previous_kept, kept = kept, previous_kept
        previous_list, kept_list = kept_list, previous_list
        previous_levels, levels = levels, previous_levels
    if previous_kept[masks - 1] != base + height:
        return upper, recorded
    return min(int(previous[masks - 1, width]), upper), recorded


def long_jump_lower_bounds(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
) -> npt.NDArray[np.float64]:
    """max(d_CDCD forward, d_CDCD backward, d_ΔI) of every pair: each is ≤ d_LJ (unit costs).

    d_CDCD with both ends fixed (CDER's pad rule ``both``), as the LJ path starts at (0, 0)
    and ends at (I, L) (spec §8 [R]); backward is CDCD with the sentences swapped, a lower
    bound of d_LJ(Ẽ, E) = d_LJ(E, Ẽ).

    Example:
        >>> long_jump_lower_bounds([("a b c d".split(), "a b d c".split())]).tolist()
        [2.0]
    """
    if not pairs:
        return np.zeros(0)
    options = {"jump_cost": float(JUMP_COST), "start_fixed": True, "end_fixed": True}
    forward = edit_distances(pairs, **options)
    backward = edit_distances([(ref, hyp) for hyp, ref in pairs], **options)
    length = np.array([abs(len(hyp) - len(ref)) for hyp, ref in pairs], dtype=np.float64)
    return np.maximum(np.maximum(forward, backward), length)


@dataclass
class Block:
    """Edges of a path between two long jumps: candidate words [hyp_start, hyp_end) aligned
    to reference words [ref_start, ref_end) (0-based, end excluded; either may be empty).

    Fields in grid-node order: the start node (hyp_start, ref_start), then the end node.
    """

    hyp_start: int
    ref_start: int
    hyp_end: int
    ref_end: int
    operations: list[EditOp]

    def as_dict(self) -> dict[str, int | float]:
        """The spans and the block's Levenshtein cost (its edges are in the path)."""
        return {
            "hyp_start": self.hyp_start,
            "hyp_end": self.hyp_end,
            "ref_start": self.ref_start,
            "ref_end": self.ref_end,
            "cost": sum(op.cost for op in self.operations),
        }


def _backtrace(
    columns: Sequence[str], rows: Sequence[str], layers: Sequence[SparseLayer]
) -> list[EditOp]:
    """The best path from (I, L, all covered) back to (0, 0, ∅), in DP coordinates.

    Operations use the DP's orientation (``hyp_index`` = column word, ``ref_index`` = row
    word, nodes (i, j)). Ties as in CDER's backtrace (spec §9.6): diagonal > insertion >
    deletion; a jump only where no edge explains the value, from the smallest column that
    holds the row minimum of the same coverage set.
    """
    i, j, mask = len(columns), len(rows), (1 << len(columns)) - 1
    path: list[EditOp] = []
    while (i, j, mask) != (0, 0, 0):
        value = int(layers[j][mask, i])
        bit = 1 << (i - 1) if i > 0 else 0
        covered = bit != 0 and mask & bit != 0
        if covered and j > 0:
            cost = int(columns[i - 1] != rows[j - 1])
            if int(layers[j - 1][mask ^ bit, i - 1]) + cost == value:
                kind = "substitute" if cost else "match"
                path.append(EditOp(kind, i - 1, j - 1, float(cost), (i - 1, j - 1), (i, j)))
                i, j, mask = i - 1, j - 1, mask ^ bit
                continue
        if j > 0 and int(layers[j - 1][mask, i]) + 1 == value:
            path.append(EditOp("insert", None, j - 1, 1.0, (i, j - 1), (i, j)))
            j -= 1
            continue
        if covered and int(layers[j][mask ^ bit, i - 1]) + 1 == value:
            path.append(EditOp("delete", i - 1, None, 1.0, (i - 1, j), (i, j)))
            i, mask = i - 1, mask ^ bit
            continue
        sources = np.flatnonzero(layers[j][mask] == value - JUMP_COST)
        assert len(sources) > 0, "no predecessor in the long-jump DP"
        source = int(sources[0])
        path.append(EditOp("jump", None, None, float(JUMP_COST), (source, j), (i, j)))
        i = source
    path.reverse()
    return path


_TRANSPOSED_KIND = {"insert": "delete", "delete": "insert"}


def _transposed(op: EditOp) -> EditOp:
    """The same edge with the roles of candidate and reference swapped."""
    assert op.source is not None and op.target is not None
    return EditOp(
        _TRANSPOSED_KIND.get(op.kind, op.kind),
        op.ref_index,
        op.hyp_index,
        op.cost,
        (op.source[1], op.source[0]),
        (op.target[1], op.target[0]),
    )


def _runs(path: Sequence[EditOp]) -> list[Block]:
    """The path's maximal runs of edges between long jumps, in path order."""
    runs: list[Block] = []
    edges: list[EditOp] = []
    for op in [*path, None]:
        if op is not None and op.kind != "jump":
            edges.append(op)
            continue
        if edges:
            assert edges[0].source is not None and edges[-1].target is not None
            (hyp_start, ref_start), (hyp_end, ref_end) = edges[0].source, edges[-1].target
            runs.append(Block(hyp_start, ref_start, hyp_end, ref_end, edges))
        edges = []
    return runs


def _placed(deletions: Block, ref_position: int) -> Block:
    """A run of deletions only (no reference word) redrawn in reference row ``ref_position``."""
    start = deletions.hyp_start
    operations = [
        EditOp(
            op.kind,
            op.hyp_index,
            None,
            op.cost,
            (start + k, ref_position),
            (start + k + 1, ref_position),
        )
        for k, op in enumerate(deletions.operations)
    ]
    return Block(start, ref_position, deletions.hyp_end, ref_position, operations)


def _joined(first: Block, second: Block) -> Block:
    """Two runs where the second starts at the node where the first ends."""
    return Block(
        first.hyp_start,
        first.ref_start,
        second.hyp_end,
        second.ref_end,
        first.operations + second.operations,
    )


def _in_reference_order(runs: Sequence[Block]) -> list[Block]:
    """The runs of a path found in candidate order (the transposed DP), sorted by reference.

    Why the jump count survives: a run of deletions only has no fixed place in reference
    order, so it is first joined to its candidate neighbour (the run before it; the one after
    for a leading run), which keeps the Levenshtein cost and never adds a jump in candidate
    order. Then every run has its own reference start, and each link that needs no jump in
    candidate order (path start, path end, or two runs adjacent in both sentences) is still a
    link in reference order. So reference order needs at most as many jumps, and exactly as
    many, as the candidate-order path is optimal and d_LJ symmetric (checked by an assertion
    in :func:`long_jump_path`).
    """
    joined: list[Block] = []
    leading: Block | None = None  # deletions before the first reference word
    for run in runs:
        if run.ref_start == run.ref_end:  # deletions only
            if joined:
                joined[-1] = _joined(joined[-1], _placed(run, joined[-1].ref_end))
            else:
                leading = run if leading is None else _joined(leading, _placed(run, 0))
        elif leading is not None:
            joined.append(_joined(_placed(leading, run.ref_start), run))
            leading = None
        else:
            joined.append(run)
    if leading is not None:  # the reference is empty
        joined.append(leading)
    return sorted(joined, key=lambda run: run.ref_start)


def _with_jumps(runs: Sequence[Block], end: tuple[int, int]) -> tuple[list[EditOp], list[Block]]:
    """The path through ``runs`` in the given order, from (0, 0) to ``end``, and its blocks.

    A long jump is added wherever a run does not start at the node where the path stands
    (the first run not at (0, 0) too), and one to ``end`` if the last run does not end there
    (spec §8 [R]). Runs met without a jump are merged: they form one block.
    """
    operations: list[EditOp] = []
    blocks: list[Block] = []
    node = (0, 0)
    for run in runs:
        start = (run.hyp_start, run.ref_start)
        if start != node:
            assert start[1] == node[1], "a long jump stays in its reference row"
            operations.append(EditOp("jump", None, None, float(JUMP_COST), node, start))
            blocks.append(run)
        elif blocks:
            blocks[-1] = _joined(blocks[-1], run)
        else:
            blocks.append(run)
        operations.extend(run.operations)
        node = (run.hyp_end, run.ref_end)
    if node != end:
        assert node[1] == end[1], "a long jump stays in its reference row"
        operations.append(EditOp("jump", None, None, float(JUMP_COST), node, end))
    return operations, blocks


def long_jump_path(hyp: Sequence[str], ref: Sequence[str]) -> tuple[int, list[EditOp], list[Block]]:
    """d_LJ, its best path (edges and jumps, nodes (i, l)) and its blocks in reference order.

    Runs the pruned DP (:func:`_pruned_layers`) and keeps the states it keeps, a few
    thousand on real pairs, instead of the (L + 1)·2^I of the full DP.

    Example:
        >>> distance, _, blocks = long_jump_path("c d a b".split(), "a b c d".split())
        >>> distance, [(b.hyp_start, b.hyp_end, b.ref_start, b.ref_end) for b in blocks]
        (3, [(2, 4, 0, 2), (0, 2, 2, 4)])
    """
    transposed = len(hyp) > len(ref)
    columns, rows = (ref, hyp) if transposed else (hyp, ref)
    distance, layers = _pruned_layers(columns, rows)
    path = _backtrace(columns, rows, layers)
    if transposed:
        # The DP ran over candidate rows, so its blocks come in candidate order: swap the
        # roles back and reorder by reference, with the jumps that order needs.
        runs = _in_reference_order(_runs([_transposed(op) for op in path]))
    else:
        runs = _runs(path)
    operations, blocks = _with_jumps(runs, (len(hyp), len(ref)))
    assert sum(op.cost for op in operations) == distance
    return distance, operations, blocks


class LJWER(ErrorRateMeasure):
    """Long-jump word error rate: d_LJ over the reference length (exact up to a length)."""

    name = "ljwer"
    description = "Long-jump word error rate (block movements), thesis §4.4.1."
    stat_names = ("distance", "ref_length", "approximated")
    options = {
        **TEXT_OPTIONS,
        "ref-length-rule": REF_LENGTH_OPTION,
        "max-length": Option(
            default=20,
            kind=int,
            minimum=0,
            maximum=MAX_EXACT_LENGTH,
            short="maxlen",
            help="Shorter side computed exactly up to this many words; longer: d_LEV bound.",
        ),
    }

    def is_exact(self, hyp: Sequence[str], ref: Sequence[str]) -> bool:
        """Within the length limit of the exact DP (``max-length``, on the shorter side)."""
        return min(len(hyp), len(ref)) <= self.values["max-length"]

    def pair_distance(self, hyp: Sequence[str], ref: Sequence[str]) -> float:
        """d_LJ, or the d_LEV upper bound beyond ``max-length`` where the bounds differ."""
        return float(self.distances_and_approximated([(hyp, ref)])[0][0])

    def distances_and_approximated(
        self, pairs: Sequence[TokenPair]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """d_LJ of every pair: d_LEV where the lower bound reaches it, else the DP within
        ``max-length``, else d_LEV flagged as approximate."""
        upper = np.array([Levenshtein.distance(hyp, ref) for hyp, ref in pairs], dtype=np.float64)
        lower = long_jump_lower_bounds(pairs)
        settled = lower >= upper
        within = np.array([self.is_exact(hyp, ref) for hyp, ref in pairs], dtype=bool)
        distances = upper.copy()
        for k in np.flatnonzero(~settled & within):
            distances[k] = long_jump_between(*pairs[k], int(lower[k]), int(upper[k]))
        return distances, ~settled & ~within

    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        return self.distances_and_approximated(pairs)[0]

    def approximated(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.bool_]:
        return self.distances_and_approximated(pairs)[1]

    def align(self, hyp: str, ref: str, grid: bool = False) -> Alignment:
        """The best block path: edges and long jumps, and ``extras["blocks"]`` in reference order.

        Beyond ``max-length`` (scored with the d_LEV bound) the Levenshtein path is returned as
        one block, with ``extras["approximate"]`` true unless the lower bound reaches d_LEV
        (then that path is optimal). ``grid`` is only filled then: the exact DP has one value
        per node *and* coverage set, which no 2-D grid shows.
        """
        hyp_tokens, ref_tokens = list(self.tokens(hyp)), list(self.tokens(ref))
        end = (len(hyp_tokens), len(ref_tokens))
        table = None
        approximate = False
        if self.is_exact(hyp_tokens, ref_tokens):
            distance, operations, blocks = long_jump_path(hyp_tokens, ref_tokens)
        else:
            sub = unit_substitution_matrix(hyp_tokens, ref_tokens)
            levenshtein, table, operations = grid_and_path(hyp_tokens, ref_tokens, sub)
            distance = round(levenshtein)  # unit costs: an integer, as in scoring
            blocks = [Block(0, 0, *end, operations)]
            approximate = bool(long_jump_lower_bounds([(hyp_tokens, ref_tokens)])[0] < distance)
        jumps = [op for op in operations if op.kind == "jump"]
        return Alignment(
            self.name,
            hyp_tokens,
            ref_tokens,
            float(distance),
            operations,
            table.tolist() if grid and table is not None else None,
            {
                "approximate": approximate,
                "blocks": [block.as_dict() for block in blocks],
                "jumps": [{"source": list(op.source), "target": list(op.target)} for op in jumps],
            },
        )
