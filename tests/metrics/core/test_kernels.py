"""The compiled edit-distance kernel against a plain-Python DP (measures spec §7, §9.2–9.6)."""

from __future__ import annotations

import ast
import importlib.util
import math
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core import alignment
from metrics.core.cder import CDER
from metrics.core.wer import WER, substitution_matrix_function

PAD_RULES = {
    "none": (False, False),
    "left": (True, False),
    "right": (False, True),
    "both": (True, True),
}
WORD_COSTS = ("none", "prefix", "levenshtein")

words = st.lists(st.sampled_from(["a", "b", "c", "talk", "talks", "tall"]), max_size=8).map(tuple)
pair_lists = st.lists(st.tuples(words, words), min_size=1, max_size=12)


def reference_dp(
    hyp: tuple[str, ...],
    ref: tuple[str, ...],
    cost: Callable[[str, str], float],
    jump_cost: float | None,
    start_fixed: bool,
    end_fixed: bool,
) -> float:
    """The recursion of spec §9.2 cell by cell (Levenshtein when ``jump_cost`` is None)."""
    width = len(hyp)
    jump = math.inf if jump_cost is None else jump_cost
    row = [min(float(i), jump) if start_fixed else 0.0 for i in range(width + 1)]
    for word in ref:
        new = [row[0] + 1.0]
        for i in range(1, width + 1):
            new.append(min(row[i - 1] + cost(hyp[i - 1], word), row[i] + 1.0, new[i - 1] + 1.0))
        lowest = min(new)
        row = [min(value, lowest + jump) for value in new]
    return row[width] if end_fixed else min(row)


def unit_cost(hyp_word: str, ref_word: str) -> float:
    return 0.0 if hyp_word == ref_word else 1.0


def word_cost(rule: str) -> Callable[[str, str], float]:
    matrix = substitution_matrix_function(rule)
    return lambda hyp_word, ref_word: float(matrix([hyp_word], [ref_word])[0, 0])


@settings(max_examples=150, deadline=None)
@given(pair_lists, st.sampled_from(list(PAD_RULES)), st.sampled_from(WORD_COSTS))
def test_cder_forward_and_backward_equal_the_plain_dp(pairs, pad, costs) -> None:  # noqa: ANN001
    """Many pairs per compiled call, every pad rule and cost rule, both directions."""
    start_fixed, end_fixed = PAD_RULES[pad]
    cost = word_cost(costs)
    forward = CDER(tokenize="none", pad_rule=pad, substitution_cost_rule=costs)
    backward = CDER(
        tokenize="none", pad_rule=pad, substitution_cost_rule=costs, direction="backward"
    )
    expected_forward = [reference_dp(h, r, cost, 1.0, start_fixed, end_fixed) for h, r in pairs]
    swapped = lambda row_word, column_word: cost(column_word, row_word)  # noqa: E731
    expected_backward = [reference_dp(r, h, swapped, 1.0, start_fixed, end_fixed) for h, r in pairs]
    assert forward.pair_distances(pairs).tolist() == pytest.approx(expected_forward, abs=1e-9)
    assert backward.pair_distances(pairs).tolist() == pytest.approx(expected_backward, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(pair_lists, st.sampled_from(WORD_COSTS[1:]))
def test_wer_with_word_costs_equals_the_plain_dp(pairs, costs) -> None:  # noqa: ANN001
    cost = word_cost(costs)
    expected = [reference_dp(h, r, cost, None, True, True) for h, r in pairs]
    got = WER(tokenize="none", substitution_cost_rule=costs).pair_distances(pairs)
    assert got.tolist() == pytest.approx(expected, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(
    pair_lists,
    st.sampled_from(list(PAD_RULES)),
    st.sampled_from(("forward", "backward", "bidirectional", "maximum")),
    st.sampled_from(("none", "length", "miscoverage", "half")),
    st.sampled_from(WORD_COSTS),
)
def test_batched_scores_equal_the_alignment_grid(pairs, pad, direction, coverage, costs) -> None:  # noqa: ANN001
    """The score path agrees with ``align``: its grid's final cell plus the path's penalty."""
    measure = CDER(
        tokenize="none",
        pad_rule=pad,
        direction=direction,
        coverage_rule=coverage,
        substitution_cost_rule=costs,
    )
    got = measure.pair_distances(pairs)
    for (hyp, ref), distance in zip(pairs, got.tolist(), strict=True):
        assert distance == pytest.approx(
            measure.align(" ".join(hyp), " ".join(ref)).distance, abs=1e-9
        )


@given(pair_lists)
def test_chunk_boundaries(pairs) -> None:  # noqa: ANN001
    """Pairs split over several compiled calls keep their order."""
    expected = [reference_dp(h, r, unit_cost, 1.0, True, True) for h, r in pairs]
    original = alignment.CHUNK_SIZE
    alignment.CHUNK_SIZE = 3
    try:
        assert CDER(tokenize="none").pair_distances(pairs).tolist() == expected
    finally:
        alignment.CHUNK_SIZE = original


def test_no_pairs() -> None:
    assert CDER(tokenize="none").pair_distances([]).tolist() == []
    assert WER(tokenize="none", substitution_cost_rule="prefix").pair_distances([]).tolist() == []


def test_compiles_without_a_writable_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No __pycache__ and no user cache directory: numba cannot cache, the kernel still runs."""
    from numba import njit

    module_file = tmp_path / "uncached_kernel.py"
    module_file.write_text(
        "from metrics.core.compiled import compiled\n\n\n"
        "@compiled\ndef twice(x):\n    return 2 * x\n",
        encoding="utf-8",
    )
    (tmp_path / "__pycache__").write_text("a file, so no cache directory can be made here")
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked / "cache"))
    monkeypatch.setenv("HOME", str(blocked))
    monkeypatch.setattr("numba.core.config.CACHE_DIR", "")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    spec = importlib.util.spec_from_file_location("uncached_kernel", module_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.twice(21) == 42
    with pytest.raises(RuntimeError, match="no locator available"):
        njit(cache=True)(module.twice.py_func)  # what compiled falls back from


WARM_UP_CHECK = """
from numba.core.registry import CPUDispatcher
from metrics.core import invwer, kernels, ljwer
dispatchers = [
    value
    for module in (kernels, invwer, ljwer)
    for value in vars(module).values()
    if isinstance(value, CPUDispatcher)
]
assert len(dispatchers) > 10, "compiled kernels missing"
assert not any(d.signatures for d in dispatchers)
kernels.warm_up(invwer.warm_up, ljwer.warm_up)
print(sorted(d.__name__ for d in dispatchers if not d.signatures))
"""
# Kernels called only from other kernels are compiled into them: loaded from numba's cache,
# they never get signatures of their own (compiled afresh, they do).
INNER_KERNELS = {
    "_collect_splits",
    "_fill",
    "_length_bound",
    "_open_node",
    "_span_levenshtein",
    "_queue",
    "popcount",
}


def test_warm_up_loads_every_kernel() -> None:
    """Workers call ``warm_up`` before forking; a kernel it forgets would load in a task."""
    import subprocess

    result = subprocess.run(
        [sys.executable, "-c", WARM_UP_CHECK],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert set(ast.literal_eval(result.stdout.strip())) <= INNER_KERNELS


@pytest.mark.parametrize(
    ("low", "high"),
    [(0, 2**16), (-(2**20), 2**40), (2**50, 2**50 + 3), (-(2**61), 2**61 - 1)],
)
def test_the_radix_sort_equals_numpy_on_large_arrays(low: int, high: int) -> None:
    """Above 2^16 keys the radix path runs (one to four 16-bit passes, negative keys shifted)."""
    import numpy as np

    from metrics.core.kernels import sorted_keys

    values = np.random.default_rng(7).integers(low, high, 100_000, dtype=np.int64)
    assert np.array_equal(sorted_keys(values), np.sort(values))
