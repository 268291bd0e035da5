"""The m-gram kernel: windows per pad rule (spec §3.4, Fig. 5.2), skip bigrams (Fig. 4.2),
numbering, clipped and pooled counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core.ngrams import (
    UNKNOWN,
    Candidates,
    NgramSpace,
    ReferenceCounts,
    clipped,
    count_types,
    skip_pair_positions,
    sorted_counts,
    window_positions,
)
from metrics.core.preprocessing import BOS, EOS

SENTENCE = ("I", "prefer", "the", "plane")


def grams(space: NgramSpace, sequence, order: int, rule: str) -> list[tuple[str, ...]]:
    layout = space.layout([sequence])
    tokens = {index: token for token, index in space.vocabulary.index.items()}
    positions, _ = window_positions(layout, order, rule)
    return [tuple(tokens[int(t)] for t in layout.ids[p : p + order]) for p in positions]


def test_figure_5_2_bigrams_and_trigrams_with_both_boundaries():
    space = NgramSpace([SENTENCE], 3, 2)
    assert grams(space, SENTENCE, 2, "both") == [
        (BOS, "I"),
        ("I", "prefer"),
        ("prefer", "the"),
        ("the", "plane"),
        ("plane", EOS),
    ]
    assert grams(space, SENTENCE, 3, "both") == [
        (BOS, BOS, "I"),
        (BOS, "I", "prefer"),
        ("I", "prefer", "the"),
        ("prefer", "the", "plane"),
        ("the", "plane", EOS),
        ("plane", EOS, EOS),
    ]


@pytest.mark.parametrize(
    ("rule", "n", "order", "count"),
    [
        ("none", 4, 3, 2),
        ("left", 4, 3, 4),
        ("right", 4, 3, 4),
        ("both", 4, 3, 6),
        ("none", 2, 3, 0),
        ("both", 1, 4, 4),
        ("both", 0, 2, 0),
        ("none", 5, 1, 5),
    ],
)
def test_number_of_m_grams_per_rule(rule, n, order, count):
    sequence = tuple("abcdefg"[:n])
    space = NgramSpace([sequence], 4, 3)
    positions, _ = window_positions(space.layout([sequence]), order, rule)
    assert len(positions) == count


def test_figure_4_2_skip_bigrams():
    space = NgramSpace([SENTENCE], 2, 1)
    layout = space.layout([SENTENCE])
    tokens = {index: token for token, index in space.vocabulary.index.items()}
    first, second, _ = skip_pair_positions(layout, 2, "none")
    pairs = [
        (tokens[int(layout.ids[a])], tokens[int(layout.ids[b])])
        for a, b in zip(first, second, strict=True)
    ]
    assert pairs == [
        ("I", "prefer"),
        ("prefer", "the"),
        ("the", "plane"),
        ("I", "the"),
        ("prefer", "plane"),
        ("I", "plane"),
    ]


def test_candidate_m_grams_unknown_to_the_references_get_unknown():
    space = NgramSpace([("a", "b", "c")], 3, 2)
    keys = Candidates(space, [("a", "b", "x")]).keys
    layout_ids = space.layout([("a", "b", "x")]).ids
    assert (keys[0] == layout_ids).all()
    assert UNKNOWN in keys[0] and UNKNOWN in keys[1]


def test_pooled_clipping_uses_the_maximum_over_references():
    refs = [[("a", "a", "b"), ("a", "b", "b", "b")]]
    space = NgramSpace([r for seg in refs for r in seg], 1, 0)
    counts = ReferenceCounts(space, [["r1", "r2"]], refs, [1], "none")
    hyp = Candidates(space, [("a", "a", "a", "b", "b", "b", "b")])
    clipped = counts.clip(hyp, 1, np.array([0]))
    assert clipped.per_segment().tolist() == [2 + 3]  # min(3, 2) + min(4, 3)
    first = counts.clip(hyp, 1, np.array([0]), stream=0)
    assert first.per_segment().tolist() == [2 + 1]


def test_locate_maps_chunks_to_test_set_segments():
    refs = [["x y"], ["z"], ["x y"]]
    tokens = [[tuple(r.split()) for r in seg] for seg in refs]
    space = NgramSpace([t for seg in tokens for t in seg], 1, 0)
    counts = ReferenceCounts(space, refs, tokens, [1], "none")
    assert counts.locate([["z"], ["x y"]]).tolist() == [1, 0]
    assert counts.locate([["unseen"]]) is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(1, 5)), max_size=30),
    st.lists(st.tuples(st.integers(0, 40), st.integers(1, 5)), max_size=30),
    st.booleans(),
)
def test_clipping_by_merge_or_search_is_the_minimum_per_key(mine, theirs, shuffle):
    """Clipping merges sorted keys in one pass; unsorted keys are sorted first and put back."""
    mine_dict, their_dict = dict(mine), dict(theirs)
    keys = np.array(sorted(mine_dict), dtype=np.int64)
    if shuffle:
        keys = keys[::-1].copy()  # descending: sorted first, result in the given order
    counts = np.array([mine_dict[k] for k in keys.tolist()], dtype=np.int64)
    other = np.array(sorted(their_dict), dtype=np.int64)
    other_counts = np.array([their_dict[k] for k in other.tolist()], dtype=np.int64)
    expected = [min(mine_dict[k], their_dict.get(k, 0)) for k in keys.tolist()]
    assert clipped(keys, counts, other, other_counts).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 2**40), max_size=60))
def test_sorted_counts_equal_numpy_unique(values):
    array = np.array(values, dtype=np.int64)
    keys, counts = sorted_counts(array)
    want_keys, want_counts = np.unique(array, return_counts=True)
    assert keys.tolist() == want_keys.tolist()
    assert counts.tolist() == want_counts.tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(-1, 9)), max_size=80),
    st.booleans(),
)
def test_count_types_equals_numpy_unique_in_or_out_of_segment_order(windows, in_order):
    """Windows in segment order take the per-segment sort (kernels.grouped_counts); any other
    order the global one; both give np.unique's keys and counts."""
    if in_order:
        windows = sorted(windows, key=lambda window: window[0])
    owners = np.array([owner for owner, _ in windows], dtype=np.int64)
    types = np.array([kind for _, kind in windows], dtype=np.int64)
    pairs, counts = count_types(types, owners, 10)
    known = types >= 0
    want_pairs, want_counts = np.unique(owners[known] * 10 + types[known], return_counts=True)
    assert pairs.tolist() == want_pairs.tolist()
    assert counts.tolist() == want_counts.tolist()
