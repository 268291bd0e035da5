"""The agreement panel's statistics: kappa over the scale's declared levels (equal to
scikit-learn with ``labels=``), no kappa for continuous scales, and interval alpha on the
z-scores where a set has no raw scores (equal to the krippendorff package)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judging.formats import JudgmentRecord
from judging.humanscores import analysis
from metrics.core.agreement import kappa_resampled

FIVE_LEVELS = {"kind": "levels", "values": [1, 2, 3, 4, 5]}


def _two_judges(a: list[float], b: list[float]) -> analysis.AspectData:
    """Judges "a" and "b" scoring the same candidates (one system, segments 0..n-1)."""
    records = [
        JudgmentRecord("s", str(k), judge, "adequacy", float(score), None, "SYSTEM")
        for judge, scores in (("a", a), ("b", b))
        for k, score in enumerate(scores)
    ]
    return analysis.aspect_data(records, "adequacy")


def _without_level_three(seed: int) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(seed)
    used = [1, 2, 4, 5]
    a = rng.choice(used, size=40)
    b = np.where(rng.random(40) < 0.6, a, rng.choice(used, size=40))
    return a.tolist(), b.tolist()


def test_kappa_uses_the_scales_levels_as_categories():
    """Level 3 of a 1-5 scale is never used: kappa must still count it between 2 and 4, as
    scikit-learn does with labels=[1..5]; over the observed values only, 2 and 4 would be
    neighbours and kappa would differ."""
    metrics = pytest.importorskip("sklearn.metrics")
    a, b = _without_level_three(21)
    result = analysis.agreement(_two_judges(a, b), scale=FIVE_LEVELS)
    expected = metrics.cohen_kappa_score(a, b, labels=[1, 2, 3, 4, 5], weights="quadratic")
    observed_only = metrics.cohen_kappa_score(a, b, weights="quadratic")
    assert not math.isclose(expected, observed_only, rel_tol=1e-3)
    assert result.kappa.value == pytest.approx(expected, rel=1e-12)
    assert result.kappa.low <= result.kappa.value <= result.kappa.high
    assert [(row["a"], row["b"]) for row in result.kappa_pairs] == [("a", "b")]
    assert result.kappa_pairs[0]["value"] == pytest.approx(expected, rel=1e-12)
    assert result.notes == []


def test_kappa_bootstrap_uses_the_same_levels():
    """The fast resampled kappa equals scikit-learn with labels= on every resample."""
    metrics = pytest.importorskip("sklearn.metrics")
    a, b = _without_level_three(22)
    picks = np.random.default_rng(4).integers(0, len(a), (30, len(a)))
    fast = kappa_resampled(np.array(a, float), np.array(b, float), picks, [1, 2, 3, 4, 5])
    for value, pick in zip(fast, picks, strict=True):
        oracle = metrics.cohen_kappa_score(
            np.array(a)[pick], np.array(b)[pick], labels=[1, 2, 3, 4, 5], weights="quadratic"
        )
        assert value == pytest.approx(oracle, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    ("scale", "named"),
    [({"kind": "da", "low": 0, "high": 100}, "DA scores (0–100)"), ({"kind": "mqm"}, "MQM"),
     ({"kind": "auto"}, "without declared levels"), ({}, "without declared levels")],
)  # fmt: skip
def test_kappa_is_not_computed_for_continuous_scales(scale, named):
    """DA 0-100 has no levels: kappa over its distinct values would give arbitrary positions,
    so the panel says so and the interval alpha is the agreement to read."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 101, 30).astype(float)
    b = np.clip(a + rng.normal(0, 10, 30).round(), 0, 100)
    result = analysis.agreement(_two_judges(a.tolist(), b.tolist()), scale=scale)
    assert result.kappa.value is None and result.kappa_pairs == []
    assert len(result.notes) == 1 and named in result.notes[0]
    assert result.alpha_interval.value is not None
    assert result.alpha_ordinal.value is not None


def test_without_raw_scores_interval_alpha_is_computed_on_the_z_scores():
    """WMT DA without its judge statistics: only z is known. Interval alpha over the judges x
    candidates matrix of z equals the krippendorff package; ordinal alpha and kappa need raw
    levels and are left out, with a note."""
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(6)
    judges, items = 4, 25
    quality = rng.normal(size=items)
    matrix = quality + rng.normal(scale=0.6, size=(judges, items))
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    records = [
        JudgmentRecord(
            "s", str(item), f"j{judge}", "adequacy", None, float(matrix[judge, item]), "SYSTEM"
        )
        for judge in range(judges)
        for item in range(items)
        if not math.isnan(matrix[judge, item])
    ]
    result = analysis.agreement(analysis.aspect_data(records, "adequacy"), scale=FIVE_LEVELS)
    oracle = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert result.alpha_scale == "z"
    assert result.alpha_interval.value == pytest.approx(oracle, rel=1e-12)
    assert result.alpha_interval.low <= result.alpha_interval.value <= result.alpha_interval.high
    assert result.alpha_ordinal.value is None and result.kappa.value is None
    assert result.notes == [analysis.ALPHA_ON_Z]
    assert result.iac_raw.value is None and result.iac_normalized.value is not None


def test_scale_levels_are_the_declared_ones_only():
    assert analysis.scale_levels({"kind": "levels", "values": [3, 1, 2]}) == [1.0, 2.0, 3.0]
    assert analysis.scale_levels({"kind": "da"}) is None
    assert analysis.scale_levels({"kind": "levels", "values": []}) is None


def test_a_crowd_of_judges_gets_the_pooled_figures_without_the_judge_matrix(monkeypatch):
    """Beyond MAX_MATRIX_JUDGES judges the judge x judge matrix is neither computed nor drawn
    (WMT DA: 3,526 judges), with a note; alpha, over every judge, is what it was."""
    rng = np.random.default_rng(8)
    records = [
        JudgmentRecord(
            "s", str(k), f"j{judge}", "adequacy", float(rng.integers(1, 6)), None, "SYSTEM"
        )
        for k in range(40)
        for judge in rng.choice(12, size=2, replace=False)
    ]
    data = analysis.aspect_data(records, "adequacy")
    full = analysis.agreement(data, scale=FIVE_LEVELS)
    monkeypatch.setattr(analysis, "MAX_MATRIX_JUDGES", 5)
    crowd = analysis.agreement(data, scale=FIVE_LEVELS)
    assert len(full.r_raw) == 12 and crowd.r_raw == crowd.r_normalized == crowd.n_common == []
    assert crowd.notes == [analysis.JUDGE_MATRIX_SKIPPED.format(limit=5, count=12, pairs=66)]
    assert crowd.alpha_interval == full.alpha_interval and crowd.iac_raw == full.iac_raw
