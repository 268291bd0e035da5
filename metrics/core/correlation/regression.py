"""The three regression lines of a scatter plot of metric (x) against human (y) scores.

Thesis spec ``human-eval-and-correlation.md`` §2.3–2.4, population moments (Eqs. C.6–C.9):

* OLS of Y on X (vertical errors): slope β = σ_xy/σ_xx, through (μ_x, μ_y); its mean squared
  error is σ_yy(1 − r²) (Eq. 6.3).
* OLS of X on Y (horizontal errors): x = μ_x + (σ_xy/σ_yy)(y − μ_y), drawn in the (x, y)
  plane as y = μ_y + (σ_yy/σ_xy)(x − μ_x); its mean squared error is σ_xx(1 − r²) (Eq. 6.4).
* least orthogonal squares (total least squares, perpendicular errors): slope
  [σ_yy − σ_xx + √((σ_yy − σ_xx)² + 4σ_xy²)] / (2σ_xy) through (μ_x, μ_y); with equal
  variances it is ±1 and its mean squared distance σ_xx(1 − |r|) (Eq. 6.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .errors import CorrelationError


@dataclass(frozen=True)
class Line:
    """y = slope·x + intercept. A vertical line has slope ±inf and intercept NaN."""

    slope: float
    intercept: float

    def __call__(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        return self.slope * np.asarray(x, dtype=np.float64) + self.intercept


@dataclass(frozen=True)
class RegressionLines:
    """The three lines of :func:`regression_lines`, all in the (x, y) plane."""

    y_on_x: Line
    x_on_y: Line
    orthogonal: Line


def _through(slope: float, mx: float, my: float) -> Line:
    if math.isinf(slope):
        return Line(slope, math.nan)
    return Line(slope, my - slope * mx)


def regression_lines(x: npt.ArrayLike, y: npt.ArrayLike) -> RegressionLines:
    """OLS Y|X, OLS X|Y and least-orthogonal-squares lines of metric x and human y (module doc).

    Pairs where either value is NaN are left out. Degenerate cases: constant x makes Y|X
    undefined (NaN line) and X|Y vertical; constant y the reverse; σ_xy = 0 makes the X|Y line
    vertical and the orthogonal line horizontal (σ_xx > σ_yy), vertical (σ_yy > σ_xx) or
    undefined (equal variances: every direction fits equally, NaN).

    Raises:
        CorrelationError: x and y of different shapes, or fewer than two usable pairs.
    """
    xa = np.asarray(x, dtype=np.float64).ravel()
    ya = np.asarray(y, dtype=np.float64).ravel()
    if xa.shape != ya.shape:
        raise CorrelationError(f"x and y differ in length: {xa.size} and {ya.size}")
    keep = np.isfinite(xa) & np.isfinite(ya)
    xa, ya = xa[keep], ya[keep]
    if xa.size < 2:
        raise CorrelationError("regression lines need at least two pairs of scores")
    mx, my = float(xa.mean()), float(ya.mean())
    dx, dy = xa - mx, ya - my
    sxx, syy, sxy = float(dx @ dx) / xa.size, float(dy @ dy) / xa.size, float(dx @ dy) / xa.size
    nan_line = Line(math.nan, math.nan)
    y_on_x = _through(sxy / sxx, mx, my) if sxx > 0 else nan_line
    if syy <= 0:
        x_on_y = nan_line
    elif sxy == 0:
        x_on_y = Line(math.inf, math.nan)
    else:
        x_on_y = _through(syy / sxy, mx, my)
    if sxy != 0:
        slope = (syy - sxx + math.sqrt((syy - sxx) ** 2 + 4.0 * sxy * sxy)) / (2.0 * sxy)
        orthogonal = _through(slope, mx, my)
    elif sxx > syy:
        orthogonal = _through(0.0, mx, my)
    elif syy > sxx:
        orthogonal = Line(math.inf, math.nan)
    else:
        orthogonal = nan_line
    return RegressionLines(y_on_x=y_on_x, x_on_y=x_on_y, orthogonal=orthogonal)
