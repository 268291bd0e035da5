"""Independent O(N²) definitions, written from the specs pair by pair, for the tests.

Nothing here shares code with ``metrics.core.correlation``: every pair of cells is classified
with plain Python comparisons, exactly as the definitions read (spec ``meta-evaluation.md``,
thesis spec §2.7, mt-metrics-eval ``KendallLike``/``KendallVariants``/``Agreement``).
"""

from __future__ import annotations

import itertools
import math


def counts(x: list[float], y: list[float], epsilon: float = 0.0) -> dict[str, int]:
    """C, D, T_x (x-only), T_y (y-only), T_xy and M of metric x against human y."""
    c = d = tx = ty = txy = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        x_tie = abs(dx) <= epsilon
        y_tie = dy == 0
        if x_tie and y_tie:
            txy += 1
        elif x_tie:
            tx += 1
        elif y_tie:
            ty += 1
        elif (dx > 0) == (dy > 0):
            c += 1
        else:
            d += 1
    return {"C": c, "D": d, "Tx": tx, "Ty": ty, "Txy": txy, "M": c + d + tx + ty + txy}


def tau_a(x, y) -> float:
    k = counts(x, y)
    return (k["C"] - k["D"]) / k["M"] if k["M"] else math.nan


def tau_b(x, y, epsilon: float = 0.0) -> float:
    k = counts(x, y, epsilon)
    xt, yt = k["Tx"] + k["Txy"], k["Ty"] + k["Txy"]
    if k["M"] == 0 or xt == k["M"] or yt == k["M"]:
        return math.nan
    return (k["C"] - k["D"]) / math.sqrt((k["M"] - xt) * (k["M"] - yt))


def tau_c(x, y) -> float:
    k = counts(x, y)
    xt, yt = k["Tx"] + k["Txy"], k["Ty"] + k["Txy"]
    m = min(len(set(x)), len(set(y)))
    if k["M"] == 0 or xt == k["M"] or yt == k["M"] or m < 2:
        return math.nan
    n = len(x)
    return 2 * (k["C"] - k["D"]) / (n * n * (m - 1) / m)


def acc23(x, y, epsilon: float = 0.0) -> float:
    k = counts(x, y, epsilon)
    return (k["C"] + k["Txy"]) / k["M"] if k["M"] else math.nan


def tau23(x, y, epsilon: float = 0.0) -> float:
    k = counts(x, y, epsilon)
    if not k["M"]:
        return math.nan
    return (k["C"] + k["Txy"] - k["D"] - k["Tx"] - k["Ty"]) / k["M"]


def kendall_like(x, y, threshold: float = 0.0) -> tuple[float, int]:
    """(value, pairs): |y diff| >= threshold; concordant only with strict same direction."""
    conc = disc = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        diff = y[i] - y[j]
        if abs(diff) >= threshold:
            if (diff > 0 and x[i] > x[j]) or (diff < 0 and x[i] < x[j]):
                conc += 1
            else:
                disc += 1
    pairs = conc + disc
    return ((conc - disc) / pairs if pairs else 0.0), pairs


def agreement(x, y) -> tuple[int, int]:
    """Pairs with sign(metric diff) == sign(human diff), and all pairs."""
    sign = lambda v: (v > 0) - (v < 0)  # noqa: E731
    agree = total = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        agree += sign(x[i] - x[j]) == sign(y[i] - y[j])
        total += 1
    return agree, total


def candidate_epsilons(x) -> list[float]:
    """0 and every |x_i - x_j|: the thresholds mt-metrics-eval's tie calibration tries."""
    values = {0.0}
    for i, j in itertools.combinations(range(len(x)), 2):
        values.add(abs(x[i] - x[j]))
    return sorted(values)
