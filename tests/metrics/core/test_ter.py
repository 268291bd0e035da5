"""TER equals sacreBLEU 2.6.0's TER (and the frozen tercom 0.7.25 values) on real data."""

from __future__ import annotations

from functools import cache

import pytest
from sacrebleu.metrics import TER as SacreTER
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacre_edit_rate
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from metrics.core.ter import TER, tercom_tokenize, translation_edit_rate
from tests.metrics.core.wmt_data import wmt17, wmt21


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [  # sacreBLEU test/test_ter.py
        ("a b c", "a b c", 0.0),
        ("a b c", "d e f", 100.0),
        ("", "a", 100.0),
        ("a", "", 100.0),
        ("", "", 0.0),
        ("d e f g h a b c", "a b c d e f g h", 100 / 8),
    ],
)
def test_sacrebleu_vectors(hyp: str, ref: str, expected: float) -> None:
    assert TER().corpus_score([hyp], [[ref]]).score == pytest.approx(expected)


def test_shift_alignment() -> None:
    alignment = TER().align("d e f g h a b c", "a b c d e f g h")
    assert alignment.distance == 1
    (shift,) = alignment.extras["shifts"]
    assert shift.words == ["a", "b", "c"]
    assert alignment.extras["shifted_hyp"] == "a b c d e f g h".split()
    assert all(op.kind == "match" for op in alignment.operations)


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"normalized": True},
        {"no_punct": True},
        {"normalized": True, "asian_support": True, "case_sensitive": True},
    ],
)
@pytest.mark.shared_data
def test_tercom_tokenizer_equals_sacrebleu(flags: dict[str, bool]) -> None:
    references, systems, _ = wmt21()
    oracle = TercomTokenizer(**flags)
    lines = references[0] + systems["Online-A"] + ["日本語のテキスト。", "Jim's car."]
    assert [" ".join(tercom_tokenize(line.rstrip(), **flags)) for line in lines] == [
        oracle(line.rstrip()) for line in lines
    ]


@cache
def _ours_wmt17() -> dict[str, tuple[float, list[float]]]:
    reference, systems, _ = wmt17()
    measure = TER()
    result = {}
    for name, hypothesis in systems.items():
        stats = measure.statistics(hypothesis, [[line] for line in reference])
        result[name] = (measure.aggregate(stats).score, stats[:, 0].tolist())
    return result


@pytest.mark.shared_data
def test_corpus_ter_equals_frozen_tercom_on_all_wmt17_systems() -> None:
    _, systems, expected = wmt17()
    ours = _ours_wmt17()
    assert len(ours) == 16
    for name in systems:
        assert f"{ours[name][0] / 100:.3f}" == expected[name]["tercom_0.7.25_ter"], name
        assert f"{ours[name][0] / 100:.3f}" == expected[name]["sacrebleu_2.6.0_ter"], name


@pytest.mark.shared_data
def test_sentence_edits_equal_sacrebleu_on_wmt17() -> None:
    """One system (the one with most edits) to keep the suite fast; the benchmark checks all."""
    reference, systems, _ = wmt17()
    system = "newstest2017.online-F.0.en-de"
    expected = [
        sacre_edit_rate(tercom_tokenize(h), tercom_tokenize(r))[0]
        for h, r in zip(systems[system], reference, strict=True)
    ]
    assert _ours_wmt17()[system][1] == expected


@pytest.mark.shared_data
def test_wmt21_one_reference_equals_frozen_values() -> None:
    references, systems, expected = wmt21()
    measure = TER()
    for name, hypothesis in systems.items():
        score = measure.corpus_score(hypothesis, [[line] for line in references[0]])
        assert f"{score.score:.4f}" == f"{float(expected[name]['sacrebleu_ter_refA']):.4f}", name
        assert score.details["distance"] == int(expected[name]["sacrebleu_ter_edits_refA"]), name


@pytest.mark.shared_data
def test_wmt21_two_references_equal_sacrebleu_per_sentence() -> None:
    references, systems, _ = wmt21()
    hypothesis = systems["Facebook-AI"]
    segments = [list(pair) for pair in zip(*references, strict=True)]
    measure = TER()
    stats = measure.statistics(hypothesis, segments)
    oracle = SacreTER()
    expected = oracle._extract_corpus_statistics(hypothesis, references)
    assert stats.tolist() == [list(map(float, row)) for row in expected]
    corpus = oracle._compute_score_from_stats([sum(column) for column in zip(*expected, strict=True)])
    assert measure.aggregate(stats, n_refs=2).score == pytest.approx(corpus.score, abs=1e-9)


def test_ter_signature() -> None:
    assert str(TER().signature(1)) == "ter|nrefs:1|norm:no|nopunct:no|asian:no|cs:no|version:1.0"


def test_translation_edit_rate_examples() -> None:
    assert translation_edit_rate([], ["a"]) == (1, 1)
    assert translation_edit_rate(["a"], []) == (1, 0)
