"""The Δ-prediction statistics (EDPM paper §A10) against a naive loop and scipy's pearsonr:
every pair of systems, oriented so that Δhuman ≥ 0, length-weighted sentences, and document
scores from summed statistics (not means of sentence scores)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from metrics.core import get_metric
from metrics.core.correlation import CorrelationError
from metrics.core.correlation.delta import (
    delta_correlation,
    document_aggregates,
    document_groups,
    document_means,
    oriented_points,
    system_pairs,
)


def naive_points(measure, human, weights=None):
    """(Δs, Δhuman) per (pair, unit) by hand: b < z, flipped where Δhuman < 0, scaled."""
    systems, units = human.shape
    xs, ys = [], []
    for b in range(systems):
        for z in range(b + 1, systems):
            for i in range(units):
                dx, dy = measure[z, i] - measure[b, i], human[z, i] - human[b, i]
                if dy < 0:
                    dx, dy = -dx, -dy
                w = 1.0 if weights is None else weights[i]
                xs.append(w * dx)
                ys.append(w * dy)
    return np.array(xs), np.array(ys)


def scipy_r(x, y):
    ok = np.isfinite(x) & np.isfinite(y)
    return stats.pearsonr(x[ok], y[ok])[0], int(ok.sum())


@pytest.fixture
def scores():
    rng = np.random.default_rng(3)
    human = rng.integers(0, 5, size=(5, 9)).astype(float)  # small integers: ties happen
    measures = np.stack([human + rng.normal(0, 1.5, human.shape), rng.normal(size=human.shape)])
    human[1, 2] = np.nan  # an unjudged cell
    measures[0, 3, 4] = np.nan  # an undefined sentence score of one measure
    return measures, human


def test_system_pairs_are_every_pair_once():
    assert system_pairs(3) == [(0, 1), (0, 2), (1, 2)]
    assert len(system_pairs(13)) == 78


def test_points_and_r_equal_a_naive_loop_and_scipy(scores):
    measures, human = scores
    result = delta_correlation(measures, human)
    for m in range(2):
        x, y = naive_points(measures[m], human)
        r, n = scipy_r(x, y)
        assert result.values[m] == pytest.approx(r, abs=1e-12)
        assert result.n[m] == n
        assert result.human_ties[m] == int((np.isfinite(x) & (y == 0)).sum())
    assert result.n[0] < result.n[1] == 10 * 9 - 4  # the NaN cells drop their pairs' points
    assert result.human_ties[1] > 0


def test_orientation_makes_every_delta_human_nonnegative_and_flips_delta_s():
    human = np.array([[3.0, 1.0, 2.0], [1.0, 4.0, 2.0]])
    measure = np.array([[10.0, 5.0, 7.0], [20.0, 8.0, 9.0]])
    points = oriented_points(measure[None], human)
    # unit 0: Δh = -2 → flipped: (-(20-10), 2); unit 1: Δh = 3 kept; unit 2: tie kept as z - b.
    assert points.human.tolist() == [2.0, 3.0, 0.0]
    assert points.measures[0].tolist() == [-10.0, 3.0, 2.0]
    assert (points.human >= 0).all()


def test_sentence_points_are_scaled_by_the_reference_length(scores):
    measures, human = scores
    lengths = np.array([3, 10, 7, 1, 25, 4, 12, 6, 9], dtype=float)
    weighted = delta_correlation(measures, human, weights=lengths)
    plain = delta_correlation(measures, human)
    x, y = naive_points(measures[1], human, lengths)
    r, n = scipy_r(x, y)
    assert weighted.values[1] == pytest.approx(r, abs=1e-12)
    assert weighted.n[1] == n == plain.n[1]
    assert abs(weighted.values[1] - plain.values[1]) > 1e-3
    # a NaN length (no reference) drops that unit's points
    lengths[0] = np.nan
    assert delta_correlation(measures, human, weights=lengths).n[1] == n - 10


def test_the_interval_is_fisher_z(scores):
    measures, human = scores
    result = delta_correlation(measures, human)
    r, n = result.values[0], result.n[0]
    half = 1.959963984540054 / math.sqrt(n - 3)
    assert result.low[0] == pytest.approx(math.tanh(math.atanh(r) - half), abs=1e-12)
    assert result.high[0] == pytest.approx(math.tanh(math.atanh(r) + half), abs=1e-12)


def test_document_scores_aggregate_summed_statistics_not_sentence_means():
    bleu = get_metric("bleu")()
    references = [["the cat sat on the mat"], ["a dog barks"], ["it is raining today"]]
    outputs = {
        "b": ["the cat sat on a mat", "the dog barks", "it rains today"],
        "z": ["the cat is on the mat", "a dog barks", "today it is raining"],
    }
    documents = ["d1", "d1", "d2"]
    rows = [bleu.statistics(outputs[name], references, None) for name in ("b", "z")]
    stats_ = np.stack(rows)
    human = np.array([[1.0, 3.0, 2.0], [2.0, 5.0, np.nan]])  # z's segment 3 is unjudged

    def aggregate(statistics):
        return bleu.aggregate(statistics, n_refs=1).score

    scores = document_aggregates(stats_, human, documents, aggregate)
    means = document_means(human, documents)
    assert scores[0, 0] == pytest.approx(aggregate(stats_[0, :2]))
    assert scores[1, 0] == pytest.approx(aggregate(stats_[1, :2]))
    assert scores[0, 1] == pytest.approx(aggregate(stats_[0, 2:]))
    assert math.isnan(scores[1, 1]) and math.isnan(means[1, 1])  # nothing judged: no score
    sentence_mean = bleu.sentence_scores(stats_[0, :2]).mean()
    assert abs(scores[0, 0] - sentence_mean) > 1.0  # summed statistics differ from the mean
    assert means[:, 0].tolist() == [2.0, 3.5]
    assert means[0, 1] == 2.0


def test_document_level_equals_a_naive_loop_over_documents():
    rng = np.random.default_rng(5)
    stats_ = rng.integers(1, 20, size=(4, 12, 2)).astype(float)  # (matches, total) per segment
    human = rng.normal(size=(4, 12))
    human[2, 5] = np.nan
    documents = ["a", "a", "b", "c", "b", "b", "a", "c", "c", "d", "d", "a"]

    def ratio(statistics):
        return statistics[:, 0].sum() / statistics[:, 1].sum()

    ids, groups = document_groups(documents)
    assert ids == ["a", "b", "c", "d"]
    measure = document_aggregates(stats_, human, documents, ratio)
    humans = document_means(human, documents)
    for row in range(4):
        for d, positions in enumerate(groups):
            judged = [k for k in positions if np.isfinite(human[row, k])]
            assert measure[row, d] == pytest.approx(ratio(stats_[row, judged]))
            assert humans[row, d] == pytest.approx(np.mean(human[row, judged]))
    result = delta_correlation(measure[None], humans)
    x, y = naive_points(measure, humans)
    assert result.values[0] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert result.n[0] == 6 * 4


def test_an_error_measure_negated_agrees_positively():
    human = np.array([[1.0, 2.0, 3.0], [2.0, 2.5, 5.0], [0.5, 3.0, 4.0]])
    error_rate = 10.0 - 2.0 * human  # lower is better, a perfect predictor
    assert delta_correlation(-error_rate[None], human).values[0] == pytest.approx(1.0)
    assert delta_correlation(error_rate[None], human).values[0] == pytest.approx(-1.0)


@pytest.mark.parametrize(
    "measures, human, message",
    [
        (np.zeros((1, 1, 3)), np.zeros((1, 3)), "at least 2 systems"),
        (np.zeros((1, 2, 3)), np.zeros((2, 4)), "do not match"),
        (np.zeros((2, 3)), np.zeros((2, 3)), "must be 3-D"),
    ],
)
def test_bad_shapes_raise_correlation_error(measures, human, message):
    with pytest.raises(CorrelationError, match=message):
        delta_correlation(measures, human)


def test_mismatched_document_ids_raise():
    with pytest.raises(CorrelationError, match="3 document ids for 2 segments"):
        document_means(np.zeros((2, 2)), ["a", "b", "c"])
