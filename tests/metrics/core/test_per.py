"""PER, MSDER and d_ΔI (measures spec §6.1–6.4, §5, §10.2, §18; preprocessing spec C.2.2)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core.per import MSDER, PER, count_vector_distance, length_difference
from metrics.core.wer import WER

words = st.lists(st.sampled_from("abcde"), max_size=8)


def _distance(measure: object, hyp: str, ref: str) -> float:
    return float(measure.pair_distances([(tuple(hyp.split()), tuple(ref.split()))])[0])


def test_thesis_example_t1() -> None:
    """we have been there / we were there: PER 2, MSDER 3, d_ΔI 1, rate 2/3."""
    hyp, ref = "we have been there", "we were there"
    assert _distance(PER(tokenize="none"), hyp, ref) == 2
    assert _distance(MSDER(tokenize="none"), hyp, ref) == 3
    assert length_difference(4, 3) == 1
    score = PER(tokenize="none").corpus_score([hyp], [[ref]]).score
    assert score == pytest.approx(100 * 2 / 3)


def test_t1_alignment_pairs() -> None:
    alignment = PER(tokenize="none").align("we have been there", "we were there")
    pairs = {(op.kind, op.hyp_index, op.ref_index) for op in alignment.operations}
    assert ("match", 0, 0) in pairs and ("match", 3, 2) in pairs
    assert ("substitute", 1, 1) in pairs or ("substitute", 2, 1) in pairs
    assert alignment.distance == 2


def test_invwer_example_other_measures() -> None:
    """§10.2 [C]: on the meeting example PER is 2 and d_ΔI is 1 (8 against 9 words)."""
    hyp = "we will meet at noon in the lobby"
    ref = "we will meet in the lobby at twelve o'clock"
    assert _distance(PER(tokenize="none"), hyp, ref) == 2
    assert length_difference(len(hyp.split()), len(ref.split())) == 1


@pytest.mark.parametrize(
    ("hyp", "ref", "levenshtein", "per"),
    [
        ("b a c", "a b c", 2, 0),
        ("a b c", "a b d e", 2, 2),
        ("a a b", "a b b", 1, 1),
        ("the cat sat on the mat", "the cat is on the mat", 1, 1),
        # "same, both with <s>…</s>": the paper's boundaries are words of the sentence
        ("<s> the cat sat on the mat </s>", "<s> the cat is on the mat </s>", 1, 1),
    ],
)
def test_preprocessing_spec_c22_distances(hyp: str, ref: str, levenshtein: int, per: int) -> None:
    """C.2.2, columns d_L and d_PER (d_2-PER is in test_mper.py)."""
    assert _distance(WER(tokenize="none"), hyp, ref) == levenshtein
    assert _distance(PER(tokenize="none"), hyp, ref) == per


@pytest.mark.parametrize(
    ("rule", "expected"), [("none", 2), ("prefix", 1 + 1 - 4 / 4.5), ("levenshtein", 1.2)]
)
def test_word_dependent_costs(rule: str, expected: float) -> None:
    measure = PER(tokenize="none", substitution_cost_rule=rule)
    assert _distance(measure, "he talks fast", "he talk quickly") == pytest.approx(expected)


def test_assignment_with_constant_costs_equals_eq_4_11() -> None:
    """The matching routine (used for alignments) gives the count-vector distance."""
    hyp, ref = "a b a c d".split(), "b a e e".split()
    alignment = PER(tokenize="none").align(" ".join(hyp), " ".join(ref))
    assert alignment.distance == count_vector_distance(Counter(hyp), Counter(ref)) == 3


def test_count_vector_distance_with_costs() -> None:
    assert count_vector_distance(Counter("aab"), Counter("abbc"), c_sub=2, c_ins=1, c_del=1) == 3


@settings(deadline=None)
@given(words, words)
def test_assignment_with_constant_costs_equals_eq_4_11_on_random_pairs(
    hyp: list[str], ref: list[str]
) -> None:
    """Spec §18 property: the minimum-cost matching (§6.3, unit costs) has the cost of
    Eq. 4.12, ½(Σ_e |n_e − ñ_e| + |I − L|), and uses every word once."""
    hyp_counts, ref_counts = Counter(hyp), Counter(ref)
    eq_4_12 = 0.5 * (
        sum(abs(hyp_counts[w] - ref_counts[w]) for w in set(hyp) | set(ref))
        + abs(len(hyp) - len(ref))
    )
    alignment = PER(tokenize="none").align(" ".join(hyp), " ".join(ref))
    assert alignment.distance == eq_4_12 == count_vector_distance(hyp_counts, ref_counts)
    hyp_used = sorted(op.hyp_index for op in alignment.operations if op.hyp_index is not None)
    ref_used = sorted(op.ref_index for op in alignment.operations if op.ref_index is not None)
    assert (hyp_used, ref_used) == (list(range(len(hyp))), list(range(len(ref))))
