"""m-PER and skip-bigram PER: spec §6.2, §6.5, §6.6 and C.2.2 vectors, reference-length rules,
the CLI, and the one-reference fast path against the general per-segment rows."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core import cli
from metrics.core.mper import MPER, SkipBigramPER
from metrics.core.reflength import DISTANCE_RULES
from tests.metrics.core import _ngram_data as data

E, R = "I prefer the plane", "I like the plane"


@pytest.mark.parametrize(
    ("order", "pad", "distance", "length"),
    [
        (1, "none", 1, 4),
        (1, "both", 1, 4),
        (2, "none", 2, 3),
        (2, "both", 2, 5),
        (3, "none", 2, 2),
        (3, "both", 3, 6),
        (4, "none", 1, 1),
        (4, "both", 4, 7),
    ],
)
def test_spec_m_per_vectors(order, pad, distance, length):
    measure = MPER(tokenize="none", min_ngram=order, max_ngram=order, pad_rule=pad)
    assert measure.statistics([E], [[R]])[0, :2].tolist() == [distance, length]


def test_spec_combined_one_to_four_with_boundaries():
    measure = MPER(tokenize="none", min_ngram=1, max_ngram=4, pad_rule="both")
    result = measure.corpus_score([E], [[R]])
    assert (result.details["distance"], result.details["ref_length"]) == (10, 22)
    assert result.score == pytest.approx(100 * 10 / 22)
    assert result.details["orders"]["3"]["distance"] == 3


@pytest.mark.parametrize(
    ("skip", "pad", "distance", "length"),
    [
        (0, "none", 2, 3),
        (1, "none", 3, 5),
        (2, "none", 3, 6),
        (4, "none", 3, 6),
        (0, "both", 2, 5),
        (1, "both", 4, 9),
        (2, "both", 5, 12),
        (4, "both", 5, 15),
    ],
)
def test_spec_skip_bigram_vectors(skip, pad, distance, length):
    measure = SkipBigramPER(tokenize="none", max_bigram_skip=skip, pad_rule=pad)
    assert measure.statistics([E], [[R]])[0, :2].tolist() == [distance, length]


def test_unigram_m_per_is_per_example():
    # Spec §6.2: d_PER(we have been there, we were there) = 2, rate 2/3.
    measure = MPER(tokenize="none", min_ngram=1, max_ngram=1)
    result = measure.corpus_score(["we have been there"], [["we were there"]])
    assert result.score == pytest.approx(100 * 2 / 3)


@pytest.mark.parametrize(
    ("hyp", "ref", "d1", "d2"),
    [
        ("b a c", "a b c", 0, 2),
        ("a b c", "a b d e", 2, None),
        ("a a b", "a b b", 1, None),
        ("the cat sat on the mat", "the cat is on the mat", 1, 2),
        # "same, both with <s>…</s>": the paper's boundaries are words of the sentence
        ("<s> the cat sat on the mat </s>", "<s> the cat is on the mat </s>", 1, 2),
    ],
)
def test_preprocessing_spec_c22_distances(hyp, ref, d1, d2):
    unigram = MPER(tokenize="none", min_ngram=1, max_ngram=1, pad_rule="none")
    assert unigram.statistics([hyp], [[ref]])[0, 0] == d1
    if d2 is not None:
        bigram = MPER(tokenize="none", min_ngram=2, max_ngram=2, pad_rule="none")
        assert bigram.statistics([hyp], [[ref]])[0, 0] == d2


def test_c22_boundary_row_with_the_pad_rule():
    # The same row under the thesis' pad rule: [<s> the] and [mat </s>] match, so 2 again.
    bigram = MPER(tokenize="none", min_ngram=2, max_ngram=2, pad_rule="both")
    stats = bigram.statistics(["the cat sat on the mat"], [["the cat is on the mat"]])
    assert stats[0, :2].tolist() == [2, 7]


def test_reference_choice_jointly_or_separately():
    # Unigrams prefer r1 (d 0 vs 1), bigrams prefer r2 (d 1 vs 2): jointly r1 and r2 tie on
    # the sum (2 = 2); separately the minima add up to 0 + 1.
    hyp, refs = "b a c", [["a b c", "b a d"]]
    joint = MPER(
        tokenize="none", min_ngram=1, max_ngram=2, pad_rule="none", ref_length_rule="minimumNearest"
    )
    separate = MPER(
        tokenize="none",
        min_ngram=1,
        max_ngram=2,
        pad_rule="none",
        ref_length_rule="minimumNearest",
        choose_references_separately=True,
    )
    assert joint.statistics([hyp], refs)[0, :2].tolist() == [2, 5]
    assert separate.statistics([hyp], refs)[0, :2].tolist() == [1, 5]


def test_lowest_error_rule_changes_the_numerator():
    # Spec §4.3 sentence B with unigram PER: r1 "x" (d 1, L 1), r2 "x y z w" (d 2, L 4).
    measure = MPER(tokenize="none", min_ngram=1, max_ngram=1)
    assert measure.statistics(["x y"], [["x", "x y z w"]])[0, :2].tolist() == [2, 4]
    nearest = MPER(tokenize="none", min_ngram=1, max_ngram=1, ref_length_rule="averageNearest")
    assert nearest.statistics(["x y"], [["x", "x y z w"]])[0, :2].tolist() == [1, 1]


def test_empty_hypothesis_and_reference():
    measure = MPER(tokenize="none")
    stats = measure.statistics(["", "a b"], [[""], ["a b"]])
    assert stats[:, :2].tolist() == [[0, 0], [0, 3]]


def test_cli_scores_skipper(tmp_path, capsys):
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text(E + "\n", encoding="utf-8")
    ref.write_text(R + "\n", encoding="utf-8")
    assert (
        cli.main(
            [
                "score",
                "--measure",
                "skipper",
                "--ref",
                str(ref),
                "--hyp",
                str(hyp),
                "--option",
                "tokenize=none",
                "--option",
                "max-bigram-skip=2",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(100 * 5 / 12)


SENTENCE = st.lists(st.sampled_from("abcd"), max_size=8).map(" ".join)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=5),
    st.sampled_from(DISTANCE_RULES),
    st.sampled_from(["none", "left", "both"]),
    st.booleans(),
)
def test_one_reference_rows_equal_the_general_rows(
    pairs: list[tuple[str, str]], rule: str, pad: str, separately: bool
) -> None:
    """A segment with its one reference given twice takes the general per-segment path; every
    Table A.3 rule picks the same (d, L) from two identical references, so the rows agree."""
    hyps = [hyp for hyp, _ in pairs]
    for measure in (
        MPER(
            tokenize="none",
            min_ngram=1,
            max_ngram=3,
            pad_rule=pad,
            ref_length_rule=rule,
            choose_references_separately=separately,
        ),
        SkipBigramPER(tokenize="none", pad_rule=pad, ref_length_rule=rule, max_bigram_skip=2),
    ):
        single = measure.statistics(hyps, [[ref] for _, ref in pairs])
        doubled = measure.statistics(hyps, [[ref, ref] for _, ref in pairs])
        assert np.array_equal(single, doubled)


def m_gram_per_row(hyp: list[str], ref: list[str], orders: range) -> list[float]:
    """[d, L, d_m, L_m ...] by spec §6.5 with boundaries ``both``: d = max(I, L) − Σ min."""
    from collections import Counter

    row = [0.0, 0.0]
    for m in orders:

        def grams(tokens: list[str], m: int = m) -> Counter[tuple[str, ...]]:
            padded = ["<s>"] * (m - 1) + tokens + ["</s>"] * (m - 1) if tokens else []
            return Counter(tuple(padded[k : k + m]) for k in range(len(padded) - m + 1))

        h, r = grams(hyp), grams(ref)
        d = max(sum(h.values()), sum(r.values())) - sum((h & r).values())
        row += [float(d), float(sum(r.values()))]
        row[0] += d
        row[1] += sum(r.values())
    return row


def test_wmt_m_per_rows_equal_the_spec_formula() -> None:
    reference, systems, _ = data.wmt17()
    hyps = next(iter(systems.values()))[:300]
    refs = [[line] for line in reference[:300]]
    measure = MPER(min_ngram=1, max_ngram=2)
    stats = measure.statistics(hyps, refs)
    expected = [
        m_gram_per_row(list(measure.tokens(h)), list(measure.tokens(r[0])), range(1, 3))
        for h, r in zip(hyps, refs, strict=True)
    ]
    assert stats.tolist() == expected
