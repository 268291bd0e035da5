"""Position-independent measures: d_ΔI, PER, PER with word costs, MSDER (measures spec §6.1–6.4).

Tillmann, Vogel, Ney, Zubiaga & Sawaf, "Accelerated DP based search for statistical
translation", Eurospeech 1997 (PER); thesis §4.1.3 and §4.2.1.

* d_ΔI (Eq. 4.7), the length difference: a lower bound of every distance, exposed as
  :func:`length_difference` (a diagnostic, not a reported measure).
* PER (Eq. 4.11) on unigram count vectors: ½ (Σ_e |n_e − ñ_e| − |I − L|) + |I − L| with unit
  costs, through :func:`count_vector_distance`.
* With ``substitution-cost-rule`` prefix or levenshtein, PER is the minimum-cost perfect
  matching of spec §6.3 (scipy's ``linear_sum_assignment``); with constant costs it equals
  Eq. 4.11.
* MSDER (§6.4): Σ_e |n_e − ñ_e|, i.e. PER with c_SUB = 2.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
from scipy.optimize import linear_sum_assignment

from .alignment import Alignment, EditOp
from .error_rate import REF_LENGTH_OPTION, TEXT_OPTIONS, ErrorRateMeasure, TokenPair
from .wer import SUBSTITUTION_COST_OPTION, substitution_matrix_function


def length_difference(
    hyp_length: int, ref_length: int, c_ins: float = 1.0, c_del: float = 1.0
) -> float:
    """d_ΔI (Eq. 4.7): deletions for a longer candidate, insertions for a shorter one."""
    if hyp_length >= ref_length:
        return (hyp_length - ref_length) * c_del
    return (ref_length - hyp_length) * c_ins


def count_vector_distance(
    hyp_counts: Mapping[Hashable, int],
    ref_counts: Mapping[Hashable, int],
    c_sub: float = 1.0,
    c_ins: float = 1.0,
    c_del: float = 1.0,
) -> float:
    """Edit distance between two multisets (Eq. 4.11), the kernel of PER and MSDER.

    Example:
        >>> count_vector_distance(Counter("we have been there".split()),
        ...                       Counter("we were there".split()))
        2.0
    """
    hyp_total, ref_total = sum(hyp_counts.values()), sum(ref_counts.values())
    difference = sum(
        abs(hyp_counts.get(item, 0) - ref_counts.get(item, 0))
        for item in set(hyp_counts) | set(ref_counts)
    )
    excess = abs(hyp_total - ref_total)
    return 0.5 * (difference - excess) * c_sub + length_difference(
        hyp_total, ref_total, c_ins, c_del
    )


def assignment_matrix(hyp: Sequence[str], ref: Sequence[str], rule: str) -> npt.NDArray[np.float64]:
    """The n × n cost matrix of spec §6.3: substitutions, and ε slots for the shorter side."""
    size = max(len(hyp), len(ref))
    matrix = np.ones((size, size))
    if hyp and ref:
        matrix[: len(hyp), : len(ref)] = substitution_matrix_function(rule)(hyp, ref)
    return matrix


def ordered_matching(hyp: Sequence[str], ref: Sequence[str], c_sub: float = 1.0) -> list[EditOp]:
    """An optimal PER matching under constant costs, the same pairs a reader would draw.

    Equal words are matched first, the k-th occurrence of a word in the candidate with its
    k-th occurrence in the reference; the remaining candidate words are paired with the
    remaining reference words in sentence order (substitutions, cost ``c_sub``), and the
    rest are deletions or insertions. Its cost is Eq. 4.11 (with ``c_sub`` = 2 and no pairs
    of unequal words, MSDER), since Σ min(n_e, ñ_e) pairs of equal words are matched.
    Operations are in candidate order, insertions last in reference order.

    Example:
        >>> [(op.kind, op.hyp_index, op.ref_index) for op in ordered_matching(
        ...     "we have been there".split(), "we were there".split())]
        [('match', 0, 0), ('substitute', 1, 1), ('delete', 2, None), ('match', 3, 2)]
    """
    unmatched: dict[str, list[int]] = {}
    for j, word in enumerate(ref):
        unmatched.setdefault(word, []).append(j)
    partner: dict[int, int] = {}
    for i, word in enumerate(hyp):
        if unmatched.get(word):
            partner[i] = unmatched[word].pop(0)
    free_refs = sorted(j for positions in unmatched.values() for j in positions)
    free_hyps = [i for i in range(len(hyp)) if i not in partner]
    substituted = dict(zip(free_hyps, free_refs, strict=False)) if c_sub < 2 else {}
    operations = []
    for i in range(len(hyp)):
        if i in partner:
            operations.append(EditOp("match", i, partner[i], 0.0))
        elif i in substituted:
            operations.append(EditOp("substitute", i, substituted[i], c_sub))
        else:
            operations.append(EditOp("delete", i, None, 1.0))
    paired = set(substituted.values())
    operations.extend(EditOp("insert", None, j, 1.0) for j in free_refs if j not in paired)
    return operations


def matching_pairs(operations: Sequence[EditOp]) -> list[list[int | None]]:
    """``[hyp_index, ref_index]`` of every matched, substituted, deleted or inserted word."""
    return [[op.hyp_index, op.ref_index] for op in operations]


def matched_pairs(hyp: Sequence[str], ref: Sequence[str], rule: str) -> list[EditOp]:
    """The optimal assignment of candidate to reference words as edit operations.

    Constant costs use :func:`ordered_matching`; word-dependent costs the minimum-cost
    perfect matching of spec §6.3 (scipy's ``linear_sum_assignment``).
    """
    if rule == "none":
        return ordered_matching(hyp, ref)
    matrix = assignment_matrix(hyp, ref, rule)
    rows, columns = linear_sum_assignment(matrix)
    operations = []
    for i, j in zip(rows.tolist(), columns.tolist(), strict=True):
        cost = float(matrix[i, j])
        if i < len(hyp) and j < len(ref):
            kind = "match" if cost == 0 else "substitute"
            operations.append(EditOp(kind, i, j, cost))
        elif i < len(hyp):
            operations.append(EditOp("delete", i, None, cost))
        else:
            operations.append(EditOp("insert", None, j, cost))
    return operations


class PER(ErrorRateMeasure):
    """Position-independent word error rate (Eq. 4.11; assignment with word costs)."""

    name = "per"
    description = "Position-independent word error rate, thesis §4.2.1."
    options = {
        **TEXT_OPTIONS,
        "ref-length-rule": REF_LENGTH_OPTION,
        "substitution-cost-rule": SUBSTITUTION_COST_OPTION,
    }

    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        rule = self.values["substitution-cost-rule"]
        if rule == "none":
            return np.array([count_vector_distance(Counter(h), Counter(r)) for h, r in pairs])
        distances = []
        for hyp, ref in pairs:
            matrix = assignment_matrix(hyp, ref, rule)
            rows, columns = linear_sum_assignment(matrix)
            distances.append(float(matrix[rows, columns].sum()))
        return np.array(distances)

    def align(self, hyp: str, ref: str, grid: bool = False) -> Alignment:
        """Matched word pairs (PER has no grid; ``grid`` is ignored).

        ``extras["matching"]`` lists ``[hyp_index, ref_index]`` per operation (None for the
        missing side of a deletion or insertion).
        """
        hyp_tokens, ref_tokens = self.tokens(hyp), self.tokens(ref)
        operations = matched_pairs(hyp_tokens, ref_tokens, self.values["substitution-cost-rule"])
        distance = sum(op.cost for op in operations)
        return Alignment(
            self.name,
            list(hyp_tokens),
            list(ref_tokens),
            distance,
            operations,
            extras={"matching": matching_pairs(operations)},
        )


class MSDER(ErrorRateMeasure):
    """Multiset distance error rate: Σ |n_e − ñ_e| over the reference length (spec §6.4)."""

    name = "msder"
    description = "Multiset distance error rate (PER without substitutions), thesis §4.2.1."
    options = {**TEXT_OPTIONS, "ref-length-rule": REF_LENGTH_OPTION}

    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        return np.array(
            [count_vector_distance(Counter(h), Counter(r), c_sub=2.0) for h, r in pairs]
        )

    def align(self, hyp: str, ref: str, grid: bool = False) -> Alignment:
        """Matched identical words; every other word is deleted or inserted
        (``extras["matching"]`` as PER's)."""
        hyp_tokens, ref_tokens = self.tokens(hyp), self.tokens(ref)
        operations = ordered_matching(hyp_tokens, ref_tokens, c_sub=2.0)
        distance = sum(op.cost for op in operations)
        return Alignment(
            self.name,
            list(hyp_tokens),
            list(ref_tokens),
            distance,
            operations,
            extras={"matching": matching_pairs(operations)},
        )
