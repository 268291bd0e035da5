"""LJWER (measures spec §8 vectors) and its exactness limit."""

from __future__ import annotations

import pytest

from metrics.core.ljwer import LJWER, long_jump_distance


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [
        ("we will meet at noon in the lobby", "we will meet in the lobby at twelve o'clock", 5),
        ("c d a b", "a b c d", 3),
        ("d e f a b c", "a b c d e f", 3),
        ("a b c d", "a b d c", 2),
        ("a b a b b", "a b b", 2),
        ("", "a b", 2),
        ("a b", "", 2),
    ],
)
def test_spec_vectors(hyp: str, ref: str, expected: int) -> None:
    assert long_jump_distance(hyp.split(), ref.split()) == expected
    assert long_jump_distance(ref.split(), hyp.split()) == expected


def test_beyond_the_limit_the_levenshtein_bound_is_used_and_counted() -> None:
    measure = LJWER(tokenize="none", max_length=2)
    stats = measure.statistics(["c d a b", "a b"], [["a b c d"], ["b a"]])
    assert stats[:, 0].tolist() == [4.0, 2.0]
    assert measure.aggregate(stats).details["approximated_segments"] == 1
    assert "maxlen:2" in str(measure.signature(1))
