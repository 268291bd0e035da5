"""Regression lines (spec §2.3–2.4) and optimal linear combinations (spec §2.5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics.core.correlation import (
    CorrelationError,
    combination_curve,
    combination_r,
    cross_validated_r,
    optimal_weights,
    regression_lines,
)


def _xy(seed: int = 0, n: int = 2000):
    rng = np.random.default_rng(seed)
    x = rng.normal(2.0, 3.0, n)
    y = 0.5 * x + rng.normal(0, 1.5, n) + 10
    return x, y


def test_ols_lines_and_their_errors() -> None:
    x, y = _xy()
    lines = regression_lines(x, y)
    slope, intercept = np.polyfit(x, y, 1)
    assert lines.y_on_x.slope == pytest.approx(slope)
    assert lines.y_on_x.intercept == pytest.approx(intercept)
    # X on Y, drawn as y = f(x): the inverse of the fit of x on y
    b, a = np.polyfit(y, x, 1)
    assert lines.x_on_y.slope == pytest.approx(1 / b)
    assert lines.x_on_y.intercept == pytest.approx(-a / b)
    r = np.corrcoef(x, y)[0, 1]
    # Eq. 6.3: E||Y - Ŷ||² = σ_yy (1 - r²); Eq. 6.4 symmetric for X
    assert np.mean((y - lines.y_on_x(x)) ** 2) == pytest.approx(y.var() * (1 - r * r))
    x_hat = (y - lines.x_on_y.intercept) / lines.x_on_y.slope
    assert np.mean((x - x_hat) ** 2) == pytest.approx(x.var() * (1 - r * r))


def test_orthogonal_line_minimises_perpendicular_distances() -> None:
    x, y = _xy(1)
    line = regression_lines(x, y).orthogonal

    def mean_sq_distance(slope):
        intercept = y.mean() - slope * x.mean()
        return np.mean((y - slope * x - intercept) ** 2) / (1 + slope * slope)

    best = mean_sq_distance(line.slope)
    for delta in (-0.05, -0.01, 0.01, 0.05):
        assert best < mean_sq_distance(line.slope + delta)
    # principal axis of the covariance matrix
    values, vectors = np.linalg.eigh(np.cov(x, y, bias=True))
    axis = vectors[:, np.argmax(values)]
    assert line.slope == pytest.approx(axis[1] / axis[0])
    # equal variances (z-scores): slope ±1 and E = σ²(1 - |r|) (Eq. 6.5)
    zx, zy = (x - x.mean()) / x.std(), -(y - y.mean()) / y.std()
    z_line = regression_lines(zx, zy).orthogonal
    r = np.corrcoef(zx, zy)[0, 1]
    assert z_line.slope == pytest.approx(-1.0)
    assert np.mean((zy - z_line(zx)) ** 2) / 2 == pytest.approx(1 - abs(r))


def test_degenerate_regression_lines() -> None:
    lines = regression_lines([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    assert math.isnan(lines.y_on_x.slope)
    assert math.isinf(lines.x_on_y.slope)
    assert math.isinf(lines.orthogonal.slope)
    lines = regression_lines([1.0, 2.0, np.nan, 3.0], [2.0, 4.0, 5.0, 6.0])
    assert lines.y_on_x.slope == pytest.approx(2.0)
    with pytest.raises(CorrelationError):
        regression_lines([1.0], [2.0])
    with pytest.raises(CorrelationError):
        regression_lines([1.0, 2.0], [2.0])


def _two_measures(seed: int = 4, n: int = 2000):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    x1 = y + rng.normal(scale=1.0, size=n)
    x2 = 0.5 * y + rng.normal(scale=0.8, size=n) + 0.3 * (x1 - y)
    return x1, x2, y


def test_optimal_weights_equal_the_grid_maximum_and_the_ols_ratio() -> None:
    x1, x2, y = _two_measures()
    weights, r_max = optimal_weights(np.vstack([x1, x2]), y)
    w_grid, r_grid = combination_curve(x1, x2, y, points=10001)
    assert weights[0] == pytest.approx(w_grid[np.argmax(r_grid)], abs=1e-4)
    assert r_max == pytest.approx(r_grid.max(), abs=1e-8)
    # OLS of y on (x1, x2): beta1 / (beta1 + beta2)
    design = np.column_stack([np.ones_like(y), x1, x2])
    beta = np.linalg.lstsq(design, y, rcond=None)[0]
    assert weights[0] == pytest.approx(beta[1] / (beta[1] + beta[2]))
    # spec: w* = a / (a + b)
    c = np.cov(np.vstack([x1, x2, y]), bias=True)
    a = c[1, 1] * c[0, 2] - c[0, 1] * c[1, 2]
    b = c[0, 0] * c[1, 2] - c[0, 1] * c[0, 2]
    assert weights[0] == pytest.approx(a / (a + b))
    # r_max is the direct r of the combination, and the multiple correlation R
    combined = weights[0] * x1 + weights[1] * x2
    assert r_max == pytest.approx(np.corrcoef(combined, y)[0, 1])
    assert r_max == pytest.approx(np.corrcoef(design @ beta, y)[0, 1])
    assert combination_r(np.vstack([x1, x2]), y, weights) == pytest.approx(r_max)


def test_curve_is_sign_safe_and_matches_direct_r() -> None:
    x1, x2, y = _two_measures()
    w, r = combination_curve(x1, -x2 * 3, y, points=11)
    for wk, rk in zip(w, r, strict=True):
        direct = np.corrcoef(wk * x1 + (1 - wk) * (-3 * x2), y)[0, 1]
        assert rk == pytest.approx(direct)
    assert r[-1] > 0 and r[0] < 0  # Eq. 6.9's square root would have lost this sign


def test_collinear_measures_are_named() -> None:
    x1, x2, y = _two_measures()
    with pytest.raises(CorrelationError, match="bleu, chrf, ter are collinear"):
        optimal_weights(np.vstack([x1, x2, 2 * x1 - x2]), y, names=["bleu", "chrf", "ter"])
    rng = np.random.default_rng(0)
    with pytest.raises(CorrelationError, match="measure 0, measure 2 are collinear"):
        optimal_weights(np.vstack([x1, rng.normal(size=x1.size), 3 * x1]), y)
    with pytest.raises(CorrelationError, match="collinear"):
        optimal_weights(np.vstack([x1, x1]), y)


def test_cross_validated_r_leaves_systems_out() -> None:
    rng = np.random.default_rng(2)
    systems = np.repeat(np.arange(6), 50)
    y = rng.normal(size=300) + systems * 0.2
    x = np.vstack([y + rng.normal(size=300), y + rng.normal(scale=2, size=300)])
    r_cv = cross_validated_r(x, y, systems)
    # by hand: fit OLS without system s, predict system s, pool
    predicted = np.empty(300)
    for s in range(6):
        train, test = systems != s, systems == s
        design = np.column_stack([np.ones(train.sum()), x[:, train].T])
        beta = np.linalg.lstsq(design, y[train], rcond=None)[0]
        predicted[test] = beta[0] + x[:, test].T @ beta[1:]
    assert r_cv == pytest.approx(np.corrcoef(predicted, y)[0, 1])
    _, r_in = optimal_weights(x, y)
    assert r_cv <= r_in + 1e-12  # held-out r does not exceed the in-sample optimum here
    three = cross_validated_r(x, y, systems, folds=3)
    assert -1 <= three <= 1
    cells = cross_validated_r(x, y, None, folds=5)
    assert -1 <= cells <= 1
    with pytest.raises(CorrelationError):
        cross_validated_r(x, y, np.zeros(300))
