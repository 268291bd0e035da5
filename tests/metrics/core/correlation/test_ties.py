"""Tie calibration (KendallWithTiesOpt, sample_rate 1.0): the ε found maximises acc23 over every
candidate ε, checked by brute force; mt-metrics-eval's hand-worked examples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core.correlation import correlate
from tests.metrics.core.correlation import _brute


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_pooled_epsilon_maximises_acc23_over_every_candidate(data) -> None:
    y = data.draw(st.lists(st.integers(0, 3), min_size=3, max_size=12))
    x = data.draw(st.lists(st.integers(0, 20), min_size=len(y), max_size=len(y)))
    x = [v / 4 for v in x]
    result = correlate(
        np.array(y, float)[:, None],
        np.array(x, float)[None, :, None],
        coefficient="acc23",
        calibrate_ties=True,
    )
    found, value = result.epsilon[0], result.values[0]
    candidates = _brute.candidate_epsilons(x)
    scores = [_brute.acc23(x, y, e) for e in candidates]
    assert found in candidates
    assert value == pytest.approx(_brute.acc23(x, y, found))
    assert value >= max(scores) - 1e-12
    # the smallest maximising candidate, as mt-metrics-eval's first argmax
    assert found == min(
        e for e, s in zip(candidates, scores, strict=True) if s >= max(scores) - 1e-12
    )
    tau = correlate(
        np.array(y, float)[:, None],
        np.array(x, float)[None, :, None],
        coefficient="tau23",
        calibrate_ties=True,
    )
    assert tau.epsilon[0] == found
    assert tau.values[0] == pytest.approx(2 * value - 1)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_item_epsilon_maximises_the_mean_of_items(data) -> None:
    systems = data.draw(st.integers(2, 5))
    items = data.draw(st.integers(2, 5))
    y = np.array(
        data.draw(st.lists(st.integers(0, 2), min_size=systems * items, max_size=systems * items)),
        float,
    )
    x = np.array(
        data.draw(st.lists(st.integers(0, 8), min_size=systems * items, max_size=systems * items)),
        float,
    )
    human, metric = y.reshape(systems, items), (x / 2).reshape(1, systems, items)
    result = correlate(human, metric, coefficient="acc23", grouping="item", calibrate_ties=True)
    candidates = sorted(
        {0.0} | {c for k in range(items) for c in _brute.candidate_epsilons(list(metric[0, :, k]))}
    )

    def mean_acc(eps):
        return np.mean(
            [_brute.acc23(list(metric[0, :, k]), list(human[:, k]), eps) for k in range(items)]
        )

    best = max(mean_acc(e) for e in candidates)
    assert result.values[0] == pytest.approx(mean_acc(result.epsilon[0]))
    assert result.values[0] >= best - 1e-12


def test_mtme_examples() -> None:
    # stats_test.testKendallWithTiesOpt
    result = correlate(
        np.array([[1, 2, 2, 3, 4]], float).T,
        np.array([[[2], [1], [1.5], [5], [3]]]),
        coefficient="acc23",
        calibrate_ties=True,
    )
    assert result.values[0] == pytest.approx(0.7)
    # tau_optimization_test: zero threshold best; nonzero threshold best (4, 4/6)
    human, metric = np.array([[1, 2, 3, 4]], float).T, np.array([[[0], [2], [6], [8]]], float)
    result = correlate(human, metric, coefficient="acc23", calibrate_ties=True)
    assert (result.epsilon[0], result.values[0]) == (0.0, 1.0)
    human = np.array([[1, 1, 1, 4]], float).T
    result = correlate(human, metric, coefficient="acc23", calibrate_ties=True)
    assert result.epsilon[0] == 4.0
    assert result.values[0] == pytest.approx(4 / 6)


def test_mtme_regression_example_with_missing_scores() -> None:
    # tau_optimization_test.test_regression_example: rows are the groups (items), None missing
    n = np.nan
    metric = np.array([[0, 5, 2, 3, 2], [n, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [n] * 5])
    human = np.array([[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, n, 3, 2], [n] * 5])
    result = correlate(
        human.T, metric.T[None], coefficient="acc23", grouping="item", calibrate_ties=True
    )
    assert result.epsilon[0] == 1.0
    assert result.values[0] == pytest.approx(0.4916666666666668)
    assert result.groups_used[0] == 4 and result.groups_skipped[0] == 1


def test_large_pooled_calibration_matches_a_sorted_sweep() -> None:
    """2,000 cells (about 2 M pairs, many bins): the branch and bound equals a full sort."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 6, 2000).astype(float)
    x = np.round(y + rng.normal(0, 2, 2000), 1)
    result = correlate(y[:, None], x[None, :, None], coefficient="acc23", calibrate_ties=True)
    i, j = np.triu_indices(2000, 1)
    diff = np.abs(x[i] - x[j])
    dy = y[i] - y[j]
    dx = x[i] - x[j]
    change = np.where(diff > 0, (dy == 0).astype(int) - ((dx * dy) > 0).astype(int), 0)
    order = np.argsort(diff, kind="stable")
    diff, running = diff[order], np.cumsum(change[order])
    last = np.r_[diff[1:] != diff[:-1], True]
    values, candidates = np.r_[0, running[last]], np.r_[0.0, diff[last]]
    expected = candidates[np.argmax(values)]
    assert result.epsilon[0] == expected
