"""NIST: spec §12.3 and C.2.5 vectors, the penalty condition, frozen mteval-v13a values
(system level with one and two references, every segment of Facebook-AI), the CLI."""

from __future__ import annotations

import json
import math

import pytest

from metrics.core import cli
from metrics.core.nist import NIST, nist_brevity_penalty
from tests.metrics.core import _ngram_data as data

SPEC_HYPS = ["the cat sat on the mat", "a dog barked"]
SPEC_REFS = [
    ["the cat is on the mat", "there is a cat on the mat"],
    ["the dog barked loudly", "a dog was barking"],
]


@pytest.mark.parametrize(
    ("ratio", "penalty"),
    [(2 / 3, 0.5), (1 / 2, 0.131905), (9 / 10.5, 0.904669), (1.0, 1.0), (1.2, 1.0)],
)
def test_brevity_penalty_is_half_at_two_thirds(ratio, penalty):
    assert nist_brevity_penalty(ratio * 30, 30) == pytest.approx(penalty, abs=1e-6)


def test_spec_unigram_and_bigram_weights():
    measure = NIST(tokenize="none")
    context = measure.context(SPEC_REFS)
    index = context.space.vocabulary.index
    unigram = context.info[0]
    assert unigram[index["the"]] == pytest.approx(math.log2(21 / 4))
    assert unigram[index["cat"]] == pytest.approx(math.log2(21 / 2))
    assert unigram[index["barked"]] == pytest.approx(math.log2(21))


def bigram_information(hyp: str, segment: int, **options) -> float:
    """Σ Info over the candidate's matched bigrams, weights from the whole §11.4 corpus.

    Statistics rows are ``[hyp_len, ref_len, info_1..5, total_1..5]``: column 3 is the bigram
    information of the segment (each matched bigram's weight times its clipped count)."""
    measure = NIST(tokenize="none", formula="clean", **options)
    context = measure.context(SPEC_REFS)
    hyps = ["", ""]
    hyps[segment] = hyp
    return float(measure.statistics(hyps, SPEC_REFS, context)[segment, 3])


@pytest.mark.parametrize(
    ("bigram", "segment", "info"),
    [
        ("the cat", 0, math.log2(4 / 1)),
        ("on the", 0, math.log2(2 / 2)),
        ("the mat", 0, math.log2(4 / 2)),
        ("cat on", 0, 1.0),
        ("dog barked", 1, 1.0),
        ("a dog", 1, 1.0),
    ],
)
def test_spec_bigram_weights(bigram, segment, info):
    """Spec §12.3: Info(the cat) = 2, Info(on the) = 0, Info(the mat) = 1, the others 1."""
    assert bigram_information(bigram, segment) == pytest.approx(info)


@pytest.mark.parametrize(
    ("first_word", "segment", "initial", "info"),
    [
        ("the", 0, "referenceSentences", 1.0),  # log2(4/2): Ñ[<s> the] = 2 of 4 sentences
        ("a", 1, "referenceSentences", 2.0),  # log2(4/1)
        ("the", 0, "K", 0.0),  # log2(2/2) with K = 2 candidate sentences
        ("a", 1, "K", 1.0),  # log2(2/1)
    ],
)
def test_spec_initial_bigram_weights(first_word, segment, initial, info):
    """Spec §12.3 (Eq. 5.8): a one-word candidate with pad rule both has the bigrams
    [<s> w] and [w </s>]; only the initial one occurs in the references."""
    weight = bigram_information(first_word, segment, pad_rule="both", initial_count=initial)
    assert weight == pytest.approx(info)


@pytest.mark.parametrize(
    ("pad", "initial", "terms", "total", "score"),
    [
        ("none", "referenceSentences", [2.904282, 0.714286, 0, 0, 0], 3.618568, 3.273605),
        (
            "both",
            "referenceSentences",
            [2.904282, 0.727273, 0.307692, 0.266667, 0.235294],
            4.441208,
            4.017822,
        ),
        ("both", "K", [2.904282, 0.545455, 0.153846, 0.133333, 0.117647], 3.854563, 3.487103),
    ],
)
def test_spec_corpus_vectors(pad, initial, terms, total, score):
    measure = NIST(tokenize="none", pad_rule=pad, initial_count=initial, formula="clean")
    result = measure.corpus_score(SPEC_HYPS, SPEC_REFS)
    assert result.details["ngram_terms"] == pytest.approx(terms, abs=1e-6)
    assert result.details["score_unpenalized"] == pytest.approx(total, abs=1e-6)
    assert result.details["brevity_penalty"] == pytest.approx(0.904669, abs=1e-6)
    assert result.score == pytest.approx(score, abs=1e-6)


def test_spec_sentence_vectors_use_corpus_weights():
    measure = NIST(tokenize="none")
    stats = measure.statistics(SPEC_HYPS, SPEC_REFS, measure.context(SPEC_REFS))
    assert measure.sentence_scores(stats).tolist() == pytest.approx([3.011151, 3.333659], abs=1e-6)


def test_spec_sentence_terms_and_penalties():
    """Spec §12.3 sentence table: per-order terms (info / total) and the penalties."""
    measure = NIST(tokenize="none")
    stats = measure.statistics(SPEC_HYPS, SPEC_REFS, measure.context(SPEC_REFS))
    unigram_bigram = stats[:, 2:4] / stats[:, 7:9]
    assert unigram_bigram.ravel().tolist() == pytest.approx(
        [2.493598, 0.6, 3.725651, 1.0], abs=1e-6
    )
    assert stats[:, 4:7].tolist() == [[0, 0, 0], [0, 0, 0]]  # no trigram or longer matches
    assert nist_brevity_penalty(6, 6.5) == pytest.approx(0.973349, abs=1e-6)
    assert nist_brevity_penalty(3, 4) == pytest.approx(0.705439, abs=1e-6)


C25_REFS = [["the cat is on the mat", "there is a cat on the mat"]]


def test_preprocessing_spec_c25_vector():
    result = NIST(tokenize="none").corpus_score(["the cat sat on the mat"], C25_REFS)
    # matched information 12.332274, 2.169925, 0, 0, 0 over 6, 5, 4, 3, 2 candidate m-grams
    terms = [12.332274 / 6, 2.169925 / 5, 0, 0, 0]
    assert result.details["ngram_terms"] == pytest.approx(terms, abs=1e-6)
    assert result.details["brevity_penalty"] == pytest.approx(0.973349, abs=1e-6)
    assert result.score == pytest.approx(2.423020, abs=1e-6)


@pytest.mark.parametrize(
    ("hyp", "order", "info"),
    [
        ("the", 1, 2.115477),  # log2(13/3)
        ("cat", 1, 2.70044),  # log2(13/2), as on and mat
        ("the cat", 2, 1.584963),  # log2(3/1)
        ("on the", 2, 0.0),
        ("the mat", 2, 0.584963),  # log2(3/2)
        ("on the mat", 3, 0.0),  # matched, but it carries no information
    ],
)
def test_preprocessing_spec_c25_weights(hyp, order, info):
    measure = NIST(tokenize="none")
    stats = measure.statistics([hyp], C25_REFS, measure.context(C25_REFS))
    assert stats[0, 1 + order] == pytest.approx(info, abs=1e-5)
    assert stats[0, 6 + order] == 1  # the candidate's single m-gram of that order


def test_mteval_quirk_only_changes_bigrams_after_token_zero():
    refs = [["0 a b", "x 0 a"], ["0 a c", "y y"]]
    hyps = ["0 a b", "y 0 a"]
    quirk = NIST(tokenize="none").corpus_score(hyps, refs).details["ngram_terms"]
    clean = NIST(tokenize="none", formula="clean").corpus_score(hyps, refs).details["ngram_terms"]
    assert quirk[0] == clean[0] and quirk[2:] == clean[2:]
    # "0 a": Ñ = 3, prefix "0" Ñ = 3 (clean: log2 1 = 0) vs 11 reference words (mteval);
    # it matches once in each of the 2 segments, among 4 candidate bigrams.
    assert quirk[1] - clean[1] == pytest.approx(2 * math.log2(11 / 3) / 4)


@pytest.fixture(scope="module")
def wmt21():
    return data.wmt21()


@pytest.mark.parametrize("n_refs", [1, 2])
def test_wmt21_systems_equal_mteval(wmt21, n_refs):
    ref_a, ref_b, systems, expected = wmt21
    refs = data.segments(*[ref_a, ref_b][:n_refs])
    measure = NIST()
    context = measure.context(refs)
    suffix = "refA" if n_refs == 1 else "refAB"
    for name, hyps in systems.items():
        score = measure.aggregate(measure.statistics(hyps, refs, context)).score
        assert f"{score:.4f}" == expected[name][f"mteval13a_c_nist_{suffix}"], name


def test_clean_formula_differs_from_mteval_on_real_data(wmt21):
    ref_a, _, systems, expected = wmt21
    refs = data.segments(ref_a)
    clean = NIST(formula="clean")
    score = clean.aggregate(clean.statistics(systems["Facebook-AI"], refs)).score
    assert f"{score:.4f}" == "7.4254"  # oracles-and-data §2.3 (NLTK's clean value)
    assert expected["Facebook-AI"]["mteval13a_c_nist_refA"] == "7.4260"


def test_wmt21_every_segment_equals_mteval(wmt21):
    ref_a, _, systems, _ = wmt21
    refs = data.segments(ref_a)
    measure = NIST()
    scores = measure.sentence_scores(
        measure.statistics(systems["Facebook-AI"], refs, measure.context(refs))
    )
    rows = data.mteval_segment_rows()
    assert len(rows) == len(scores)
    mismatches = [
        row["seg"]
        for row, score in zip(rows, scores, strict=True)
        if f"{score:.4f}" != row["mteval13a_c_nist_refA"]
    ]
    assert mismatches == []


def test_cli_scores_nist(tmp_path, capsys):
    hyp, ref1, ref2 = tmp_path / "h", tmp_path / "r1", tmp_path / "r2"
    hyp.write_text("\n".join(SPEC_HYPS) + "\n", encoding="utf-8")
    ref1.write_text("\n".join(r[0] for r in SPEC_REFS) + "\n", encoding="utf-8")
    ref2.write_text("\n".join(r[1] for r in SPEC_REFS) + "\n", encoding="utf-8")
    args = [
        "score",
        "--measure",
        "nist",
        "--ref",
        str(ref1),
        "--ref",
        str(ref2),
        "--hyp",
        str(hyp),
        "--option",
        "tokenize=none",
    ]
    assert cli.main(args) == 0
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(3.273605, abs=1e-6)
