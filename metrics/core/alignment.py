"""The shared edit-distance entry points and the alignment records every string measure returns.

One dynamic program serves WER (Levenshtein, measures spec §7, Alg. 4.1) and CDER (the
CDCD-distance with long jumps, §9.3, Alg. 4.2 corrected). The grid follows the thesis: nodes
(i, l) lie between words, i over candidate positions (columns) and l over reference positions
(rows); a horizontal edge deletes candidate word e_i, a vertical edge inserts reference word
ẽ_l, a diagonal edge matches or substitutes, and a long jump moves within a row.

The DP itself is the compiled kernel of :mod:`metrics.core.kernels`, used both for scores
(:func:`edit_distances`: words mapped to integer ids once, many pairs packed per call) and for
the grid that :func:`grid_and_path` backtraces (spec §9.6 tie-breaking).

Alignments are plain dataclasses; ``as_dict()`` gives JSON-serialisable dicts for drawing grids.
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

from .kernels import NO_JUMP, distance_grid, packed_distances

FloatArray = npt.NDArray[np.float64]
SubstitutionMatrix = Callable[[Sequence[str], Sequence[str]], FloatArray]
"""(hyp, ref) -> matrix (len(hyp), len(ref)) of s(e_i, ẽ_l): 0 for equal words."""

TIE_TOLERANCE = 1e-9


@dataclass
class EditOp:
    """One edge of an alignment path.

    ``kind`` is ``match``, ``substitute``, ``insert`` (a reference word without counterpart),
    ``delete`` (a candidate word without counterpart), ``jump`` (CDER long jump) or ``shift``
    (TER block shift). ``hyp_index``/``ref_index`` are 0-based word positions (None where the
    edge consumes no word of that side); ``source``/``target`` are grid nodes (i, l).
    """

    kind: str
    hyp_index: int | None
    ref_index: int | None
    cost: float
    source: tuple[int, int] | None = None
    target: tuple[int, int] | None = None


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

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable form; infinite grid cells become None."""
        data = dataclasses.asdict(self)
        if self.grid is not None:
            data["grid"] = [[None if math.isinf(v) else v for v in row] for row in self.grid]
        return data


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
