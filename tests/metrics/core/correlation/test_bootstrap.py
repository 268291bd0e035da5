"""Bootstrap distributions equal the coefficient of each materialised resample; percentile
intervals; Fisher-z ranges of the thesis."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.core.correlation import (
    CorrelationError,
    bootstrap_distribution,
    bootstrap_intervals,
    correlate,
    fisher_intervals,
)
from metrics.core.resampling import DEFAULT_SEED
from metrics.core.significance import fisher_interval


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    human = rng.integers(0, 4, (6, 15)).astype(float)
    human[0, 3] = np.nan
    metrics = rng.integers(0, 5, (3, 6, 15)).astype(float)
    metrics[1, 2, 5] = np.nan
    return human, metrics


CASES = [
    ("pearson", {}),
    ("spearman", {}),
    ("kendall-a", {}),
    ("kendall-b", {}),
    ("kendall-c", {}),
    ("kendall-like", {"threshold": 1.0}),
    ("acc23", {"epsilon": 0.5}),
    ("tau23", {}),
]


@pytest.mark.parametrize("name, options", CASES)
@pytest.mark.parametrize("grouping", ["none", "item", "system"])
@pytest.mark.parametrize("resample", ["items", "systems"])
def test_each_resample_equals_the_materialised_resample(name, options, grouping, resample) -> None:
    human, metrics = _data()
    draws = bootstrap_distribution(
        human,
        metrics,
        coefficient=name,
        grouping=grouping,
        resample=resample,
        samples=12,
        seed=1,
        **options,
    )
    units = human.shape[1] if resample == "items" else human.shape[0]
    picks = np.random.default_rng(1).integers(0, units, (12, units))
    for b, pick in enumerate(picks):
        if resample == "items":
            hb, mb = human[:, pick], metrics[:, :, pick]
        else:
            hb, mb = human[pick], metrics[:, pick]
        expected = correlate(hb, mb, coefficient=name, grouping=grouping, **options).values
        np.testing.assert_allclose(draws[b], expected, atol=1e-10, equal_nan=True)


def test_system_level_resamples_systems() -> None:
    rng = np.random.default_rng(0)
    human = rng.normal(size=(9, 1))
    metrics = human[None] + rng.normal(scale=0.5, size=(2, 9, 1))
    draws = bootstrap_distribution(
        human, metrics, coefficient="accuracy", resample="systems", samples=20
    )
    picks = np.random.default_rng(DEFAULT_SEED).integers(0, 9, (20, 9))
    for b, pick in enumerate(picks):
        expected = correlate(human[pick], metrics[:, pick], coefficient="accuracy").values
        np.testing.assert_allclose(draws[b], expected, atol=1e-12)
    with pytest.raises(CorrelationError, match="only one"):
        bootstrap_distribution(human, metrics, coefficient="pearson", resample="items")


def test_intervals_are_percentiles_and_seeded() -> None:
    human, metrics = _data()
    low, high = bootstrap_intervals(
        human, metrics, coefficient="pearson", samples=200, seed=5, confidence=0.9
    )
    draws = bootstrap_distribution(human, metrics, coefficient="pearson", samples=200, seed=5)
    for m in range(3):
        finite = draws[:, m][np.isfinite(draws[:, m])]
        assert low[m] == pytest.approx(np.quantile(finite, 0.05))
        assert high[m] == pytest.approx(np.quantile(finite, 0.95))
    again = bootstrap_intervals(
        human, metrics, coefficient="pearson", samples=200, seed=5, confidence=0.9
    )
    np.testing.assert_array_equal(again[0], low)
    value = correlate(human, metrics, coefficient="pearson").values
    assert np.all((low <= value + 0.2) & (value - 0.2 <= high))


def test_calibrated_ties_keep_the_full_data_epsilon() -> None:
    human, metrics = _data()
    full = correlate(human, metrics, coefficient="acc23", grouping="item", calibrate_ties=True)
    draws = bootstrap_distribution(
        human,
        metrics,
        coefficient="acc23",
        grouping="system",
        resample="items",
        samples=5,
        calibrate_ties=True,
    )
    fixed = bootstrap_distribution(
        human,
        metrics,
        coefficient="acc23",
        grouping="system",
        resample="items",
        samples=5,
        epsilon=correlate(
            human, metrics, coefficient="acc23", grouping="system", calibrate_ties=True
        ).epsilon,
    )
    np.testing.assert_allclose(draws, fixed)
    assert full.epsilon is not None


@pytest.mark.parametrize(
    "r, n, half_width",
    # The thesis prints ±0.031 for (0.566, 1735): bootstrap noise (spec §8); Fisher gives 0.032.
    [(0.285, 7902, 0.020), (0.598, 5500, 0.017), (0.649, 4000, 0.018), (0.566, 1735, 0.032)],
)
def test_fisher_ranges_of_the_thesis(r: float, n: int, half_width: float) -> None:
    low, high = fisher_interval(r, n)
    assert round((high - low) / 2, 3) == half_width
    assert round(1.96 * (1 - r * r) / np.sqrt(n - 3), 3) == half_width


def test_fisher_intervals_of_a_pooled_pearson_result() -> None:
    rng = np.random.default_rng(1)
    human = rng.normal(size=(10, 40))
    metrics = human[None] + rng.normal(scale=[[[1.0]], [[3.0]]], size=(2, 10, 40))
    result = correlate(human, metrics, coefficient="pearson")
    low, high = fisher_intervals(result)
    for m in range(2):
        r = result.values[m]
        half = 1.959963984540054 / np.sqrt(400 - 3)
        assert low[m] == pytest.approx(np.tanh(np.arctanh(r) - half))
        assert high[m] == pytest.approx(np.tanh(np.arctanh(r) + half))
    with pytest.raises(CorrelationError):
        fisher_intervals(correlate(human, metrics, coefficient="kendall-b"))


def test_pce_resamples_are_materialised() -> None:
    rng = np.random.default_rng(4)
    human = rng.normal(size=(4, 10))
    metrics = human[None] + rng.normal(size=(2, 4, 10))
    draws = bootstrap_distribution(human, metrics, coefficient="pce", samples=3, seed=2)
    picks = np.random.default_rng(2).integers(0, 10, (3, 10))
    for b, pick in enumerate(picks):
        expected = correlate(human[:, pick], metrics[:, :, pick], coefficient="pce").values
        np.testing.assert_allclose(draws[b], expected)


def test_epsilon_is_reported_only_when_used() -> None:
    human, metrics = _data()
    assert correlate(human, metrics, coefficient="acc23").epsilon is None
    fixed = correlate(human, metrics, coefficient="acc23", epsilon=0.5)
    np.testing.assert_array_equal(fixed.epsilon, [0.5, 0.5, 0.5])
    calibrated = correlate(human, metrics, coefficient="acc23", calibrate_ties=True)
    assert calibrated.epsilon.shape == (3,) and np.all(calibrated.epsilon >= 0)
