"""Human-score statistics: (0,1) normalization, sentence/A+F/system scores, bootstrap CIs.

Expected values come from scipy, from hand calculation on tiny inputs, or from normal theory;
the real-data proofs (WMT DA, MQM) live in tests/judging.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from judging.formats import JudgmentRecord as J
from metrics.core.human_scores import (
    WMT_R_ROUNDING,
    HumanScoresError,
    Rounding,
    bootstrap_intervals,
    human_scores,
    judge_stats,
    normalize_by_judge,
    sentence_statistic,
    significant,
)

judge_scores = st.lists(
    st.tuples(st.sampled_from("abcd"), st.integers(min_value=1, max_value=5)),
    min_size=1,
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(rows=judge_scores, sd=st.sampled_from(["sample", "population"]))
def test_normalized_scores_have_mean_zero_and_sd_one_per_judge(rows, sd):
    """Spec §8: after normalization each normalizable judge has mean 0 and sd 1."""
    judges = [judge for judge, _ in rows]
    scores = [float(score) for _, score in rows]
    result = normalize_by_judge(judges, scores, sd=sd)
    for judge, own in result.judges.items():
        z = result.z[[k for k, name in enumerate(judges) if name == judge]]
        if own.normalizable:
            assert z.mean() == pytest.approx(0.0, abs=1e-12)
            assert z.std(ddof=1 if sd == "sample" else 0) == pytest.approx(1.0, rel=1e-12)
        else:
            assert np.all(z == 0.0)


def test_normalization_equals_scipy_zscore_per_judge():
    rng = np.random.default_rng(1)
    judges = [f"j{k}" for k in rng.integers(0, 4, size=80)]
    scores = rng.integers(1, 6, size=80).astype(float)
    for sd, ddof in (("sample", 1), ("population", 0)):
        z = normalize_by_judge(judges, scores.tolist(), sd=sd).z
        for judge in set(judges):
            mask = np.array(judges) == judge
            assert z[mask] == pytest.approx(stats.zscore(scores[mask], ddof=ddof), rel=1e-12)


def test_judge_with_one_judgment_or_constant_score_gets_zero_and_a_flag():
    result = normalize_by_judge(["once", "flat", "flat", "ok", "ok"], [4, 3, 3, 1, 5])
    assert result.z.tolist()[:3] == [0.0, 0.0, 0.0]
    assert not result.judges["once"].normalizable
    assert math.isnan(result.judges["once"].sd)
    assert not result.judges["flat"].normalizable
    assert result.judges["flat"].sd == 0.0
    assert result.judges["ok"].normalizable
    # With the population sd a single judgment has sd 0 (still not normalizable).
    assert judge_stats("once", [4.0], sd="population").sd == 0.0


def test_sample_is_the_default_sd():
    """Default: the sample sd (n - 1), as WMT's DA files."""
    assert judge_stats("a", [1.0, 2.0, 3.0]).sd == pytest.approx(1.0)
    assert judge_stats("a", [1.0, 2.0, 3.0], sd="population").sd == pytest.approx(math.sqrt(2 / 3))


def test_sentence_statistic_mean_and_median():
    assert sentence_statistic([1.0, 2.0, 6.0]) == 3.0
    assert sentence_statistic([1.0, 2.0, 6.0], "median") == 2.0
    with pytest.raises(HumanScoresError, match="sentence_statistic"):
        sentence_statistic([1.0], "mode")


# Two systems x two segments, two judges per candidate, adequacy and fluency.
TINY = [
    J("s1", "1", "a", "adequacy", 5),
    J("s1", "1", "b", "adequacy", 3),
    J("s1", "2", "a", "adequacy", 2),
    J("s1", "2", "b", "adequacy", 1),
    J("s2", "1", "a", "adequacy", 4),
    J("s2", "1", "b", "adequacy", 4),
    J("s2", "2", "a", "adequacy", 1),
    J("s2", "2", "b", "adequacy", 3),
    J("s1", "1", "a", "fluency", 4),
    J("s1", "1", "b", "fluency", 4),
    J("s1", "2", "a", "fluency", 3),
    J("s1", "2", "b", "fluency", 2),
    J("s2", "1", "a", "fluency", 5),
    J("s2", "1", "b", "fluency", 2),
    J("s2", "2", "a", "fluency", 2),
    J("s2", "2", "b", "fluency", 2),
]


def test_sentence_scores_are_means_over_judges_and_system_scores_length_weighted():
    """s1: sentence means 4 and 1.5; reference lengths 10 and 30 -> (40 + 45) / 40."""
    result = human_scores(
        TINY, aspect="adequacy", reference_lengths={"1": 10, "2": 30}, bootstrap_samples=0
    )
    segments = {(s.system, s.segment_id): s for s in result.segments}
    assert segments[("s1", "1")].raw == 4.0
    assert segments[("s1", "2")].raw == 1.5
    assert segments[("s1", "2")].n == 2
    assert result.system("s1").raw == pytest.approx(85 / 40)
    assert result.system("s2").raw == pytest.approx((10 * 4 + 30 * 2) / 40)
    assert result.system("s1").n_segments == 2
    assert result.system("s1").n_judgments == 4


def test_candidate_length_and_unweighted_system_scores():
    lengths = {("s1", "1"): 1, ("s1", "2"): 3, ("s2", "1"): 1, ("s2", "2"): 1}
    weighted = human_scores(
        TINY,
        aspect="adequacy",
        weighting="candidate",
        candidate_lengths=lengths,
        bootstrap_samples=0,
    )
    assert weighted.system("s1").raw == pytest.approx((4 + 3 * 1.5) / 4)
    plain = human_scores(TINY, aspect="adequacy", weighting="none", bootstrap_samples=0)
    assert plain.system("s1").raw == pytest.approx((4 + 1.5) / 2)


def test_a_plus_f_is_the_sum_of_adequacy_and_fluency_sentence_scores():
    result = human_scores(TINY, aspect="adequacy+fluency", weighting="none", bootstrap_samples=0)
    segments = {(s.system, s.segment_id): s for s in result.segments}
    assert segments[("s2", "1")].raw == 4.0 + 3.5
    assert segments[("s2", "1")].n == 4
    adequacy = human_scores(TINY, aspect="adequacy", weighting="none", bootstrap_samples=0)
    fluency = human_scores(TINY, aspect="fluency", weighting="none", bootstrap_samples=0)
    for a, f, af in zip(adequacy.segments, fluency.segments, result.segments, strict=True):
        assert af.normalized == pytest.approx(a.normalized + f.normalized)


def test_normalized_scores_use_each_judges_statistics_per_aspect():
    result = human_scores(TINY, aspect="adequacy", weighting="none", bootstrap_samples=0)
    adequacy_a = [5, 2, 4, 1]
    z_a = stats.zscore(adequacy_a, ddof=1)
    z_b = stats.zscore([3, 1, 4, 3], ddof=1)
    segments = {(s.system, s.segment_id): s for s in result.segments}
    assert segments[("s1", "1")].normalized == pytest.approx((z_a[0] + z_b[0]) / 2)
    assert [row.judge for row in result.judges["adequacy"]] == ["a", "b"]
    assert result.judges["adequacy"][0].mean == pytest.approx(np.mean(adequacy_a))


def test_quality_control_kinds_enter_normalization_but_not_the_scores():
    records = [
        J("s", "1", "a", "x", 10),
        J("s", "1", "a", "x", 90, kind="BAD_REF"),
        J("s", "2", "a", "x", 50),
    ]
    result = human_scores(records, aspect="x", weighting="none", bootstrap_samples=0)
    assert result.judges["x"][0].n == 3
    assert result.system("s").raw == 30.0
    assert result.system("s").n_judgments == 2


def test_given_z_is_used_when_raw_scores_are_missing():
    records = [J("s", "1", "a", "x", None, 0.5), J("s", "2", "a", "x", None, -0.25)]
    result = human_scores(records, aspect="x", weighting="none", bootstrap_samples=0)
    assert result.system("s").raw is None
    assert result.system("s").normalized == pytest.approx(0.125)
    assert "z:given" in str(result.signature)
    with pytest.raises(HumanScoresError, match="no raw score"):
        human_scores(records, aspect="x", weighting="none", z_source="computed")


def test_bootstrap_interval_matches_normal_theory_for_a_plain_mean():
    """For 400 i.i.d. segments the percentile interval is close to mean +- 1.96 s / sqrt(n)."""
    rng = np.random.default_rng(3)
    values = rng.normal(50.0, 10.0, size=400)
    records = [J("s", str(k), f"j{k % 7}", "x", float(v)) for k, v in enumerate(values)]
    result = human_scores(records, aspect="x", weighting="none", bootstrap_samples=4000, seed=9)
    half = 1.96 * values.std(ddof=1) / math.sqrt(len(values))
    ci = result.system("s").raw_ci
    assert ci is not None
    assert ci.low == pytest.approx(values.mean() - half, abs=0.15 * half)
    assert ci.high == pytest.approx(values.mean() + half, abs=0.15 * half)


def test_intervals_from_shared_draws_equal_one_draw_per_column_to_the_last_bit():
    """Raw and normalized intervals from one set of resamples, summed in blocks, are what the
    plain formula gives each column with its own generator in the same state (zero weights
    included: a resample of only them has no mean)."""
    rng = np.random.default_rng(6)
    weights = rng.integers(0, 4, size=301).astype(float)
    columns = [rng.normal(0, 1, size=301), rng.integers(0, 101, size=301).astype(float)]

    def plain(values):
        draw = np.random.default_rng([1, 2])
        index = draw.integers(0, len(values), size=(1000, len(values)))
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (weights[index] * values[index]).sum(axis=1) / weights[index].sum(axis=1)
        tail = (1.0 - 0.95) / 2.0  # as the interval computes it (0.025000000000000022)
        return tuple(np.nanquantile(means, [tail, 1.0 - tail]))

    shared = bootstrap_intervals(columns, weights, samples=1000, rng=np.random.default_rng([1, 2]))
    for interval, values in zip(shared, columns, strict=True):
        assert (interval.low, interval.high) == plain(values)
    assert bootstrap_intervals(columns, weights[:1], samples=10, rng=rng) == [None, None]


def test_bootstrap_is_seeded_recorded_and_independent_of_other_systems():
    rng = np.random.default_rng(4)
    records = [
        J(system, str(k), "j", "x", float(rng.integers(0, 101)))
        for system in ("s1", "s2")
        for k in range(50)
    ]
    first = human_scores(records, aspect="x", weighting="none", seed=77)
    again = human_scores(records, aspect="x", weighting="none", seed=77)
    other = human_scores(records, aspect="x", weighting="none", seed=78)
    alone = human_scores(
        [r for r in records if r.system == "s1"], aspect="x", weighting="none", seed=77
    )
    assert first.system("s1").raw_ci == again.system("s1").raw_ci
    assert first.system("s1").raw_ci != other.system("s1").raw_ci
    assert first.system("s1").raw_ci == alone.system("s1").raw_ci
    assert "seed:77" in str(first.signature)
    assert "boot:1000" in str(first.signature)


def test_result_is_json_serializable_with_segments():
    result = human_scores(
        TINY + [J("s3", "1", "c", "adequacy", 2)],
        aspect="adequacy",
        weighting="none",
        bootstrap_samples=50,
    )
    text = json.dumps(result.as_dict(segments=True), allow_nan=False)
    data = json.loads(text)
    assert {row["system"] for row in data["systems"]} == {"s1", "s2", "s3"}
    assert len(data["segments"]) == 5
    assert data["systems"][2]["raw_ci"] is None  # one segment: no interval


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"aspect": "style"}, "no judgments of aspect 'style'"),
        ({"aspect": "adequacy"}, "needs reference_lengths"),
        ({"aspect": "adequacy", "weighting": "candidate"}, "needs candidate_lengths"),
        ({"aspect": "adequacy", "weighting": "tokens"}, "weighting"),
        ({"aspect": "adequacy", "sd": "unbiased"}, "sd"),
        ({"aspect": "adequacy", "reference_lengths": {"1": 3}}, "no reference length for '2'"),
    ],
)
def test_bad_options_are_reported(options, message):
    with pytest.raises(HumanScoresError, match=message):
        human_scores(TINY, **options)


def test_stats_digits_divide_by_the_rounded_mean_and_sd():
    """As a pipeline that prints each judge's statistics (R: 7 digits) and normalizes with the
    printed values; the statistics returned are the ones used."""
    scores = [10.0, 20.0, 40.0, 77.0]
    exact = judge_stats("a", scores)
    result = normalize_by_judge(["a"] * 4, scores, stats_digits=3)
    mean, sd = float(f"{exact.mean:.3g}"), float(f"{exact.sd:.3g}")
    assert (result.judges["a"].mean, result.judges["a"].sd) == (mean, sd)
    assert result.z.tolist() == [(x - mean) / sd for x in scores]
    assert result.z.tolist() != normalize_by_judge(["a"] * 4, scores).z.tolist()


def test_rounding_of_z_and_segments_and_its_signature():
    records = [J("s", "1", "a", "x", 1.0), J("s", "2", "a", "x", 2.0), J("s", "3", "a", "x", 4.0)]
    rounding = Rounding(stats=None, z=2, segments=1)
    result = human_scores(
        records, aspect="x", weighting="none", bootstrap_samples=0, rounding=rounding
    )
    z = stats.zscore([1.0, 2.0, 4.0], ddof=1)
    expected = [float(f"{float(f'{v:.2g}'):.1g}") for v in z]
    assert [s.normalized for s in result.segments] == expected
    assert "|round:full/2/1|" in str(result.signature)
    plain = human_scores(records, aspect="x", weighting="none", bootstrap_samples=0)
    assert "|round:none|" in str(plain.signature)
    assert str(WMT_R_ROUNDING) == "7/15/15"


def test_significant_digits_and_bad_rounding():
    assert significant(65.559139784946, 7) == 65.55914
    assert significant(0.123456789, None) == 0.123456789
    assert math.isnan(significant(math.nan, 3))
    with pytest.raises(HumanScoresError, match="rounding z: 0 digits"):
        Rounding(z=0)
