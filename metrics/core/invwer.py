"""INVWER, the inversion distance of a bracketing transduction grammar (measures spec §10).

Wu, "Stochastic inversion transduction grammars ...", IJCAI 1995; thesis §4.4.4, Algs. 4.3–4.6.
d_inv is the cheapest BTG parse producing the candidate and the reference: identity,
substitution, deletion and insertion leaves, joined straight ([A A], free) or inverted
(⟨A A⟩, cost c_INV).

Two algorithms, both with the split ranges of spec §10.4 (i' ∈ [i0−1, i1], l' ∈ [l0−1, l1]:
children may have an empty side, so d_inv(``a``, ``x a``) = 1 as Eq. 4.26 requires; the
trivial splits that reproduce the node are excluded):

* :class:`InversionTable`, the corrected bottom-up DP of spec §10.5, the normative algorithm:
  every span pair of one size at once with numpy. Time O(I³L³) whatever the words.
* :class:`InversionSearch`, the safe memoised variant of spec §10.6, which scores and aligns.
  A top-down search from the whole pair that cuts a node when no tree through it can beat
  the upper bound ub (d_LEV, lowered whenever the root finds a cheaper tree): d_ΔI and d_PER
  of the node (inside) and a bound on the rest of the pair (outside) bound it from below,
  and d_PER, then the values of the children bound each split. A cut node is memoised as
  +∞, not as the bound (the thesis' Alg. 4.5 stores the bound, which gives wrong values,
  spec §10.6). It equals the DP (tests) and is much faster on real sentence pairs, because
  the bounds cut most span pairs. Compiled with numba; the recursion runs on an explicit
  stack of frames, since numba cannot cache a recursive function (a cached one crashed when
  loaded). d_PER of every inside span pair and the outside bound are
  tabulated first (O(I²L²), incrementally from word counts), so every bound is a table
  look-up; an opened node lists the splits that pass the bound in one pass over the tables.

The outside bound is sharper than d_PER of the outside words (spec §10.6's lb_outer). If
neither an ancestor of a node nor anything outside it is inverted, its left siblings form a
Levenshtein alignment of the candidate and reference words before the node and its right
siblings one of the words after it, so the rest costs at least d_LEV(prefixes) +
d_LEV(suffixes); otherwise it costs at least d_PER(outside) + c_INV (d_PER is subadditive).
The smaller of the two holds for every tree through the node, and the sharper bound lets
the search open fewer span pairs.

Both work on integer cost numerators, so the result is exact. ``transposition-costs`` is
"denominator,c_SUB,c_DEL,c_INS,c_INV" (Table A.1); the default ``1,1,1,1,1``.

Bounds (Eq. 4.26, spec §10.3, sharpened), with PER and Levenshtein under the same c_SUB,
c_DEL, c_INS:

    d_PER ≤ min(d_LEV, d_PER + c_INV) ≤ d_inv ≤ d_LEV

A tree without inversions is a Levenshtein alignment, and the leaves of any tree pair the
words like a PER matching at the same leaf costs, plus c_INV ≥ 0 per inversion; PER's closed
form is the cheapest matching because c_SUB ≤ c_DEL + c_INS (Eq. 4.10, enforced by
:func:`parse_costs`). So a tree either has no inversion and costs at least d_LEV, or costs
at least d_PER + c_INV. Where d_PER + c_INV ≥ d_LEV, d_inv = d_LEV without a search, exactly,
at any length. The search uses the same bound for every span pair (inside), and for the
rest of the pair around a node (outside, below).

Otherwise the search runs up to ``max-length`` words on either side (spec §10.7); longer
pairs get the upper bound d_LEV and are counted in the corpus detail ``approximated_segments``;
``align`` then returns the Levenshtein tree (straight joins only), marked approximate. The
default is 30 words, above the thesis' own limit of 20, because on real sentence pairs the
search stays well under a second per pair up to that length (docs/performance.md). Its time
depends on the words, not only on the lengths: on random word soup, which the bounds hardly
cut, it takes about as long as the DP.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein

from .alignment import Alignment, EditOp, grid_and_path, unit_substitution_matrix
from .base import MeasureError, Option
from .compiled import compiled
from .error_rate import REF_LENGTH_OPTION, TEXT_OPTIONS, ErrorRateMeasure, TokenPair
from .per import count_vector_distance

IntArray = npt.NDArray[np.int64]
_UNREACHABLE = np.iinfo(np.int64).max // 4
MAX_COST = 1_000_000
"""Largest cost numerator: the d_PER of any span pair up to 1000 words then fits the 32-bit
tables of :class:`InversionSearch`."""


def parse_costs(text: str) -> tuple[int, int, int, int, int]:
    """(denominator, c_SUB, c_DEL, c_INS, c_INV) numerators from ``transposition-costs``.

    Raises:
        MeasureError: not five integers in [0, MAX_COST], a zero denominator, or costs
            violating c_SUB ≤ c_DEL + c_INS (Eq. 4.10).
    """
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise MeasureError(f"transposition-costs: {text!r} is not a list of integers") from None
    if len(values) != 5 or min(values) < 0 or values[0] == 0:
        raise MeasureError(
            f"transposition-costs: {text!r} needs five non-negative integers, denominator > 0"
        )
    if max(values) > MAX_COST:
        raise MeasureError(f"transposition-costs: {text!r} has a number above {MAX_COST}")
    denominator, c_sub, c_del, c_ins, c_inv = values
    if c_sub > c_del + c_ins:
        raise MeasureError("transposition-costs: c_SUB must not exceed c_DEL + c_INS")
    return denominator, c_sub, c_del, c_ins, c_inv


class InversionTable:
    """Q(a, b) arrays: d_inv numerators of every candidate span of a words starting at i0
    against every reference span of b words starting at l0 (``table[a, b][i0, l0]``)."""

    def __init__(self, hyp: Sequence[str], ref: Sequence[str], costs: Sequence[int]) -> None:
        _, self.c_sub, self.c_del, self.c_ins, self.c_inv = costs
        self.hyp, self.ref = hyp, ref
        n, m = len(hyp), len(ref)
        self.q: dict[tuple[int, int], IntArray] = {}
        for a in range(n + 1):
            self.q[a, 0] = np.full((n - a + 1, m + 1), a * self.c_del, dtype=np.int64)
        for b in range(m + 1):
            self.q[0, b] = np.full((n + 1, m - b + 1), b * self.c_ins, dtype=np.int64)
        hyp_array = np.array(hyp, dtype=object).reshape(-1, 1)
        ref_array = np.array(ref, dtype=object).reshape(1, -1)
        self.q[1, 1] = (hyp_array != ref_array).astype(np.int64).reshape(n, m) * self.c_sub
        for a in range(1, n + 1):
            for b in range(1, m + 1):
                if (a, b) != (1, 1):
                    self.q[a, b] = self._combine(a, b)

    def _splits(self, a: int, b: int):  # type: ignore[no-untyped-def]
        """(left child, right child, extra cost) slices of every non-trivial split."""
        rows, columns = len(self.hyp) - a + 1, len(self.ref) - b + 1
        for p in range(a + 1):
            for s in range(b + 1):
                if (p, s) not in ((0, 0), (a, b)):
                    left = self.q[p, s][:rows, :columns]
                    right = self.q[a - p, b - s][p : p + rows, s : s + columns]
                    yield (p, s, False), left, right, 0
                if (p, s) not in ((0, b), (a, 0)):
                    left = self.q[p, b - s][:rows, s : s + columns]
                    right = self.q[a - p, s][p : p + rows, :columns]
                    yield (p, s, True), left, right, self.c_inv

    def _combine(self, a: int, b: int) -> IntArray:
        best = np.full((len(self.hyp) - a + 1, len(self.ref) - b + 1), _UNREACHABLE)
        for _, left, right, extra in self._splits(a, b):
            np.minimum(best, left + right + extra, out=best)
        return best

    def distance(self) -> int:
        return int(self.q[len(self.hyp), len(self.ref)][0, 0])

    def tree(self, a: int, b: int, i0: int = 0, l0: int = 0) -> dict[str, Any]:
        """The block tree of the span pair, as nested JSON-serialisable dicts."""
        value = int(self.q[a, b][i0, l0])
        node: dict[str, Any] = {"hyp_span": [i0, i0 + a], "ref_span": [l0, l0 + b], "cost": value}
        if a == 0 or b == 0 or (a, b) == (1, 1):
            same_word = a == b == 1 and self.hyp[i0] == self.ref[l0]
            node["type"] = leaf_type(a, b, same_word)
            return node
        for (p, s, inverted), left, right, extra in self._splits(a, b):
            if int(left[i0, l0]) + int(right[i0, l0]) + extra != value:
                continue
            if inverted:
                children = [self.tree(p, b - s, i0, l0 + s), self.tree(a - p, s, i0 + p, l0)]
            else:
                children = [self.tree(p, s, i0, l0), self.tree(a - p, b - s, i0 + p, l0 + s)]
            node.update(type="inverted" if inverted else "straight", children=children)
            return node
        raise AssertionError("no split reproduces the table value")


def leaf_type(a: int, b: int, same_word: bool) -> str:
    """Type of a tree leaf of a candidate words against b reference words (a = 0, b = 0, or
    a = b = 1 with ``same_word`` telling whether the two words are equal)."""
    if a == 0:
        return "insert"
    if b == 0:
        return "delete"
    return "match" if same_word else "substitute"


# -- the safe memoised variant (spec §10.6), compiled ------------------------------------------
# Spans are half-open: candidate words [i0, i1), reference words [l0, l1). Tables are indexed
# [h, l0, l1] with h = hyp_span[i0, i1], a triangular numbering of the candidate spans.

_INFINITE = 1 << 30
"""Value of a cut node: no tree through it beats the bound current when it was searched.
Above every real cost (at most (I + L)·MAX_COST with I, L ≤ MAX_EXACT_LENGTH), and it fits
the int32 tables."""
MAX_EXACT_LENGTH = 60
"""Highest ``max-length``: the search's six tables have I²L²/2 cells each (60 words: 28 MB
each)."""
Table = npt.NDArray[np.int32]
"""One value per span pair: ``table[hyp_span[i0, i1], l0, l1]``."""
_UNKNOWN = -1
_OPEN = -2
""":func:`_open_node`: the node passed its own bounds, so it must be searched (a new frame)."""

# Columns of a search frame: the node; lbo, its outside lower bound; its splits in the
# split list (the next to try, the end); the split under evaluation with its d_PER(B), bound
# and left child's value; q, the best value so far; the stage (scanning, or waiting for the
# left or right child).
_I0, _I1, _L0, _L1, _LBO = 0, 1, 2, 3, 4
_NEXT, _END = 5, 6
_P, _S, _INVERTED, _PER_B, _BOUND, _VALUE_A, _Q, _STAGE = 7, 8, 9, 10, 11, 12, 13, 14
_FRAME_COLUMNS = 15
_SCAN, _WAIT_A, _WAIT_B = 0, 1, 2


@compiled
def _length_bound(a: int, b: int, c_del: int, c_ins: int) -> int:
    """d_ΔI of a words against b words."""
    if a >= b:
        return (a - b) * c_del
    return (b - a) * c_ins


@compiled
def _span_levenshtein(
    hyp: IntArray, ref: IntArray, costs: IntArray, hyp_span: IntArray, table: Table
) -> None:
    """Fill ``table[hyp_span[i0, i1], l0, l1]`` with the d_LEV numerators of every span pair.

    One Levenshtein grid per start (i0, l0) gives every end (i1, l1): O(I²L²/4) cells.
    """
    c_sub, c_del, c_ins = costs[0], costs[1], costs[2]
    n, m = hyp.size, ref.size
    grid = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i0 in range(n + 1):
        for l0 in range(m + 1):
            for i1 in range(i0, n + 1):
                h = hyp_span[i0, i1]
                for l1 in range(l0, m + 1):
                    if i1 == i0:
                        value = (l1 - l0) * c_ins
                    elif l1 == l0:
                        value = (i1 - i0) * c_del
                    else:
                        diagonal = grid[i1 - 1, l1 - 1]
                        if hyp[i1 - 1] != ref[l1 - 1]:
                            diagonal += c_sub
                        value = min(grid[i1 - 1, l1] + c_del, grid[i1, l1 - 1] + c_ins, diagonal)
                    grid[i1, l1] = value
                    table[h, l0, l1] = value


@compiled
def _bound_tables(
    hyp: IntArray,
    ref: IntArray,
    vocabulary: int,
    costs: IntArray,
    hyp_span: IntArray,
    levenshtein: Table,
    inside: Table,
    inside_t: Table,
    outside: Table,
) -> None:
    """Fill the bounds of every span pair (``levenshtein`` is working space).

    ``inside[h, l0, l1]`` ≤ d_inv of the pair: min(d_LEV, d_PER + c_INV); ``inside_t[h, l1,
    l0]``, the same transposed, so that the scan over split points reads memory in order for
    both children; ``outside[h, l0, l1]`` ≤ the cost of the rest of any tree through the
    node: min(d_LEV(prefixes) + d_LEV(suffixes), d_PER(outside words) + c_INV) (module
    docstring).

    d_PER = (min(a, b) − common)·c_SUB + d_ΔI(a, b), where common = Σ_w min(count in the
    candidate side, count in the reference side); extending a reference span by one word
    changes common by at most one, so every table entry costs O(1).
    """
    c_sub, c_del, c_ins, c_inv = costs[0], costs[1], costs[2], costs[3]
    n, m = hyp.size, ref.size
    _span_levenshtein(hyp, ref, costs, hyp_span, levenshtein)
    hyp_total = np.zeros(vocabulary, dtype=np.int64)
    ref_total = np.zeros(vocabulary, dtype=np.int64)
    for i in range(n):
        hyp_total[hyp[i]] += 1
    for j in range(m):
        ref_total[ref[j]] += 1
    hyp_in = np.zeros(vocabulary, dtype=np.int64)
    ref_in = np.zeros(vocabulary, dtype=np.int64)
    for i0 in range(n + 1):
        hyp_in[:] = 0
        for i1 in range(i0, n + 1):
            if i1 > i0:
                hyp_in[hyp[i1 - 1]] += 1
            h = hyp_span[i0, i1]
            a, a_out = i1 - i0, n - (i1 - i0)
            common_out_of_empty = 0  # the outside of an empty reference span: all of it
            for w in range(vocabulary):
                common_out_of_empty += min(hyp_total[w] - hyp_in[w], ref_total[w])
            for l0 in range(m + 1):
                common, common_out = 0, common_out_of_empty
                for l1 in range(l0, m + 1):
                    if l1 > l0:
                        w = ref[l1 - 1]
                        if ref_in[w] < hyp_in[w]:
                            common += 1
                        if ref_total[w] - ref_in[w] <= hyp_total[w] - hyp_in[w]:
                            common_out -= 1
                        ref_in[w] += 1
                    b, b_out = l1 - l0, m - (l1 - l0)
                    per = (min(a, b) - common) * c_sub + _length_bound(a, b, c_del, c_ins)
                    value = min(levenshtein[h, l0, l1], per + c_inv)
                    inside[h, l0, l1] = value
                    inside_t[h, l1, l0] = value
                    per_out = (min(a_out, b_out) - common_out) * c_sub + (
                        _length_bound(a_out, b_out, c_del, c_ins)
                    )
                    straight = (
                        levenshtein[hyp_span[0, i0], 0, l0] + (levenshtein[hyp_span[i1, n], l1, m])
                    )
                    outside[h, l0, l1] = min(straight, per_out + c_inv)
                for j in range(l0, m):
                    ref_in[ref[j]] -= 1


@compiled
def _open_node(
    i0: int,
    i1: int,
    l0: int,
    l1: int,
    hyp: IntArray,
    ref: IntArray,
    costs: IntArray,
    hyp_span: IntArray,
    inside: npt.NDArray[np.int32],
    outside: npt.NDArray[np.int32],
    memo: Table,
    ub: IntArray,
    lbo: IntArray,
) -> int:
    """The start of calcQ: a node's value where it is known without a search (empty side,
    single word pair, memoised, or cut by its own bounds, then memoised as +∞); otherwise
    :data:`_OPEN`, with the outside bound in ``lbo[0]``."""
    c_sub, c_del, c_ins = costs[0], costs[1], costs[2]
    a, b = i1 - i0, l1 - l0
    if a == 0:
        return b * c_ins
    if b == 0:
        return a * c_del
    if a == 1 and b == 1:
        return 0 if hyp[i0] == ref[l0] else c_sub
    h = hyp_span[i0, i1]
    known = memo[h, l0, l1]
    if known != _UNKNOWN:
        return known
    outer = _length_bound(hyp.size - a, ref.size - b, c_del, c_ins)
    inner = _length_bound(a, b, c_del, c_ins)
    if ub[0] - outer <= inner:
        memo[h, l0, l1] = _INFINITE
        return _INFINITE
    outer = outside[h, l0, l1]
    if ub[0] - outer <= inner:
        memo[h, l0, l1] = _INFINITE
        return _INFINITE
    inner = inside[h, l0, l1]
    if ub[0] - outer <= inner:
        memo[h, l0, l1] = _INFINITE
        return _INFINITE
    lbo[0] = outer
    return _OPEN


@compiled
def _collect_splits(
    i0: int,
    i1: int,
    l0: int,
    l1: int,
    bound: int,
    c_inv: int,
    hyp_span: IntArray,
    inside: npt.NDArray[np.int32],
    inside_t: npt.NDArray[np.int32],
    splits: IntArray,
    first: int,
) -> int:
    """Write to ``splits[first:]`` the node's splits whose children's inside bounds (+ c_INV)
    stay below ``bound``, as rows (code, inside(A) + inside(B) + extra, inside(B)) with code
    (p·(L + 1) + s)·2 + inverted; return the end of the list.

    Splits come in the DP's order (§10.5): candidate split p, reference split s, straight
    (left child ([i0, p), [l0, s))) before inverted (left child ([i0, p), [s, l1))). The
    bound only falls while the node is searched, so the search re-checks each split against
    the bound current when it gets there. Both children's entries lie in order along s, in
    ``inside`` for one and ``inside_t`` for the other.
    """
    columns = inside.shape[1]
    end = first
    for p in range(i0, i1 + 1):
        h_a, h_b = hyp_span[i0, p], hyp_span[p, i1]
        for s in range(l0, l1 + 1):
            code = (p * columns + s) * 2
            per_b = inside_t[h_b, l1, s]
            total = inside[h_a, l0, s] + per_b
            if total < bound and not ((p == i1 and s == l1) or (p == i0 and s == l0)):
                splits[end, 0], splits[end, 1], splits[end, 2] = code, total, per_b
                end += 1
            per_b = inside[h_b, l0, s]
            total = inside_t[h_a, l1, s] + per_b + c_inv
            if total < bound and not ((p == i0 and s == l1) or (p == i1 and s == l0)):
                splits[end, 0], splits[end, 1], splits[end, 2] = code + 1, total, per_b
                end += 1
    return end


@compiled
def _search(
    hyp: IntArray,
    ref: IntArray,
    costs: IntArray,
    upper: int,
    hyp_span: IntArray,
    inside: npt.NDArray[np.int32],
    inside_t: npt.NDArray[np.int32],
    outside: npt.NDArray[np.int32],
    memo: Table,
    choice: Table,
) -> int:
    """calcQ of the root (spec §10.6, safe variant), recursion unrolled onto a stack.

    Fills ``memo`` (every searched node's value) and ``choice`` (the split that gave it:
    (p·(L + 1) + s)·2 + inverted). The root's value, or +∞ when no tree beats ``upper``.
    """
    c_inv = costs[3]
    n, m = hyp.size, ref.size
    ub = np.array([upper], dtype=np.int64)
    lbo = np.zeros(1, dtype=np.int64)
    # Every child is smaller than its parent on one side at least: depth ≤ n + m. Each frame
    # lists at most 2·(n + 1)·(m + 1) splits, one list after the other.
    frames = np.zeros((n + m + 1, _FRAME_COLUMNS), dtype=np.int64)
    splits = np.empty(((n + m + 1) * 2 * (n + 1) * (m + 1), 3), dtype=np.int64)
    value = _open_node(0, n, 0, m, hyp, ref, costs, hyp_span, inside, outside, memo, ub, lbo)
    if value != _OPEN:
        return value
    depth = 0
    child_i0, child_i1, child_l0, child_l1 = 0, n, 0, m
    returned = False  # the last child's value is in ``value``, for the top frame
    while True:
        if not returned:  # push the frame of an opened node
            frame = frames[depth]
            frame[_I0], frame[_I1], frame[_L0], frame[_L1] = child_i0, child_i1, child_l0, child_l1
            frame[_LBO], frame[_Q], frame[_STAGE] = lbo[0], _INFINITE, _SCAN
            # The list follows the parent's, whose splits are still to try.
            first = frames[depth - 1, _END] if depth > 0 else 0
            frame[_NEXT] = first
            frame[_END] = _collect_splits(
                child_i0,
                child_i1,
                child_l0,
                child_l1,
                ub[0] - lbo[0],
                c_inv,
                hyp_span,
                inside,
                inside_t,
                splits,
                first,
            )
            depth += 1
        frame = frames[depth - 1]
        i0, i1, l0, l1 = frame[_I0], frame[_I1], frame[_L0], frame[_L1]
        p, s, inverted = frame[_P], frame[_S], frame[_INVERTED]
        extra = c_inv if inverted else 0
        returned = False
        if frame[_STAGE] == _WAIT_B:
            total = frame[_VALUE_A] + value + extra
            if total < frame[_Q]:
                frame[_Q] = total
                choice[hyp_span[i0, i1], l0, l1] = (p * (m + 1) + s) * 2 + inverted
            if depth == 1 and total < ub[0]:
                ub[0] = total
            frame[_STAGE] = _SCAN
        if frame[_STAGE] == _WAIT_A and frame[_BOUND] > value + frame[_PER_B] + extra:
            frame[_VALUE_A] = value
            frame[_STAGE] = _WAIT_B
            if inverted:
                child_i0, child_i1, child_l0, child_l1 = p, i1, l0, s
            else:
                child_i0, child_i1, child_l0, child_l1 = p, i1, s, l1
        else:
            bound = min(ub[0] - frame[_LBO], frame[_Q])
            k = frame[_NEXT]
            while k < frame[_END] and bound <= splits[k, 1]:
                k += 1
            frame[_NEXT] = k + 1
            if k >= frame[_END]:
                value = frame[_Q]
                memo[hyp_span[i0, i1], l0, l1] = value
                depth -= 1
                if depth == 0:
                    return value
                returned = True
                continue
            frame[_BOUND] = bound
            frame[_STAGE] = _WAIT_A
            split, inverted = divmod(splits[k, 0], 2)
            p, s = divmod(split, m + 1)
            frame[_P], frame[_S], frame[_INVERTED], frame[_PER_B] = p, s, inverted, splits[k, 2]
            if inverted:
                child_i0, child_i1, child_l0, child_l1 = i0, p, s, l1
            else:
                child_i0, child_i1, child_l0, child_l1 = i0, p, l0, s
        value = _open_node(
            child_i0,
            child_i1,
            child_l0,
            child_l1,
            hyp,
            ref,
            costs,
            hyp_span,
            inside,
            outside,
            memo,
            ub,
            lbo,
        )
        returned = value != _OPEN


@compiled
def _span_numbering(n: int) -> IntArray:
    """hyp_span[i0, i1]: a triangular numbering of the candidate spans (−1 where i1 < i0)."""
    hyp_span = np.full((n + 1, n + 1), -1, dtype=np.int64)
    spans = 0
    for i0 in range(n + 1):
        for i1 in range(i0, n + 1):
            hyp_span[i0, i1] = spans
            spans += 1
    return hyp_span


DEEPENING_STEPS = 16
"""Most searches one pair gets: with large cost numerators the gap between the bounds can be
millions of units, and one search per unit would never end."""


def deepening_bounds(lower: int, upper: int, costs: Sequence[int]) -> list[int]:
    """The bounds the search tries in turn, rising from lower to ``upper`` (included).

    A search under bound B finds d_inv exactly when d_inv < B, so any rising sequence ending
    at ``upper`` is exact; steps of the costs' common divisor (every tree cost is a multiple
    of it) are the tightest, and at most :data:`DEEPENING_STEPS` of them are taken.

    Example:
        >>> deepening_bounds(2, 5, (1, 1, 1, 1, 1))
        [3, 4, 5]
        >>> deepening_bounds(0, 4000, (1, 1000, 1000, 1000, 1000))
        [1000, 2000, 3000, 4000]
    """
    unit = max(math.gcd(*costs[1:]), 1)
    step = max(unit, -(-(upper - lower) // DEEPENING_STEPS))
    return [*range(lower + step, upper, step), upper] if lower < upper else []


class _Scratch(threading.local):
    """The search's six tables, kept from pair to pair in each thread: allocating them
    (with their page faults) took as long as the search itself on real pairs."""

    def __init__(self) -> None:
        self.buffer = np.empty((6, 0), dtype=np.int32)

    def tables(self, spans: int, columns: int) -> list[Table]:
        cells = spans * columns * columns
        if cells > self.buffer.shape[1]:
            self.buffer = np.empty((6, cells), dtype=np.int32)
        return [row[:cells].reshape(spans, columns, columns) for row in self.buffer]


_SCRATCH = _Scratch()


class InversionSearch:
    """d_inv of one pair by the safe memoised variant (spec §10.6), and its block tree.

    Args:
        hyp, ref: the words. costs: (denominator, c_SUB, c_DEL, c_INS, c_INV) numerators.
        upper: d_LEV under the same costs, the initial upper bound (a real tree's cost).
        keep_tree: keep the search's memo for :meth:`tree`; without it the tables are the
            thread's reused working memory, which the next search overwrites.
        lower: a lower bound of d_inv; given, the search asks for a tree below lower + 1,
            then lower + 2, … up to ``upper`` (:func:`deepening_bounds`), which on real pairs
            is faster than one search under ``upper``.
    """

    def __init__(
        self,
        hyp: Sequence[str],
        ref: Sequence[str],
        costs: Sequence[int],
        upper: int,
        keep_tree: bool = False,
        lower: int | None = None,
    ) -> None:
        _, self.c_sub, self.c_del, self.c_ins, self.c_inv = costs
        self.hyp, self.ref, self.upper = hyp, ref, upper
        self.root = _INFINITE
        self.memo: Table | None = None
        if not hyp or not ref:
            return
        ids: dict[str, int] = {}
        hyp_ids = np.array([ids.setdefault(word, len(ids)) for word in hyp], dtype=np.int64)
        ref_ids = np.array([ids.setdefault(word, len(ids)) for word in ref], dtype=np.int64)
        cost_array = np.array(costs[1:], dtype=np.int64)
        self.hyp_span = _span_numbering(len(hyp))
        spans, columns = len(hyp) * (len(hyp) + 3) // 2 + 1, len(ref) + 1
        if keep_tree:
            shape = (spans, columns, columns)
            tables = [np.empty(shape, dtype=np.int32) for _ in range(6)]
        else:
            tables = _SCRATCH.tables(spans, columns)
        levenshtein, inside, inside_t, outside, memo, choice = tables
        _bound_tables(
            hyp_ids,
            ref_ids,
            len(ids),
            cost_array,
            self.hyp_span,
            levenshtein,
            inside,
            inside_t,
            outside,
        )
        # Deepening: is there a tree below lower + 1, lower + 2, …? The tighter the bound,
        # the fewer span pairs the search opens, and d_inv is mostly within a few edits of
        # the lower bound; the tables do not depend on the bound.
        bounds = [upper] if lower is None else deepening_bounds(lower, upper, costs)
        for bound in bounds:
            memo.fill(_UNKNOWN)
            self.root = int(
                _search(
                    hyp_ids,
                    ref_ids,
                    cost_array,
                    bound,
                    self.hyp_span,
                    inside,
                    inside_t,
                    outside,
                    memo,
                    choice,
                )
            )
            if self.root < bound:
                break
        if keep_tree:
            self.memo, self.choice = memo, choice

    def distance(self) -> int:
        """d_inv numerator: the root's value where it beats d_LEV, else d_LEV."""
        if not self.hyp or not self.ref:
            return len(self.hyp) * self.c_del + len(self.ref) * self.c_ins
        return min(self.root, self.upper)

    def beats_levenshtein(self) -> bool:
        """Whether the search found a tree cheaper than d_LEV (else a Levenshtein tree is
        optimal, and :meth:`tree` has none)."""
        return self.root < self.upper

    def tree(
        self, i0: int = 0, i1: int | None = None, l0: int = 0, l1: int | None = None
    ) -> dict[str, Any]:
        """The block tree the search found, in the form of :meth:`InversionTable.tree`; only
        where :meth:`beats_levenshtein` (the memoised splits of the other nodes may be cut)."""
        i1 = len(self.hyp) if i1 is None else i1
        l1 = len(self.ref) if l1 is None else l1
        a, b = i1 - i0, l1 - l0
        node: dict[str, Any] = {"hyp_span": [i0, i1], "ref_span": [l0, l1]}
        if a == 0 or b == 0 or (a, b) == (1, 1):
            same_word = a == b == 1 and self.hyp[i0] == self.ref[l0]
            if a == 0 or b == 0:
                value = b * self.c_ins + a * self.c_del
            else:
                value = 0 if same_word else self.c_sub
            node.update(cost=value, type=leaf_type(a, b, same_word))
            return node
        assert self.memo is not None, "searched without keep_tree"
        h = self.hyp_span[i0, i1]
        node["cost"] = int(self.memo[h, l0, l1])
        split, inverted = divmod(int(self.choice[h, l0, l1]), 2)
        p, s = divmod(split, len(self.ref) + 1)
        if inverted:
            children = [self.tree(i0, p, s, l1), self.tree(p, i1, l0, s)]
        else:
            children = [self.tree(i0, p, l0, s), self.tree(p, i1, s, l1)]
        node.update(type="inverted" if inverted else "straight", children=children)
        return node


def warm_up() -> None:
    """Load (or compile) this module's kernels now; workers pass it to ``kernels.warm_up``."""
    InversionSearch(["a", "b"], ["b", "a"], (1, 1, 1, 1, 1), 2)


def leaf_operations(tree: dict[str, Any], denominator: int) -> list[EditOp]:
    """The leaves of a block tree, left to right in the candidate, as edit operations."""
    if "children" in tree:
        return [op for child in tree["children"] for op in leaf_operations(child, denominator)]
    (i0, i1), (l0, l1) = tree["hyp_span"], tree["ref_span"]
    kind = tree["type"]
    if kind == "insert":
        per_word = tree["cost"] / max(l1 - l0, 1) / denominator
        return [EditOp("insert", None, j, per_word) for j in range(l0, l1)]
    if kind == "delete":
        per_word = tree["cost"] / max(i1 - i0, 1) / denominator
        return [EditOp("delete", i, None, per_word) for i in range(i0, i1)]
    return [EditOp(kind, i0, l0, tree["cost"] / denominator)]


def inversion_operations(tree: dict[str, Any], c_inv: int, denominator: int) -> list[EditOp]:
    """The tree's leaves and one ``inversion`` operation per inverted node (cost c_INV, the
    node's spans), in pre-order: the costs add up to the tree's cost over ``denominator``."""
    if "children" not in tree:
        return leaf_operations(tree, denominator)
    operations = []
    if tree["type"] == "inverted":
        spans = {"hyp_span": tuple(tree["hyp_span"]), "ref_span": tuple(tree["ref_span"])}
        operations.append(EditOp("inversion", None, None, c_inv / denominator, **spans))
    for child in tree["children"]:
        operations.extend(inversion_operations(child, c_inv, denominator))
    return operations


def block_tree(tree: dict[str, Any], denominator: int) -> dict[str, Any]:
    """The block tree as nested spans, concatenations inside concatenations flattened (the
    bracketing of spec §10.2): ``{"type", "hyp": [i0, i1], "ref": [l0, l1], "cost"}`` plus
    ``"children"`` for ``straight``/``inverted`` blocks; costs in real units. An inverted
    block's children are in candidate order (so their reference spans descend)."""
    node: dict[str, Any] = {
        "type": tree["type"],
        "hyp": list(tree["hyp_span"]),
        "ref": list(tree["ref_span"]),
        "cost": tree["cost"] / denominator,
    }
    if "children" in tree:
        children = []
        for child in tree["children"]:
            block = block_tree(child, denominator)
            if tree["type"] == block["type"] == "straight":
                children.extend(block["children"])
            else:
                children.append(block)
        node["children"] = children
    return node


def bracketed(blocks: dict[str, Any], hyp: Sequence[str], ref: Sequence[str]) -> str:
    """The bracket notation of spec §10.2: ``[ … ]`` straight, ``⟨ … ⟩`` inverted, leaves
    ``e/ẽ`` with ``ε`` for an empty side.

    Example:
        >>> tree = {"type": "inverted", "hyp": [0, 2], "ref": [0, 2], "children": [
        ...     {"type": "match", "hyp": [0, 1], "ref": [1, 2]},
        ...     {"type": "substitute", "hyp": [1, 2], "ref": [0, 1]}]}
        >>> bracketed(tree, ["a", "b"], ["c", "a"])
        '⟨ a/a b/c ⟩'
    """
    if "children" in blocks:
        inner = " ".join(bracketed(child, hyp, ref) for child in blocks["children"])
        return f"⟨ {inner} ⟩" if blocks["type"] == "inverted" else f"[ {inner} ]"
    (i0, i1), (l0, l1) = blocks["hyp"], blocks["ref"]
    if i0 == i1:
        return " ".join(f"ε/{ref[j]}" for j in range(l0, l1))
    if l0 == l1:
        return " ".join(f"{hyp[i]}/ε" for i in range(i0, i1))
    return f"{hyp[i0]}/{ref[l0]}"


def levenshtein_tree(operations: Sequence[EditOp], costs: Sequence[int]) -> dict[str, Any]:
    """The block tree of a Levenshtein path: its leaves joined straight, right-branching.

    Args:
        operations: the path's edges (with their grid nodes), in path order.
        costs: (denominator, c_SUB, c_DEL, c_INS, c_INV); tree costs are numerators, as in
            :meth:`InversionTable.tree`.
    """
    _, c_sub, c_del, c_ins, _ = costs
    leaves = []
    for op in operations:
        assert op.source is not None
        i, j = op.source
        if op.kind == "insert":
            leaf = {"hyp_span": [i, i], "ref_span": [j, j + 1], "cost": c_ins}
        elif op.kind == "delete":
            leaf = {"hyp_span": [i, i + 1], "ref_span": [j, j], "cost": c_del}
        else:
            cost = c_sub if op.kind == "substitute" else 0
            leaf = {"hyp_span": [i, i + 1], "ref_span": [j, j + 1], "cost": cost}
        leaves.append({**leaf, "type": op.kind})
    if not leaves:
        return {"hyp_span": [0, 0], "ref_span": [0, 0], "cost": 0, "type": "insert"}
    tree = leaves[-1]
    for leaf in reversed(leaves[:-1]):
        tree = {
            "hyp_span": [leaf["hyp_span"][0], tree["hyp_span"][1]],
            "ref_span": [leaf["ref_span"][0], tree["ref_span"][1]],
            "cost": leaf["cost"] + tree["cost"],
            "type": "straight",
            "children": [leaf, tree],
        }
    return tree


class INVWER(ErrorRateMeasure):
    """Inversion word error rate: BTG inversion distance over the reference length."""

    name = "invwer"
    description = "Inversion word error rate (BTG block inversions), thesis §4.4.4."
    stat_names = ("distance", "ref_length", "approximated")
    options = {
        **TEXT_OPTIONS,
        "ref-length-rule": REF_LENGTH_OPTION,
        "transposition-costs": Option(
            default="1,1,1,1,1",
            short="costs",
            help="denominator,c_SUB,c_DEL,c_INS,c_INV as integers (Table A.1).",
        ),
        "max-length": Option(
            default=30,
            kind=int,
            minimum=0,
            maximum=MAX_EXACT_LENGTH,
            short="maxlen",
            help="Longest sentence (words, either side) computed exactly; longer: d_LEV bound.",
        ),
    }

    def validate(self) -> None:
        self.costs = parse_costs(self.values["transposition-costs"])

    def is_exact(self, hyp: Sequence[str], ref: Sequence[str]) -> bool:
        """Within the length limit of the DP (``max-length``, on either side)."""
        return max(len(hyp), len(ref)) <= self.values["max-length"]

    def bounds(self, hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, int]:
        """(lower, upper) numerators under the measure's costs, lower ≤ d_inv ≤ upper = d_LEV.

        lower = min(d_LEV, d_PER + c_INV): a tree without inversions is a Levenshtein
        alignment, and one with an inversion costs its leaves (at least d_PER) plus c_INV.
        """
        _, c_sub, c_del, c_ins, c_inv = self.costs
        per = count_vector_distance(Counter(hyp), Counter(ref), c_sub, c_ins, c_del)
        upper = Levenshtein.distance(hyp, ref, weights=(c_ins, c_del, c_sub))
        return min(upper, per + c_inv), upper

    def resolve(self, hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, bool]:
        """(distance, approximated): d_LEV where the lower bound reaches it, else d_inv by
        the memoised search within ``max-length``, else the d_LEV bound, approximated."""
        denominator = self.costs[0]
        lower, upper = self.bounds(hyp, ref)
        if lower >= upper:
            return upper / denominator, False
        if not self.is_exact(hyp, ref):
            return upper / denominator, True
        search = InversionSearch(hyp, ref, self.costs, upper, lower=int(lower))
        return search.distance() / denominator, False

    def pair_distance(self, hyp: Sequence[str], ref: Sequence[str]) -> float:
        """d_inv, or the d_LEV upper bound beyond ``max-length`` where the bounds differ."""
        return self.resolve(hyp, ref)[0]

    def distances_and_approximated(
        self, pairs: Sequence[TokenPair]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        results = [self.resolve(hyp, ref) for hyp, ref in pairs]
        distances = np.array([distance for distance, _ in results], dtype=np.float64)
        return distances, np.array([flag for _, flag in results], dtype=bool)

    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        return self.distances_and_approximated(pairs)[0]

    def approximated(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.bool_]:
        return self.distances_and_approximated(pairs)[1]

    def align(self, hyp: str, ref: str, grid: bool = False) -> Alignment:
        """The block tree (``extras["tree"]``, costs as numerators) and its leaves.

        The tree is the memoised search's where it beats d_LEV; otherwise a Levenshtein
        path's (:func:`levenshtein_tree`, straight joins only), which is then optimal. Beyond
        ``max-length`` the search is not run, as in scoring: the distance is d_LEV, and
        ``extras["approximate"]`` is true unless d_PER = d_LEV. ``grid`` is ignored.

        ``extras["blocks"]`` is the same tree as nested spans with flattened concatenations
        and real costs (:func:`block_tree`), ``extras["brackets"]`` its bracket notation;
        ``charged_operations`` adds an ``inversion`` operation per inverted block to the
        leaves (:func:`inversion_operations`), so the costs add up to the distance.
        """
        hyp_tokens, ref_tokens = self.tokens(hyp), self.tokens(ref)
        denominator, c_sub, c_del, c_ins, c_inv = self.costs
        lower, upper = self.bounds(hyp_tokens, ref_tokens)
        exact = self.is_exact(hyp_tokens, ref_tokens)
        search = None
        if exact and lower < upper:
            search = InversionSearch(
                hyp_tokens, ref_tokens, self.costs, upper, keep_tree=True, lower=int(lower)
            )
        if search is not None and search.beats_levenshtein():
            tree = search.tree()
        else:
            sub = unit_substitution_matrix(hyp_tokens, ref_tokens) * c_sub
            _, _, path = grid_and_path(hyp_tokens, ref_tokens, sub, c_ins=c_ins, c_del=c_del)
            tree = levenshtein_tree(path, self.costs)
        blocks = block_tree(tree, denominator)
        return Alignment(
            self.name,
            list(hyp_tokens),
            list(ref_tokens),
            tree["cost"] / denominator,
            leaf_operations(tree, denominator),
            None,
            {
                "tree": tree,
                "cost_denominator": denominator,
                "approximate": not exact and lower < upper,
                "blocks": blocks,
                "brackets": bracketed(blocks, hyp_tokens, ref_tokens),
            },
            inversion_operations(tree, c_inv, denominator),
        )
