"""CDER (measures spec §9.3, §9.8; oracles spec §3.5 Moses vectors)."""

from __future__ import annotations

import pytest

from metrics.core.cder import CDER

TABLE_9_8 = [
    # E | Ẽ | fwd none/left/right/both | bwd (both) | coverage | lp_ΔL | lp_misc
    (
        "we will meet at noon in the lobby",
        "we will meet in the lobby at twelve o'clock",
        (4, 4, 4, 4),
        3,
        [1, 1, 1, 0, 0, 1, 1, 1],
        0,
        2,
    ),
    ("we have been there", "we were there", (2, 2, 2, 2), 2, [1, 1, 1, 1], 1, 0),
    ("a b c d", "a b d c", (1, 1, 2, 2), 2, [1, 1, 1, 1], 0, 0),
    ("a b d c", "b d a c", (1, 2, 1, 2), 2, [1, 1, 1, 1], 0, 0),
    ("a b c d", "b d a c", (2, 3, 3, 4), 3, [1, 1, 1, 1], 0, 0),
    ("c d a b", "a b c d", (1, 2, 2, 3), 3, [0, 0, 1, 1], 0, 2),
    ("d e f a b c", "a b c d e f", (1, 2, 2, 3), 3, [1, 1, 1, 1, 1, 1], 0, 0),
    ("a b", "a b a b", (1, 1, 1, 1), 1, [2, 2], 0, 2),
    ("a b a b b", "a b b", (0, 1, 0, 1), 1, [0, 0, 1, 1, 1], 2, 2),
    ("x a b c y", "a b c", (0, 1, 1, 2), 2, [1, 1, 1, 1, 1], 2, 0),
    ("a b c", "c", (0, 1, 0, 1), 2, [0, 0, 1], 2, 2),
    ("b", "a b b b", (3, 3, 3, 3), 1, [1], 0, 0),
    ("", "a b", (2, 2, 2, 2), 1, [], 0, 0),
    ("a b", "", (0, 0, 0, 1), 2, [0, 0], 2, 2),
]


def _distance(hyp: str, ref: str, **options: str) -> float:
    measure = CDER(tokenize="none", **options)
    return float(measure.pair_distances([(tuple(hyp.split()), tuple(ref.split()))])[0])


@pytest.mark.parametrize(
    ("hyp", "ref", "forward", "backward", "cov", "lp_length", "lp_misc"), TABLE_9_8
)
def test_table_9_8(hyp, ref, forward, backward, cov, lp_length, lp_misc) -> None:  # noqa: ANN001
    for pad, expected in zip(("none", "left", "right", "both"), forward, strict=True):
        assert _distance(hyp, ref, pad_rule=pad) == expected, pad
    assert _distance(hyp, ref, direction="backward") == backward
    assert CDER(tokenize="none").align(hyp, ref).extras["coverage"] == cov
    both = forward[3]
    assert _distance(hyp, ref, coverage_rule="length") == both + lp_length
    assert _distance(hyp, ref, coverage_rule="miscoverage") == both + lp_misc
    assert _distance(hyp, ref, coverage_rule="half") == both + (lp_length + lp_misc) / 2
    assert _distance(hyp, ref, direction="bidirectional") == (both + backward) / 2
    assert _distance(hyp, ref, direction="maximum") == max(both, backward)


def test_first_row_forward_rate() -> None:
    hyp, ref = TABLE_9_8[0][:2]
    assert CDER(tokenize="none").corpus_score([hyp], [[ref]]).score == pytest.approx(100 * 4 / 9)


def test_dp_matrix_c_d_a_b() -> None:
    grid = CDER(tokenize="none").align("c d a b", "a b c d", grid=True).grid
    top_down = [[3, 3, 2, 3, 3], [3, 2, 3, 3, 2], [2, 2, 2, 2, 1], [1, 1, 2, 1, 2], [0, 1, 1, 1, 1]]
    assert grid == top_down[::-1]


def test_dp_matrix_with_column_zero_jumps() -> None:
    alignment = CDER(tokenize="none").align("a b", "a b a b", grid=True)
    top_down = [[2, 2, 1], [2, 1, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]]
    assert alignment.grid == top_down[::-1]
    assert alignment.distance == 1
    jumps = [op for op in alignment.operations if op.kind == "jump"]
    assert [(op.source, op.target) for op in jumps] == [((2, 2), (0, 2))]


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [  # oracles spec §3.5, Moses CderScorer column (= pad rule both)
        ("a b c d e f g h", "a b c d e f g h", 0),
        ("d e f g h a b c", "a b c d e f g h", 3),
        ("d e f g h", "a b c d e f g h", 3),
        ("a b c d e f g h x y", "a b c d e f g h", 1),
        ("x y z", "a b c", 3),
        ("", "a b c", 3),
        ("the cat sat on the mat", "on the mat the cat sat", 3),
        ("a a a a", "a", 1),
        ("b a", "a b", 2),
    ],
)
def test_moses_vectors(hyp: str, ref: str, expected: int) -> None:
    assert _distance(hyp, ref) == expected


@pytest.mark.parametrize(
    ("rule", "expected"), [("none", 2), ("prefix", 1 + 1 - 4 / 4.5), ("levenshtein", 1.2)]
)
def test_word_dependent_costs(rule: str, expected: float) -> None:
    assert _distance(
        "he talks fast", "he talk quickly", substitution_cost_rule=rule
    ) == pytest.approx(expected)


def test_alignment_is_json_serialisable() -> None:
    import json

    alignment = CDER(tokenize="none", direction="bidirectional").align(
        "c d a b", "a b c d", grid=True
    )
    data = json.loads(json.dumps(alignment.as_dict()))
    assert data["distance"] == 3 and data["extras"]["backward"]["distance"] == 3
