"""CDER, the CDCD-distance with long jumps (measures spec §9; thesis §4.4.2–4.4.3, Alg. 4.2).

Leusch, Ueffing & Ney, "CDER: Efficient MT Evaluation Using Block Movements", EACL 2006.
The reference must be covered completely and disjointly, the candidate need not be; a long
jump (cost 1) moves to any column of the current row. Repairs of the printed Alg. 4.2 that
are implemented here (spec §9.3, §19 errata 6–8):

* the jump relaxation covers column 0 too, so a candidate's first words can be re-covered;
* ``pad-rule`` fixes or frees the start and end of the path (Table A.6): ``none`` both free,
  ``left`` fixed start, ``right`` fixed end, ``both`` both fixed (the thesis default);
* ``direction`` (Fig. A.3): ``forward`` covers the reference (the default CDER),
  ``backward`` the candidate (roles swapped), ``bidirectional`` the mean of both and
  ``maximum`` the larger, each combined per reference before the reference-length rule;
* ``coverage-rule`` (Table A.7) adds a penalty: ``length`` max(I − L, 0), ``miscoverage``
  Σ_i f(coverage(i)) with f(0) = 1, f(1) = 0, f(n) = n − 1, and ``half`` their mean.
  Coverage counts the diagonal and deletion edges ending in column i of the deterministic
  best path (diagonal > insertion > deletion; strict-improvement jumps from the smallest
  row-minimum column). For ``backward`` the roles of candidate and reference swap in the
  penalty too.

All costs are 1 (c_LJ is not configurable, spec §9.7); ``substitution-cost-rule`` applies.
Eq. 4.19's lower bound d_CDCD + lp_ΔL ≤ d_LJ is false (spec §9.6) and is not relied on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .alignment import (
    Alignment,
    EditOp,
    coverage,
    edit_distances,
    grid_and_path,
    optimal_edges,
    transposed,
    weighted,
)
from .base import Option
from .error_rate import REF_LENGTH_OPTION, TEXT_OPTIONS, ErrorRateMeasure, TokenPair
from .preprocessing import PAD_RULES
from .wer import SUBSTITUTION_COST_OPTION, substitution_matrix_function

DIRECTIONS = ("forward", "backward", "bidirectional", "maximum")
COVERAGE_RULES = ("none", "length", "miscoverage", "half")
JUMP_COST = 1.0


def miscoverage_penalty(counts: Sequence[int]) -> float:
    """lp_misc (Eq. 4.18): 1 per uncovered word, n − 1 per word covered n ≥ 2 times."""
    return float(sum(1 if n == 0 else n - 1 for n in counts))


def length_penalty(hyp_length: int, ref_length: int) -> float:
    """lp_ΔL (Eq. 4.17): the candidate's excess length."""
    return float(max(hyp_length - ref_length, 0))


class CDER(ErrorRateMeasure):
    """CDER: CDCD-distance (plus optional miscoverage penalty) over the reference length."""

    name = "cder"
    description = "CDER, edit distance with long jumps covering the reference, thesis §4.4.2."
    options = {
        **TEXT_OPTIONS,
        "ref-length-rule": REF_LENGTH_OPTION,
        "substitution-cost-rule": SUBSTITUTION_COST_OPTION,
        "pad-rule": Option(
            default="both",
            choices=PAD_RULES,
            short="pad",
            help="Fixed (left/right/both) or free path start and end (Table A.6).",
        ),
        "direction": Option(
            default="forward",
            choices=DIRECTIONS,
            short="dir",
            help="Cover the reference (forward), the candidate (backward), mean or maximum.",
        ),
        "coverage-rule": Option(
            default="none",
            choices=COVERAGE_RULES,
            short="cov",
            help="Miscoverage penalty added to the distance (Table A.7).",
        ),
    }

    @property
    def _path_options(self) -> dict[str, object]:
        pad = self.values["pad-rule"]
        return {
            "jump_cost": JUMP_COST,
            "start_fixed": pad in ("left", "both"),
            "end_fixed": pad in ("right", "both"),
        }

    def _substitution(self, backward: bool):  # type: ignore[no-untyped-def]
        matrix = substitution_matrix_function(self.values["substitution-cost-rule"])
        if not backward:
            return matrix
        return lambda rows, columns: matrix(columns, rows).T

    def directed_distances(
        self, pairs: Sequence[TokenPair], backward: bool = False
    ) -> npt.NDArray[np.float64]:
        """d_CDCD + penalty of every pair in one direction (backward: roles swapped)."""
        directed = [(ref, hyp) for hyp, ref in pairs] if backward else list(pairs)
        rule = self.values["coverage-rule"]
        if rule in ("miscoverage", "half"):
            return np.array([self._penalised_distance(h, r, backward) for h, r in directed])
        costs = self.values["substitution-cost-rule"]
        substitution = None if costs == "none" else self._substitution(backward)
        distances = edit_distances(directed, substitution, **self._path_options)
        if rule == "length":
            distances += [length_penalty(len(h), len(r)) for h, r in directed]
        return distances

    def _penalised_distance(self, hyp: Sequence[str], ref: Sequence[str], backward: bool) -> float:
        distance, _, path = grid_and_path(
            hyp, ref, self._substitution(backward)(hyp, ref), **self._path_options
        )
        return distance + self.penalty(path, len(hyp), len(ref))

    def penalty(self, path: Sequence[EditOp], hyp_length: int, ref_length: int) -> float:
        """The ``coverage-rule`` penalty of one path (0 for ``none``)."""
        rule = self.values["coverage-rule"]
        if rule == "none":
            return 0.0
        if rule == "length":
            return length_penalty(hyp_length, ref_length)
        misc = miscoverage_penalty(coverage(path, hyp_length))
        if rule == "miscoverage":
            return misc
        return 0.5 * (length_penalty(hyp_length, ref_length) + misc)

    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        direction = self.values["direction"]
        if direction == "forward":
            return self.directed_distances(pairs)
        backward = self.directed_distances(pairs, backward=True)
        if direction == "backward":
            return backward
        forward = self.directed_distances(pairs)
        if direction == "bidirectional":
            return (forward + backward) / 2
        return np.maximum(forward, backward)

    def penalty_operations(
        self, path: Sequence[EditOp], hyp_length: int, ref_length: int
    ) -> list[EditOp]:
        """The ``coverage-rule`` penalty of one path as ``penalty`` operations (in the path's
        orientation): one per candidate word covered 0 or ≥ 2 times (Eq. 4.18), one for the
        excess length (Eq. 4.17), each halved under ``half``; their costs sum to
        :meth:`penalty`."""
        rule = self.values["coverage-rule"]
        share = 0.5 if rule == "half" else 1.0
        operations = []
        if rule in ("length", "half"):
            excess = length_penalty(hyp_length, ref_length)
            if excess:
                operations.append(
                    EditOp("penalty", None, None, share * excess, detail={"penalty": "length"})
                )
        if rule in ("miscoverage", "half"):
            for i, count in enumerate(coverage(path, hyp_length)):
                if count != 1:
                    cost = share * (1 if count == 0 else count - 1)
                    detail = {"penalty": "miscoverage", "coverage": count}
                    operations.append(EditOp("penalty", i, None, cost, detail=detail))
        return operations

    def directed_alignment(
        self,
        hyp: Sequence[str],
        ref: Sequence[str],
        backward: bool,
        all_paths: bool = False,
    ) -> Alignment:
        """Grid, path, coverage and penalty of one direction (backward: columns are ref words).

        ``charged_operations`` holds the path and its penalty operations in candidate/reference
        orientation (backward paths transposed), each marked with its direction.
        """
        rows_side, columns_side = (hyp, ref) if backward else (ref, hyp)
        sub = self._substitution(backward)(columns_side, rows_side)
        distance, grid, path = grid_and_path(columns_side, rows_side, sub, **self._path_options)
        penalty = self.penalty(path, len(columns_side), len(rows_side))
        name = "backward" if backward else "forward"
        charged = path + self.penalty_operations(path, len(columns_side), len(rows_side))
        if backward:
            charged = [transposed(op) for op in charged]
        extras = {
            "direction": name,
            "cdcd_distance": distance,
            "penalty": penalty,
            "coverage": coverage(path, len(columns_side)),
        }
        if all_paths:
            extras["optimal_edges"] = optimal_edges(sub, **self._path_options)  # type: ignore[arg-type]
        return Alignment(
            self.name,
            list(hyp),
            list(ref),
            distance + penalty,
            path,
            grid.tolist(),
            extras,
            [weighted(op, 1.0, direction=name) for op in charged],
        )

    def align(self, hyp: str, ref: str, grid: bool = False, all_paths: bool = False) -> Alignment:
        """Forward alignment (backward for ``direction=backward``); other directions add the
        backward alignment under ``extras["backward"]`` and use the combined distance.

        ``extras["coverage"]`` counts how often each column word (candidate words forward,
        reference words backward) is consumed by a diagonal or deletion edge (0, 1 or ≥ 2).
        ``charged_operations`` adds up to the distance: the path (transposed into
        candidate/reference orientation when backward) and its ``penalty`` operations; for
        ``bidirectional`` both directions' at half cost, for ``maximum`` the larger
        direction's (forward on ties); None for ``forward`` without a penalty, where the
        path alone makes up the distance. ``all_paths`` adds ``extras["optimal_edges"]``, every
        grid edge on some path of least d_CDCD (the penalty is not part of it).
        """
        hyp_tokens, ref_tokens = self.tokens(hyp), self.tokens(ref)
        direction = self.values["direction"]
        main = self.directed_alignment(
            hyp_tokens, ref_tokens, backward=direction == "backward", all_paths=all_paths
        )
        if direction in ("bidirectional", "maximum"):
            other = self.directed_alignment(hyp_tokens, ref_tokens, True, all_paths)
            assert main.charged_operations is not None and other.charged_operations is not None
            main.extras["backward"] = other.as_dict() if grid else {**other.as_dict(), "grid": None}
            if direction == "maximum":
                larger = other if other.distance > main.distance else main
                main.charged_operations = larger.charged_operations
                main.distance = larger.distance
            else:
                main.charged_operations = [
                    weighted(op, 0.5) for op in main.charged_operations + other.charged_operations
                ]
                main.distance = (main.distance + other.distance) / 2
        elif direction == "forward" and self.values["coverage-rule"] == "none":
            main.charged_operations = None  # the path alone makes up the distance
        if not grid:
            main.grid = None
        return main
