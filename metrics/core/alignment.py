"""The shared edit-distance kernel and the alignment records every string measure returns.

One dynamic program serves WER (Levenshtein, measures spec §7, Alg. 4.1) and CDER (the
CDCD-distance with long jumps, §9.3, Alg. 4.2 corrected). The grid follows the thesis: nodes
(i, l) lie between words, i over candidate positions (columns) and l over reference positions
(rows); a horizontal edge deletes candidate word e_i, a vertical edge inserts reference word
ẽ_l, a diagonal edge matches or substitutes, and a long jump moves within a row.

Each row is computed with numpy for many sentence pairs at once: the vertical and diagonal
steps are elementwise, and the chain of horizontal deletions within a row is a running minimum
(Q[i] = i·c_DEL + min_{j≤i} (A[j] − j·c_DEL)), so no Python loop runs over cells.

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

FloatArray = npt.NDArray[np.float64]
SubstitutionMatrix = Callable[[Sequence[str], Sequence[str]], FloatArray]
"""(hyp, ref) -> matrix (len(hyp), len(ref)) of s(e_i, ẽ_l): 0 for equal words."""

TIE_TOLERANCE = 1e-9
BATCH_SIZE = 256


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


def edit_rows(
    sub: npt.NDArray[np.float64] | npt.NDArray[np.bool_],
    hyp_lens: npt.NDArray[np.int64],
    ref_lens: npt.NDArray[np.int64],
    *,
    c_ins: float = 1.0,
    c_del: float = 1.0,
    jump_cost: float | None = None,
    start_fixed: bool = True,
    end_fixed: bool = True,
    keep_grid: bool = False,
) -> tuple[FloatArray, FloatArray | None]:
    """Run the DP over a batch of pairs padded to one shape.

    Args:
        sub: (L, P, I) substitution costs, one (P, I) slice per reference position (row);
            cells beyond a pair's lengths are ignored. Booleans count as 0/1.
        hyp_lens: I_p per pair. ref_lens: L_p per pair.
        c_ins: cost of a vertical edge. c_del: cost of a horizontal edge.
        jump_cost: c_LJ, or None for plain Levenshtein (no long jumps).
        start_fixed: path starts at (0, 0); otherwise anywhere in row 0 at no cost.
        end_fixed: path ends at (I, L); otherwise anywhere in row L.
        keep_grid: also return every row, shape (P, L+1, I+1).

    Returns:
        The distance of every pair, and the grid or None.
    """
    height, pairs, width = sub.shape
    columns = np.arange(width + 1, dtype=np.float64) * c_del
    outside = np.where(np.arange(width + 1)[None, :] > hyp_lens[:, None], np.inf, 0.0)
    if start_fixed:
        row = np.repeat(columns[None, :], pairs, axis=0)
        if jump_cost is not None:
            np.minimum(row, jump_cost, out=row)
    else:
        row = np.zeros((pairs, width + 1))
    row += outside
    result = np.empty(pairs)
    grid = np.empty((pairs, height + 1, width + 1)) if keep_grid else None
    finishing = {int(length): np.flatnonzero(ref_lens == length) for length in np.unique(ref_lens)}
    above = np.empty_like(row)
    diagonal = np.empty((pairs, width))
    for j in range(height + 1):
        if j > 0:
            np.add(row, c_ins - columns, out=above)
            np.add(row[:, :-1], sub[j - 1], out=diagonal)
            diagonal -= columns[1:]
            np.minimum(above[:, 1:], diagonal, out=above[:, 1:])
            np.minimum.accumulate(above, axis=1, out=row)
            row += columns
            row += outside
            if jump_cost is not None:
                np.minimum(row, row.min(axis=1, keepdims=True) + jump_cost, out=row)
        if grid is not None:
            grid[:, j, :] = row
        finished = finishing.get(j)
        if finished is not None:
            if end_fixed:
                result[finished] = row[finished, hyp_lens[finished]]
            else:
                result[finished] = row[finished].min(axis=1)
    return result, grid


def edit_distances(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    substitution: SubstitutionMatrix | None = None,
    **options: Any,
) -> FloatArray:
    """Distances of many (hyp, ref) pairs with :func:`edit_rows`, in batches of similar size.

    Args:
        pairs: token sequences (hyp, ref).
        substitution: builds s for one pair; None means unit costs (computed vectorised).
        **options: passed to :func:`edit_rows` (costs, jump cost, fixed start/end).

    Returns:
        One distance per pair, in input order.
    """
    result = np.empty(len(pairs))
    order = sorted(range(len(pairs)), key=lambda k: max(len(pairs[k][0]), len(pairs[k][1])))
    for start in range(0, len(order), BATCH_SIZE):
        chunk = order[start : start + BATCH_SIZE]
        hyp_lens = np.array([len(pairs[k][0]) for k in chunk], dtype=np.int64)
        ref_lens = np.array([len(pairs[k][1]) for k in chunk], dtype=np.int64)
        sub = _batch_substitutions([pairs[k] for k in chunk], substitution, hyp_lens, ref_lens)
        distances, _ = edit_rows(sub, hyp_lens, ref_lens, **options)
        result[chunk] = distances
    return result


def _batch_substitutions(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    substitution: SubstitutionMatrix | None,
    hyp_lens: npt.NDArray[np.int64],
    ref_lens: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64] | npt.NDArray[np.bool_]:
    width, height = int(hyp_lens.max(initial=0)), int(ref_lens.max(initial=0))
    if substitution is not None:
        sub = np.ones((height, len(pairs), width))
        for p, (hyp, ref) in enumerate(pairs):
            if hyp and ref:
                sub[: len(ref), p, : len(hyp)] = substitution(hyp, ref).T
        return sub
    # Unit costs: compare integer word ids; padding ids never match.
    hyp_ids = _padded_ids([hyp for hyp, _ in pairs], hyp_lens, width, -1)
    ref_ids = _padded_ids([ref for _, ref in pairs], ref_lens, height, -2)
    return ref_ids.T[:, :, None] != hyp_ids[None, :, :]


def _padded_ids(
    sentences: Sequence[Sequence[str]], lengths: npt.NDArray[np.int64], width: int, padding: int
) -> npt.NDArray[np.int64]:
    """(P, width) word ids, ``padding`` after each sentence; one scatter for the batch."""
    ids = np.full((len(sentences), width), padding, dtype=np.int64)
    if width:
        flat = np.concatenate([word_ids(tuple(sentence)) for sentence in sentences])
        rows = np.repeat(np.arange(len(sentences)), lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        ids[rows, np.arange(len(flat)) - starts] = flat
    return ids


_VOCABULARY: dict[str, int] = {}
"""Process-wide word ids; only equality of ids matters, so the numbering is arbitrary."""


@lru_cache(maxsize=2**17)
def word_ids(tokens: tuple[str, ...]) -> npt.NDArray[np.int64]:
    """Integer ids of a token sequence (cached: references recur for every system)."""
    return np.array([_VOCABULARY.setdefault(word, len(_VOCABULARY)) for word in tokens], dtype=np.int64)


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
    lengths = (np.array([len(hyp)]), np.array([len(ref)]))
    options = {"c_ins": c_ins, "c_del": c_del, "jump_cost": jump_cost}
    distances, grids = edit_rows(
        sub.T.reshape(len(ref), 1, len(hyp)), *lengths, **options,
        start_fixed=start_fixed, end_fixed=end_fixed, keep_grid=True,
    )
    assert grids is not None
    grid = grids[0]
    i = len(hyp) if end_fixed else int(np.argmin(grid[len(ref)]))
    path = _backtrace(grid, sub, i, start_fixed, c_ins, c_del, jump_cost)
    return float(distances[0]), grid, path


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
