"""The shared edit-distance entry points and the alignment records every string measure returns.

One dynamic program serves WER (Levenshtein, measures spec §7, Alg. 4.1) and CDER (the
CDCD-distance with long jumps, §9.3, Alg. 4.2 corrected). The grid follows the thesis: nodes
(i, l) lie between words, i over candidate positions (columns) and l over reference positions
(rows); a horizontal edge deletes candidate word e_i, a vertical edge inserts reference word
ẽ_l, a diagonal edge matches or substitutes, and a long jump moves within a row.

The DP itself is the compiled kernel of :mod:`metrics.core.kernels`, used both for scores
(:func:`edit_distances`: words mapped to integer ids once, many pairs packed per call) and for
the grid that :func:`grid_and_path` backtraces (spec §9.6 tie-breaking). The kernels are
imported inside those functions, not with this module: every error rate imports this module
for :class:`Alignment`, and numba's import and cache loading (about 0.3–0.5 s) would otherwise
be most of a one-off WER or TER score, which runs on rapidfuzz and never calls a kernel.

Alignments are plain dataclasses; ``as_dict()`` gives JSON-serialisable dicts for drawing grids.
``operations`` are the edges of the word path (or PER's matched pairs, INVWER's leaves);
``charged_operations``, where a measure sets it, lists every operation whose cost makes up
the distance (TER's shifts before the path, INVWER's inversions, CDER's coverage penalties
and its second direction), so that ``Alignment.cost()`` equals ``distance`` for every measure.
:func:`optimal_edges` lists the grid edges of every co-optimal path.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

NO_JUMP = math.inf
"""``kernels.NO_JUMP``, repeated here: this module must not import :mod:`.kernels` at import time."""

FloatArray = npt.NDArray[np.float64]
SubstitutionMatrix = Callable[[Sequence[str], Sequence[str]], FloatArray]
"""(hyp, ref) -> matrix (len(hyp), len(ref)) of s(e_i, ẽ_l): 0 for equal words."""

TIE_TOLERANCE = 1e-9


EDIT_KINDS = ("match", "substitute", "insert", "delete", "jump", "shift", "inversion", "penalty")
"""Every ``EditOp.kind``, in the order the command line documents them."""


@dataclass
class EditOp:
    """One edge of an alignment path, or one other operation that costs.

    ``kind`` is ``match``, ``substitute``, ``insert`` (a reference word without counterpart),
    ``delete`` (a candidate word without counterpart), ``jump`` (CDER/LJWER long jump),
    ``shift`` (TER block shift), ``inversion`` (an inverted INVWER block) or ``penalty`` (a
    CDER coverage penalty). ``hyp_index``/``ref_index`` are 0-based word positions (None where
    the edge consumes no word of that side); ``source``/``target`` are grid nodes (i, l).

    ``hyp_span``/``ref_span`` are half-open word spans for operations on several words (a
    shifted or inverted block, an m-gram); None means the span is the one word of
    ``hyp_index``/``ref_index``. ``detail`` holds kind-specific facts (a shift's target, an
    m-gram's order and words, the direction of a CDER path), printed with the operation.
    """

    kind: str
    hyp_index: int | None
    ref_index: int | None
    cost: float
    source: tuple[int, int] | None = None
    target: tuple[int, int] | None = None
    hyp_span: tuple[int, int] | None = None
    ref_span: tuple[int, int] | None = None
    detail: dict[str, Any] | None = None

    def spans(self) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """(hyp, ref) half-open word spans the operation consumes; None for no word."""
        hyp = self.hyp_span
        if hyp is None and self.hyp_index is not None:
            hyp = (self.hyp_index, self.hyp_index + 1)
        ref = self.ref_span
        if ref is None and self.ref_index is not None:
            ref = (self.ref_index, self.ref_index + 1)
        return hyp, ref


@dataclass
class Alignment:
    """The best path of one sentence pair, optionally with the full DP grid (``grid[l][i]``)."""

    measure: str
    hyp: list[str]
    ref: list[str]
    distance: float
    operations: list[EditOp]
    grid: list[list[float]] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    charged_operations: list[EditOp] | None = None
    """Where set, the operations whose costs add up to ``distance`` (None: ``operations``)."""

    def costed_operations(self) -> list[EditOp]:
        """The operations whose costs add up to ``distance``, in reading order."""
        return self.operations if self.charged_operations is None else self.charged_operations

    def cost(self) -> float:
        """Σ cost of :meth:`costed_operations`: the distance, up to rounding."""
        return float(sum(op.cost for op in self.costed_operations()))

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable form; infinite grid cells become None."""
        data = dataclasses.asdict(self)
        if self.grid is not None:
            data["grid"] = [[None if math.isinf(v) else v for v in row] for row in self.grid]
        return data


_SWAPPED_KINDS = {"insert": "delete", "delete": "insert"}


def transposed(op: EditOp) -> EditOp:
    """The same operation with the roles of candidate and reference swapped (an insertion
    becomes a deletion, spans and grid nodes are mirrored)."""
    return EditOp(
        _SWAPPED_KINDS.get(op.kind, op.kind),
        op.ref_index,
        op.hyp_index,
        op.cost,
        None if op.source is None else (op.source[1], op.source[0]),
        None if op.target is None else (op.target[1], op.target[0]),
        op.ref_span,
        op.hyp_span,
        op.detail,
    )


def weighted(op: EditOp, weight: float, **detail: Any) -> EditOp:
    """A copy of ``op`` with its cost times ``weight`` and ``detail`` added."""
    return dataclasses.replace(
        op, cost=op.cost * weight, detail={**(op.detail or {}), **detail} or None
    )


def unit_substitution_matrix(hyp: Sequence[str], ref: Sequence[str]) -> FloatArray:
    """s(e, ẽ) = 0 for equal words, 1 otherwise."""
    hyp_array = np.array(hyp, dtype=object).reshape(-1, 1)
    ref_array = np.array(ref, dtype=object).reshape(1, -1)
    return (hyp_array != ref_array).astype(np.float64).reshape(len(hyp), len(ref))


CHUNK_SIZE = 4096
"""Pairs packed per compiled call; bounds the memory of word-cost matrices (I·L floats each)."""


def edit_distances(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    substitution: SubstitutionMatrix | None = None,
    *,
    c_ins: float = 1.0,
    c_del: float = 1.0,
    jump_cost: float | None = None,
    start_fixed: bool = True,
    end_fixed: bool = True,
) -> FloatArray:
    """Distances of many (hyp, ref) pairs with the compiled kernel, in input order.

    Args:
        pairs: token sequences (hyp, ref).
        substitution: builds s for one pair; None means unit costs (compared as word ids).
        c_ins: cost of a vertical edge. c_del: cost of a horizontal edge.
        jump_cost: c_LJ, or None for plain Levenshtein (no long jumps).
        start_fixed: path starts at (0, 0); otherwise anywhere in row 0 at no cost.
        end_fixed: path ends at (I, L); otherwise anywhere in row L.
    """
    from .kernels import packed_distances  # numba: see the module docstring

    options = {
        "c_ins": c_ins,
        "c_del": c_del,
        "jump_cost": NO_JUMP if jump_cost is None else jump_cost,
        "start_fixed": start_fixed,
        "end_fixed": end_fixed,
    }
    result = np.empty(len(pairs))
    for start in range(0, len(pairs), CHUNK_SIZE):
        chunk = pairs[start : start + CHUNK_SIZE]
        hyps = [word_ids(tuple(hyp)) for hyp, _ in chunk]
        refs = [word_ids(tuple(ref)) for _, ref in chunk]
        costs = cost_starts = None
        if substitution is not None:
            matrices = [substitution(hyp, ref).ravel() for hyp, ref in chunk]
            costs = np.concatenate(matrices)
            cost_starts = _offsets(matrices)[:-1]
        result[start : start + len(chunk)] = packed_distances(
            np.concatenate(hyps),
            _offsets(hyps),
            np.concatenate(refs),
            _offsets(refs),
            costs,
            cost_starts,
            **options,
        )
    return result


def _offsets(arrays: Sequence[npt.NDArray[Any]]) -> npt.NDArray[np.int64]:
    """Where each array starts in their concatenation, and the total length at the end."""
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(array) for array in arrays], out=offsets[1:])
    return offsets


_VOCABULARY: dict[str, int] = {}
"""Process-wide word ids; only equality of ids matters, so the numbering is arbitrary."""


@lru_cache(maxsize=2**17)
def word_ids(tokens: tuple[str, ...]) -> npt.NDArray[np.int64]:
    """Integer ids of a token sequence (cached: references recur for every system)."""
    return np.array(
        [_VOCABULARY.setdefault(word, len(_VOCABULARY)) for word in tokens], dtype=np.int64
    )


def grid_and_path(
    hyp: Sequence[str],
    ref: Sequence[str],
    sub: FloatArray,
    *,
    c_ins: float = 1.0,
    c_del: float = 1.0,
    jump_cost: float | None = None,
    start_fixed: bool = True,
    end_fixed: bool = True,
) -> tuple[float, FloatArray, list[EditOp]]:
    """DP grid (L+1, I+1) and best path of one pair.

    Deterministic backtrace (measures spec §9.6): diagonal > insertion > deletion; a long jump
    only where strictly cheaper, from the smallest column attaining the row minimum; in row 0
    with a fixed start the deletion chain wins ties against the jump; with a free end the
    path ends in the smallest column attaining the minimum.
    """
    from .kernels import distance_grid

    distance, grid = distance_grid(
        sub,
        c_ins=c_ins,
        c_del=c_del,
        jump_cost=NO_JUMP if jump_cost is None else jump_cost,
        start_fixed=start_fixed,
        end_fixed=end_fixed,
    )
    i = len(hyp) if end_fixed else int(np.argmin(grid[len(ref)]))
    path = _backtrace(grid, sub, i, start_fixed, c_ins, c_del, jump_cost)
    return distance, grid, path


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TIE_TOLERANCE


def _backtrace(
    grid: FloatArray,
    sub: FloatArray,
    i: int,
    start_fixed: bool,
    c_ins: float,
    c_del: float,
    jump_cost: float | None,
) -> list[EditOp]:
    j = grid.shape[0] - 1
    path: list[EditOp] = []
    while j > 0 or (i > 0 and start_fixed):
        value = grid[j, i]
        if j > 0 and i > 0 and _close(grid[j - 1, i - 1] + sub[i - 1, j - 1], value):
            cost = float(sub[i - 1, j - 1])
            kind = "match" if cost == 0 else "substitute"
            path.append(EditOp(kind, i - 1, j - 1, cost, (i - 1, j - 1), (i, j)))
            i, j = i - 1, j - 1
        elif j > 0 and _close(grid[j - 1, i] + c_ins, value):
            path.append(EditOp("insert", None, j - 1, c_ins, (i, j - 1), (i, j)))
            j -= 1
        elif i > 0 and _close(grid[j, i - 1] + c_del, value):
            path.append(EditOp("delete", i - 1, None, c_del, (i - 1, j), (i, j)))
            i -= 1
        else:
            assert jump_cost is not None, "no predecessor found outside a long-jump grid"
            source = 0 if j == 0 else int(np.argmin(grid[j]))
            path.append(EditOp("jump", None, None, jump_cost, (source, j), (i, j)))
            i = source
    path.reverse()
    return path


def coverage(path: Sequence[EditOp], hyp_length: int) -> list[int]:
    """How often each candidate word is consumed by a diagonal or deletion edge (spec §9.6)."""
    counts = [0] * hyp_length
    for op in path:
        if op.hyp_index is not None and op.kind in ("match", "substitute", "delete"):
            counts[op.hyp_index] += 1
    return counts


def optimal_edges(
    sub: FloatArray,
    *,
    c_ins: float = 1.0,
    c_del: float = 1.0,
    jump_cost: float | None = None,
    start_fixed: bool = True,
    end_fixed: bool = True,
) -> list[EditOp]:
    """Every grid edge that lies on some cost-optimal path (all co-optimal paths at once).

    F is the DP grid from the start, B the cost from a node to the end: the grid of the
    reversed pair (the edge set is symmetric under reversal, a free start becoming a free
    end), read backwards. An edge u → v of cost c is on an optimal path iff
    F(u) + c + B(v) = d. Long jumps are listed too (within a row, any column to any other).
    Edges come in the order of their target node (row, then column).
    """
    from .kernels import distance_grid

    options = {"c_ins": c_ins, "c_del": c_del}
    jump = NO_JUMP if jump_cost is None else jump_cost
    distance, forward = distance_grid(
        sub, jump_cost=jump, start_fixed=start_fixed, end_fixed=end_fixed, **options
    )
    _, reverse = distance_grid(
        np.ascontiguousarray(sub[::-1, ::-1]),
        jump_cost=jump,
        start_fixed=end_fixed,
        end_fixed=start_fixed,
        **options,
    )
    backward = reverse[::-1, ::-1]
    limit = distance + TIE_TOLERANCE
    edges: list[EditOp] = []
    height, width = forward.shape
    for j in range(height):
        for i in range(width):
            rest = backward[j, i]
            if j > 0 and i > 0 and forward[j - 1, i - 1] + sub[i - 1, j - 1] + rest <= limit:
                cost = float(sub[i - 1, j - 1])
                kind = "match" if cost == 0 else "substitute"
                edges.append(EditOp(kind, i - 1, j - 1, cost, (i - 1, j - 1), (i, j)))
            if j > 0 and forward[j - 1, i] + c_ins + rest <= limit:
                edges.append(EditOp("insert", None, j - 1, c_ins, (i, j - 1), (i, j)))
            if i > 0 and forward[j, i - 1] + c_del + rest <= limit:
                edges.append(EditOp("delete", i - 1, None, c_del, (i - 1, j), (i, j)))
            if jump_cost is not None:
                sources = np.flatnonzero(forward[j] + jump_cost + rest <= limit)
                edges.extend(
                    EditOp("jump", None, None, jump_cost, (int(k), j), (i, j))
                    for k in sources
                    if k != i
                )
    return edges
