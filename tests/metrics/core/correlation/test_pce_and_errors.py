"""Pairwise confidence error (WMT24) and the CorrelationError cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from metrics.core.correlation import COEFFICIENTS, GROUPINGS, CorrelationError, correlate
from metrics.core.correlation.pce import pairwise_confidence_accuracy


def test_mtme_pce_example() -> None:
    # stats_test.testPairwiseConfidenceError: Correlation(2, [1,2,3,2,3,4], [2,2,4,1,3,5]) -> 0.872
    human = np.array([[1, 2, 3], [2, 3, 4]], float)
    metric = np.array([[[2, 2, 4], [1, 3, 5]]], float)
    result = correlate(human, metric, coefficient="pce")
    assert result.values[0] == pytest.approx(0.872, abs=5e-4)
    assert result.n[0] == 1


def test_pce_by_brute_force() -> None:
    rng = np.random.default_rng(1)
    human = rng.normal(size=(4, 12))
    metrics = np.stack(
        [human + rng.normal(scale=0.3, size=human.shape), rng.normal(size=human.shape)]
    )
    values, used = pairwise_confidence_accuracy(human, metrics, permutations=200, seed=7)
    signs = np.rint(np.random.default_rng(7).random((200, 12), dtype=np.float32)) * 2 - 1

    def p_value(scores, i, j):
        null = signs @ (scores[i] - scores[j])
        return np.mean(null >= (scores[i] - scores[j]).sum())

    for m in range(2):
        errors = [
            abs(p_value(human, i, j) - p_value(metrics[m], i, j))
            for i, j in itertools.combinations(range(4), 2)
        ]
        assert values[m] == pytest.approx(1 - np.mean(errors))
    assert values[0] > values[1]
    assert used.tolist() == [12, 12]


def test_pce_uses_segments_complete_for_every_system() -> None:
    rng = np.random.default_rng(2)
    human = rng.normal(size=(3, 10))
    metric = human[None] + rng.normal(size=(1, 3, 10))
    human[1, 4] = np.nan
    metric[0, 2, 7] = np.nan
    _, used = pairwise_confidence_accuracy(human, metric)
    assert used[0] == 8
    keep = np.ones(10, bool)
    keep[[4, 7]] = False
    assert correlate(human, metric, coefficient="pce").values[0] == pytest.approx(
        correlate(human[:, keep], metric[:, :, keep], coefficient="pce").values[0]
    )


def test_coefficient_table() -> None:
    assert set(COEFFICIENTS) == {
        "pearson",
        "spearman",
        "kendall-a",
        "kendall-b",
        "kendall-c",
        "kendall-like",
        "tau23",
        "acc23",
        "accuracy",
        "pce",
    }
    assert GROUPINGS == ("none", "item", "system")
    assert COEFFICIENTS["accuracy"].system_level and not COEFFICIENTS["accuracy"].segment_level
    assert COEFFICIENTS["kendall-b"].pairs and not COEFFICIENTS["pearson"].pairs
    assert COEFFICIENTS["spearman"].rank and not COEFFICIENTS["spearman"].pairs
    assert not COEFFICIENTS["pce"].rank and COEFFICIENTS["pce"].needs_segments
    with pytest.raises(AttributeError):
        COEFFICIENTS["pearson"].pairs = True  # frozen


SEG_H = np.zeros((4, 5)) + np.arange(5)
SEG_M = np.ones((2, 4, 5))
SYS_H = np.arange(5.0)[:, None]
SYS_M = np.ones((2, 5, 1))


@pytest.mark.parametrize(
    "human, metrics, options, message",
    [
        (np.zeros(5), SEG_M, {"coefficient": "pearson"}, "2-D"),
        (SEG_H, np.ones((4, 5)), {"coefficient": "pearson"}, "3-D"),
        (SEG_H, np.ones((2, 4, 6)), {"coefficient": "pearson"}, "do not match"),
        (SEG_H, SEG_M, {"coefficient": "kendall-z"}, "unknown coefficient"),
        (SEG_H, SEG_M, {"coefficient": "pearson", "grouping": "doc"}, "unknown grouping"),
        (SEG_H, SEG_M, {"coefficient": "accuracy"}, "system-level statistic"),
        (SYS_H, SYS_M, {"coefficient": "pce"}, "segment scores"),
        (SYS_H, SYS_M, {"coefficient": "pearson", "grouping": "item"}, "grouping 'none'"),
        (SYS_H[:2], SYS_M[:, :2], {"coefficient": "pearson"}, "at least 3 systems"),
        (SEG_H, SEG_M, {"coefficient": "pearson", "epsilon": 0.1}, "epsilon"),
        (SEG_H, SEG_M, {"coefficient": "kendall-b", "calibrate_ties": True}, "tie calibration"),
        (
            SEG_H,
            SEG_M,
            {"coefficient": "acc23", "calibrate_ties": True, "epsilon": 0.1},
            "not both",
        ),
        (SEG_H, SEG_M, {"coefficient": "acc23", "epsilon": -1.0}, ">= 0"),
        (SEG_H, SEG_M, {"coefficient": "pearson", "threshold": 1.0}, "kendall-like only"),
        (SEG_H, SEG_M, {"coefficient": "pce", "grouping": "item"}, "no grouping"),
    ],
)
def test_errors(human, metrics, options, message) -> None:
    with pytest.raises(CorrelationError, match=message):
        correlate(human, metrics, **options)


def test_error_is_a_value_error() -> None:
    assert issubclass(CorrelationError, ValueError)


def test_fewer_than_two_usable_cells_give_nan_not_an_error() -> None:
    human = np.full((3, 4), np.nan)
    human[0, 0] = 1.0
    result = correlate(human, np.ones((1, 3, 4)), coefficient="kendall-b")
    assert np.isnan(result.values[0]) and result.groups_used[0] == 0 and result.n[0] == 0
