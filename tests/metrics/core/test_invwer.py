"""INVWER (measures spec §10.2, §10.3, §10.6, §10.9 vectors; costs §10.8)."""

from __future__ import annotations

import pytest

from metrics.core.base import MeasureError
from metrics.core.invwer import INVWER
from metrics.core.per import PER
from metrics.core.wer import WER

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
