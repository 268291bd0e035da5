"""Grouped coefficients: the mean of per-group values with undefined groups dropped, the
skipped counts, and Kendall-like's pair-weighted mean."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from metrics.core.correlation import correlate
from tests.metrics.core.correlation import _brute


def _matrices(seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, (6, 9)).astype(float)
    human[:, 0] = 2.0  # constant item -> undefined for Pearson / tau-b
    human[0, 1] = np.nan
    human[1:, 2] = np.nan  # one usable cell -> skipped for every coefficient
    metrics = np.round(human[None] + rng.normal(0, 1.5, (3, 6, 9)), 0)
    metrics[1, 3, 4] = np.nan
    return human, metrics


def _per_group(human, metric, grouping, function):
    h = human.T if grouping == "item" else human
    x = metric.T if grouping == "item" else metric
    values = []
    for row_h, row_x in zip(h, x, strict=True):
        ok = np.isfinite(row_h) & np.isfinite(row_x)
        values.append(function(list(row_x[ok]), list(row_h[ok])) if ok.sum() >= 2 else math.nan)
    return np.array(values)


def _pearson(x, y):
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return stats.pearsonr(x, y)[0]


@pytest.mark.parametrize("grouping", ["item", "system"])
@pytest.mark.parametrize(
    "name, function",
    [
        ("pearson", _pearson),
        ("kendall-b", _brute.tau_b),
        ("kendall-a", _brute.tau_a),
        ("acc23", _brute.acc23),
    ],
)
def test_mean_of_groups_with_nan_groups_dropped(grouping, name, function) -> None:
    human, metrics = _matrices()
    result = correlate(human, metrics, coefficient=name, grouping=grouping)
    groups = human.shape[1] if grouping == "item" else human.shape[0]
    for m in range(metrics.shape[0]):
        values = _per_group(human, metrics[m], grouping, function)
        defined = np.isfinite(values)
        assert result.values[m] == pytest.approx(values[defined].mean(), abs=1e-12)
        assert result.groups_used[m] == defined.sum()
        assert result.groups_skipped[m] == groups - defined.sum()


def test_item_skips_are_counted_for_the_right_reasons() -> None:
    human, metrics = _matrices()
    pearson = correlate(human, metrics[:1], coefficient="pearson", grouping="item")
    tau_a = correlate(human, metrics[:1], coefficient="kendall-a", grouping="item")
    # item 0 (constant human) is undefined for Pearson but 0 for tau-a; item 2 (one cell) for both
    assert math.isnan(pearson.group_values[0, 0]) and math.isnan(pearson.group_values[0, 2])
    assert tau_a.group_values[0, 0] == 0.0 and math.isnan(tau_a.group_values[0, 2])
    assert pearson.groups_skipped[0] >= 2 and tau_a.groups_skipped[0] >= 1


def test_kendall_like_item_weighting_by_pairs_and_plain_mean() -> None:
    human, metrics = _matrices(11)
    threshold = 1.0
    weighted = correlate(
        human, metrics, coefficient="kendall-like", grouping="item", threshold=threshold
    )
    plain = correlate(
        human,
        metrics,
        coefficient="kendall-like",
        grouping="item",
        threshold=threshold,
        weighted=False,
    )
    for m in range(metrics.shape[0]):
        values, pairs = [], []
        for k in range(human.shape[1]):
            ok = np.isfinite(human[:, k]) & np.isfinite(metrics[m, :, k])
            if ok.sum() < 2:
                continue
            value, n = _brute.kendall_like(list(metrics[m, ok, k]), list(human[ok, k]), threshold)
            values.append(value)
            pairs.append(n)
        values, pairs = np.array(values), np.array(pairs)
        # Correlation.KendallLike: weight = pairs; a group without a qualifying pair weighs 0
        assert weighted.values[m] == pytest.approx((values * pairs).sum() / pairs.sum())
        assert weighted.n[m] == pairs.sum()
        # Task path (plain mean): such a group counts with KendallLike's value 0
        assert plain.values[m] == pytest.approx(values.mean())


def test_grouping_none_pools_every_cell() -> None:
    human, metrics = _matrices()
    result = correlate(human, metrics, coefficient="kendall-b")
    for m in range(metrics.shape[0]):
        ok = np.isfinite(human) & np.isfinite(metrics[m])
        assert result.values[m] == pytest.approx(stats.kendalltau(metrics[m][ok], human[ok])[0])
    assert result.group_values is None
    assert result.groups_used.tolist() == [1, 1, 1]


def test_weighted_pearson_weights_groups_by_cells() -> None:
    human, metrics = _matrices()
    result = correlate(human, metrics, coefficient="pearson", grouping="system", weighted=True)
    for m in range(metrics.shape[0]):
        values = _per_group(human, metrics[m], "system", _pearson)
        cells = (np.isfinite(human) & np.isfinite(metrics[m])).sum(axis=1)
        defined = np.isfinite(values)
        expected = (values[defined] * cells[defined]).sum() / cells[defined].sum()
        assert result.values[m] == pytest.approx(expected)
