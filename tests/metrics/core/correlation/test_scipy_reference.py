"""correlate() against scipy on real data: MQM TED en-de (segment level) and WMT21 cs-en DA
(system level). Every expected value is scipy's, on the same cells, to 1e-12."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from metrics.core.correlation import correlate
from tests.metrics.core.correlation._data import annotation_metrics, human_mqm, wmt21_system_level

pytestmark = pytest.mark.shared_data

SCIPY = {
    "pearson": lambda x, y: stats.pearsonr(x, y)[0],
    "spearman": lambda x, y: stats.spearmanr(x, y)[0],
    "kendall-b": lambda x, y: stats.kendalltau(x, y)[0],
    "kendall-c": lambda x, y: stats.kendalltau(x, y, variant="c")[0],
}


def _scipy(name: str, x: np.ndarray, y: np.ndarray) -> float:
    """scipy's value, NaN for a constant vector (as mt-metrics-eval forces it)."""
    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(SCIPY[name](x, y))


@pytest.mark.parametrize("name", sorted(SCIPY))
def test_pooled_segment_level_equals_scipy(name: str) -> None:
    _, human = human_mqm()
    metrics = annotation_metrics()
    result = correlate(human, metrics, coefficient=name)
    for m in range(metrics.shape[0]):
        ok = np.isfinite(human) & np.isfinite(metrics[m])
        expected = _scipy(name, metrics[m][ok], human[ok])
        assert result.values[m] == pytest.approx(expected, abs=1e-12)
    assert result.groups_used.tolist() == [1, 1, 1]
    assert result.groups_skipped.tolist() == [0, 0, 0]


def test_pooled_cell_and_pair_counts() -> None:
    _, human = human_mqm()
    metrics = annotation_metrics()
    cells = int((np.isfinite(human) & np.isfinite(metrics[0])).sum())
    assert cells == 7406  # 14 systems × 529 rated segments
    assert correlate(human, metrics, coefficient="pearson").n.tolist() == [cells] * 3
    assert (
        correlate(human, metrics, coefficient="kendall-b").n.tolist()
        == [cells * (cells - 1) // 2] * 3
    )


@pytest.mark.parametrize("name", sorted(SCIPY))
@pytest.mark.parametrize("grouping", ["item", "system"])
def test_grouped_segment_level_is_the_mean_of_scipy_per_group(name: str, grouping: str) -> None:
    _, human = human_mqm()
    metrics = annotation_metrics()
    result = correlate(human, metrics, coefficient=name, grouping=grouping)
    h = human.T if grouping == "item" else human
    for m in range(metrics.shape[0]):
        x_all = metrics[m].T if grouping == "item" else metrics[m]
        values = []
        for row_h, row_x in zip(h, x_all, strict=True):
            ok = np.isfinite(row_h) & np.isfinite(row_x)
            values.append(_scipy(name, row_x[ok], row_h[ok]))
        values = np.array(values)
        defined = np.isfinite(values)
        assert result.values[m] == pytest.approx(values[defined].mean(), abs=1e-12)
        assert result.groups_used[m] == defined.sum()
        assert result.groups_skipped[m] == h.shape[0] - defined.sum()
        np.testing.assert_allclose(result.group_values[m], values, atol=1e-12)
    if grouping == "item":
        # 77 of the 606 segments have no MQM score at all; many others are constant.
        assert np.all(result.groups_skipped >= 77)


@pytest.mark.parametrize("name", sorted(SCIPY))
def test_system_level_wmt21_equals_scipy(name: str) -> None:
    _, human, names, metrics = wmt21_system_level()
    result = correlate(human, metrics, coefficient=name)
    for m in range(len(names)):
        expected = _scipy(name, metrics[m].ravel(), human.ravel())
        assert result.values[m] == pytest.approx(expected, abs=1e-12)
    assert result.n.tolist() == [8 if name in ("pearson", "spearman") else 28] * len(names)


def test_system_level_wmt21_kendall_a_and_accuracy_by_hand() -> None:
    _, human, _, metrics = wmt21_system_level()
    y = human.ravel()
    for m in range(metrics.shape[0]):
        x = metrics[m].ravel()
        sign = np.sign(np.subtract.outer(x, x)) * np.sign(np.subtract.outer(y, y))
        upper = np.triu_indices(8, 1)
        assert correlate(human, metrics[m : m + 1], coefficient="kendall-a").values[0] == (
            pytest.approx(sign[upper].sum() / 28)
        )
        agree = (np.sign(np.subtract.outer(x, x)) == np.sign(np.subtract.outer(y, y)))[upper]
        assert correlate(human, metrics[m : m + 1], coefficient="accuracy").values[0] == (
            pytest.approx(agree.mean())
        )


def test_one_system_against_another_as_a_metric() -> None:
    """Human scores of systems 0-6 as 'metric' for systems 7-13: pooled, real, tied."""
    _, human = human_mqm()
    h, x = human[7:], human[:7][None]
    ok = np.isfinite(h) & np.isfinite(x[0])
    for name in SCIPY:
        assert correlate(h, x, coefficient=name).values[0] == pytest.approx(
            _scipy(name, x[0][ok], h[ok]), abs=1e-12
        )
