"""INVWER (measures spec §10.2, §10.3, §10.6, §10.9 vectors; costs §10.8), its bounds and the
length cap.

d_PER ≤ d_inv ≤ d_LEV under the same costs (Eq. 4.26, spec §10.3). Where the bounds meet the
measure skips its search, and the result must equal the DP; beyond ``max-length`` neither
exact algorithm runs, in scores and alignments alike.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from metrics.core import invwer as invwer_module
from metrics.core.base import MeasureError
from metrics.core.invwer import INVWER, InversionTable, parse_costs
from metrics.core.per import PER
from metrics.core.wer import WER
from tests.metrics.core._edit_pairs import PAIR, PAIRS

EXAMPLE = ("we will meet at noon in the lobby", "we will meet in the lobby at twelve o'clock")


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [
        (*EXAMPLE, 3),
        ("a b c d", "a b d c", 1),
        ("a b d c", "b d a c", 1),
        ("a b c d", "b d a c", 3),  # the thesis prints 4 (spec §10.3: arithmetic slip)
        ("c d a b", "a b c d", 1),
        ("d e f a b c", "a b c d e f", 1),
        ("a", "x a", 1),
        ("b", "a b b b", 3),
        ("a b", "a b a b", 2),
        ("", "a b", 2),
        # §10.6: the literal pruned memoisation returns -19 here; the DP value is 3.
        ("c c b b a", "b b a a c a", 3),
    ],
)
def test_spec_vectors(hyp: str, ref: str, expected: int) -> None:
    assert INVWER(tokenize="none").pair_distance(hyp.split(), ref.split()) == expected


@pytest.mark.parametrize(
    ("hyp", "ref", "levenshtein", "per"),
    [  # §10.9, columns d_LEV and d_PER
        (*EXAMPLE, 5, 2),
        ("a b c d", "a b d c", 2, 0),
        ("a b d c", "b d a c", 2, 0),
        ("a b c d", "b d a c", 4, 0),
        ("c d a b", "a b c d", 4, 0),
        ("d e f a b c", "a b c d e f", 6, 0),
        ("a", "x a", 1, 1),
        ("b", "a b b b", 3, 3),
        ("a b", "a b a b", 2, 2),
    ],
)
def test_table_10_9_levenshtein_and_per_columns(
    hyp: str, ref: str, levenshtein: int, per: int
) -> None:
    pair = [(tuple(hyp.split()), tuple(ref.split()))]
    assert WER(tokenize="none").pair_distances(pair).tolist() == [levenshtein]
    assert PER(tokenize="none").pair_distances(pair).tolist() == [per]


def test_example_rate_and_tree() -> None:
    measure = INVWER(tokenize="none")
    assert measure.corpus_score([EXAMPLE[0]], [[EXAMPLE[1]]]).score == pytest.approx(100 / 3)
    alignment = measure.align(*EXAMPLE)
    assert alignment.distance == 3
    kinds = sorted(op.kind for op in alignment.operations if op.kind != "match")
    assert kinds == ["insert", "substitute"]

    def inversions(node: dict) -> int:
        own = node.get("type") == "inverted"
        return own + sum(inversions(child) for child in node.get("children", []))

    assert inversions(alignment.extras["tree"]) == 1


def test_fractional_inversion_cost() -> None:
    """``2,2,2,2,1``: unit edits and c_INV = 0.5 (Table A.1 example)."""
    measure = INVWER(tokenize="none", transposition_costs="2,2,2,2,1")
    assert measure.pair_distance("a b c d".split(), "a b d c".split()) == 0.5


@pytest.mark.parametrize("costs", ["1,1,1", "0,1,1,1,1", "1,3,1,1,1", "a,b,c,d,e"])
def test_bad_costs_are_rejected(costs: str) -> None:
    with pytest.raises(MeasureError):
        INVWER(transposition_costs=costs)


def test_beyond_the_limit_the_levenshtein_bound_is_used() -> None:
    measure = INVWER(tokenize="none", max_length=3)
    stats = measure.statistics(["c d a b"], [["a b c d"]])
    assert stats.tolist() == [[4.0, 4.0, 1.0]]


def costs_text() -> st.SearchStrategy[str]:
    """Valid ``transposition-costs``: c_SUB ≤ c_DEL + c_INS (Eq. 4.10), c_INV ≥ 0."""
    numbers = st.integers(min_value=0, max_value=4)
    return (
        st.tuples(st.integers(1, 3), numbers, numbers, numbers, numbers)
        .filter(lambda c: c[1] <= c[2] + c[3])
        .map(lambda c: ",".join(map(str, c)))
    )


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
    alignment = measure.align(hyp, ref)
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


@pytest.mark.parametrize("measure", [INVWER(tokenize="none", max_length=2)])
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
    """Real sentence pairs within the cap: the measure equals its plain DP."""
    from tests.metrics.core import _ngram_data as data

    reference, systems, _ = data.wmt17()
    hypothesis = next(iter(systems.values()))
    invwer = INVWER(max_length=12)
    pairs = [
        (invwer.tokens(hyp), invwer.tokens(ref))
        for hyp, ref in zip(hypothesis[:400], reference[:400], strict=True)
    ]
    short = [pair for pair in pairs if 0 < min(map(len, pair)) and max(map(len, pair)) <= 12]
    short = short[:40]
    expected = [InversionTable(hyp, ref, invwer.costs).distance() for hyp, ref in short]
    assert invwer.pair_distances(short).tolist() == expected
