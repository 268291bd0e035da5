"""WMT's segment-level Kendall's τ-like over human pairwise preferences (relative ranking):
hand-worked counts, both metric tie rules (WMT 2014-2016: Discordant; WMT 2013: left out), an
error measure negated, a naive pair-by-pair loop on random data, and the seeded bootstrap over
segments against a plain resampling loop."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics.core.correlation import CorrelationError, preference_tau
from metrics.core.resampling import DEFAULT_SEED


def naive(
    scores: dict[tuple[str, int], float],
    preferences: list[tuple[int, str, str]],
    metric_ties: str = "discordant",
    lower_is_better: bool = False,
) -> tuple[int, int, float]:
    """(Concordant, Discordant, τ) by the definition, one preference at a time, reading the
    raw scores (``lower_is_better``: an error measure, which prefers the lower score)."""
    concordant = discordant = 0
    for segment, better, worse in preferences:
        a, b = scores[(better, segment)], scores[(worse, segment)]
        if math.isnan(a) or math.isnan(b):
            continue
        if a == b:
            if metric_ties == "discordant":
                discordant += 1
            continue
        prefers_better = a < b if lower_is_better else a > b
        if prefers_better:
            concordant += 1
        else:
            discordant += 1
    total = concordant + discordant
    return concordant, discordant, (concordant - discordant) / total if total else math.nan


SYSTEMS = ["A", "B", "C"]
# Two segments. Segment 0: A 0.9, B 0.5, C 0.5 (B and C tie); segment 1: A 0.2, B 0.7, C 0.4.
SCORES = np.array([[0.9, 0.2], [0.5, 0.7], [0.5, 0.4]])
# Human preferences (ties already left out), two judges on segment 0:
#   seg 0: A>B (conc), A>C (conc), B>C (metric tie), C>B (metric tie, second judge)
#   seg 1: A>B (disc), B>C (conc), C>A (conc)
PREFERENCES = [(0, "A", "B"), (0, "A", "C"), (0, "B", "C"), (0, "C", "B")]
PREFERENCES += [(1, "A", "B"), (1, "B", "C"), (1, "C", "A")]


def arrays(preferences: list[tuple[int, str, str]]) -> tuple[np.ndarray, ...]:
    segment = np.array([p[0] for p in preferences], dtype=np.int64)
    better = np.array([SYSTEMS.index(p[1]) for p in preferences], dtype=np.int64)
    worse = np.array([SYSTEMS.index(p[2]) for p in preferences], dtype=np.int64)
    return segment, better, worse


def as_dict(scores: np.ndarray) -> dict[tuple[str, int], float]:
    return {(name, k): float(scores[s, k]) for s, name in enumerate(SYSTEMS) for k in range(2)}


def test_hand_worked_counts_under_both_tie_rules():
    # Concordant 4 (A>B, A>C on seg 0; B>C, C>A on seg 1), Discordant 1 (A>B on seg 1),
    # 2 metric ties (B=C on seg 0, judged twice, in both directions).
    wmt14 = preference_tau(SCORES, *arrays(PREFERENCES))
    assert (wmt14.concordant[0], wmt14.discordant[0], wmt14.metric_ties[0]) == (4, 3, 2)
    assert wmt14.values[0] == pytest.approx((4 - 3) / 7) and wmt14.n[0] == 7
    wmt13 = preference_tau(SCORES, *arrays(PREFERENCES), metric_ties="excluded")
    assert (wmt13.concordant[0], wmt13.discordant[0], wmt13.metric_ties[0]) == (4, 1, 2)
    assert wmt13.values[0] == pytest.approx((4 - 1) / 5) and wmt13.n[0] == 5
    for rule, result in (("discordant", wmt14), ("excluded", wmt13)):
        c, d, tau = naive(as_dict(SCORES), PREFERENCES, rule)
        assert (result.concordant[0], result.discordant[0]) == (c, d)
        assert result.values[0] == pytest.approx(tau)
    assert wmt14.low is None and wmt14.high is None


def test_an_error_measure_is_negated_before_and_then_agrees_with_the_naive_loop():
    # A WER-like measure: lower is better. Its raw scores read the wrong way round; negated
    # (the sign convention) it agrees with the loop that prefers the lower score.
    wer = np.array([[10.0, 60.0], [30.0, 20.0], [30.0, 45.0]])
    c, d, tau = naive(as_dict(wer), PREFERENCES, lower_is_better=True)
    oriented = preference_tau(-wer, *arrays(PREFERENCES))
    assert (oriented.concordant[0], oriented.discordant[0]) == (c, d) == (4, 3)
    assert oriented.values[0] == pytest.approx(tau)
    raw = preference_tau(wer, *arrays(PREFERENCES))
    # Unnegated, the 5 decided pairs swap sides; the 2 metric ties stay Discordant.
    assert (raw.concordant[0], raw.discordant[0]) == (1, 6)
    assert raw.values[0] == pytest.approx(-5 / 7)


@pytest.mark.parametrize("rule", ["discordant", "excluded"])
def test_random_preferences_with_ties_and_gaps_match_the_naive_loop(rule):
    rng = np.random.default_rng(5)
    measures, systems, segments, pairs = 4, 5, 30, 400
    # Coarse scores (many metric ties) and a few missing ones.
    scores = rng.integers(0, 4, (measures, systems, segments)).astype(np.float64)
    scores[rng.random(scores.shape) < 0.05] = np.nan
    segment = rng.integers(0, segments, pairs)
    better = rng.integers(0, systems, pairs)
    worse = (better + rng.integers(1, systems, pairs)) % systems
    result = preference_tau(scores, segment, better, worse, metric_ties=rule)
    for m in range(measures):
        named = {(str(s), k): scores[m, s, k] for s in range(systems) for k in range(segments)}
        prefs = [(int(k), str(b), str(w)) for k, b, w in zip(segment, better, worse, strict=True)]
        c, d, tau = naive(named, prefs, rule)
        assert (result.concordant[m], result.discordant[m], result.n[m]) == (c, d, c + d)
        assert result.values[m] == pytest.approx(tau)
    assert result.metric_ties.sum() > 0 and result.n.min() < pairs  # ties and gaps occurred


def test_the_bootstrap_resamples_segments_with_their_preferences_and_is_seeded():
    rng = np.random.default_rng(11)
    scores = rng.normal(size=(2, 4, 12))
    segment = np.repeat(np.arange(12), 5)
    better = rng.integers(0, 4, segment.size)
    worse = (better + rng.integers(1, 4, segment.size)) % 4
    samples = 300
    result = preference_tau(scores, segment, better, worse, bootstrap=samples, seed=7)
    again = preference_tau(scores, segment, better, worse, bootstrap=samples, seed=7)
    other = preference_tau(scores, segment, better, worse, bootstrap=samples, seed=8)
    np.testing.assert_array_equal(result.low, again.low)
    np.testing.assert_array_equal(result.high, again.high)
    assert not np.array_equal(result.low, other.low) or not np.array_equal(result.high, other.high)
    # The same interval from a plain loop: draw segments as documented, rebuild the
    # preference list of each resample, compute τ from scratch.
    picks = np.random.default_rng(7).integers(0, 12, (samples, 12))
    taus = []
    for draw in picks:
        rows = np.concatenate([np.flatnonzero(segment == k) for k in draw])
        taus.append(preference_tau(scores, segment[rows], better[rows], worse[rows]).values)
    low, high = np.quantile(np.array(taus), [0.025, 0.975], axis=0)
    np.testing.assert_allclose(result.low, low)
    np.testing.assert_allclose(result.high, high)
    assert np.all(result.low <= result.values) and np.all(result.values <= result.high)
    default = preference_tau(scores, segment, better, worse, bootstrap=50)
    seeded = preference_tau(scores, segment, better, worse, bootstrap=50, seed=DEFAULT_SEED)
    np.testing.assert_array_equal(default.low, seeded.low)


def test_no_counted_pair_gives_nan_and_bad_input_is_refused():
    empty = np.array([], dtype=np.int64)
    nothing = preference_tau(SCORES, empty, empty, empty, bootstrap=10)
    assert math.isnan(nothing.values[0]) and nothing.n[0] == 0 and math.isnan(nothing.low[0])
    all_ties = preference_tau(SCORES, *arrays([(0, "B", "C")]), metric_ties="excluded")
    assert math.isnan(all_ties.values[0]) and all_ties.metric_ties[0] == 1
    with pytest.raises(CorrelationError, match="tie rule"):
        preference_tau(SCORES, *arrays(PREFERENCES), metric_ties="half")
    with pytest.raises(CorrelationError, match="two different systems"):
        preference_tau(SCORES, *arrays([(0, "A", "A")]))
    with pytest.raises(CorrelationError, match="outside"):
        preference_tau(SCORES, np.array([2]), np.array([0]), np.array([1]))
    with pytest.raises(CorrelationError, match="one entry per preference"):
        preference_tau(SCORES, np.array([0, 1]), np.array([0]), np.array([1]))
    with pytest.raises(CorrelationError, match="integer"):
        preference_tau(SCORES, np.array([0.0]), np.array([0]), np.array([1]))
