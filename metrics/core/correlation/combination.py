"""Linear combinations of measures that maximise Pearson's r with the human scores.

Thesis spec ``human-eval-and-correlation.md`` §2.5 (thesis §6.1.4, proof C.3, §8.12): r of the
combination X_w = wᵀX depends only on covariances,

    r(w) = wᵀσ_Y / √(wᵀΣw · σ_YY)

(Σ the covariance matrix of the measures, σ_Y their covariances with Y, population moments),
and by Cauchy–Schwarz it is maximal for w* ∝ Σ⁻¹σ_Y — the OLS coefficients of Y on the
measures — where it is the multiple correlation R = √(σ_Yᵀ Σ⁻¹ σ_Y / σ_YY). The thesis warns
that weights tuned on test data over-fit: :func:`cross_validated_r` scores weights on data they
were not fitted on.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .errors import CorrelationError

FloatArray = npt.NDArray[np.float64]

COLLINEAR_TOLERANCE = 1e-10
"""Σ counts as singular when its smallest eigenvalue is below this share of the largest."""


def _clean(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64).ravel()
    if xa.ndim == 1:
        xa = xa[None, :]
    if xa.ndim != 2 or xa.shape[1] != ya.size:
        raise CorrelationError(
            f"measures must be (M, N) and human scores (N,): got {xa.shape} and {ya.shape}"
        )
    keep = np.isfinite(ya) & np.all(np.isfinite(xa), axis=0)
    return xa[:, keep], ya[keep]


def _moments(xa: FloatArray, ya: FloatArray) -> tuple[FloatArray, FloatArray, float]:
    dx = xa - xa.mean(axis=1, keepdims=True)
    dy = ya - ya.mean()
    n = ya.size
    return (dx @ dx.T) / n, (dx @ dy) / n, float(dy @ dy) / n


def _solve(sigma: FloatArray, sigma_y: FloatArray, names: list[str] | None) -> FloatArray:
    """Σ⁻¹σ_Y; a CorrelationError naming the collinear measures when Σ is singular."""
    values, vectors = np.linalg.eigh(sigma)
    top = float(values.max()) if values.size else 0.0
    if top <= 0:
        raise CorrelationError("every measure is constant: no combination is defined")
    small = values <= COLLINEAR_TOLERANCE * top
    if np.any(small):
        involved = np.flatnonzero(np.any(np.abs(vectors[:, small]) > 1e-6, axis=1))
        labels = [names[k] if names else f"measure {k}" for k in involved]
        raise CorrelationError(
            "the measures' covariance matrix is singular: "
            f"{', '.join(labels)} are collinear (or constant); drop one of them"
        )
    return np.linalg.solve(sigma, sigma_y)


def optimal_weights(
    x: npt.ArrayLike, y: npt.ArrayLike, *, names: list[str] | None = None
) -> tuple[FloatArray, float]:
    """Correlation-optimal weights w* and the maximal r (module docstring).

    Args:
        x: (M, N) scores of M measures on N cells (segments, or systems).
        y: (N,) human scores. Cells with a NaN anywhere are left out (listwise).
        names: measure names for the error message.

    Returns:
        (w*, r_max): w* = Σ⁻¹σ_Y scaled to Σ|w_i| = 1 (any positive multiple gives the same
        r; with two weights of the same sign this is the thesis' w and 1 - w, w = a/(a+b) of
        spec §2.5, equal to the OLS ratio β₁/(β₁+β₂)); r_max = √(σ_Yᵀ Σ⁻¹ σ_Y / σ_YY), the
        multiple correlation coefficient.

    Raises:
        CorrelationError: bad shapes, fewer than M + 2 usable cells, constant human scores, or
            a singular Σ — collinear measures, named in the message (no least-squares
            fallback: with collinear measures the optimum is not unique).
    """
    xa, ya = _clean(x, y)
    if ya.size < xa.shape[0] + 2:
        raise CorrelationError(f"{ya.size} usable cells are too few to fit {xa.shape[0]} weights")
    sigma, sigma_y, syy = _moments(xa, ya)
    if syy <= 0:
        raise CorrelationError("the human scores are constant: r is undefined")
    beta = _solve(sigma, sigma_y, names)
    r_max = float(np.sqrt(max(float(sigma_y @ beta), 0.0) / syy))
    norm = float(np.abs(beta).sum())
    if norm == 0:
        raise CorrelationError("no measure covaries with the human scores")
    return beta / norm, r_max


def combination_r(x: npt.ArrayLike, y: npt.ArrayLike, weights: npt.ArrayLike) -> float:
    """r(w) = wᵀσ_Y / √(wᵀΣw · σ_YY) of the combination wᵀX (Eqs. 6.10–6.15)."""
    xa, ya = _clean(x, y)
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size != xa.shape[0]:
        raise CorrelationError(f"{w.size} weights for {xa.shape[0]} measures")
    sigma, sigma_y, syy = _moments(xa, ya)
    denominator = float(w @ sigma @ w) * syy
    return float(w @ sigma_y) / np.sqrt(denominator) if denominator > 0 else float("nan")


def combination_curve(
    x1: npt.ArrayLike, x2: npt.ArrayLike, y: npt.ArrayLike, points: int = 101
) -> tuple[FloatArray, FloatArray]:
    """r of X_w = w·X₁ + (1 − w)·X₂ over a grid of w in [0, 1] (Eqs. 6.6–6.9, Figure 8.1).

    With the sign-safe form of Eq. 6.9 (spec §2.5): r(w) = (wσ₁Y + (1 − w)σ₂Y) /
    √(σ_{X_wX_w} σ_YY), σ_{X_wX_w} = w²σ₁₁ + 2w(1 − w)σ₁₂ + (1 − w)²σ₂₂. Returns (w, r(w)),
    each (points,); NaN where X_w is constant.
    """
    if points < 2:
        raise CorrelationError("points must be >= 2")
    xa, ya = _clean(np.vstack([np.ravel(x1), np.ravel(x2)]), y)
    sigma, sigma_y, syy = _moments(xa, ya)
    w = np.linspace(0.0, 1.0, points)
    v = 1.0 - w
    var = w * w * sigma[0, 0] + 2 * w * v * sigma[0, 1] + v * v * sigma[1, 1]
    cov = w * sigma_y[0] + v * sigma_y[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(var * syy > 0, cov / np.sqrt(var * syy), np.nan)
    return w, r


def cross_validated_r(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    groups: npt.ArrayLike | None,
    folds: int | None = None,
) -> float:
    """Pearson r of out-of-fold predictions of the optimal combination.

    Each fold holds out some cells; on the others the OLS fit y ≈ α + βᵀx is made (β = Σ⁻¹σ_Y,
    the optimal direction; α = μ_y − βᵀμ_x) and applied to the held-out cells. The out-of-fold
    predictions of all folds are pooled and correlated with y (Pearson). Pooling predictions,
    not averaging per-fold r, keeps small folds from dominating and puts every fold's
    predictions on the human scale (the OLS intercept and scale), so they are comparable.

    Folds: ``folds=None`` leaves one group out at a time (``groups`` = system labels, so the
    weights never see the held-out system; spec §2.5's warning against training on test data);
    ``folds=k`` deals the distinct group labels, in sorted order, round robin into k folds
    (``groups=None``: each cell is its own group, dealt by position). Deterministic.

    Args:
        x: (M, N) measure scores; y: (N,) human scores; groups: (N,) labels or None.
        folds: None for leave-one-group-out, or the number of folds (>= 2).

    Raises:
        CorrelationError: bad shapes, fewer than 2 folds, or a training part where
            :func:`optimal_weights` fails (too few cells, collinear measures).
    """
    predicted = cross_validated_predictions(x, y, groups, folds)
    ya = np.asarray(y, dtype=np.float64).ravel()
    keep = np.isfinite(predicted)
    dp = predicted[keep] - predicted[keep].mean()
    dy = ya[keep] - ya[keep].mean()
    denominator = float(np.sqrt((dp @ dp) * (dy @ dy)))
    return float(dp @ dy) / denominator if denominator > 0 else float("nan")


def cross_validated_predictions(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    groups: npt.ArrayLike | None,
    folds: int | None = None,
) -> FloatArray:
    """The out-of-fold predictions of :func:`cross_validated_r`, (N,), NaN for cells left out
    (a missing human or measure score): the combined measure as a measure of its own, for
    significance tests against single measures."""
    xa = np.asarray(x, dtype=np.float64)
    if xa.ndim == 1:
        xa = xa[None, :]
    ya = np.asarray(y, dtype=np.float64).ravel()
    if xa.ndim != 2 or xa.shape[1] != ya.size:
        raise CorrelationError(f"measures must be (M, N) and y (N,): got {xa.shape}, {ya.shape}")
    labels = np.arange(ya.size) if groups is None else np.asarray(groups).ravel()
    if labels.size != ya.size:
        raise CorrelationError("groups must have one label per cell")
    keep = np.isfinite(ya) & np.all(np.isfinite(xa), axis=0)
    xa, ya, labels = xa[:, keep], ya[keep], labels[keep]
    distinct, which = np.unique(labels, return_inverse=True)
    if folds is None:
        fold_of = which
        count = distinct.size
    else:
        if folds < 2:
            raise CorrelationError("folds must be >= 2")
        fold_of = which % folds
        count = folds
    if count < 2:
        raise CorrelationError("cross-validation needs at least two folds (groups)")
    predicted = np.full(ya.size, np.nan)
    for fold in range(count):
        test = fold_of == fold
        if not test.any():
            continue
        train = ~test
        xt, yt = xa[:, train], ya[train]
        if yt.size < xa.shape[0] + 2:
            raise CorrelationError(f"fold {fold}: too few training cells ({yt.size})")
        sigma, sigma_y, syy = _moments(xt, yt)
        if syy <= 0:
            raise CorrelationError(f"fold {fold}: constant human scores in the training part")
        beta = _solve(sigma, sigma_y, None)
        alpha = yt.mean() - beta @ xt.mean(axis=1)
        predicted[test] = alpha + beta @ xa[:, test]
    result = np.full(keep.size, np.nan)
    result[keep] = predicted
    return result
