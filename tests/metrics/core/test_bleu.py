"""BLEU: sacreBLEU's own test vectors, spec §11 / C.2.4 vectors, sacreBLEU and mteval-v13a on
the shared WMT data (corpus and every segment), the command line, BLEU × C²."""

from __future__ import annotations

import json

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from metrics.core import cli
from metrics.core.bleu import BLEU, sacrebleu_bleu, thesis_bleu
from tests.metrics.core import _ngram_data as data

EPSILON = 1e-4

# sacreBLEU README example (sacrebleu test/test_bleu.py).
README_HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
README_REFS = [
    ["The dog bit the man.", "The dog had bit the man."],
    ["It was not unexpected.", "No one was surprised."],
    ["The man bit him first.", "The man had bitten the dog."],
]


def corpus(measure: BLEU, hyps: list[str], refs: list[list[str]]) -> float:
    return measure.corpus_score(hyps, refs).score


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, 48.530827),
        ({"tokenize": "none"}, 49.1919566),
        ({"tokenize": "intl"}, 43.91623493),
        ({"smoothing": "none"}, 48.530827),
        ({"max-ngram": 1}, 77.65),
        ({"max-ngram": 2}, 60.50),
        ({"max-ngram": 3}, 53.93),
        ({"max-ngram": 5}, 46.14),
        ({"max-ngram": 6}, 43.28),
    ],
)
def test_readme_example_matches_sacrebleu_test_vectors(options, expected):
    score = corpus(BLEU(**options), README_HYPS, README_REFS)
    printed = len(str(expected).split(".")[1])  # sacreBLEU's tests print 2 or more decimals
    assert score == pytest.approx(expected, abs=max(EPSILON, 0.5 * 10**-printed))


def test_statistics_match_sacrebleu_vector():
    stats = BLEU(tokenize="none").statistics(
        ["am I am a character sequence"], [["I am a symbol string sequence a a"]]
    )
    assert stats[0, 2:6].tolist() == [4, 2, 1, 0]
    assert stats[0, 6:10].tolist() == [6, 5, 4, 3]


def test_compute_from_statistics_vectors():
    assert sacrebleu_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score / 100 == pytest.approx(
        0.8375922397
    )
    assert sacrebleu_bleu([0, 0, 0, 0], [0, 0, 0, 0], 0, 0).score == 0.0


def test_empty_hypotheses_score_zero():
    assert corpus(BLEU(), ["", ""], [["a b"], ["c d"]]) == 0.0


SENTENCE_REF = "producţia de zahăr brut se exprimă în zahăr alb;"
SENTENCE_SYS = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, 8.493),
        ({"smoothing": "none"}, 0.0),
        ({"smoothing": "floor"}, 4.51688),
        ({"smoothing": "floor", "smooth-value": 0.5}, 10.10),
        ({"smoothing": "add-k"}, 14.882),
        ({"smoothing": "add-k", "smooth-value": 2}, 21.389),
        ({"tokenize": "none"}, 7.347),
        ({"tokenize": "intl"}, 8.493),
    ],
)
def test_sentence_bleu_matches_sacrebleu_test_vectors(options, expected):
    measure = BLEU(**options)
    stats = measure.statistics([SENTENCE_SYS], [[SENTENCE_REF]])
    assert measure.sentence_scores(stats)[0] == pytest.approx(expected, abs=1e-3)


# Measures spec §11.4: two-sentence corpus.
SPEC_HYPS = ["the cat sat on the mat", "a dog barked"]
SPEC_REFS = [
    ["the cat is on the mat", "there is a cat on the mat"],
    ["the dog barked loudly", "a dog was barking"],
]


@pytest.mark.parametrize(
    ("smoothing", "pad", "rule", "expected"),
    [
        ("none", "none", "minimumNearest", 0.0),
        ("bleu-s", "none", "minimumNearest", 0.434437),
        ("bleu-s", "none", "average", 0.410960),
        ("bleu-s-prime", "none", "minimumNearest", 0.328404),
        ("bleu-s-prime", "none", "average", 0.310656),
        ("none", "both", "minimumNearest", 0.568096),
        ("none", "both", "average", 0.537396),
        ("bleu-s", "both", "minimum", 0.591160),
        ("bleu-s", "both", "average", 0.559214),
        ("bleu-s-prime", "both", "minimumNearest", 0.568096),
        ("bleu-s-prime", "both", "average", 0.537396),
    ],
)
def test_spec_corpus_vectors(smoothing, pad, rule, expected):
    measure = BLEU(
        tokenize="none",
        smoothing=smoothing,
        pad_rule=pad,
        ref_length_rule=rule,
        effective_order="never",
    )
    assert corpus(measure, SPEC_HYPS, SPEC_REFS) / 100 == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("pad", "correct", "total"),
    [("none", [8, 5, 1, 0], [9, 7, 5, 3]), ("both", [8, 8, 7, 7], [9, 11, 13, 15])],
)
@pytest.mark.parametrize(("rule", "penalty"), [("minimumNearest", 0.894839), ("average", 0.846482)])
def test_spec_corpus_counts_and_penalty(pad, correct, total, rule, penalty):
    measure = BLEU(tokenize="none", pad_rule=pad, ref_length_rule=rule)
    details = measure.corpus_score(SPEC_HYPS, SPEC_REFS).details
    assert details["correct"] == correct
    assert details["total"] == total
    assert (details["hyp_len"], details["ref_len"]) == (9, 10 if rule == "minimumNearest" else 10.5)
    assert details["brevity_penalty"] == pytest.approx(penalty, abs=1e-6)


@pytest.mark.parametrize(
    ("smoothing", "pad", "unpenalized"),
    [
        ("none", "none", 0.0),
        ("bleu-s", "none", 0.485492),
        ("bleu-s-prime", "none", 0.366997),
        ("none", "both", 0.634858),
        ("bleu-s", "both", 0.660633),
        ("bleu-s-prime", "both", 0.634858),
    ],
)
def test_spec_corpus_unpenalized_scores(smoothing, pad, unpenalized):
    measure = BLEU(tokenize="none", smoothing=smoothing, pad_rule=pad, effective_order="never")
    details = measure.corpus_score(SPEC_HYPS, SPEC_REFS).details
    assert details["score_unpenalized"] / 100 == pytest.approx(unpenalized, abs=1e-6)


@pytest.mark.parametrize(
    ("pad", "expected"),
    [
        ("none", [(0, 0.485492, 0.365555), (0, 0.602529, 0.544446)]),
        ("both", [(0.674256, 0.707107, 0.674256), (0.402935, 0.461058, 0.402935)]),
    ],
)
def test_spec_sentence_vectors(pad, expected):
    for column, smoothing in enumerate(("none", "bleu-s", "bleu-s-prime")):
        measure = BLEU(tokenize="none", smoothing=smoothing, pad_rule=pad, effective_order="never")
        scores = measure.sentence_scores(measure.statistics(SPEC_HYPS, SPEC_REFS)) / 100
        assert scores.tolist() == pytest.approx([row[column] for row in expected], abs=1e-6)


@pytest.mark.parametrize(
    ("smoothing", "pad", "expected"),
    [
        ("none", "none", 0.0),
        ("bleu-s", "none", 0.485492),
        ("bleu-s", "left", 0.497429),
        ("bleu-s", "right", 0.591546),
        ("bleu-s", "both", 0.594604),
    ],
)
def test_preprocessing_spec_c24_vectors(smoothing, pad, expected):
    # C.2.4 (Leusch et al.) counts ONE boundary token as a word of the sentence (its decision
    # 6), unlike the thesis' m−1 sentinels per order with unpadded unigrams (measures spec
    # §3.4), which the pad-rule option implements. The paper's convention is the text with
    # literal boundary words and no pad rule.
    measure = BLEU(tokenize="none", smoothing=smoothing, effective_order="never")
    left = "<s> " if pad in ("left", "both") else ""
    right = " </s>" if pad in ("right", "both") else ""
    hyp, ref = "the cat sat on the mat", "the cat is on the mat"
    score = corpus(measure, [left + hyp + right], [[left + ref + right]])
    assert score / 100 == pytest.approx(expected, abs=1e-6)


def test_c24_sentence_under_thesis_boundaries():
    # The same sentence with the thesis' pad rule both, enumerated by hand (spec §3.4): e.g.
    # trigrams [<s> <s> the] [<s> the cat] [on the mat] [the mat </s>] [mat </s> </s>] match.
    measure = BLEU(tokenize="none", smoothing="bleu-s", pad_rule="both", effective_order="never")
    details = measure.corpus_score(["the cat sat on the mat"], [["the cat is on the mat"]])
    assert details.details["correct"] == [5, 5, 5, 5]
    assert details.details["total"] == [6, 7, 8, 9]


def test_thesis_literal_s1_smoothing_vector_is_zero():
    # C.2.4 "BLEU-S literal" s = (1, 0, 0, 0) still scores 0 without a matching 4-gram.
    assert thesis_bleu([5, 3, 1, 0], [6, 5, 4, 3], 6, 6, "none").score == 0.0


@pytest.mark.parametrize(
    ("hyp", "rule", "penalty"),
    [
        ("the cat is on", "minimumNearest", 0.606531),
        ("a cat on the mat", "minimumNearest", 0.818731),
        ("a cat on the mat", "average", 0.740818),
    ],
)
def test_brevity_penalty_vectors(hyp, rule, penalty):
    refs = [["the cat is on the mat", "there is a cat on the mat"]]
    if hyp == "the cat is on":
        refs = [["the cat is on the mat"]]
    details = BLEU(tokenize="none", ref_length_rule=rule).corpus_score([hyp], refs).details
    assert details["brevity_penalty"] == pytest.approx(penalty, abs=1e-6)


@pytest.mark.parametrize(
    ("rule", "penalty", "expected"),
    [("minimumNearest", 1.0, 0.485492), ("average", 0.920044, 0.446674)],
)
def test_c24_two_references_bleu_s(rule, penalty, expected):
    # C.2.4: s = (0, 1, 1, 1) against both references; closest length 6, average 6.5.
    measure = BLEU(
        tokenize="none", smoothing="bleu-s", ref_length_rule=rule, effective_order="never"
    )
    result = measure.corpus_score(["the cat sat on the mat"], [SPEC_REFS[0]])
    assert result.details["brevity_penalty"] == pytest.approx(penalty, abs=1e-6)
    assert result.score / 100 == pytest.approx(expected, abs=1e-6)


def test_closest_length_tie_takes_the_shorter_reference():
    details = BLEU(tokenize="none").corpus_score(["a b c d e"], [["a b c d", "a b c d e f"]])
    assert details.details["brevity_penalty"] == 1.0


def test_chunked_statistics_equal_whole_run():
    measure = BLEU()
    context = measure.context(README_REFS)
    whole = measure.statistics(README_HYPS, README_REFS, context)
    parts = [
        measure.statistics(README_HYPS[i : i + 1], README_REFS[i : i + 1], context)
        for i in range(3)
    ]
    assert (sum(part.sum(axis=0) for part in parts) == whole.sum(axis=0)).all()


# --- real data: sacreBLEU and mteval-v13a -----------------------------------------------------


@pytest.fixture(scope="module")
def wmt17():
    return data.wmt17()


@pytest.fixture(scope="module")
def wmt21():
    return data.wmt21()


def test_wmt17_all_systems_equal_sacrebleu_and_mteval(wmt17):
    reference, systems, expected = wmt17
    refs = data.segments(reference)
    ours, oracle = BLEU(), SacreBLEU(references=[reference])
    oracle_sentence = SacreBLEU(effective_order=True)
    context = ours.context(refs)
    for name, hyps in systems.items():
        stats = ours.statistics(hyps, refs, context)
        score = ours.aggregate(stats).score
        assert score == pytest.approx(oracle.corpus_score(hyps, None).score, abs=1e-9)
        assert f"{score:.2f}" == expected[name]["mteval_v13a_bleu_c"]
        assert f"{score:.2f}" == expected[name]["sacrebleu_2.6.0_bleu"]
        sentences = ours.sentence_scores(stats)
        wanted = [
            oracle_sentence.sentence_score(h, [r]).score
            for h, r in zip(hyps, reference, strict=True)
        ]
        assert sentences.tolist() == pytest.approx(wanted, abs=1e-9)


@pytest.mark.parametrize("n_refs", [1, 2])
def test_wmt21_equal_sacrebleu_official_and_mteval(wmt21, n_refs):
    ref_a, ref_b, systems, expected = wmt21
    official = data.wmt21_official()
    streams = [ref_a, ref_b][:n_refs]
    refs = data.segments(*streams)
    ours = BLEU()
    oracle_sentence = SacreBLEU(effective_order=True)
    context = ours.context(refs)
    suffix = "refA" if n_refs == 1 else "refAB"
    for name, hyps in systems.items():
        stats = ours.statistics(hyps, refs, context)
        score = ours.aggregate(stats).score
        metric = "bleu-A" if n_refs == 1 else "bleu-all"
        assert score == pytest.approx(official[(name, metric)], abs=1e-9)
        assert f"{score / 100:.4f}" == expected[name][f"mteval13a_c_bleu_{suffix}"]
        sentences = ours.sentence_scores(stats).tolist()
        wanted = [
            oracle_sentence.sentence_score(hyps[i], [s[i] for s in streams]).score
            for i in range(len(hyps))
        ]
        assert sentences == pytest.approx(wanted, abs=1e-9)


def test_wmt21_every_segment_equals_mteval(wmt21):
    """Segment BLEU with the defaults equals ``mteval-v13a.pl -c -d 2`` (Facebook-AI against
    reference A) to four decimals on all 1000 segments: the same clipping, closest reference
    length and ``exp`` smoothing."""
    ref_a, _, systems, _ = wmt21
    refs = data.segments(ref_a)
    measure = BLEU()
    scores = measure.sentence_scores(measure.statistics(systems["Facebook-AI"], refs))
    rows = data.mteval_segment_rows()
    assert len(rows) == len(scores) == 1000
    mismatches = [
        (row["seg"], row["mteval13a_c_bleu_refA"], f"{score / 100:.4f}")
        for row, score in zip(rows, scores, strict=True)
        if f"{score / 100:.4f}" != row["mteval13a_c_bleu_refA"]
    ]
    assert mismatches == []


def test_cli_scores_bleu_with_sentences(tmp_path, capsys):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(README_HYPS) + "\n", encoding="utf-8")
    ref.write_text("\n".join(r[0] for r in README_REFS) + "\n", encoding="utf-8")
    assert (
        cli.main(
            ["score", "--measure", "bleu", "--ref", str(ref), "--hyp", str(hyp), "--sentences"]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    oracle = SacreBLEU().corpus_score(README_HYPS, [[r[0] for r in README_REFS]]).score
    assert result["score"] == pytest.approx(oracle)
    assert len(result["sentences"]) == 3


def test_cli_thesis_preset_switches_bleu_to_bleu_s(tmp_path, capsys):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\n", encoding="utf-8")
    ref.write_text("the cat is on the mat\n", encoding="utf-8")
    assert (
        cli.main(
            [
                "score",
                "--measure",
                "bleu",
                "--ref",
                str(ref),
                "--hyp",
                str(hyp),
                "--preset",
                "thesis",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    # BLEU-S, both: (5/6 · 6/8 · 6/9 · 6/10)^(1/4) = 0.25^(1/4) with the counts above.
    assert result["score"] / 100 == pytest.approx(0.25**0.25, abs=1e-9)
    assert "smooth:bleu-s" in result["signature"]


def test_bleu_hand_computed_case() -> None:
    """a b c d against a b c e: precisions 3/4, 2/3, 1/2 and 0/1, which sacreBLEU's ``exp``
    smoothing turns into 1/2; BLEU = (75 · 66.67 · 50 · 50)^¼ = 12.5e6^¼, times C²."""
    raw = 12.5e6**0.25
    plain = BLEU(tokenize="none").corpus_score(["a b c d"], [["a b c e"]])
    assert plain.score == pytest.approx(raw)
    normalised = BLEU(tokenize="none", complexity_factor=1.075).corpus_score(
        ["a b c d"], [["a b c e"]]
    )
    assert normalised.score == pytest.approx(raw * 1.075 * 1.075)
    assert normalised.details["score_raw"] == pytest.approx(raw)
    assert normalised.details["complexity_factor"] == 1.075
    assert "complexity_factor" not in plain.details
