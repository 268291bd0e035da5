"""``explain`` of BLEU, NIST and chrF (issue 18): the spec's sentence vectors (§11.4, §12.3)
taken apart, chrF against sacreBLEU's sentence chrF, and the tables' consistency."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF as SacreCHRF

from metrics.core.base import MeasureError
from metrics.core.bleu import BLEU
from metrics.core.chrf import CHRF
from metrics.core.nist import NIST

HYPS = ["the cat sat on the mat", "a dog barked"]
REFS = [
    ["the cat is on the mat", "there is a cat on the mat"],
    ["the dog barked loudly", "a dog was barking"],
]
sentences = st.lists(st.sampled_from(["a", "b", "c", "ab", "a.", "b,"]), max_size=6).map(" ".join)


@pytest.mark.parametrize(
    ("pad", "expected"),
    [  # spec §11.4, sentence level, minimumNearest: genuine, BLEU-S, BLEU-S'
        ("none", [(0, 0.485492, 0.365555), (0, 0.602529, 0.544446)]),
        ("both", [(0.674256, 0.707107, 0.674256), (0.402935, 0.461058, 0.402935)]),
    ],
)
def test_bleu_sentence_vectors_of_spec_11_4(pad: str, expected: list[tuple[float, ...]]) -> None:
    for hyp, refs, scores in zip(HYPS, REFS, expected, strict=True):
        for smoothing, score in zip(("none", "bleu-s", "bleu-s-prime"), scores, strict=True):
            measure = BLEU(
                tokenize="none", smoothing=smoothing, pad_rule=pad, effective_order="never"
            )
            explanation = measure.explain(hyp, refs)
            assert explanation.score / 100 == pytest.approx(score, abs=1e-6)
            # the parts multiply into the score
            if explanation.score:
                logs = [math.log(order.values["precision"] / 100) for order in explanation.orders]
                product = explanation.brevity_penalty * math.exp(sum(logs) / len(logs))
                assert product == pytest.approx(explanation.score / 100)


def test_bleu_clipping_and_brevity_of_the_second_sentence() -> None:
    """E_2 = `a dog barked`: the closest reference length is 4 (both have 4 words, the
    shortest), so lp = exp(1 − 4/3) = 0.716531; `a dog`, `dog barked` each occur in one
    reference; there is no 4-gram (N_4 = 0)."""
    explanation = BLEU(tokenize="none", smoothing="bleu-s", effective_order="never").explain(
        HYPS[1], REFS[1]
    )
    assert explanation.brevity_penalty == pytest.approx(0.716531, abs=1e-6)
    assert (explanation.reference, explanation.reference_length) == (0, 4)
    unigrams, bigrams, trigrams, fourgrams = explanation.orders
    assert [row.ngram for row in unigrams.matched] == ["a", "dog", "barked"]
    assert [row.ngram for row in bigrams.matched] == ["a dog", "dog barked"]
    assert [(row.ngram, row.ref_count) for row in trigrams.unmatched] == [("a dog barked", 0)]
    assert fourgrams.values["total"] == 0


def test_bleu_clips_repeated_words() -> None:
    explanation = BLEU(tokenize="none").explain("the the the", ["the cat", "the the"])
    (row,) = explanation.orders[0].matched
    assert (row.hyp_count, row.ref_count, row.matched) == (3, 2, 2)
    assert explanation.orders[0].unmatched == [row]


def test_nist_sentence_vectors_of_spec_12_3() -> None:
    """Weights from the whole two-sentence corpus: terms, penalty and score per sentence, and
    the unigram weights Info(the) = log2(21/4), Info(barked) = log2(21/1)."""
    measure = NIST(tokenize="none")
    context = measure.context(REFS)
    expected = [
        ([2.493598, 0.6, 0, 0, 0], 0.973349, 3.011151),
        ([3.725651, 1.0, 0, 0, 0], 0.705439, 3.333659),
    ]
    for hyp, refs, (terms, penalty, score) in zip(HYPS, REFS, expected, strict=True):
        explanation = measure.explain(hyp, refs, context)
        assert [o.values["term"] for o in explanation.orders] == pytest.approx(terms, abs=1e-6)
        assert explanation.brevity_penalty == pytest.approx(penalty, abs=1e-6)
        assert explanation.score == pytest.approx(score, abs=1e-6)
        assert explanation.reference is None  # the average rule uses no single reference
    first = measure.explain(HYPS[0], REFS[0], context)
    weights = {row.ngram: row.weight for row in first.orders[0].matched}
    assert weights["the"] == pytest.approx(math.log2(21 / 4))
    assert weights["cat"] == pytest.approx(math.log2(21 / 2))
    second = measure.explain(HYPS[1], REFS[1], context)
    assert {r.ngram: r.weight for r in second.orders[0].matched}["barked"] == pytest.approx(
        math.log2(21)
    )


@settings(max_examples=60, deadline=None)
@given(sentences, st.lists(sentences, min_size=1, max_size=3), st.sampled_from([0, 2]))
def test_chrf_explanation_is_sacrebleus_sentence_chrf(
    hyp: str, refs: list[str], words: int
) -> None:
    explanation = CHRF(word_order=words).explain(hyp, refs)
    oracle = SacreCHRF(word_order=words).sentence_score(hyp, refs).score
    assert explanation.score == pytest.approx(oracle, abs=1e-9)
    for order in explanation.orders:
        matched = sum(row.matched for row in order.matched)
        assert order.values["matches"] == matched
        assert sum(row.ref_count - row.matched for row in order.missing) == (
            order.values["reference_total"] - matched
        )


def test_chrf_explains_against_the_best_reference() -> None:
    explanation = CHRF().explain("the cat", ["a dog", "the cat"])
    assert explanation.reference == 1 and explanation.score == 100


def test_explanations_need_references_and_serialise() -> None:
    for measure in (BLEU(), NIST(), CHRF()):
        with pytest.raises(MeasureError, match="no reference"):
            measure.explain("a", [])
        data = json.loads(json.dumps(measure.explain("a b", ["a c"]).as_dict()))
        assert {"score", "reference", "orders", "brevity_penalty"} <= set(data)
