"""LJWER (measures spec §8 vectors), its exactness limit, its bounds and its block alignment.

max(d_CDCD forward, d_CDCD backward, d_ΔI) ≤ d_LJ ≤ d_LEV (spec §8, §9.6). Where the bounds
meet the measure skips its DP, and the result must equal the DP.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from metrics.core import ljwer as ljwer_module
from metrics.core.alignment import Alignment
from metrics.core.base import MeasureError
from metrics.core.ljwer import (
    LJWER,
    bounded_long_jump_distance,
    long_jump_between,
    long_jump_distance,
    long_jump_lower_bounds,
)
from tests.metrics.core._edit_pairs import PAIR, PAIRS

SPEC_VECTORS = [
    ("we will meet at noon in the lobby", "we will meet in the lobby at twelve o'clock", 5),
    ("c d a b", "a b c d", 3),
    ("d e f a b c", "a b c d e f", 3),
    ("a b c d", "a b d c", 2),
    ("a b a b b", "a b b", 2),
    ("", "a b", 2),
    ("a b", "", 2),
]

# A small vocabulary, so that blocks repeat and have to be chosen.
words = st.lists(st.sampled_from("abc"), max_size=7).map(tuple)

MEASURE = LJWER(tokenize="none")


@pytest.mark.parametrize(("hyp", "ref", "expected"), SPEC_VECTORS)
def test_spec_vectors(hyp: str, ref: str, expected: int) -> None:
    assert long_jump_distance(hyp.split(), ref.split()) == expected
    assert long_jump_distance(ref.split(), hyp.split()) == expected


def test_beyond_the_limit_the_levenshtein_bound_is_used_and_counted() -> None:
    measure = LJWER(tokenize="none", max_length=2)
    stats = measure.statistics(["c d a b", "a b"], [["a b c d"], ["b a"]])
    assert stats[:, 0].tolist() == [4.0, 2.0]
    assert measure.aggregate(stats).details["approximated_segments"] == 1
    assert "maxlen:2" in str(measure.signature(1))


def test_max_length_above_the_arrays_limit_is_refused() -> None:
    with pytest.raises(MeasureError, match="max-length: 25 is above 24"):
        LJWER(max_length=25)
    assert LJWER().values["max-length"] == 20  # the spec's app policy (§8)


def check_path(alignment: Alignment) -> None:
    """The operations form one path from (0, 0) to (I, L), consistent with the words, covering
    every word once; the blocks are its runs between jumps, in reference order."""
    hyp, ref = alignment.hyp, alignment.ref
    node = (0, 0)
    runs: list[list[tuple[int, int]]] = [[node]]
    for op in alignment.operations:
        assert op.source == node
        i, j = node
        if op.kind in ("match", "substitute"):
            assert (op.hyp_index, op.ref_index, op.target) == (i, j, (i + 1, j + 1))
            assert op.kind == ("match" if hyp[i] == ref[j] else "substitute")
            assert op.cost == (0.0 if op.kind == "match" else 1.0)
        elif op.kind == "insert":
            assert (op.hyp_index, op.ref_index, op.target, op.cost) == (None, j, (i, j + 1), 1.0)
        elif op.kind == "delete":
            assert (op.hyp_index, op.ref_index, op.target, op.cost) == (i, None, (i + 1, j), 1.0)
        else:
            assert op.kind == "jump" and op.cost == 1.0
            assert op.target is not None and op.target[1] == j and op.target != node
            runs.append([])
        assert op.target is not None
        node = op.target
        runs[-1].append(node)
    assert node == (len(hyp), len(ref))

    hyp_uses = Counter(op.hyp_index for op in alignment.operations if op.hyp_index is not None)
    ref_uses = Counter(op.ref_index for op in alignment.operations if op.ref_index is not None)
    assert hyp_uses == Counter(range(len(hyp)))
    assert ref_uses == Counter(range(len(ref)))
    assert sum(op.cost for op in alignment.operations) == alignment.distance

    # Blocks: the runs with at least one edge; reference spans consecutive from 0 to L,
    # candidate spans disjoint and covering the candidate.
    blocks = alignment.extras["blocks"]
    spans = [(run[0], run[-1]) for run in runs if len(run) > 1]
    block_spans = [((b["hyp_start"], b["ref_start"]), (b["hyp_end"], b["ref_end"])) for b in blocks]
    assert block_spans == spans
    assert [b["ref_start"] for b in blocks[1:]] == [b["ref_end"] for b in blocks[:-1]]
    if ref:
        assert (blocks[0]["ref_start"], blocks[-1]["ref_end"]) == (0, len(ref))
    covered = sorted(k for b in blocks for k in range(b["hyp_start"], b["hyp_end"]))
    assert covered == list(range(len(hyp)))
    jumps = [op for op in alignment.operations if op.kind == "jump"]
    nodes = [{"source": list(op.source or ()), "target": list(op.target or ())} for op in jumps]
    assert alignment.extras["jumps"] == nodes
    assert sum(b["cost"] for b in blocks) + len(jumps) == alignment.distance


@pytest.mark.parametrize(("hyp", "ref", "expected"), SPEC_VECTORS)
def test_spec_vectors_alignment(hyp: str, ref: str, expected: int) -> None:
    for first, second in ((hyp, ref), (ref, hyp)):
        alignment = MEASURE.align(first, second)
        assert alignment.distance == expected
        assert alignment.extras["approximate"] is False
        check_path(alignment)


@settings(max_examples=300)
@given(words, words)
def test_alignment_is_a_valid_path_of_cost_d_lj(x: tuple[str, ...], y: tuple[str, ...]) -> None:
    alignment = MEASURE.align(" ".join(x), " ".join(y))
    assert (alignment.hyp, alignment.ref) == (list(x), list(y))
    assert alignment.distance == long_jump_distance(x, y)
    check_path(alignment)


@given(words)
def test_identical_sentences_align_without_jumps(x: tuple[str, ...]) -> None:
    alignment = MEASURE.align(" ".join(x), " ".join(x))
    assert alignment.distance == 0
    assert alignment.extras["jumps"] == []
    assert all(op.kind == "match" for op in alignment.operations)
    assert len(alignment.extras["blocks"]) == (1 if x else 0)


@pytest.mark.parametrize(("hyp", "ref"), [("c d a b", "a b c d"), ("c d e a b", "a b c d e")])
def test_block_swap_gives_two_blocks_and_three_jumps(hyp: str, ref: str) -> None:
    """The path starts at (0, 0) and ends at (I, L) (spec §8 [R]): a jump to the first block,
    one between the blocks and one from the end of the second block to (I, L)."""
    alignment = MEASURE.align(hyp, ref)
    cut = hyp.split().index("a")  # candidate position of the reference's first block
    length = len(hyp.split())
    assert alignment.distance == 3
    assert [
        (b["hyp_start"], b["hyp_end"], b["ref_start"], b["ref_end"])
        for b in alignment.extras["blocks"]
    ] == [
        (cut, length, 0, length - cut),
        (0, cut, length - cut, length),
    ]
    assert alignment.extras["jumps"] == [
        {"source": [0, 0], "target": [cut, 0]},
        {"source": [length, length - cut], "target": [0, length - cut]},
        {"source": [cut, length], "target": [length, length]},
    ]
    check_path(alignment)


def test_longer_candidate_blocks_come_in_reference_order() -> None:
    """The DP runs over the shorter sentence (here the reference), i.e. in candidate order,
    and its run deleting the last candidate word has no reference position of its own; the
    blocks still come in reference order, with that deletion inside a block."""
    hyp, ref = "b b a c c b", "c c b b a"
    alignment = MEASURE.align(hyp, ref)
    assert alignment.distance == long_jump_distance(hyp.split(), ref.split()) == 4
    assert alignment.extras["blocks"] == [
        {"hyp_start": 3, "hyp_end": 6, "ref_start": 0, "ref_end": 2, "cost": 1.0},
        {"hyp_start": 0, "hyp_end": 3, "ref_start": 2, "ref_end": 5, "cost": 0.0},
    ]
    assert len(alignment.extras["jumps"]) == 3
    check_path(alignment)


def test_beyond_the_limit_the_levenshtein_path_is_marked_approximate() -> None:
    measure = LJWER(tokenize="none", max_length=2)
    alignment = measure.align("c d a b", "a b c d", grid=True)
    assert alignment.distance == measure.statistics(["c d a b"], [["a b c d"]])[0, 0] == 4
    assert alignment.extras["approximate"] is True
    assert alignment.extras["jumps"] == []
    assert alignment.extras["blocks"] == [
        {"hyp_start": 0, "hyp_end": 4, "ref_start": 0, "ref_end": 4, "cost": 4.0}
    ]
    assert alignment.grid is not None and alignment.grid[4][4] == 4
    check_path(alignment)


def test_exact_alignment_has_no_two_dimensional_grid() -> None:
    assert MEASURE.align("c d a b", "a b c d", grid=True).grid is None


def test_as_dict_is_json_serialisable() -> None:
    for measure in (MEASURE, LJWER(tokenize="none", max_length=2)):
        data = measure.align("we will meet at noon", "at noon we will meet", grid=True).as_dict()
        restored = json.loads(json.dumps(data))
        assert restored["extras"] == data["extras"]
        assert restored["distance"] == sum(op["cost"] for op in restored["operations"])


# Longer pairs over a few words: many coverage sets tie, so the bounds prune little and every
# branch of the pruned DP (deletion chains, jumps, the run count) is exercised.
longer_words = st.lists(st.sampled_from("abcde"), max_size=10).map(tuple)


@settings(max_examples=400, deadline=None)
@given(longer_words, longer_words, st.integers(0, 12))
def test_the_pruned_dp_equals_the_full_dp_below_its_bound(
    x: tuple[str, ...], y: tuple[str, ...], slack: int
) -> None:
    """min(d_LJ, upper) for bounds below, at and above d_LJ, and d_LEV."""
    exact = long_jump_distance(x, y)
    for upper in {slack, exact, exact + 1, Levenshtein.distance(x, y)}:
        assert bounded_long_jump_distance(x, y, upper) == min(exact, upper)
        assert bounded_long_jump_distance(y, x, upper) == min(exact, upper)


def test_real_pairs_equal_the_full_dp() -> None:
    """WMT17 en-de pairs of up to 15 words (shorter side) whose bounds differ: the deepening search from the
    bounds equals the full DP, pair by pair."""
    from tests.metrics.core import wmt_data

    reference, systems, _ = wmt_data.wmt17()
    measure = LJWER()
    pairs = [
        (measure.tokens(hyp), measure.tokens(ref))
        for hypothesis in list(systems.values())[:2]
        for hyp, ref in zip(hypothesis[:300], reference[:300], strict=True)
    ]
    short = [pair for pair in pairs if min(map(len, pair)) <= 15]
    lower = long_jump_lower_bounds(short)
    checked = 0
    for (hyp, ref), bound in zip(short, lower, strict=True):
        upper = Levenshtein.distance(hyp, ref)
        if bound < upper:
            assert long_jump_between(hyp, ref, int(bound), upper) == long_jump_distance(hyp, ref)
            checked += 1
    assert checked >= 15


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


def test_ljwer_align_beyond_the_cap_is_exact_where_the_bounds_meet() -> None:
    measure = LJWER(tokenize="none", max_length=2)
    alignment = measure.align("a b x d", "a b c d")
    assert alignment.distance == 1.0 and alignment.extras["approximate"] is False
    swapped = measure.align("c d a b", "a b c d")
    assert swapped.distance == 4.0 and swapped.extras["approximate"] is True


@pytest.mark.parametrize("measure", [LJWER(tokenize="none", max_length=2)])
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
    measure = LJWER(max_length=9)
    pairs = [
        (measure.tokens(hyp), measure.tokens(ref))
        for hyp, ref in zip(hypothesis[:400], reference[:400], strict=True)
    ]
    short = [pair for pair in pairs if min(map(len, pair)) <= 9][:40]
    assert np.array_equal(
        measure.pair_distances(short), [long_jump_distance(hyp, ref) for hyp, ref in short]
    )
