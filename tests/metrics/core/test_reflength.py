"""Reference-length rules (measures spec §4.3 and preprocessing spec C.2.3 vectors)."""

from __future__ import annotations

import pytest

from metrics.core.per import PER
from metrics.core.reflength import bleu_reference_length, distance_reference_length
from metrics.core.wer import WER

SENTENCE_A = (
    "the cat sat on the mat",
    ["the cat sat on a mat", "a cat was sitting on the mat", "the cat sat on the mat today"],
)
SENTENCE_B = ("x y", ["x", "x y z w"])


@pytest.mark.parametrize(
    ("rule", "length", "rate"),
    [
        ("average", 20 / 3, 0.15),
        ("minimum", 6, 1 / 6),
        ("maximum", 7, 1 / 7),
        ("averageNearest", 6.5, 1 / 6.5),
        ("minimumNearest", 6, 1 / 6),
        ("maximumNearest", 7, 1 / 7),
        ("lowestError", 7, 1 / 7),
    ],
)
def test_sentence_a(rule: str, length: float, rate: float) -> None:
    measure = WER(tokenize="none", ref_length_rule=rule)
    stats = measure.statistics([SENTENCE_A[0]], [SENTENCE_A[1]])
    assert stats[0, 0] == 1
    assert stats[0, 1] == pytest.approx(length)
    assert measure.sentence_scores(stats)[0] == pytest.approx(100 * rate)


def test_lowest_error_changes_the_numerator() -> None:
    assert distance_reference_length([1, 2], [1, 4], "lowestError") == (2, 4)
    assert distance_reference_length([1, 2], [1, 4], "averageNearest") == (1, 1)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [("lowestError", 3 / 11), ("averageNearest", 2 / 7.5), ("average", 2 / (20 / 3 + 2.5))],
)
def test_system_level_over_a_and_b(rule: str, expected: float) -> None:
    hyps, refs = zip(SENTENCE_A, SENTENCE_B, strict=True)
    score = WER(tokenize="none", ref_length_rule=rule).corpus_score(list(hyps), list(refs))
    assert score.score == pytest.approx(100 * expected)


CASE_1 = ("a b c d", ["a b c d e f g h", "a x c"])
CASE_2 = ("a b", ["a c", "a b c", "a b c d e"])
SECOND = ("b a c", ["a b c", "a b c d"])


@pytest.mark.parametrize(
    ("rule", "case_1", "case_2"),
    [
        ("average", 0.363636, 0.3),
        ("minimumNearest", 0.666667, 0.5),
        ("averageNearest", 0.666667, 0.4),
        ("lowestError", 0.5, 1 / 3),
    ],
)
def test_preprocessing_spec_cases(rule: str, case_1: float, case_2: float) -> None:
    """C.2.3: "nearest" = averageNearest, "best" = lowestError; "closest" (by length) is
    minimumNearest here, where the nearest reference by distance is also the closest by
    length. PER gives WER's numbers for case 1 (distances 4 and 2 as well)."""
    for (hyp, refs), expected in ((CASE_1, case_1), (CASE_2, case_2)):
        measure = WER(tokenize="none", ref_length_rule=rule)
        assert measure.corpus_score([hyp], [refs]).score == pytest.approx(100 * expected, abs=1e-4)
    per = PER(tokenize="none", ref_length_rule=rule).corpus_score([CASE_1[0]], [CASE_1[1]])
    assert per.score == pytest.approx(100 * case_1, abs=1e-4)


@pytest.mark.parametrize(
    ("rule", "wer", "per"),
    [
        ("average", 0.444444, 0.222222),
        ("minimumNearest", 0.666667, 0.333333),  # "closest" (see above)
        ("averageNearest", 0.666667, 0.333333),
        ("lowestError", 0.545455, 0.363636),
    ],
)
def test_preprocessing_spec_corpus(rule: str, wer: float, per: float) -> None:
    hyps, refs = zip(CASE_1, SECOND, strict=True)
    for measure, expected in ((WER, wer), (PER, per)):
        score = measure(tokenize="none", ref_length_rule=rule).corpus_score(list(hyps), list(refs))
        assert score.score == pytest.approx(100 * expected, abs=1e-4)


def test_zero_length_reference_ratio() -> None:
    """D/L := 0 for D = 0 and +inf otherwise (spec §4.1)."""
    assert distance_reference_length([0, 1], [0, 3], "lowestError") == (0, 0)
    assert distance_reference_length([2, 1], [0, 3], "lowestError") == (1, 3)


@pytest.mark.parametrize(
    ("hyp_len", "ref_lens", "rule", "expected"),
    [
        (2, [1, 4], "minimumNearest", 1),
        (3, [2, 4], "minimumNearest", 2),
        (5, [4, 6], "minimumNearest", 4),
        (2, [1, 4], "average", 2.5),
        (2, [1, 4], "minimum", 1),
    ],
)
def test_bleu_rules(hyp_len: int, ref_lens: list[int], rule: str, expected: float) -> None:
    assert bleu_reference_length(hyp_len, ref_lens, rule) == expected


def test_unknown_rules_raise() -> None:
    with pytest.raises(ValueError):
        distance_reference_length([1], [1], "closest")
    with pytest.raises(ValueError):
        bleu_reference_length(1, [1], "lowestError")
