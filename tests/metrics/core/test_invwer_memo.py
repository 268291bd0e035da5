"""INVWER's safe memoised search (measures spec §10.6) against the normative DP (§10.5).

The search cuts span pairs by lower bounds against an upper bound that starts at d_LEV; the
literal thesis version stored the bounds as values and went wrong (§10.6: −19 instead of 3).
Random pairs over three words make inversions and repeated words, where cuts go wrong, common.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from metrics.core import invwer as invwer_module
from metrics.core.base import MeasureError
from metrics.core.invwer import INVWER, InversionSearch, InversionTable, parse_costs

Words = tuple[str, ...]
WORDS = st.lists(st.sampled_from("abc"), max_size=9).map(tuple)
COSTS = (
    st.tuples(st.integers(1, 3), *[st.integers(0, 4)] * 4)
    .filter(lambda c: c[1] <= c[2] + c[3])  # Eq. 4.10, as parse_costs demands
    .map(lambda c: ",".join(map(str, c)))
)
EXAMPLE = ("we will meet at noon in the lobby", "we will meet in the lobby at twelve o'clock")
SPEC_VECTORS = [  # §10.2, §10.9, and the §10.6 counterexample to the literal memoisation
    (*EXAMPLE, 3),
    ("a b c d", "a b d c", 1),
    ("a b d c", "b d a c", 1),
    ("a b c d", "b d a c", 3),
    ("c d a b", "a b c d", 1),
    ("d e f a b c", "a b c d e f", 1),
    ("a", "x a", 1),
    ("b", "a b b b", 3),
    ("a b", "a b a b", 2),
    ("c c b b a", "b b a a c a", 3),
]


def search(hyp: Words, ref: Words, costs: tuple[int, ...]) -> InversionSearch:
    _, c_sub, c_del, c_ins, _ = costs
    upper = Levenshtein.distance(hyp, ref, weights=(c_ins, c_del, c_sub))
    return InversionSearch(hyp, ref, costs, upper, keep_tree=True)


def dp_distance(hyp: Words, ref: Words, costs: tuple[int, ...]) -> int:
    if hyp and ref:
        return InversionTable(hyp, ref, costs).distance()
    return len(hyp) * costs[2] + len(ref) * costs[3]  # the DP's closed forms


def check_tree(node: dict[str, Any], hyp: Words, ref: Words, costs: tuple[int, ...]) -> int:
    """Check that the tree is a BTG parse of the span pair at its root and that each node
    costs what its leaves and inversions add up to; return the number of inversions."""
    _, c_sub, c_del, c_ins, c_inv = costs
    (i0, i1), (l0, l1) = node["hyp_span"], node["ref_span"]
    a, b = i1 - i0, l1 - l0
    if "children" not in node:
        kind = node["type"]
        if kind == "insert":
            assert a == 0 and node["cost"] == b * c_ins
        elif kind == "delete":
            assert b == 0 and node["cost"] == a * c_del
        else:
            assert (a, b) == (1, 1)
            same = hyp[i0] == ref[l0]
            assert (kind, node["cost"]) == (("match", 0) if same else ("substitute", c_sub))
        return 0
    left, right = node["children"]
    assert left["hyp_span"] == [i0, right["hyp_span"][0]] and right["hyp_span"][1] == i1
    inverted = node["type"] == "inverted"
    first, second = (right, left) if inverted else (left, right)  # in reference order
    assert first["ref_span"][0] == l0 and second["ref_span"][1] == l1
    assert first["ref_span"][1] == second["ref_span"][0]
    assert node["cost"] == left["cost"] + right["cost"] + (c_inv if inverted else 0)
    return inverted + check_tree(left, hyp, ref, costs) + check_tree(right, hyp, ref, costs)


@settings(max_examples=400, deadline=None)
@given(WORDS, WORDS, COSTS)
@example(tuple("ccbba"), tuple("bbaaca"), "1,1,1,1,1")
@example(tuple("abcd"), tuple("bdac"), "2,2,2,2,1")
@example(tuple("cab"), tuple("abc"), "2,2,2,2,1")
def test_search_equals_the_dp(hyp: Words, ref: Words, costs_text: str) -> None:
    """One search under d_LEV, and the deepening from the measure's lower bound."""
    costs = parse_costs(costs_text)
    lower, upper = INVWER(tokenize="none", transposition_costs=costs_text).bounds(hyp, ref)
    expected = dp_distance(hyp, ref, costs)
    for found in (
        search(hyp, ref, costs),
        InversionSearch(hyp, ref, costs, upper, keep_tree=True, lower=int(lower)),
    ):
        assert found.distance() == expected
        if found.beats_levenshtein():
            tree = found.tree()
            assert tree["hyp_span"] == [0, len(hyp)] and tree["ref_span"] == [0, len(ref)]
            assert tree["cost"] == found.distance()
            check_tree(tree, hyp, ref, costs)


def nodes(tree: dict[str, Any]) -> list[dict[str, Any]]:
    return [tree, *(node for child in tree.get("children", ()) for node in nodes(child))]


@settings(max_examples=300, deadline=None)
@given(WORDS, WORDS, COSTS)
def test_the_outside_bound_never_exceeds_the_rest_of_an_optimal_tree(
    hyp: Words, ref: Words, costs_text: str
) -> None:
    """Admissibility, checked directly: for every node of the DP's optimal tree, the
    search's inside bound is at most what the node costs (it is optimal there), and its
    outside bound at most what the rest of that tree costs."""
    import numpy as np

    costs = parse_costs(costs_text)
    if not hyp or not ref:
        return
    table = InversionTable(hyp, ref, costs)
    tree = table.tree(len(hyp), len(ref))
    ids: dict[str, int] = {}
    hyp_ids = np.array([ids.setdefault(word, len(ids)) for word in hyp], dtype=np.int64)
    ref_ids = np.array([ids.setdefault(word, len(ids)) for word in ref], dtype=np.int64)
    hyp_span = invwer_module._span_numbering(len(hyp))
    shape = (int(hyp_span.max()) + 1, len(ref) + 1, len(ref) + 1)
    levenshtein, inside, inside_t, outside = (np.empty(shape, dtype=np.int32) for _ in range(4))
    invwer_module._bound_tables(
        hyp_ids,
        ref_ids,
        len(ids),
        np.array(costs[1:], dtype=np.int64),
        hyp_span,
        levenshtein,
        inside,
        inside_t,
        outside,
    )
    for node in nodes(tree):
        (i0, i1), (l0, l1) = node["hyp_span"], node["ref_span"]
        h = hyp_span[i0, i1]
        assert outside[h, l0, l1] <= tree["cost"] - node["cost"]
        assert inside[h, l0, l1] == inside_t[h, l1, l0] <= node["cost"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(WORDS, WORDS), min_size=1, max_size=5), COSTS)
def test_measure_scores_equal_the_dp_without_running_it(
    pairs: list[tuple[Words, Words]], costs_text: str
) -> None:
    costs = parse_costs(costs_text)
    expected = [dp_distance(hyp, ref, costs) / costs[0] for hyp, ref in pairs]
    measure = INVWER(tokenize="none", transposition_costs=costs_text, max_length=60)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(invwer_module, "InversionTable", None)  # scoring must not need the DP
        distances, approximated = measure.distances_and_approximated(pairs)
    assert distances.tolist() == expected
    assert not approximated.any()


@pytest.mark.parametrize(("hyp", "ref", "expected"), SPEC_VECTORS)
@pytest.mark.parametrize("costs_text", ["1,1,1,1,1", "2,2,2,2,2"])
def test_spec_vectors(hyp: str, ref: str, expected: int, costs_text: str) -> None:
    """Same numbers with every cost doubled over a denominator of 2: numerators double."""
    costs = parse_costs(costs_text)
    assert search(tuple(hyp.split()), tuple(ref.split()), costs).distance() == expected * costs[0]


def test_the_literal_memoisation_counterexample() -> None:
    """§10.6: the thesis' pruning returned −19 here; the search must give the DP's 3."""
    hyp, ref = tuple("c c b b a".split()), tuple("b b a a c a".split())
    costs = parse_costs("1,1,1,1,1")
    found = search(hyp, ref, costs)
    assert found.distance() == dp_distance(hyp, ref, costs) == 3
    assert found.beats_levenshtein()  # d_LEV is 4
    check_tree(found.tree(), hyp, ref, costs)


def test_worked_example_tree_has_one_inversion() -> None:
    hyp, ref = tuple(EXAMPLE[0].split()), tuple(EXAMPLE[1].split())
    costs = parse_costs("1,1,1,1,1")
    tree = search(hyp, ref, costs).tree()
    assert check_tree(tree, hyp, ref, costs) == 1


def test_without_a_cheaper_tree_the_levenshtein_bound_stands() -> None:
    """No reordering to exploit: every node is cut, the distance is d_LEV."""
    hyp, ref = tuple("a b c d".split()), tuple("a x c".split())
    found = search(hyp, ref, parse_costs("1,1,1,1,1"))
    assert not found.beats_levenshtein()
    assert found.distance() == 2


@pytest.mark.parametrize("shift", [5, 12, 20])
def test_block_swaps_of_30_words_are_exact_by_default(shift: int) -> None:
    """Two blocks swapped: one inversion, where d_LEV is 2·min(shift, 30 − shift)."""
    words = [f"w{k}" for k in range(30)]
    hyp, ref = " ".join(words[shift:] + words[:shift]), " ".join(words)
    measure = INVWER(tokenize="none")  # max-length 30
    assert measure.statistics([hyp], [[ref]]).tolist() == [[1.0, 30.0, 0.0]]
    alignment = measure.align(hyp, ref)
    assert alignment.distance == 1.0 and alignment.extras["tree"]["type"] == "inverted"
    assert alignment.extras["approximate"] is False
    longer = measure.statistics([f"{hyp} w30"], [[f"{ref} w30"]])
    assert longer.tolist() == [[2 * min(shift, 30 - shift), 31.0, 1.0]]


@pytest.mark.parametrize("costs_text", ["1,1,1,1,1", "2,2,2,2,1", "1,1,1,1,0", "3,2,2,1,1"])
def test_align_returns_the_search_tree(costs_text: str) -> None:
    hyp, ref = tuple("c c b b a".split()), tuple("b b a a c a".split())
    costs = parse_costs(costs_text)
    alignment = INVWER(tokenize="none", transposition_costs=costs_text).align(
        " ".join(hyp), " ".join(ref)
    )
    assert alignment.distance == InversionTable(hyp, ref, costs).distance() / costs[0]
    tree = alignment.extras["tree"]
    assert tree["cost"] == alignment.distance * costs[0]
    inversions = check_tree(tree, hyp, ref, costs)
    edits = sum(op.cost for op in alignment.operations)
    assert edits + inversions * costs[4] / costs[0] == pytest.approx(alignment.distance)


def test_costs_beyond_the_table_range_are_rejected() -> None:
    with pytest.raises(MeasureError, match="above 1000000"):
        INVWER(transposition_costs="1,1,1,1,2000000")
    with pytest.raises(MeasureError, match="max-length: 61 is above 60"):
        INVWER(max_length=61)


def test_real_pairs_equal_the_dp() -> None:
    """WMT17 en-de pairs of 13-16 words whose bounds differ: the search equals the DP."""
    from collections import Counter

    from metrics.core.per import count_vector_distance
    from tests.metrics.core import wmt_data

    reference, systems, _ = wmt_data.wmt17()
    measure = INVWER()
    hypothesis = next(iter(systems.values()))
    pairs = [
        (measure.tokens(hyp), measure.tokens(ref))
        for hyp, ref in zip(hypothesis[:300], reference[:300], strict=True)
    ]
    unsettled = [
        (hyp, ref)
        for hyp, ref in pairs
        if 13 <= min(len(hyp), len(ref))
        and max(len(hyp), len(ref)) <= 16
        and count_vector_distance(Counter(hyp), Counter(ref)) < Levenshtein.distance(hyp, ref)
    ][:8]
    assert len(unsettled) == 8
    costs = parse_costs("1,1,1,1,1")
    for hyp, ref in unsettled:
        assert search(hyp, ref, costs).distance() == InversionTable(hyp, ref, costs).distance()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**8), st.integers(0, 10**8), COSTS)
def test_deepening_takes_few_exact_steps_whatever_the_numerators(
    lower: int, gap: int, costs_text: str
) -> None:
    costs = parse_costs(costs_text)
    bounds = invwer_module.deepening_bounds(lower, lower + gap, costs)
    assert len(bounds) <= invwer_module.DEEPENING_STEPS
    assert bounds == sorted(set(bounds)) and (bounds[-1] == lower + gap if gap else not bounds)


def test_large_cost_numerators_are_searched_in_a_few_steps() -> None:
    """Bounds a million units apart: one search per unit would take hours."""
    costs_text = "1,1000000,1000000,1000000,1"
    hyp, ref = tuple("abcdef"), tuple("bdacfe")
    measure = INVWER(tokenize="none", transposition_costs=costs_text)
    expected = InversionTable(hyp, ref, parse_costs(costs_text)).distance()
    assert measure.pair_distance(hyp, ref) == expected == 2_000_002
