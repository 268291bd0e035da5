"""chrF/chrF++: sacreBLEU as oracle on small edge cases and on the shared WMT data (corpus
to the printed precision and every segment), the CLI."""

from __future__ import annotations

import json

import pytest
from sacrebleu.metrics import CHRF as SacreCHRF

from metrics.core import cli
from metrics.core.chrf import CHRF, split_words
from tests.metrics.core import _ngram_data as data

CASES = [
    (["aa"], [["ab"]]),
    (["a b c"], [["abc"]]),
    ([""], [["b"]]),
    (["a"], [["a"]]),
    (["a"], [[""]]),
    (["The dog, bit (the) man."], [["The dog bit the man!", "A dog bit a man."]]),
    (["Hello world!", "x"], [["Hello, world.", "y"], ["hello world", "x"]]),
    # decomposed against composed é: no Unicode normalisation, as sacreBLEU
    (["cafe\u0301 noir"], [["caf\u00e9 noir"]]),
]


def sacre_options(options: dict) -> dict:
    return {key.replace("-", "_"): value for key, value in options.items()}


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"word-order": 2},
        {"eps-smoothing": True, "beta": 3},
        {"whitespace": True},
        {"lowercase": True, "word-order": 1},
        {"char-order": 4, "word-order": 2, "eps-smoothing": True},
    ],
)
@pytest.mark.parametrize(("hyps", "refs"), CASES)
def test_small_cases_equal_sacrebleu(options, hyps, refs):
    ours = CHRF(**options)
    oracle = SacreCHRF(**sacre_options(options))
    streams = [list(stream) for stream in zip(*refs, strict=True)]
    stats = ours.statistics(hyps, refs)
    assert ours.aggregate(stats).score == pytest.approx(
        oracle.corpus_score(hyps, streams).score, abs=1e-9
    )
    for hyp, segment, score in zip(hyps, refs, ours.sentence_scores(stats), strict=True):
        assert score == pytest.approx(oracle.sentence_score(hyp, segment).score, abs=1e-9)


def test_sacrebleu_published_vector_aa_ab():
    # sacrebleu test/test_chrf.py: (["aa"], ["ab"]) with ε smoothing and β = 3 -> 8.3333
    assert CHRF(eps_smoothing=True, beta=3).corpus_score(["aa"], [["ab"]]).score == (
        pytest.approx(8.3333, abs=1e-4)
    )


def test_words_split_one_edge_punctuation_character():
    assert split_words('(the) man." x') == ["(the", ")", "man.", '"', "x"]


def sacrebleu_scores(oracle: SacreCHRF, hyps: list[str], streams: list[list[str]] | None):
    """sacreBLEU's corpus score and every sentence score from one pass over the segments:
    ``sentence_score`` is ``_aggregate_and_compute`` of that segment's statistics alone."""
    stats = oracle._extract_corpus_statistics(hyps, streams)
    sentences = [oracle._aggregate_and_compute([row]).score for row in stats]
    return oracle._aggregate_and_compute(stats).score, sentences


@pytest.fixture(scope="module")
def wmt17():
    return data.wmt17()


@pytest.mark.parametrize("word_order", [0, 2])
def test_wmt17_all_systems_equal_sacrebleu(wmt17, word_order):
    """All 16 systems (one with a byte-order mark), corpus and every segment."""
    reference, systems, expected = wmt17
    refs = data.segments(reference)
    ours = CHRF(word_order=word_order)
    oracle = SacreCHRF(word_order=word_order, references=[reference])
    context = ours.context(refs)
    assert len(systems) == 16
    for name, hyps in systems.items():
        stats = ours.statistics(hyps, refs, context)
        score = ours.aggregate(stats).score
        corpus, sentences = sacrebleu_scores(oracle, hyps, None)
        assert score == corpus, name
        if word_order == 0:
            assert f"{score:.2f}" == expected[name]["sacrebleu_2.6.0_chrF2"], name
        assert ours.sentence_scores(stats).tolist() == pytest.approx(sentences, abs=1e-9), name


@pytest.mark.parametrize("word_order", [0, 2])
@pytest.mark.parametrize("n_refs", [1, 2])
def test_wmt21_all_systems_equal_sacrebleu(word_order, n_refs):
    """All 8 systems with reference A and with A and B, corpus and every segment; the official
    WMT21 chrF values and the frozen chrF++ values (reference A) too."""
    ref_a, ref_b, systems, expected = data.wmt21()
    official = data.wmt21_official()
    streams = [ref_a, ref_b][:n_refs]
    refs = data.segments(*streams)
    ours = CHRF(word_order=word_order)
    oracle = SacreCHRF(word_order=word_order, references=streams)
    context = ours.context(refs)
    assert len(systems) == 8
    for name, hyps in systems.items():
        stats = ours.statistics(hyps, refs, context)
        score = ours.aggregate(stats).score
        corpus, sentences = sacrebleu_scores(oracle, hyps, None)
        assert score == corpus, name
        assert ours.sentence_scores(stats).tolist() == pytest.approx(sentences, abs=1e-9), name
        if word_order == 0:
            assert score == official[(name, "chrf-A" if n_refs == 1 else "chrf-all")], name
        elif n_refs == 1:
            assert f"{score:.4f}" == f"{float(expected[name]['sacrebleu_chrF2pp_refA']):.4f}"


def test_cli_scores_chrf_plus_plus(tmp_path, capsys):
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("The dog bit the man.\n", encoding="utf-8")
    ref.write_text("The dog had bit the man.\n", encoding="utf-8")
    assert (
        cli.main(
            [
                "score",
                "--measure",
                "chrf",
                "--ref",
                str(ref),
                "--hyp",
                str(hyp),
                "--option",
                "word-order=2",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    oracle = SacreCHRF(word_order=2).corpus_score(
        ["The dog bit the man."], [["The dog had bit the man."]]
    )
    assert result["score"] == pytest.approx(oracle.score, abs=1e-9)
