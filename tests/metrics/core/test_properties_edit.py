"""Property tests of the edit distances on random short sentences (measures spec §18)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core.cder import CDER
from metrics.core.invwer import INVWER
from metrics.core.ljwer import LJWER, long_jump_distance
from metrics.core.per import MSDER, PER, length_difference
from metrics.core.ter import TER
from metrics.core.wer import WER

words = st.lists(st.sampled_from("abcd"), max_size=7).map(tuple)
sentences = st.lists(st.sampled_from("abcd"), min_size=1, max_size=6).map(" ".join)
RULES = ("average", "minimum", "maximum", "averageNearest", "minimumNearest", "maximumNearest")


def d(measure: object, hyp: tuple[str, ...], ref: tuple[str, ...]) -> float:
    return float(measure.pair_distances([(hyp, ref)])[0])


WER_ = WER(tokenize="none")
PER_ = PER(tokenize="none")
INV = INVWER(tokenize="none")
CDER_BY_PAD = {
    pad: CDER(tokenize="none", pad_rule=pad) for pad in ("none", "left", "right", "both")
}


# No deadline: the first example of a run may load or compile the numba kernels (about a
# second), which says nothing about the measure.
@settings(deadline=None)
@given(words)
def test_identical_sentences_have_distance_zero(x: tuple[str, ...]) -> None:
    for measure in (WER_, PER_, INV, TER(), *CDER_BY_PAD.values()):
        assert d(measure, x, x) == 0
    assert long_jump_distance(x, x) == 0


@settings(deadline=None)
@given(words, words)
def test_bound_chain(x: tuple[str, ...], y: tuple[str, ...]) -> None:
    """d_ΔI ≤ d_PER ≤ d_inv ≤ d_LEV and d_CDCD ≤ d_LJ ≤ d_LEV (Eq. 4.26, spec §18)."""
    lev = d(WER_, x, y)
    assert length_difference(len(x), len(y)) <= d(PER_, x, y) <= d(INV, x, y) <= lev
    lj = long_jump_distance(x, y)
    assert d(CDER_BY_PAD["both"], x, y) <= lj <= lev
    assert d(PER_, x, y) <= lev


@settings(deadline=None)
@given(words, words)
def test_cder_never_exceeds_wer(x: tuple[str, ...], y: tuple[str, ...]) -> None:
    for measure in CDER_BY_PAD.values():
        assert d(measure, x, y) <= d(WER_, x, y)


@settings(deadline=None)
@given(words, words)
def test_symmetric_measures(x: tuple[str, ...], y: tuple[str, ...]) -> None:
    for measure in (WER_, PER_, INV):
        assert d(measure, x, y) == d(measure, y, x)
    assert long_jump_distance(x, y) == long_jump_distance(y, x)


@settings(max_examples=200, deadline=None)
@given(words, words)
def test_long_jumps_bounded_by_cder_plus_miscoverage(
    x: tuple[str, ...], y: tuple[str, ...]
) -> None:
    """d_LJ ≤ d_CDCD + lp_misc (Eq. 4.19 upper bound; held on every random test, spec §9.6)."""
    with_penalty = CDER(tokenize="none", coverage_rule="miscoverage")
    assert long_jump_distance(x, y) <= d(with_penalty, x, y)


@settings(deadline=None)
@given(words, words)
def test_cder_pad_rules_equal_padding_with_sentinels(
    x: tuple[str, ...], y: tuple[str, ...]
) -> None:
    """left/right/both = none on sentences padded with <s> and/or </s> (spec §9.4)."""
    for pad, (front, back) in {"left": (1, 0), "right": (0, 1), "both": (1, 1)}.items():
        px = ("<s>",) * front + x + ("</s>",) * back
        py = ("<s>",) * front + y + ("</s>",) * back
        assert d(CDER_BY_PAD[pad], x, y) == d(CDER_BY_PAD["none"], px, py)


@settings(max_examples=50, deadline=None)
@given(sentences, st.lists(sentences, min_size=2, max_size=3), st.sampled_from(RULES))
def test_scores_do_not_depend_on_reference_order(hyp: str, refs: list[str], rule: str) -> None:
    """Every rule but lowestError (whose ties pick the first reference, spec §4.1); TER has
    its own rule (fewest edits over the average length)."""
    measures = [
        measure(tokenize="none", ref_length_rule=rule)
        for measure in (WER, PER, MSDER, CDER, INVWER, LJWER)
    ]
    for measure in (*measures, TER()):
        scores = {
            round(measure.corpus_score([hyp], [list(order)]).score, 9)
            for order in itertools.permutations(refs)
        }
        assert len(scores) == 1, measure.name
