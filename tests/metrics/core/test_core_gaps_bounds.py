"""LJWER and INVWER: exact shortcuts from their bounds, the length cap in scores and alignments.

d_LJ: max(d_CDCD forward, d_CDCD backward, d_ΔI) ≤ d_LJ ≤ d_LEV (spec §8, §9.6).
d_inv: d_PER ≤ d_inv ≤ d_LEV under the same costs (Eq. 4.26, spec §10.3).
Where the bounds meet, the measures skip their DPs; the results must equal the DPs.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from metrics.core import invwer as invwer_module
from metrics.core import ljwer as ljwer_module
from metrics.core.invwer import INVWER, InversionTable, parse_costs
from metrics.core.ljwer import LJWER, long_jump_distance, long_jump_lower_bounds

WORDS = st.lists(st.sampled_from("abc"), max_size=7).map(tuple)


@st.composite
def swapped_blocks(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A reference and a candidate with two blocks swapped and maybe one word changed: pairs
    where d_LJ and d_inv fall below d_LEV, which random words rarely give."""
    ref = draw(st.lists(st.sampled_from("abcdefg"), min_size=2, max_size=8))
    cut = draw(st.integers(1, len(ref) - 1))
    hyp = ref[cut:] + ref[:cut]
    position = draw(st.integers(0, len(hyp) - 1))
    hyp[position] = draw(st.sampled_from("abx"))
    return tuple(hyp), tuple(ref)


PAIR = st.one_of(st.tuples(WORDS, WORDS), swapped_blocks())
PAIRS = st.lists(PAIR, min_size=1, max_size=6)


def costs_text() -> st.SearchStrategy[str]:
    """Valid ``transposition-costs``: c_SUB ≤ c_DEL + c_INS (Eq. 4.10), c_INV ≥ 0."""
    numbers = st.integers(min_value=0, max_value=4)
    return (
        st.tuples(st.integers(1, 3), numbers, numbers, numbers, numbers)
        .filter(lambda c: c[1] <= c[2] + c[3])
        .map(lambda c: ",".join(map(str, c)))
    )


@settings(max_examples=300, deadline=None)
@given(PAIRS)
def test_ljwer_with_shortcut_equals_the_dp(pairs: list[tuple[tuple[str, ...], ...]]) -> None:
    measure = LJWER(tokenize="none", max_length=24)
    distances, approximated = measure.distances_and_approximated(pairs)
    assert distances.tolist() == [long_jump_distance(hyp, ref) for hyp, ref in pairs]
    assert not approximated.any()


@settings(max_examples=300, deadline=None)
@given(PAIR)
def test_long_jump_bounds_hold(pair: tuple[tuple[str, ...], tuple[str, ...]]) -> None:
    hyp, ref = pair
    lower = long_jump_lower_bounds([(hyp, ref)])[0]
    assert lower <= long_jump_distance(hyp, ref) <= Levenshtein.distance(hyp, ref)


def test_ljwer_settled_pairs_skip_the_dp(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_dp(*_: object) -> int:
        raise AssertionError("the exponential DP ran")

    monkeypatch.setattr(ljwer_module, "long_jump_between", no_dp)
    measure = LJWER(tokenize="none")
    # One substitution, one deletion, an empty side: CDCD already reaches d_LEV.
    pairs = [("a x c".split(), "a b c".split()), ("a b c".split(), "a c".split()), ((), ("a",))]
    distances, approximated = measure.distances_and_approximated(pairs)
    assert distances.tolist() == [1.0, 1.0, 1.0]
    assert not approximated.any()


@settings(max_examples=300, deadline=None)
@given(PAIRS, costs_text())
def test_invwer_with_shortcut_equals_the_dp(
    pairs: list[tuple[tuple[str, ...], ...]], costs: str
) -> None:
    measure = INVWER(tokenize="none", transposition_costs=costs, max_length=60)
    numbers = parse_costs(costs)
    expected = []
    for hyp, ref in pairs:
        if hyp and ref:
            expected.append(InversionTable(hyp, ref, numbers).distance() / numbers[0])
        else:  # the DP's closed forms for an empty side
            expected.append((len(hyp) * numbers[2] + len(ref) * numbers[3]) / numbers[0])
    distances, approximated = measure.distances_and_approximated(pairs)
    assert distances.tolist() == expected
    assert not approximated.any()


@settings(max_examples=200, deadline=None)
@given(PAIR.filter(lambda pair: all(pair)), costs_text())
def test_inversion_bounds_hold_under_every_cost(
    pair: tuple[tuple[str, ...], tuple[str, ...]], costs: str
) -> None:
    hyp, ref = pair
    measure = INVWER(tokenize="none", transposition_costs=costs)
    lower, upper = measure.bounds(hyp, ref)
    assert lower <= InversionTable(hyp, ref, measure.costs).distance() <= upper


def test_invwer_settled_pairs_skip_the_dp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(invwer_module, "InversionTable", None)  # any use would fail
    measure = INVWER(tokenize="none")
    # No reordering to exploit: PER = Levenshtein.
    assert measure.pair_distance("a b c d".split(), "a x c".split()) == 2.0


def test_invwer_one_inversion_at_least_as_dear_as_levenshtein_settles_without_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """d_PER + c_INV ≥ d_LEV: any tree with an inversion costs at least d_LEV, so d_inv =
    d_LEV exactly, beyond max-length too."""
    monkeypatch.setattr(invwer_module, "InversionSearch", None)  # any use would fail
    measure = INVWER(tokenize="none", transposition_costs="1,1,1,1,2", max_length=2)
    assert measure.bounds("a b".split(), "b a".split()) == (2, 2)
    words = [f"w{k}" for k in range(40)]
    swapped = words[:10] + [words[11], words[10]] + words[12:]
    distances, approximated = measure.distances_and_approximated([(words, swapped)])
    assert distances.tolist() == [2.0] and not approximated.any()


def long_sentences(shift: int) -> tuple[str, str]:
    words = [f"w{k}" for k in range(30)]
    rotated = words[shift:] + words[:shift]
    return " ".join(rotated), " ".join(words)


def check_levenshtein_tree(alignment, costs: tuple[int, ...]) -> None:  # noqa: ANN001
    """The tree covers both sentences with straight joins of leaves whose costs add up."""

    def leaves(node: dict) -> list[dict]:
        if "children" not in node:
            return [node]
        assert node["type"] == "straight"
        left, right = node["children"]
        assert left["hyp_span"][1] == right["hyp_span"][0]
        assert left["ref_span"][1] == right["ref_span"][0]
        assert node["cost"] == left["cost"] + right["cost"]
        return leaves(left) + leaves(right)

    tree = alignment.extras["tree"]
    assert tree["hyp_span"] == [0, len(alignment.hyp)]
    assert tree["ref_span"] == [0, len(alignment.ref)]
    assert tree["cost"] == alignment.distance * costs[0]
    for leaf in leaves(tree):
        (i0, i1), (l0, l1) = leaf["hyp_span"], leaf["ref_span"]
        if leaf["type"] in ("match", "substitute"):
            same = alignment.hyp[i0] == alignment.ref[l0]
            assert (i1 - i0, l1 - l0, leaf["type"] == "match") == (1, 1, same)
    assert sum(op.cost for op in alignment.operations) == pytest.approx(alignment.distance)


def test_invwer_align_respects_the_length_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    measure = INVWER(tokenize="none", max_length=20)
    hyp, ref = long_sentences(10)
    # Neither exact algorithm may run beyond the cap.
    monkeypatch.setattr(invwer_module, "InversionTable", None)
    monkeypatch.setattr(invwer_module, "InversionSearch", None)
    started = time.perf_counter()
    alignment = measure.align(hyp, ref)
    assert time.perf_counter() - started < 1.0
    stats = measure.statistics([hyp], [[ref]])
    assert alignment.distance == stats[0, 0] == Levenshtein.distance(hyp.split(), ref.split())
    assert alignment.extras["approximate"] is True and stats[0, 2] == 1.0
    check_levenshtein_tree(alignment, measure.costs)


def test_invwer_align_beyond_the_cap_is_exact_where_the_bounds_meet() -> None:
    measure = INVWER(tokenize="none", transposition_costs="2,3,2,2,1")
    hyp = " ".join(f"w{k}" for k in range(25))
    ref = hyp.replace("w3 ", "x ").replace("w7 ", "")
    alignment = measure.align(hyp, ref)
    assert alignment.extras["approximate"] is False
    assert alignment.distance == measure.pair_distance(hyp.split(), ref.split()) == 2.5
    check_levenshtein_tree(alignment, measure.costs)


def test_invwer_align_within_the_cap_is_the_dp_tree() -> None:
    measure = INVWER(tokenize="none")
    alignment = measure.align("c d a b", "a b c d")
    assert alignment.distance == 1.0 and alignment.extras["approximate"] is False
    assert alignment.extras["tree"]["type"] == "inverted"


def test_ljwer_align_beyond_the_cap_is_exact_where_the_bounds_meet() -> None:
    measure = LJWER(tokenize="none", max_length=2)
    alignment = measure.align("a b x d", "a b c d")
    assert alignment.distance == 1.0 and alignment.extras["approximate"] is False
    swapped = measure.align("c d a b", "a b c d")
    assert swapped.distance == 4.0 and swapped.extras["approximate"] is True


@pytest.mark.parametrize(
    "measure", [LJWER(tokenize="none", max_length=2), INVWER(tokenize="none", max_length=2)]
)
def test_only_unsettled_pairs_beyond_the_cap_are_counted(measure) -> None:  # noqa: ANN001
    hyps = ["c d a b", "a b x d", "a b", "c d a b"]
    refs = [["a b c d"], ["a b c d"], ["b a"], ["a b c d", "c d a b"]]
    stats = measure.statistics(hyps, refs)
    # Beyond the cap and unsettled: the swap (d_LEV 4 > both lower bounds); settled: one
    # substitution; within the cap: "a b"; the last segment has an identical reference, but
    # its other reference is beyond the cap and unsettled, so the segment counts.
    assert stats[:, 2].tolist() == [1.0, 0.0, 0.0, 1.0]
    result = measure.corpus_score(hyps, refs)
    assert result.details["approximated_segments"] == 2
    assert result.details["segments"] == 4


def test_wmt_pairs_shortcut_equals_dp() -> None:
    """Real sentence pairs within the caps: the measures equal their plain DPs."""
    from tests.metrics.core import _ngram_data as data

    reference, systems, _ = data.wmt17()
    hypothesis = next(iter(systems.values()))
    measure = LJWER(max_length=9)
    pairs = [
        (measure.tokens(hyp), measure.tokens(ref))
        for hyp, ref in zip(hypothesis[:400], reference[:400], strict=True)
    ]
    short = [pair for pair in pairs if min(map(len, pair)) <= 9][:40]
    assert np.array_equal(
        measure.pair_distances(short), [long_jump_distance(hyp, ref) for hyp, ref in short]
    )
    invwer = INVWER(max_length=12)
    short = [pair for pair in pairs if 0 < min(map(len, pair)) and max(map(len, pair)) <= 12]
    short = short[:40]
    expected = [InversionTable(hyp, ref, invwer.costs).distance() for hyp, ref in short]
    assert invwer.pair_distances(short).tolist() == expected
