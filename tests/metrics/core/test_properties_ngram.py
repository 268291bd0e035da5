"""Properties (hypothesis): identity gives BLEU 100; more references never lower the matches
(nor BLEU at an unchanged closest length, nor BLEU with the minimum length; a closer but
longer reference can lower BLEU); corpus BLEU from summed line statistics equals BLEU of the
whole text; chunks equal whole runs; chrF and BLEU agree with sacreBLEU on random text."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF

from metrics.core.bleu import BLEU
from metrics.core.chrf import CHRF
from metrics.core.mper import MPER
from metrics.core.nist import NIST

WORDS = st.sampled_from(["a", "b", "c", "d", "e", "the", "cat", ",", "."])
SENTENCES = st.lists(WORDS, min_size=0, max_size=12).map(" ".join)
LONG = st.lists(WORDS, min_size=4, max_size=12).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(LONG, min_size=1, max_size=4), st.sampled_from(["exp", "none", "bleu-s"]))
def test_identical_hypothesis_scores_100(texts, smoothing):
    measure = BLEU(tokenize="none", smoothing=smoothing)
    assert np.isclose(measure.corpus_score(texts, [[t] for t in texts]).score, 100.0)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES, SENTENCES), min_size=1, max_size=4))
def test_adding_a_reference_never_lowers_matches_nor_bleu_at_the_same_length(rows):
    measure = BLEU(tokenize="none", smoothing="none")
    hyps = [row[0] for row in rows]
    one_refs = [[row[1]] for row in rows]
    two_refs = [[row[1], row[2]] for row in rows]
    one, two = measure.statistics(hyps, one_refs), measure.statistics(hyps, two_refs)
    assert (two[:, 2:] >= one[:, 2:]).all()
    if (one[:, 1] == two[:, 1]).all():  # the closest length did not change
        assert measure.aggregate(two).score >= measure.aggregate(one).score - 1e-9


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(SENTENCES, SENTENCES, SENTENCES), min_size=1, max_size=4),
    st.sampled_from(["exp", "floor", "add-k", "none", "bleu-s", "bleu-s-prime"]),
)
def test_adding_a_reference_never_lowers_bleu_with_the_minimum_length(rows, smoothing):
    # With ref-length-rule=minimum a new reference can only shorten L* (the penalty does not
    # fall) and only add matches, and every smoothing is monotone in the matches.
    measure = BLEU(tokenize="none", smoothing=smoothing, ref_length_rule="minimum")
    hyps = [row[0] for row in rows]
    one = measure.corpus_score(hyps, [[row[1]] for row in rows]).score
    two = measure.corpus_score(hyps, [[row[1], row[2]] for row in rows]).score
    assert two >= one - 1e-9


def test_a_closer_but_longer_reference_can_lower_bleu():
    # "Adding a reference never lowers BLEU" does not hold, through the brevity penalty:
    # the new reference is closer in length (6 vs 3 for 5 words) and brings no matches.
    measure = BLEU(tokenize="none")
    hyp = ["a b c d e"]
    one = measure.corpus_score(hyp, [["a b c"]]).score
    two = measure.corpus_score(hyp, [["a b c", "x x x x x x"]]).score
    assert two < one


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES), min_size=1, max_size=5))
def test_corpus_bleu_from_summed_statistics_equals_bleu_of_the_whole_text(rows):
    # Each line scored on its own (its own context), statistics summed, equals the corpus
    # score of the whole text at once: the corpus formula is applied once to the sums.
    measure = BLEU(tokenize="none")
    hyps, refs = [r[0] for r in rows], [[r[1]] for r in rows]
    summed = sum(measure.statistics([h], [r]) for h, r in zip(hyps, refs, strict=True))
    assert np.isclose(measure.aggregate(summed).score, measure.corpus_score(hyps, refs).score)
    oracle = SacreBLEU().corpus_score(hyps, [[r[0] for r in refs]]).score
    assert np.isclose(measure.aggregate(summed).score, oracle)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES), min_size=2, max_size=6), st.integers(1, 5))
def test_chunks_equal_whole_runs(rows, cut):
    hyps, refs = [r[0] for r in rows], [[r[1]] for r in rows]
    cut = min(cut, len(rows) - 1)
    for measure in (
        BLEU(tokenize="none"),
        NIST(tokenize="none"),
        MPER(tokenize="none"),
        CHRF(word_order=2),
    ):
        context = measure.context(refs)
        whole = measure.statistics(hyps, refs, context)
        parts = np.vstack(
            [
                measure.statistics(hyps[:cut], refs[:cut], context),
                measure.statistics(hyps[cut:], refs[cut:], context),
            ]
        )
        assert np.allclose(whole, parts)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES, SENTENCES), min_size=1, max_size=4))
def test_bleu_and_chrf_equal_sacrebleu_on_random_text(rows):
    hyps = [row[0] for row in rows]
    refs = [[row[1], row[2]] for row in rows]
    streams = [[row[1] for row in rows], [row[2] for row in rows]]
    assert np.isclose(
        BLEU().corpus_score(hyps, refs).score, SacreBLEU().corpus_score(hyps, streams).score
    )
    assert np.isclose(
        CHRF(word_order=2).corpus_score(hyps, refs).score,
        SacreCHRF(word_order=2).corpus_score(hyps, streams).score,
    )
