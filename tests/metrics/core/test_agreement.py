"""Agreement statistics against published values and independent oracles (scipy, krippendorff,
scikit-learn) and the thesis' sanity check that normalization raises inter-annotator agreement."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from metrics.core.agreement import (
    AgreementError,
    alpha_resampled,
    cohen_kappa,
    inter_annotator_correlation,
    intra_judge_consistency,
    item_values,
    kappa_resampled,
    krippendorff_alpha,
    pairwise_judge_correlations,
    pearson,
    reliability_data,
)
from metrics.core.human_scores import normalize_by_judge

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 coders
# (rows) x 12 units (columns), missing values blank. Published alphas below.
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
PUBLISHED_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize("level", sorted(PUBLISHED_ALPHA))
def test_alpha_reproduces_krippendorffs_published_example(level):
    """Krippendorff's own reliability-data example gives his published alphas to 3 digits."""
    assert (
        round(krippendorff_alpha(KRIPPENDORFF_EXAMPLE, level=level).alpha, 3)
        == (PUBLISHED_ALPHA[level])
    )


def _random_reliability(rng, judges=5, items=40, levels=5, missing=0.35):
    data = rng.integers(1, levels + 1, size=(judges, items)).astype(float)
    data[rng.random(data.shape) < missing] = np.nan
    return data


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_equals_the_krippendorff_package_on_random_data(level):
    """Alpha equals the krippendorff package (Castro) on random data with missing values."""
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(2005)
    for _ in range(60):
        data = _random_reliability(
            rng, judges=int(rng.integers(2, 7)), levels=int(rng.integers(2, 8))
        )
        ours = krippendorff_alpha(data, level=level).alpha
        oracle = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert ours == pytest.approx(oracle, rel=1e-12, abs=1e-12)


def test_alpha_equals_the_krippendorff_package_on_continuous_scores():
    """Interval alpha on real-valued (e.g. normalized) scores equals the package's."""
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    truth = rng.normal(size=30)
    data = truth + rng.normal(scale=0.7, size=(4, 30))
    data[rng.random(data.shape) < 0.3] = np.nan
    oracle = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert krippendorff_alpha(data, level="interval").alpha == pytest.approx(oracle, rel=1e-12)


def test_alpha_of_perfect_agreement_is_one_and_without_pairs_is_nan():
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 3]], level="interval").alpha == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([[1, NAN], [NAN, 2]], level="interval").alpha)


def test_alpha_rejects_unknown_level():
    with pytest.raises(AgreementError, match="level"):
        krippendorff_alpha(KRIPPENDORFF_EXAMPLE, level="cardinal")


def test_reliability_data_builds_the_judge_by_item_matrix_from_long_form():
    """Long-form judgments become the matrix; its alpha is the example's."""
    items, judges, scores = [], [], []
    for judge, row in zip("ABCD", KRIPPENDORFF_EXAMPLE, strict=True):
        for unit, value in enumerate(row):
            if not math.isnan(value):
                items.append(unit)
                judges.append(judge)
                scores.append(value)
    data = reliability_data(items, judges, scores)
    assert data.judges == ["A", "B", "C", "D"]
    assert round(krippendorff_alpha(data.values, level="interval").alpha, 3) == 0.849


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_item_values_give_the_judge_by_item_matrixs_alpha_in_few_rows(level):
    """Many judges with a few items each, repeats, one-judge items: the compact form has as
    many rows as the most judges of an item, and the same alpha and resampled alphas."""
    rng = np.random.default_rng(5)
    items, judges, scores = [], [], []
    for item in range(300):
        for judge in rng.choice(400, size=int(rng.integers(1, 4)), replace=False):
            for _ in range(int(rng.integers(1, 3))):  # a repeat is averaged
                items.append(f"i{item}")
                judges.append(f"j{judge}")
                scores.append(float(rng.integers(0, 7)))
    dense = reliability_data(items, judges, scores).values
    compact = item_values(items, judges, scores)
    assert dense.shape == (len(set(judges)), 300) and compact.shape == (3, 300)
    assert np.array_equal(np.sort(dense, axis=0)[:3], np.sort(compact, axis=0), equal_nan=True)
    expected = krippendorff_alpha(dense, level=level)
    assert krippendorff_alpha(compact, level=level).alpha == pytest.approx(expected.alpha)
    picks = rng.integers(0, 300, size=(20, 300))
    assert alpha_resampled(compact, picks, level=level) == pytest.approx(
        alpha_resampled(dense, picks, level=level), nan_ok=True
    )


def _long_form(rng, n_items=60, n_judges=5, per_item=3):
    items, judges, scores = [], [], []
    for item in range(n_items):
        for judge in rng.choice(n_judges, size=per_item, replace=False):
            items.append(item)
            judges.append(f"j{judge}")
            scores.append(float(rng.integers(1, 6)))
    return items, judges, scores


def test_pairwise_judge_correlations_equal_scipy_pearsonr_on_common_items():
    rng = np.random.default_rng(11)
    items, judges, scores = _long_form(rng)
    table = {(j, i): s for i, j, s in zip(items, judges, scores, strict=True)}
    results = pairwise_judge_correlations(items, judges, scores, min_common=3)
    assert results
    for pair in results:
        common = sorted(i for (j, i) in table if j == pair.judge_a and (pair.judge_b, i) in table)
        x = [table[(pair.judge_a, i)] for i in common]
        y = [table[(pair.judge_b, i)] for i in common]
        assert pair.n_common == len(common)
        assert pair.r == pytest.approx(stats.pearsonr(x, y).statistic, rel=1e-12)


def test_inter_annotator_correlation_first_two_is_the_thesis_pairing():
    """Judgment 1 of each item as X, judgment 2 as Y (thesis §8.1), equal to scipy."""
    rng = np.random.default_rng(12)
    items, _, scores = _long_form(rng)
    x = [scores[k] for k in range(0, len(scores), 3)]
    y = [scores[k + 1] for k in range(0, len(scores), 3)]
    result = inter_annotator_correlation(items, scores, pairing="first-two")
    assert result.n == 60
    assert result.r == pytest.approx(stats.pearsonr(x, y).statistic, rel=1e-12)


def test_inter_annotator_correlation_all_pairs_uses_every_ordered_pair():
    rng = np.random.default_rng(13)
    items, _, scores = _long_form(rng)
    x, y = [], []
    for start in range(0, len(scores), 3):
        for a, b in itertools.permutations(scores[start : start + 3], 2):
            x.append(a)
            y.append(b)
    result = inter_annotator_correlation(items, scores)
    assert result.n == 60 * 6
    assert result.r == pytest.approx(stats.pearsonr(x, y).statistic, rel=1e-12)


def test_pearson_of_constant_input_is_nan_not_an_error():
    assert math.isnan(pearson([1, 2, 3], [4, 4, 4]).r)
    assert math.isnan(pearson([1], [2]).r)


def test_unweighted_kappa_reproduces_the_textbook_two_by_two_example():
    """20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7, p_e = 0.5, kappa = 0.4."""
    a = [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b).kappa == pytest.approx(0.4, abs=1e-12)


def test_quadratic_kappa_equals_the_moment_formula_on_a_full_integer_scale():
    """On levels 1..5, quadratic kappa = 2 cov / (var_a + var_b + (mean_a - mean_b)^2) with
    population moments (Cohen 1968, Schuster 2004), an independent closed form."""
    rng = np.random.default_rng(14)
    for _ in range(50):
        a = rng.integers(1, 6, size=40)
        b = np.clip(a + rng.integers(-2, 3, size=40), 1, 5)
        cov = np.mean((a - a.mean()) * (b - b.mean()))
        expected = 2 * cov / (a.var() + b.var() + (a.mean() - b.mean()) ** 2)
        result = cohen_kappa(a.tolist(), b.tolist(), weights="quadratic", categories=range(1, 6))
        assert result.kappa == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_kappa_equals_scikit_learn(weights):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(15)
    for _ in range(50):
        a = rng.integers(1, 6, size=30)
        b = rng.integers(1, 6, size=30)
        oracle = metrics.cohen_kappa_score(a, b, weights=None if weights == "none" else weights)
        assert cohen_kappa(a.tolist(), b.tolist(), weights=weights).kappa == pytest.approx(
            oracle, rel=1e-12, abs=1e-12
        )


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_kappa_over_the_scales_levels_equals_scikit_learn_with_labels(weights):
    """With categories = the scale's levels, an unused level keeps its place in the weights,
    as in scikit-learn's cohen_kappa_score(labels=...)."""
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(16)
    levels = [1, 2, 3, 4, 5, 6, 7]
    differs = 0
    for _ in range(50):
        used = rng.choice(levels, size=4, replace=False)
        a = rng.choice(used, size=30)
        b = np.where(rng.random(30) < 0.5, a, rng.choice(used, size=30))
        sk_weights = None if weights == "none" else weights
        oracle = metrics.cohen_kappa_score(a, b, labels=levels, weights=sk_weights)
        ours = cohen_kappa(a.tolist(), b.tolist(), weights=weights, categories=levels)
        assert ours.kappa == pytest.approx(oracle, rel=1e-12, abs=1e-12)
        observed = metrics.cohen_kappa_score(a, b, weights=sk_weights)
        differs += not math.isclose(observed, oracle, rel_tol=1e-9, abs_tol=1e-12)
    if weights != "none":
        assert differs > 0  # the unused levels change weighted kappa


def test_kappa_rejects_a_value_outside_the_categories_and_unequal_lengths():
    with pytest.raises(AgreementError, match="not one of the categories"):
        cohen_kappa([1, 6], [1, 2], categories=range(1, 6))
    with pytest.raises(AgreementError, match="2 scores of judge A but 1"):
        cohen_kappa([1, 2], [1])


def test_intra_judge_consistency_pairs_each_repeat_with_the_first_score():
    items = ["s1", "s2", "s3", "s1", "s2", "s3", "s1", "x", "x"]
    judges = ["a", "a", "a", "a", "a", "a", "b", "b", "b"]
    scores = [10, 50, 90, 20, 50, 70, 5, 40, 43]
    result = intra_judge_consistency(items, judges, scores)
    by_judge = {row.judge: row for row in result.judges}
    # Judge a: pairs (10, 20), (50, 50), (90, 70): |d| = 10, 0, 20.
    assert by_judge["a"].n_pairs == 3
    assert by_judge["a"].mean_absolute_difference == pytest.approx(10.0)
    assert by_judge["a"].r == pytest.approx(stats.pearsonr([10, 50, 90], [20, 50, 70]).statistic)
    # Judge b: one pair (40, 43): r undefined.
    assert by_judge["b"].n_pairs == 1
    assert math.isnan(by_judge["b"].r)
    assert result.pooled.n_pairs == 4
    assert result.pooled.mean_absolute_difference == pytest.approx(33 / 4)


def _biased_judges(seed: int) -> tuple[list[int], list[str], list[float]]:
    """Synthetic campaign as thesis Figure 5.3: each judge has an offset and a scale."""
    rng = np.random.default_rng(seed)
    n_judges, n_items = 8, 300
    offset = rng.normal(0.0, 1.5, n_judges)
    scale = rng.uniform(0.3, 2.5, n_judges)
    quality = rng.normal(0.0, 1.0, n_items)
    items, judges, scores = [], [], []
    for item in range(n_items):
        for judge in rng.choice(n_judges, size=2, replace=False):
            items.append(item)
            judges.append(f"j{judge}")
            noise = rng.normal(0.0, 0.5)
            scores.append(float(offset[judge] + scale[judge] * (quality[item] + noise)))
    return items, judges, scores


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_normalization_raises_inter_annotator_correlation_of_biased_judges(seed):
    """Thesis §8.1 / spec §8: (0,1) normalization raises IAC when judges are biased."""
    items, judges, scores = _biased_judges(seed)
    raw = inter_annotator_correlation(items, scores).r
    normalized = inter_annotator_correlation(items, normalize_by_judge(judges, scores).z).r
    assert normalized > raw


def test_fast_bootstraps_equal_the_core_functions():
    rng = np.random.default_rng(1)
    a = rng.integers(1, 6, 50).astype(float)
    b = np.clip(a + rng.integers(-1, 2, 50), 1, 5)
    picks = rng.integers(0, 50, (20, 50))
    categories = [1.0, 2.0, 3.0, 4.0, 5.0, 7.0]
    fast = kappa_resampled(a, b, picks, categories)
    slow = [
        cohen_kappa(a[p], b[p], weights="quadratic", categories=categories).kappa for p in picks
    ]
    assert fast == pytest.approx(slow, abs=1e-12)
    matrix = rng.integers(1, 6, (4, 30)).astype(float)
    matrix[rng.random((4, 30)) < 0.4] = np.nan
    matrix = matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]
    picks = rng.integers(0, matrix.shape[1], (20, matrix.shape[1]))
    for level in ("nominal", "ordinal", "interval", "ratio"):
        fast = alpha_resampled(matrix, picks, level=level)
        slow = [krippendorff_alpha(matrix[:, p], level=level).alpha for p in picks]
        assert fast == pytest.approx(slow, abs=1e-12, nan_ok=True)
