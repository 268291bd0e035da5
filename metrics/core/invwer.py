"""INVWER, the inversion distance of a bracketing transduction grammar (measures spec §10).

Wu, "Stochastic inversion transduction grammars ...", IJCAI 1995; thesis §4.4.4, Algs. 4.3–4.6.
d_inv is the cheapest BTG parse producing the candidate and the reference: identity,
substitution, deletion and insertion leaves, joined straight ([A A], free) or inverted
(⟨A A⟩, cost c_INV).

This is the corrected bottom-up DP of spec §10.5, the normative algorithm: split points range
over i' ∈ [i0−1, i1] and l' ∈ [l0−1, l1] (children may have an empty side, so
d_inv(``a``, ``x a``) = 1 as Eq. 4.26 requires), and the trivial splits that reproduce the node
are excluded. The thesis' memoisation with pruning stores bounds as values and is unsafe
(spec §10.6); it is not used. Every span pair of one size is computed at once with numpy, over
integer cost numerators, so the result is exact.

``transposition-costs`` is "denominator,c_SUB,c_DEL,c_INS,c_INV" (Table A.1); the default
``1,1,1,1,1``.

Bounds (Eq. 4.26, spec §10.3), with PER and Levenshtein under the same c_SUB, c_DEL, c_INS:

    d_PER ≤ d_inv ≤ d_LEV

A tree without inversions is a Levenshtein alignment, and the leaves of any tree pair the
words like a PER matching at the same leaf costs, plus c_INV ≥ 0 per inversion; PER's closed
form is the cheapest matching because c_SUB ≤ c_DEL + c_INS (Eq. 4.10, enforced by
:func:`parse_costs`). Where d_PER = d_LEV, d_inv = d_LEV without the DP, exactly.

Otherwise the DP runs up to ``max-length`` words on either side (spec §10.7, default 20, the
thesis' own limit); longer pairs get the upper bound d_LEV and are counted in the corpus detail
``approximated_segments``; ``align`` then returns the Levenshtein tree (straight joins only),
marked approximate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein

from .alignment import Alignment, EditOp, grid_and_path, unit_substitution_matrix
from .base import MeasureError, Option
from .error_rate import REF_LENGTH_OPTION, TEXT_OPTIONS, ErrorRateMeasure, TokenPair
from .per import count_vector_distance

IntArray = npt.NDArray[np.int64]
_UNREACHABLE = np.iinfo(np.int64).max // 4


def parse_costs(text: str) -> tuple[int, int, int, int, int]:
    """(denominator, c_SUB, c_DEL, c_INS, c_INV) numerators from ``transposition-costs``.

    Raises:
        MeasureError: not five non-negative integers, a zero denominator, or costs violating
            c_SUB ≤ c_DEL + c_INS (Eq. 4.10).
    """
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise MeasureError(f"transposition-costs: {text!r} is not a list of integers") from None
    if len(values) != 5 or min(values) < 0 or values[0] == 0:
        raise MeasureError(
            f"transposition-costs: {text!r} needs five non-negative integers, denominator > 0"
        )
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
            node["type"] = self._leaf_type(a, b, value)
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

    @staticmethod
    def _leaf_type(a: int, b: int, value: int) -> str:
        if a == 0:
            return "insert"
        if b == 0:
            return "delete"
        return "match" if value == 0 else "substitute"


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
            default=20,
            kind=int,
            minimum=0,
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
        """(d_PER, d_LEV) numerators under the measure's costs: d_PER ≤ d_inv ≤ d_LEV."""
        _, c_sub, c_del, c_ins, _ = self.costs
        lower = count_vector_distance(Counter(hyp), Counter(ref), c_sub, c_ins, c_del)
        upper = Levenshtein.distance(hyp, ref, weights=(c_ins, c_del, c_sub))
        return lower, upper

    def resolve(self, hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, bool]:
        """(distance, approximated): d_LEV where d_PER reaches it, else d_inv by the DP
        within ``max-length``, else the d_LEV bound, approximated."""
        denominator = self.costs[0]
        lower, upper = self.bounds(hyp, ref)
        if lower >= upper:
            return upper / denominator, False
        if not self.is_exact(hyp, ref):
            return upper / denominator, True
        return InversionTable(hyp, ref, self.costs).distance() / denominator, False

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

        Beyond ``max-length`` the DP is not run, as in scoring: the tree is the Levenshtein
        path's (:func:`levenshtein_tree`), the distance d_LEV, and ``extras["approximate"]``
        is true unless d_PER = d_LEV (then that tree is optimal). ``grid`` is ignored.
        """
        hyp_tokens, ref_tokens = self.tokens(hyp), self.tokens(ref)
        denominator, c_sub, c_del, c_ins, _ = self.costs
        approximate = False
        if self.is_exact(hyp_tokens, ref_tokens):
            table = InversionTable(hyp_tokens, ref_tokens, self.costs)
            tree = table.tree(len(hyp_tokens), len(ref_tokens))
            distance = table.distance() / denominator
        else:
            sub = unit_substitution_matrix(hyp_tokens, ref_tokens) * c_sub
            _, _, path = grid_and_path(hyp_tokens, ref_tokens, sub, c_ins=c_ins, c_del=c_del)
            tree = levenshtein_tree(path, self.costs)
            lower, upper = self.bounds(hyp_tokens, ref_tokens)
            distance, approximate = upper / denominator, lower < upper
        return Alignment(
            self.name,
            list(hyp_tokens),
            list(ref_tokens),
            distance,
            leaf_operations(tree, denominator),
            None,
            {"tree": tree, "cost_denominator": denominator, "approximate": approximate},
        )
