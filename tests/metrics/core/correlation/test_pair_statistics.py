"""Pair statistics against the O(N²) definitions (``_brute``) and hand-made vectors.

The hand-made vectors and their values are mt-metrics-eval's own unit tests (``stats_test.py``,
``tau_optimization_test.py``), worked out there by hand; the random vectors have many ties.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core.correlation import correlate
from tests.metrics.core.correlation import _brute


def _one(x: list[float], y: list[float], name: str, **options) -> float:
    """correlate() of one metric vector x against human y, pooled (as a system-level column
    when the coefficient needs it)."""
    human = np.array(y, dtype=float)[:, None]
    metric = np.array(x, dtype=float)[None, :, None]
    return float(correlate(human, metric, coefficient=name, **options).values[0])


tied = st.lists(st.integers(0, 3), min_size=3, max_size=14)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_random_tied_vectors_equal_the_definitions(data) -> None:
    y = data.draw(tied)
    x = data.draw(st.lists(st.integers(0, 4), min_size=len(y), max_size=len(y)))
    x = [v * 0.5 for v in x]
    expected = {
        "kendall-a": _brute.tau_a(x, y),
        "kendall-b": _brute.tau_b(x, y),
        "kendall-c": _brute.tau_c(x, y),
        "acc23": _brute.acc23(x, y),
        "tau23": _brute.tau23(x, y),
        "accuracy": _brute.agreement(x, y)[0] / _brute.agreement(x, y)[1],
    }
    for name, value in expected.items():
        got = _one(x, y, name)
        if math.isnan(value):
            assert math.isnan(got), name
        else:
            assert got == pytest.approx(value, abs=1e-12), name
    for threshold in (0.0, 1.0, 2.0):
        value, pairs = _brute.kendall_like(x, y, threshold)
        result = correlate(
            np.array(y, float)[:, None],
            np.array(x, float)[None, :, None],
            coefficient="kendall-like",
            threshold=threshold,
        )
        assert result.n[0] == pairs
        if pairs:
            assert result.values[0] == pytest.approx(value, abs=1e-12)
        else:  # no pair reaches the threshold: NaN for a pooled vector (mt-metrics-eval: 0)
            assert math.isnan(result.values[0])


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_random_epsilon_ties_equal_the_definitions(data) -> None:
    y = data.draw(tied)
    x = data.draw(
        st.lists(
            st.floats(0, 3, allow_nan=False).map(lambda v: round(v, 1)),
            min_size=len(y),
            max_size=len(y),
        )
    )
    epsilon = data.draw(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]))
    assert _one(x, y, "acc23", epsilon=epsilon) == pytest.approx(_brute.acc23(x, y, epsilon))
    assert _one(x, y, "tau23", epsilon=epsilon) == pytest.approx(_brute.tau23(x, y, epsilon))
    b = _brute.tau_b(x, y, epsilon)
    got = _one(x, y, "kendall-b", epsilon=epsilon)
    assert (math.isnan(got) and math.isnan(b)) or got == pytest.approx(b)


def test_ties_stay_in_tau_a_denominator() -> None:
    # C = 2 ((1,1)-(3,3), (2,2)... by hand: pairs (0,1) tie in x, (0,2) C, (1,2) C -> (2-0)/3
    x, y = [1.0, 1.0, 3.0], [1.0, 2.0, 3.0]
    assert _one(x, y, "kendall-a") == pytest.approx(2 / 3)
    assert _one(x, y, "kendall-b") == pytest.approx(2 / math.sqrt(2 * 3))
    # a constant human vector: tau-a is 0 (thesis: the sentence contributes 0), tau-b NaN
    assert _one([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], "kendall-a") == 0.0
    assert math.isnan(_one([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], "kendall-b"))


def _mtme(num_sys: int, gold: list, metric: list) -> tuple[np.ndarray, np.ndarray]:
    """mt-metrics-eval's Correlation(num_sys, gold, metric): vectors flattened by system."""
    g = np.array([np.nan if v is None else v for v in gold], float).reshape(num_sys, -1)
    return g, np.array(metric, float).reshape(1, num_sys, -1)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("pearson", (0.776, 0.760, 1.0)),
        ("kendall-b", (0.552, 0.575, 1.0)),
        ("kendall-c", (0.556, 0.611, 1.0)),
    ],
)
def test_mtme_correlation_examples(name: str, expected: tuple[float, float, float]) -> None:
    human, metric = _mtme(2, [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7])
    got = [
        correlate(human, metric, coefficient=name, grouping=g).values[0]
        for g in ("none", "system", "item")
    ]
    assert got == pytest.approx(list(expected), abs=5e-4)


def test_mtme_kendall_like_examples() -> None:
    human, metric = _mtme(1, [10, None, 100, 150], [2, 1, 4, 3])
    assert (
        correlate(
            human.T, metric.transpose(0, 2, 1), coefficient="kendall-like", threshold=1
        ).values[0]
        == 1 / 3
    )
    human, metric = _mtme(2, [10, 11, 100, 150], [2, 1, 4, 3])
    assert (
        correlate(human, metric, coefficient="kendall-like", grouping="item", threshold=1).values[0]
        == 1
    )
    human, metric = _mtme(2, [10, None, 100, 150], [2, 1, 4, 3])
    assert (
        correlate(human, metric, coefficient="kendall-like", grouping="item", threshold=1).values[0]
        == 1
    )
    gold, metric = [10, 11, 100, 150], [2, 1, 4, 3]
    assert _one(metric, gold, "kendall-like", threshold=25) == 3 / 5
    assert _one(metric, gold, "kendall-like", threshold=1) == 2 / 6
    # at threshold 0 the gold-tied pair counts, as discordant
    assert _one([1.0, 2.0, 3.0], [1.0, 1.0, 2.0], "kendall-like") == pytest.approx((2 - 1) / 3)


def test_mtme_kendall_variants_examples() -> None:
    gold, metric = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]
    assert _one(metric, gold, "kendall-b") == pytest.approx(0.316227766)
    assert _one(metric, gold, "kendall-c") == pytest.approx(0.32)
    assert _one(metric, gold, "tau23") == pytest.approx(0.2)
    assert _one(metric, gold, "acc23") == pytest.approx(0.6)
    assert _one(metric, gold, "acc23", epsilon=2) == pytest.approx(0.4)
    # stats_test.testKendallVariants_23 / WithPositiveEpsilon (x is the metric there)
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    assert _one(x, y, "tau23") == pytest.approx((14 - 7) / 21)
    assert _one(x, y, "tau23", epsilon=0.1) == pytest.approx((14 - 7) / 21)
    # epsilon 1: C = 7, D = 1, T_x only = 10, T_y only = 0, T_xy = 3
    assert _one(x, y, "tau23", epsilon=1.0) == pytest.approx((7 + 3 - 1 - 10 - 0) / 21)


def test_mtme_agreement_example() -> None:
    gold, metric = [1, 2, 3, 3, 4], [1, 1, 2, 1, 2]
    result = correlate(
        np.array(gold, float)[:, None],
        np.array(metric, float)[None, :, None],
        coefficient="accuracy",
    )
    assert result.values[0] == 5 / 10
    assert result.n[0] == 10


def test_scipy_variants_b_and_c_with_ties() -> None:
    from scipy.stats import kendalltau

    gold, metric = [7, 1, 2, 7, 4, 3, 2], [4, 1, 3, 6, 1, 5, 6]
    for name, variant in (("kendall-b", "b"), ("kendall-c", "c")):
        assert _one(metric, gold, name) == pytest.approx(
            kendalltau(gold, metric, variant=variant)[0], abs=1e-15
        )


def test_pearson_of_a_constant_vector_with_inexact_mean_is_nan() -> None:
    # 0.1 * 3 / 3 != 0.1 in floating point: a naive r would be ±1e-17-ish noise, not NaN.
    x = [0.1, 0.1, 0.1]
    assert np.mean(x) != 0.1 or sum(x) / 3 != 0.1
    assert math.isnan(_one(x, [1.0, 2.0, 3.0], "pearson"))
    assert math.isnan(_one([1.0, 2.0, 3.0], x, "pearson"))
    assert math.isnan(_one(x, [1.0, 2.0, 3.0], "spearman"))
    assert _one([1.0, 2.0, 4.0], [2.0, 4.0, 8.0], "pearson") == pytest.approx(1.0)


def test_pairwise_deletion_of_missing_cells() -> None:
    human = np.array([[1.0, np.nan], [2.0, 5.0], [3.0, 1.0]])
    metrics = np.array(
        [[[1.0, 9.0], [2.0, np.nan], [4.0, 2.0]], [[3.0, 1.0], [2.0, 2.0], [1.0, 3.0]]]
    )
    result = correlate(human, metrics, coefficient="pearson")
    # measure 0 uses the cells (0,0) (1,0) (2,0) (2,1); measure 1 every cell with a human score
    from scipy.stats import pearsonr

    assert result.n.tolist() == [4, 5]
    assert result.values[0] == pytest.approx(pearsonr([1, 2, 4, 2], [1, 2, 3, 1])[0])
    assert result.values[1] == pytest.approx(pearsonr([3, 2, 2, 1, 3], [1, 2, 5, 3, 1])[0])
