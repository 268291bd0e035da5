"""Williams' test, PERM-BOTH and its pairs variant, and significance clusters."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
from scipy import stats

from metrics.core.correlation import (
    CorrelationError,
    compare,
    correlate,
    significance_clusters,
    williams_p,
)
from metrics.core.correlation._layout import grouped, valid_cells

comparison = importlib.import_module("metrics.core.correlation.comparison")


def _measures(seed: int = 0, systems: int = 8, items: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Human scores and four measures: good, noisy, noisier, and a copy of the good one."""
    rng = np.random.default_rng(seed)
    human = rng.normal(size=(systems, items))
    good = human + rng.normal(scale=0.3, size=human.shape)
    noisy = human + rng.normal(scale=1.5, size=human.shape)
    noisier = human + rng.normal(scale=4.0, size=human.shape)
    return human, np.stack([good, noisy, noisier, good.copy()])


def test_williams_matches_mtme_example() -> None:
    # stats_test.WilliamsSigDiffTest.testSigDiff: p = 0.019, r1 = 0.999, r2 = 0.987
    human = np.array([[1, 2, 3, 4, 5]], float).T
    metrics = np.array([[[1.1], [2], [3.1], [4], [5.1]], [[1.5], [2], [3.1], [4], [5.5]]])
    p = compare(human, metrics, coefficient="pearson", method="williams")
    assert p[0, 1] == pytest.approx(0.019, abs=5e-4)
    assert p[1, 0] == pytest.approx(1 - p[0, 1])
    assert np.isnan(p[0, 0])


def test_williams_formula_by_hand() -> None:
    r12, r13, r23, n = 0.6, 0.4, 0.5, 50
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    t = (
        (r12 - r13)
        * np.sqrt((n - 1) * (1 + r23))
        / np.sqrt(2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3)
    )
    assert williams_p(r12, r13, r23, n) == pytest.approx(stats.t.sf(t, n - 3))
    assert williams_p(r13, r12, r23, n) == pytest.approx(stats.t.cdf(t, n - 3))
    assert williams_p(0.5, 0.5, 1.0, 20) == 0.5


def test_williams_sanity() -> None:
    human, metrics = _measures()
    p = compare(human, metrics, coefficient="pearson", method="williams")
    assert p[0, 2] < 0.001  # the good measure beats the noisiest
    assert p[2, 0] > 0.999
    assert p[0, 3] == pytest.approx(0.5)  # identical measures
    with pytest.raises(CorrelationError):
        compare(human, metrics, coefficient="kendall-b", method="williams")


@pytest.mark.parametrize("name", ["pearson", "kendall-b", "kendall-a", "acc23", "spearman"])
@pytest.mark.parametrize("grouping", ["none", "item"])
def test_permutation_sanity(name: str, grouping: str) -> None:
    human, metrics = _measures()
    p = compare(human, metrics, coefficient=name, grouping=grouping, samples=200, block_size=200)
    assert p[0, 2] < 0.02  # clearly better
    assert p[2, 0] > 0.98
    assert p[0, 3] == 1.0 and p[3, 0] == 1.0  # identical measures: every draw ties
    off = ~np.eye(4, dtype=bool)
    assert np.all((p[off] >= 0) & (p[off] <= 1))
    assert np.all(np.isnan(np.diag(p)))
    again = compare(
        human, metrics, coefficient=name, grouping=grouping, samples=200, block_size=200
    )
    np.testing.assert_array_equal(p, again)  # seeded
    other = compare(
        human, metrics, coefficient=name, grouping=grouping, samples=200, block_size=200, seed=1
    )
    assert not np.array_equal(p, other) or name == "acc23"


def test_permutation_p_values_match_a_plain_mtme_style_loop() -> None:
    """PERM-BOTH written out naively with the same draws (Pearson and tau-b, item grouping)."""
    human, metrics = _measures(3, systems=5, items=10)
    for name, function in (
        ("pearson", lambda x, y: stats.pearsonr(x, y)[0]),
        ("kendall-b", lambda x, y: stats.kendalltau(x, y)[0]),
    ):
        p = compare(
            human, metrics[:3], coefficient=name, grouping="item", samples=50, block_size=50, seed=9
        )
        bits = np.random.default_rng(9).integers(0, 2, size=(50, human.size), dtype=np.uint8)
        bits = bits.reshape(50, human.shape[1], human.shape[0])  # item-grouped layout (K, S)

        def corr(x, function=function):
            return np.mean([function(x[:, k], human[:, k]) for k in range(human.shape[1])])

        for i, j in itertools.combinations(range(3), 2):
            zi = stats.zscore(metrics[i], axis=None)
            zj = stats.zscore(metrics[j], axis=None)
            delta = corr(zi) - corr(zj)
            hits_ge = hits_le = 0
            for w in bits:
                w = w.T.astype(bool)
                d = corr(np.where(w, zi, zj)) - corr(np.where(w, zj, zi))
                hits_ge += d >= delta - 1e-12
                hits_le += d <= delta + 1e-12
            assert p[i, j] == pytest.approx(hits_ge / 50)
            assert p[j, i] == pytest.approx(hits_le / 50)


@pytest.mark.parametrize(
    "name", ["kendall-a", "kendall-b", "kendall-c", "acc23", "tau23", "kendall-like"]
)
@pytest.mark.parametrize("grouping", ["none", "item", "system"])
def test_fast_testers_agree_with_the_generic_one(name: str, grouping: str) -> None:
    rng = np.random.default_rng(5)
    human = rng.integers(0, 4, (5, 12)).astype(float)
    human[1, 2] = np.nan
    metrics = np.round(human[None] + rng.normal(scale=[[[0.5]], [[1.5]], [[3.0]]], size=(3, 5, 12)))
    options = {"threshold": 1.0} if name == "kendall-like" else {}
    fast = compare(
        human, metrics, coefficient=name, grouping=grouping, samples=100, block_size=100, **options
    )
    hy, mx = grouped(human, metrics, grouping)
    valid = valid_cells(hy, mx)
    generic = comparison._GenericTester(
        name,
        hy,
        mx,
        valid,
        grouping,
        {
            "epsilon": None,
            "calibrate_ties": False,
            "threshold": options.get("threshold", 0.0),
            "weighted": name == "kendall-like",
        },
    )
    slow = comparison._run(
        generic, 3, hy.size, samples=100, seed=12345, block_size=100, early_min=0.02, early_max=0.5
    )
    # a draw whose delta equals the observed one may round either way in the two codes
    np.testing.assert_allclose(fast, slow, atol=0.02)


def test_pearson_tester_handles_different_missing_cells() -> None:
    human, metrics = _measures(4)
    metrics[1, 0, :5] = np.nan
    p = compare(human, metrics, coefficient="pearson", grouping="item", samples=100, block_size=100)
    hy, mx = grouped(human, metrics, "item")
    generic = comparison._GenericTester(
        "pearson",
        hy,
        mx,
        valid_cells(hy, mx),
        "item",
        {"epsilon": None, "calibrate_ties": False, "threshold": 0.0, "weighted": False},
    )
    slow = comparison._run(
        generic, 4, hy.size, samples=100, seed=12345, block_size=100, early_min=0.02, early_max=0.5
    )
    np.testing.assert_allclose(p, slow, atol=0.02)


def test_early_stopping_by_blocks() -> None:
    human, metrics = _measures()
    # clear differences stop after the first block: p stays a multiple of 1/100
    p = compare(human, metrics, coefficient="pearson", samples=1000, block_size=100)
    assert p[0, 2] == 0.0
    assert p[1, 0] * 100 == pytest.approx(round(p[1, 0] * 100))


def test_pairs_variant_for_calibrated_acc23() -> None:
    rng = np.random.default_rng(2)
    human = rng.integers(0, 5, (6, 40)).astype(float)
    good = np.round(human + rng.normal(scale=0.7, size=human.shape), 1)
    bad = np.round(human + rng.normal(scale=4.0, size=human.shape), 1)
    metrics = np.stack([good, bad, good])
    p = compare(
        human,
        metrics,
        coefficient="acc23",
        grouping="item",
        perm_test="pairs",
        calibrate_ties=True,
        samples=200,
        block_size=200,
    )
    assert p[0, 1] < 0.02 and p[1, 0] > 0.98
    assert p[0, 2] == 1.0
    with pytest.raises(CorrelationError, match="item"):
        compare(human, metrics, coefficient="acc23", perm_test="pairs", calibrate_ties=True)
    with pytest.raises(CorrelationError, match="acc23"):
        compare(human, metrics, coefficient="kendall-b", grouping="item", perm_test="pairs")


def test_pairs_variant_observed_difference_is_the_calibrated_acc23_difference() -> None:
    rng = np.random.default_rng(8)
    human = rng.integers(0, 3, (5, 10)).astype(float)
    metrics = np.round(human[None] + rng.normal(scale=[[[0.5]], [[2.0]]], size=(2, 5, 10)), 1)
    values = correlate(human, metrics, coefficient="acc23", grouping="item", calibrate_ties=True)
    hy, mx = grouped(human, metrics, "item")
    tester = comparison._PairsTester("acc23", hy, mx, valid_cells(hy, mx), values.epsilon, False)
    one, two = tester.draws([(0, 1)], np.ones((1, hy.shape[0] * tester.pair_count), np.uint8))
    assert one[0, 0] == pytest.approx(values.values[0])
    assert two[0, 0] == pytest.approx(values.values[1])


def test_significance_clusters_as_mtme_assign_ranks() -> None:
    # data_test.testAssignRanks: sig_matrix rows/columns in decreasing correlation
    values = [0.9, 0.8, 0.7, 0.6]
    sig = np.array([0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0], float).reshape(4, 4)
    assert significance_clusters(values, sig, 0.5) == [1, 1, 1, 1]
    assert significance_clusters(values, sig, 1.0) == [1, 2, 3, 4]
    sig = np.array([0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0], float).reshape(4, 4)
    assert significance_clusters(values, sig, 0.5) == [1, 1, 2, 2]
    sig = np.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], float).reshape(4, 4)
    assert significance_clusters(values, sig, 0.5) == [1, 2, 2, 3]
    # unsorted input: the ranks come back in the original order
    order = [2, 0, 3, 1]
    shuffled = sig[np.ix_(order, order)]
    assert significance_clusters([values[k] for k in order], shuffled, 0.5) == [2, 1, 3, 2]


def test_compare_feeds_significance_clusters() -> None:
    human, metrics = _measures()
    values = correlate(human, metrics, coefficient="pearson").values
    p = compare(human, metrics, coefficient="pearson", samples=300)
    ranks = significance_clusters(values, p)
    assert ranks[0] == ranks[3] == 1
    assert ranks[2] > ranks[1] > 1


def test_fixed_epsilon_swap_tester_agrees_with_the_generic_one() -> None:
    rng = np.random.default_rng(6)
    human = rng.integers(0, 4, (5, 12)).astype(float)
    metrics = np.round(human[None] + rng.normal(scale=[[[0.5]], [[1.5]]], size=(2, 5, 12)), 1)
    epsilon = np.array([0.3, 0.6])
    fast = compare(
        human,
        metrics,
        coefficient="acc23",
        grouping="item",
        samples=100,
        block_size=100,
        epsilon=epsilon,
    )
    hy, mx = grouped(human, metrics, "item")
    generic = comparison._GenericTester(
        "acc23",
        hy,
        mx,
        valid_cells(hy, mx),
        "item",
        {"epsilon": epsilon, "calibrate_ties": False, "threshold": 0.0, "weighted": False},
    )
    slow = comparison._run(
        generic, 2, hy.size, samples=100, seed=12345, block_size=100, early_min=0.02, early_max=0.5
    )
    np.testing.assert_allclose(fast, slow, atol=0.02)


def test_scores_permutation_with_recalibrated_ties() -> None:
    rng = np.random.default_rng(7)
    human = rng.integers(0, 4, (5, 10)).astype(float)
    good = np.round(human + rng.normal(scale=0.3, size=human.shape), 1)
    bad = np.round(rng.normal(size=human.shape), 1)
    p = compare(
        human,
        np.stack([good, bad, good]),
        coefficient="acc23",
        grouping="item",
        calibrate_ties=True,
        samples=30,
        block_size=30,
    )
    assert p[0, 1] < 0.1 and p[0, 2] == 1.0


def test_williams_with_shared_cells_equals_the_per_pair_computation():
    """The one-product path (every measure scored the same cells) against the per-pair one."""
    comparison = importlib.import_module("metrics.core.correlation.comparison")

    rng = np.random.default_rng(1)
    for trial in range(10):
        human = rng.normal(size=(5, 40))
        scale = rng.uniform(0, 1, (6, 1, 1))
        measures = human[None] * scale + rng.normal(size=(6, 5, 40))
        if trial % 3 == 0:
            measures[2] = 1.0  # a constant measure: NaN everywhere it takes part
        hy, mx = human.reshape(1, -1), measures.reshape(6, 1, -1)
        fast = comparison._williams_shared(hy, mx, np.ones(mx.shape[1:], bool))
        slow = np.full((6, 6), np.nan)
        for i, j in itertools.permutations(range(6), 2):
            common = np.ones((1, 1, mx.shape[2]), bool)
            r_a, n = comparison.pearson_exact(hy, mx[i : i + 1], common)
            r_b, _ = comparison.pearson_exact(hy, mx[j : j + 1], common)
            r_ab, _ = comparison.pearson_exact(mx[i], mx[j : j + 1], common)
            slow[i, j] = comparison.williams_p(r_a[0, 0], r_b[0, 0], r_ab[0, 0], n[0, 0])
        np.testing.assert_allclose(fast, slow, atol=1e-12)


def _doubled_pair(groups: int, seed: int = 7):
    """Human scores and two measures with ties in x and y, some cells unusable."""
    rng = np.random.default_rng(seed)
    length = 9
    hy = rng.integers(0, 3, (groups, length)).astype(float)
    raw_i, raw_j = rng.integers(0, 4, (2, groups, length)) / 2.0
    mask = rng.random((groups, length)) > 0.2
    zi, zj = comparison._zscore(raw_i, mask), comparison._zscore(raw_j, mask)
    u = rng.integers(0, 2, (30, groups, length)).astype(np.float32)
    return hy, raw_i, raw_j, zi, zj, mask, u


@pytest.mark.parametrize("groups", [1, 4])
def test_doubled_layout_counts_as_the_general_preparation(groups):
    from metrics.core.correlation._pairs import count, kernel_weights, prepare
    from metrics.core.correlation._permutation import doubled_layout

    hy, raw_i, raw_j, zi, zj, mask, u = _doubled_pair(groups)
    general = prepare(
        np.concatenate([hy, hy], axis=1),
        np.concatenate([zi, zj], axis=1)[None],
        np.concatenate([mask, mask], axis=1)[None],
    )
    seg_start, x, yrank, ny_seg, cell = doubled_layout(
        zi,
        zj,
        np.argsort(raw_i, axis=1, kind="stable"),
        np.argsort(raw_j, axis=1, kind="stable"),
        hy,
        np.argsort(hy, axis=1, kind="stable"),
        mask,
    )
    np.testing.assert_array_equal(seg_start, general.seg_start)
    np.testing.assert_array_equal(x, general.x)
    np.testing.assert_array_equal(ny_seg, general.ny_seg)
    merged = comparison.Segments(
        1, groups, 18, seg_start, x, yrank, ny_seg, cell, np.zeros(x.size, np.int64), False
    )
    weights = np.concatenate([u, 1 - u], axis=2)
    for eps in (None, np.array([0.5])):
        a = count(general, epsilon=eps, cell_weights=kernel_weights(general, weights))
        b = count(merged, epsilon=eps, cell_weights=kernel_weights(merged, weights))
        for name in ("concordant", "discordant", "tied_x", "tied_y", "tied_both", "distinct_x"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), name)


@pytest.mark.parametrize("epsilon", [None, 0.5])
@pytest.mark.parametrize("groups", [1, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_hybrid_two_derived_from_hybrid_one_equals_the_counted_one(epsilon, groups, weighted):
    from metrics.core.correlation._pairs import (
        count,
        kernel_weights,
        pair_values,
        partner_counts,
        prepare,
        raw_counts,
    )
    from metrics.core.correlation._permutation import (
        HYBRID_CODES,
        hybrid_linear_terms,
        hybrid_means,
    )
    from metrics.core.correlation._values import aggregate

    hy, _, _, zi, zj, mask, u = _doubled_pair(groups)
    segments = prepare(
        np.concatenate([hy, hy], axis=1),
        np.concatenate([zi, zj], axis=1)[None],
        np.concatenate([mask, mask], axis=1)[None],
    )
    eps = None if epsilon is None else np.array([epsilon])
    first = kernel_weights(segments, np.concatenate([u, 1 - u], axis=2))
    second = kernel_weights(segments, np.concatenate([1 - u, u], axis=2))
    for name, code in HYBRID_CODES.items():
        mean_1, mean_2 = hybrid_means(
            raw_counts(segments, eps, first),
            raw_counts(segments, eps, kernel_weights(segments, None)),
            hybrid_linear_terms(
                partner_counts(segments, eps)[0].reshape(groups, 2, 9, 3),
                u.transpose(1, 0, 2).astype(np.float64),
            ),
            code,
            weighted,
        )
        for weights, derived in ((first, mean_1), (second, mean_2)):
            values, n = pair_values(name, count(segments, epsilon=eps, cell_weights=weights))
            counted = aggregate(values, n, weighted=weighted)[0][:, 0]
            counted = np.where(np.isfinite(counted), counted, 0.0)
            np.testing.assert_allclose(derived, counted, rtol=0, atol=1e-14, err_msg=name)
