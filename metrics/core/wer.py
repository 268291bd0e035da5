"""WER, the word error rate: Levenshtein distance on words (measures spec §7, thesis §4.3).

Also the word-dependent substitution costs of spec §5 (thesis §4.5, Table 4.2), shared by WER,
PER and CDER through the option ``substitution-cost-rule``:

* ``none``: c_SUB(e, ẽ) = 1 for e ≠ ẽ;
* ``prefix``: 1 − cpl(e, ẽ) / ((|e| + |ẽ|) / 2), cpl the common-prefix length in characters;
* ``levenshtein``: d_LEV^char(e, ẽ) / P(e, ẽ), where P is the *minimum* number of edges among
  all cost-optimal character alignments (spec §5 [R]; ``abc``/``cab`` gives 0.5).

With constant costs the distance comes from rapidfuzz's C++ Levenshtein on token lists; with
word-dependent costs from the shared DP kernel of :mod:`metrics.core.alignment`. numpy and
that module (which brings numba) are imported where they are used: a command-line score with
constant costs needs neither (:meth:`ErrorRateMeasure.whole_score`).
Corpus WER equals jiwer's ``wer`` on the same tokens (Σ edits / Σ reference words) under the
``average`` rule with one reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein

from .base import Option
from .error_rate import REF_LENGTH_OPTION, TEXT_OPTIONS, ErrorRateMeasure, TokenPair

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .alignment import Alignment, SubstitutionMatrix

SUBSTITUTION_COST_RULES = ("none", "prefix", "levenshtein")

SUBSTITUTION_COST_OPTION = Option(
    default="none",
    choices=SUBSTITUTION_COST_RULES,
    short="subcost",
    help="Word-dependent substitution costs of Table A.8 (measures spec §5).",
)


@lru_cache(maxsize=2**18)
def prefix_substitution_cost(hyp_word: str, ref_word: str) -> float:
    """c_SUB,prefix: one minus the common-prefix length over the mean word length.

    Example:
        >>> round(prefix_substitution_cost("talk", "talks"), 4)
        0.1111
    """
    if hyp_word == ref_word:
        return 0.0
    common = 0
    for hyp_char, ref_char in zip(hyp_word, ref_word, strict=False):
        if hyp_char != ref_char:
            break
        common += 1
    return 1.0 - common / ((len(hyp_word) + len(ref_word)) / 2)


@lru_cache(maxsize=2**18)
def levenshtein_substitution_cost(hyp_word: str, ref_word: str) -> float:
    """c_SUB,L: character Levenshtein distance over the shortest optimal path length.

    The DP minimises (cost, number of edges) lexicographically (spec §5 [R]).

    Example:
        >>> levenshtein_substitution_cost("abc", "cab")
        0.5
    """
    if hyp_word == ref_word:
        return 0.0
    previous = [(j, j) for j in range(len(ref_word) + 1)]
    for i, hyp_char in enumerate(hyp_word, start=1):
        current = [(i, i)]
        for j, ref_char in enumerate(ref_word, start=1):
            cost, length = previous[j - 1]
            diagonal = (cost + (hyp_char != ref_char), length + 1)
            above = (previous[j][0] + 1, previous[j][1] + 1)
            left = (current[j - 1][0] + 1, current[j - 1][1] + 1)
            current.append(min(diagonal, above, left))
        previous = current
    cost, length = previous[-1]
    return cost / length


_WORD_COSTS = {
    "prefix": prefix_substitution_cost,
    "levenshtein": levenshtein_substitution_cost,
}


def substitution_matrix_function(rule: str) -> SubstitutionMatrix:
    """The function building s(e_i, ẽ_l) for a pair under a ``substitution-cost-rule``."""
    from .alignment import unit_substitution_matrix

    if rule == "none":
        return unit_substitution_matrix
    word_cost = _WORD_COSTS[rule]

    def matrix(hyp: Sequence[str], ref: Sequence[str]) -> npt.NDArray[np.float64]:
        import numpy as np

        return np.array([[word_cost(h, r) for r in ref] for h in hyp], dtype=np.float64).reshape(
            len(hyp), len(ref)
        )

    return matrix


class WER(ErrorRateMeasure):
    """Word error rate: Levenshtein distance over the reference length (percent)."""

    name = "wer"
    description = "Word error rate (Levenshtein distance on words), thesis §4.3."
    options = {
        **TEXT_OPTIONS,
        "ref-length-rule": REF_LENGTH_OPTION,
        "substitution-cost-rule": SUBSTITUTION_COST_OPTION,
    }

    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        import numpy as np

        from .alignment import edit_distances

        rule = self.values["substitution-cost-rule"]
        if rule == "none":
            return np.array([Levenshtein.distance(hyp, ref) for hyp, ref in pairs], dtype=float)
        return edit_distances(pairs, substitution_matrix_function(rule))

    def plain_distances(self, pairs: Sequence[TokenPair]) -> list[float] | None:
        """rapidfuzz's Levenshtein distances with constant costs; None with word costs (the
        compiled kernel). Equal to the kernel's unit-cost distances (tested)."""
        if self.values["substitution-cost-rule"] != "none":
            return None
        distance = Levenshtein.distance
        return [float(distance(hyp, ref)) for hyp, ref in pairs]

    def align(self, hyp: str, ref: str, grid: bool = False, all_paths: bool = False) -> Alignment:
        """The Levenshtein grid's best path (ties: diagonal > insertion > deletion).

        ``all_paths`` adds ``extras["optimal_edges"]``: every grid edge on some co-optimal
        path (:func:`~metrics.core.alignment.optimal_edges`), the union of all best paths.
        """
        from .alignment import Alignment, grid_and_path, optimal_edges

        hyp_tokens, ref_tokens = self.tokens(hyp), self.tokens(ref)
        sub = substitution_matrix_function(self.values["substitution-cost-rule"])(
            hyp_tokens, ref_tokens
        )
        distance, table, path = grid_and_path(hyp_tokens, ref_tokens, sub)
        extras = {"optimal_edges": optimal_edges(sub)} if all_paths else {}
        return Alignment(
            self.name,
            list(hyp_tokens),
            list(ref_tokens),
            distance,
            path,
            table.tolist() if grid else None,
            extras,
        )
