"""Per-group values of every coefficient, optionally for B weight vectors at once.

The public functions (:mod:`.core`, :mod:`.bootstrap`, :mod:`.comparison`) call
:func:`group_values` and average the groups with :func:`aggregate`. Without weights the
values are exact two-pass statistics (Pearson as scipy computes it, pair counts exactly);
with weights (bootstrap multiplicities) Pearson comes from weighted sums of centred scores and
the pair statistics from the weighted pair counts of :mod:`._pairs`, both equal to the
statistic of the materialised resample.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.stats import rankdata

from ._pairs import pair_counts, pair_values
from .coefficients import KENDALL_FAMILY

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def _constant(values: FloatArray, valid: BoolArray) -> BoolArray:
    """Exactly constant over the valid cells (max == min), along the last axis."""
    high = np.where(valid, values, -np.inf).max(axis=-1)
    low = np.where(valid, values, np.inf).min(axis=-1)
    return high == low


def pearson_exact(
    hy: FloatArray, mx: FloatArray, valid: BoolArray
) -> tuple[FloatArray, FloatArray]:
    """Pearson's r per (measure, group) over the valid cells: (r (M, G), cells (M, G)).

    Two-pass population moments, r = σ_xy / (σ_x σ_y) (spec §2.2), clipped to [-1, 1]. NaN
    with fewer than two cells or when either vector is exactly constant: a constant vector
    whose floating mean is inexact would otherwise give r ≈ ±1e-17 instead of NaN
    (mt-metrics-eval forces NaN the same way).
    """
    return _pearson_pair(np.broadcast_to(hy, mx.shape), mx, valid)


def spearman_exact(
    hy: FloatArray, mx: FloatArray, valid: BoolArray
) -> tuple[FloatArray, FloatArray]:
    """Spearman's ρ per (measure, group): Pearson's r of mid-ranks (ties averaged), as scipy."""
    y = np.where(valid, np.broadcast_to(hy, mx.shape), np.nan)
    x = np.where(valid, mx, np.nan)
    rx = rankdata(x, axis=-1, nan_policy="omit")
    ry = rankdata(y, axis=-1, nan_policy="omit")
    return _pearson_pair(ry, rx, valid)


def _pearson_pair(y: FloatArray, x: FloatArray, valid: BoolArray) -> tuple[FloatArray, FloatArray]:
    """:func:`pearson_exact` with a human array of the metric's shape."""
    n = valid.sum(axis=-1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_x = np.where(valid, x, 0.0).sum(axis=-1) / n
        mean_y = np.where(valid, y, 0.0).sum(axis=-1) / n
        dx = np.where(valid, x - mean_x[..., None], 0.0)
        dy = np.where(valid, y - mean_y[..., None], 0.0)
        r = (dx * dy).sum(axis=-1) / np.sqrt((dx * dx).sum(axis=-1) * (dy * dy).sum(axis=-1))
    undefined = (n < 2) | _constant(x, valid) | _constant(y, valid)
    return np.where(undefined, np.nan, np.clip(r, -1.0, 1.0)), n


def _dense_ranks(values: FloatArray) -> FloatArray:
    """Dense ranks 0, 1, ... of equal values along the last axis (NaN: arbitrary ranks)."""
    order = np.argsort(values, axis=-1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=-1)
    step = np.zeros(values.shape, dtype=np.float64)
    step[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ranks = np.empty_like(step)
    np.put_along_axis(ranks, order, np.cumsum(step, axis=-1), axis=-1)
    return ranks


def pearson_weighted(
    hy: FloatArray, mx: FloatArray, valid: BoolArray, weights: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Pearson's r of the materialised resamples: (r (B, M, G), units (B, M, G)).

    ``weights`` (B, G, L) are cell multiplicities, or (B, 1, L) when every group has the same. The sums Σw, Σwx, Σwy, Σwx², Σwy², Σwxy of
    scores centred on each group's plain mean are batched matrix products. A resample is
    constant exactly when the weighted variance of the dense ranks of its values is 0; that
    variance is computed in integers (exact in float64), so constant resamples give NaN.
    """
    measures, groups, length = mx.shape
    y = np.broadcast_to(hy, mx.shape)
    v = valid.astype(np.float64)
    n = v.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        cx = np.where(valid, mx - (np.where(valid, mx, 0.0).sum(-1) / n)[..., None], 0.0)
        cy = np.where(valid, y - (np.where(valid, y, 0.0).sum(-1) / n)[..., None], 0.0)
    rx = np.where(valid, _dense_ranks(np.where(valid, mx, np.inf)), 0.0)
    ry = np.where(valid, _dense_ranks(np.where(valid, y, np.inf)), 0.0)
    stacked = np.stack([v, cx, cy, cx * cx, cy * cy, cx * cy, rx, rx * rx, ry, ry * ry])
    draws = weights.shape[0]
    if weights.shape[1] == 1:
        # The same weights in every group: one product (B, L) @ (L, 10·M·G).
        flat = stacked.transpose(3, 0, 1, 2).reshape(length, -1)
        sums = (weights[:, 0, :] @ flat).reshape(draws, 10, measures, groups).transpose(1, 0, 2, 3)
    else:
        # (10, M, G, L) -> (G, L, 10·M); weights (B, G, L) -> (G, B, L).
        per_group = stacked.transpose(2, 3, 0, 1).reshape(groups, length, -1)
        w = np.ascontiguousarray(weights.transpose(1, 0, 2))
        sums = np.matmul(w, per_group)  # (G, B, 10·M)
        sums = sums.reshape(groups, draws, 10, measures).transpose(2, 1, 3, 0)
    sw, sx, sy, sxx, syy, sxy, srx, srxx, sry, sryy = sums  # each (B, M, G)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (sw * sxy - sx * sy) / np.sqrt((sw * sxx - sx * sx) * (sw * syy - sy * sy))
    constant = (sw * srxx - srx * srx == 0) | (sw * sryy - sry * sry == 0)
    return np.where((sw < 2) | constant, np.nan, np.clip(r, -1.0, 1.0)), sw


def group_values(
    name: str,
    hy: FloatArray,
    mx: FloatArray,
    valid: BoolArray,
    *,
    epsilon: FloatArray | None = None,
    threshold: float | None = None,
    weights: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """(values, n), each (B, M, G) with B = 1 without weights; NaN values where undefined.

    ``n`` counts cells for Pearson and Spearman, pairs for the pair statistics (for
    Kendall-like the pairs reaching the threshold). Spearman and PCE take no weights.
    """
    if name == "pearson":
        if weights is None:
            r, n = pearson_exact(hy, mx, valid)
            return r[None], n[None]
        return pearson_weighted(hy, mx, valid, weights)
    if name == "spearman":
        if weights is not None:  # pragma: no cover - guarded by the callers
            raise ValueError("spearman takes no weights")
        r, n = spearman_exact(hy, mx, valid)
        return r[None], n[None]
    if name in KENDALL_FAMILY:
        if name in ("kendall-like", "kendall-c", "accuracy"):
            epsilon = None
        counts = pair_counts(
            hy,
            mx,
            valid,
            epsilon=epsilon,
            threshold=threshold if name == "kendall-like" else None,
            weights=weights,
        )
        return pair_values(name, counts)
    raise ValueError(name)  # pragma: no cover - guarded by the callers


def aggregate(
    values: FloatArray, n: FloatArray, *, weighted: bool
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Average groups: (value, n, groups used), each (B, M), from (B, M, G) arrays.

    Groups with a NaN value are left out (mt-metrics-eval ``replace_nans_with_zeros=False``);
    ``weighted`` weights each group by its n (mt-metrics-eval ``macro=False``), and then a group
    with n = 0 is not used either. NaN where no group is used.
    """
    used = np.isfinite(values)
    if weighted:
        used &= n > 0
    safe = np.where(used, values, 0.0)
    weight = np.where(used, n if weighted else 1.0, 0.0)
    total = weight.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(total > 0, (safe * weight).sum(axis=-1) / total, np.nan)
    return mean, np.where(used, n, 0.0).sum(axis=-1), used.sum(axis=-1).astype(np.float64)
