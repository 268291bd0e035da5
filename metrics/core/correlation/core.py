"""``correlate``: how well each automatic measure agrees with human scores.

Layout (package docstring): human scores (S, K), metric scores (M, S, K); system level is
K = 1. Cells where the human score or that measure's score is NaN are left out pairwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ._layout import as_inputs, coefficient_for, grouped, valid_cells
from ._values import aggregate, group_values
from .coefficients import CALIBRATED_COEFFICIENTS, EPSILON_COEFFICIENTS
from .errors import CorrelationError
from .pce import pce_correlations
from .results import Correlations
from .ties import calibrate

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def epsilon_option(
    coefficient: str, epsilon: float | npt.ArrayLike | None, calibrate_ties: bool, measures: int
) -> FloatArray | None:
    """The fixed ε as an (M,) array, checked against the coefficient (None: no ε)."""
    if calibrate_ties:
        if coefficient not in CALIBRATED_COEFFICIENTS:
            raise CorrelationError(
                f"tie calibration is defined for {' and '.join(CALIBRATED_COEFFICIENTS)}, "
                f"not {coefficient}"
            )
        if epsilon is not None:
            raise CorrelationError("give either epsilon or calibrate_ties=True, not both")
        return None
    if epsilon is None:
        return None
    if coefficient not in EPSILON_COEFFICIENTS:
        raise CorrelationError(
            f"a tie threshold epsilon applies to {', '.join(EPSILON_COEFFICIENTS)}, "
            f"not {coefficient}"
        )
    eps = np.asarray(epsilon, dtype=np.float64)
    if eps.ndim == 0:
        eps = np.full(measures, float(eps))
    if eps.shape != (measures,):
        raise CorrelationError(f"epsilon must be a number or one per measure ({measures},)")
    if not np.all(np.isfinite(eps)) or np.any(eps < 0):
        raise CorrelationError("epsilon must be finite and >= 0")
    return eps


def threshold_option(coefficient: str, threshold: float | None) -> float:
    """Kendall-like's minimum |human difference| (default 0); an error for other coefficients."""
    if threshold is None:
        return 0.0
    if coefficient != "kendall-like":
        raise CorrelationError(f"threshold applies to kendall-like only, not {coefficient}")
    if not np.isfinite(threshold) or threshold < 0:
        raise CorrelationError("threshold must be finite and >= 0")
    return float(threshold)


def weighted_option(coefficient: str, weighted: bool | None) -> bool:
    """Pair-weighted mean of groups: by default for Kendall-like only (``Correlation.KendallLike``)."""
    return coefficient == "kendall-like" if weighted is None else bool(weighted)


OPTIONS = ("threshold", "epsilon", "calibrate_ties", "weighted")
"""The coefficient options every public function passes on (``**coefficient_options``)."""


def resolve_options(coefficient: str, measures: int, options: dict[str, Any]) -> dict[str, Any]:
    """Checked coefficient options: epsilon ((M,) or None), calibrate_ties, threshold, weighted."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise CorrelationError(
            f"unknown option(s) {', '.join(sorted(unknown))}; options are {', '.join(OPTIONS)}"
        )
    calibrate_ties = bool(options.get("calibrate_ties", False))
    return {
        "epsilon": epsilon_option(coefficient, options.get("epsilon"), calibrate_ties, measures),
        "calibrate_ties": calibrate_ties,
        "threshold": threshold_option(coefficient, options.get("threshold")),
        "weighted": weighted_option(coefficient, options.get("weighted")),
    }


def correlate(
    human: npt.ArrayLike,
    metrics: npt.ArrayLike,
    *,
    coefficient: str,
    grouping: str = "none",
    threshold: float | None = None,
    epsilon: float | npt.ArrayLike | None = None,
    calibrate_ties: bool = False,
    weighted: bool | None = None,
) -> Correlations:
    """Coefficient between the human scores and each measure's scores.

    Definitions (``COEFFICIENTS``; specs ``meta-evaluation.md`` and
    ``human-eval-and-correlation.md`` §2), all equal to mt-metrics-eval ``stats.Correlation``:

    * ``pearson``: r = σ_xy/(σ_x σ_y), population moments (scipy ``pearsonr``; MTME
      ``Pearson``); NaN for a constant vector (also one whose floating mean is inexact).
    * ``spearman``: Pearson of mid-ranks (scipy ``spearmanr``; MTME ``Spearman``).
    * ``kendall-a``: (C - D)/M, ties stay in M — the thesis' τ, and with ``grouping="item"``
      its τ̄ (a constant group gives 0, not NaN).
    * ``kendall-b``, ``kendall-c``: scipy ``kendalltau`` variants b and c (MTME ``Kendall`` /
      ``KendallVariants``); NaN when either vector is constant.
    * ``kendall-like``: WMT DARR Kendall-like (MTME ``KendallLike``): over the pairs with
      |human diff| >= ``threshold`` (default 0, WMT's setting for non-raw gold; 25 for raw DA),
      (Concordant - Discordant)/(C + D) where a metric tie is discordant — and since the test is
      ``>=``, at threshold 0 a pair tied in the human scores is counted, as discordant. A group
      with no such pair has value 0 (as MTME); groups are weighted by their pairs
      (``weighted=True``, ``Correlation.KendallLike``); ``weighted=False`` is the plain mean of
      the ``Task`` path.
    * ``tau23``, ``acc23`` (Deutsch et al. 2023; MTME ``KendallVariants(variant='23'|'acc23',
      epsilon)``): (C + T_xy - D - T_x - T_y)/M and (C + T_xy)/M, where a metric tie is
      |Δx| <= ``epsilon``. With ``calibrate_ties=True`` ε is searched per measure as MTME
      ``KendallWithTiesOpt(sample_rate=1.0)`` (:mod:`.ties`) — the WMT23/24 segment-level
      setting with ``grouping="item"``.
    * ``accuracy`` (system level, K = 1): share of system pairs with sign(metric diff) ==
      sign(human diff), ties agreeing with ties (Kocmi et al. 2021; MTME ``Agreement``). To
      pool language pairs as WMT does, sum ``values * n`` and ``n`` over them.
    * ``pce``: see :func:`.pce.pairwise_confidence_accuracy` (WMT24 system level; needs the
      segment matrices).

    Grouping (MTME ``average_by``): ``none`` pools every cell; ``item`` averages one value per
    item over the systems; ``system`` one per system over the items. Groups with fewer than two
    usable cells or an undefined (NaN) value are skipped and left out of the mean
    (``replace_nans_with_zeros=False``). ``weighted=True`` weights groups by their ``n``.

    Args:
        human: (S, K) human scores, NaN where missing.
        metrics: (M, S, K) metric scores, NaN where missing; higher must mean better on both
            (negate error measures first: the thesis' sign convention, spec §2.1).
        coefficient: a key of ``COEFFICIENTS``.
        grouping: one of ``GROUPINGS``.
        threshold: Kendall-like's minimum |human difference|.
        epsilon: metric tie threshold for kendall-a/b, tau23, acc23 (number or (M,)).
        calibrate_ties: search ε maximising acc23 (tau23/acc23 only).
        weighted: weight groups by n (default: True for kendall-like only).

    Raises:
        CorrelationError: bad shapes, unknown coefficient or grouping, a coefficient not defined
            at the level of the data, fewer than 3 systems at system level, bad options.
    """
    h, m = as_inputs(human, metrics)
    coefficient_for(coefficient, h, grouping)
    eps = epsilon_option(coefficient, epsilon, calibrate_ties, m.shape[0])
    thr = threshold_option(coefficient, threshold)
    use_weights = weighted_option(coefficient, weighted)
    if coefficient == "pce":
        return pce_correlations(h, m)
    hy, mx = grouped(h, m, grouping)
    valid = valid_cells(hy, mx)
    if calibrate_ties:
        eps = calibrate(hy, mx, valid, grouping=grouping)
    values, n = group_values(coefficient, hy, mx, valid, epsilon=eps, threshold=thr)
    values, n = values[0], n[0]
    mean, total, used = aggregate(values[None], n[None], weighted=use_weights)
    groups = hy.shape[0]
    return Correlations(
        coefficient=coefficient,
        grouping=grouping,
        values=mean[0],
        n=np.rint(total[0]).astype(np.int64),
        groups_used=used[0].astype(np.int64),
        groups_skipped=(groups - used[0]).astype(np.int64),
        epsilon=eps,
        group_values=None
        if grouping == "none"
        else np.where(np.isfinite(values) & ((n > 0) if use_weights else True), values, np.nan),
    )
