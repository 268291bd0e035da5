"""The numpy and compiled versions of the m-gram key counting give identical results."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from metrics.core import counting


@pytest.fixture(params=[False, True], ids=["numpy", "compiled"])
def compiled(request, monkeypatch):
    monkeypatch.setattr(counting, "_use_compiled", lambda size: request.param)
    return request.param


def _grouped_keys(rng: np.random.Generator, owners: int, n_types: int) -> tuple:
    """Keys owner·n + type whose runs ascend from one owner to the next, unsorted within."""
    lengths = rng.integers(0, 40, owners)
    owner = np.repeat(np.arange(owners), lengths)
    types = rng.integers(0, n_types, owner.size)
    return owner * n_types + types, owner


@pytest.mark.parametrize("seed", range(5))
def test_grouped_counts_equal_numpy_unique(compiled, seed):
    rng = np.random.default_rng(seed)
    values, owners = _grouped_keys(rng, 50, [3, 40, 10**6, 2**40, 7][seed])
    distinct, counts = counting.grouped_counts(values, owners)
    expected = np.unique(values, return_counts=True)
    np.testing.assert_array_equal(distinct, expected[0])
    np.testing.assert_array_equal(counts, expected[1])


def test_empty_and_single_inputs(compiled):
    empty = np.zeros(0, dtype=np.int64)
    for distinct, counts in (
        counting.grouped_counts(empty, empty),
        counting.grouped_counts(np.array([5]), np.array([0])),
    ):
        assert distinct.size == counts.size and counts.sum() == distinct.size
    assert counting.sorted_keys(empty).size == 0
    assert counting.merged_minimum(np.array([1, 2]), np.array([3, 4]), empty, empty).tolist() == [
        0,
        0,
    ]


@pytest.mark.parametrize("size", [10, 70_000])  # the compiled sort is radix from 2^16 keys
def test_sorted_keys_sort(compiled, size):
    values = np.random.default_rng(size).integers(-(2**40), 2**40, size)
    np.testing.assert_array_equal(counting.sorted_keys(values), np.sort(values))


def test_merged_minimum_clips_against_the_other_side(compiled):
    rng = np.random.default_rng(3)
    keys = np.unique(rng.integers(0, 300, 120))
    other = np.unique(rng.integers(0, 300, 150))
    counts = rng.integers(1, 5, keys.size)
    other_counts = rng.integers(1, 5, other.size)
    lookup = dict(zip(other.tolist(), other_counts.tolist(), strict=True))
    expected = [
        min(c, lookup.get(k, 0)) for k, c in zip(keys.tolist(), counts.tolist(), strict=True)
    ]
    assert counting.merged_minimum(keys, counts, other, other_counts).tolist() == expected
    beyond = np.array([10**6])  # a key above every other key
    assert counting.merged_minimum(beyond, np.array([2]), other, other_counts).tolist() == [0]


def test_bleu_on_the_command_line_loads_no_numba(tmp_path):
    """A one-off BLEU score pays neither numba's import nor its set-up (issue: start-up)."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat on the mat\na dog\n", encoding="utf-8")
    ref.write_text("the cat sat on a mat\nthe dog\n", encoding="utf-8")
    code = (
        "import sys, runpy; sys.argv = ['metrics.core', 'score', '--measure', 'bleu', "
        f"'--ref', {str(ref)!r}, '--hyp', {str(hyp)!r}]\n"
        "try:\n    runpy.run_module('metrics.core', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('numba' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "False False", out
