"""Compiled kernels of the PERM-BOTH permutation test (:mod:`.comparison`).

Each draw swaps the z-normalised scores of two measures i and j in a random half of the cells:
hybrid 1 takes z_i where the draw's bit is 1 and z_j elsewhere, hybrid 2 the opposite. The
kernels return the coefficient of both hybrids for every draw, averaged over the groups as
:func:`._values.aggregate` does; where no group is defined the value is 0, as in
mt-metrics-eval's ``PermutationSigDiff`` (``np.average`` of nothing is replaced by 0).

* :func:`pearson_draws`: Pearson's r is a function of Σz, Σz², Σzy and the fixed human sums,
  each linear in the bits (z_i and z_j never mix within a cell), so the per-group sums of every
  measure are one batched matrix product per block of draws, shared by all pairs; the kernel
  turns them into r per group and pair. A hybrid whose variance is below 1e-12 of its
  second moment counts as constant (NaN).

The pair statistics of hybrids are counted by the weighted kernel of :mod:`._pairs` over
doubled cells (:class:`.comparison._SwapTester`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..compiled import compiled

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@compiled
def pearson_draws(  # pragma: no cover - compiled
    pairs: IntArray,
    sa: FloatArray,
    sq: FloatArray,
    sp: FloatArray,
    ta: FloatArray,
    tq: FloatArray,
    tp: FloatArray,
    n: FloatArray,
    sy: FloatArray,
    syy: FloatArray,
    gok: npt.NDArray[np.bool_],
    weighted: bool,
) -> tuple[FloatArray, FloatArray]:
    """Mean Pearson r over groups of both hybrids, per pair and draw: two (P, k) arrays.

    ``sa``, ``sq``, ``sp`` (M, k, G): per draw and group Σ bit·z, Σ bit·z², Σ bit·z·y of each
    measure; ``ta``, ``tq``, ``tp`` (M, G) the same sums over all cells; ``n``, ``sy``, ``syy``
    (G) the cells and human sums; ``gok`` groups with n >= 2 and non-constant human scores.
    """
    npairs = pairs.shape[0]
    draws = sa.shape[1]
    groups = sa.shape[2]
    out1 = np.zeros((npairs, draws))
    out2 = np.zeros((npairs, draws))
    for p in range(npairs):
        i = pairs[p, 0]
        j = pairs[p, 1]
        for b in range(draws):
            s1 = 0.0
            w1 = 0.0
            s2 = 0.0
            w2 = 0.0
            for g in range(groups):
                if not gok[g]:
                    continue
                ng = n[g]
                vy = ng * syy[g] - sy[g] * sy[g]
                x1 = sa[i, b, g] - sa[j, b, g] + ta[j, g]
                q1 = sq[i, b, g] - sq[j, b, g] + tq[j, g]
                c1 = sp[i, b, g] - sp[j, b, g] + tp[j, g]
                x2 = ta[i, g] + ta[j, g] - x1
                q2 = tq[i, g] + tq[j, g] - q1
                c2 = tp[i, g] + tp[j, g] - c1
                wg = ng if weighted else 1.0
                v1 = ng * q1 - x1 * x1
                if v1 > 1e-12 * ng * q1:
                    s1 += wg * (ng * c1 - x1 * sy[g]) / math.sqrt(v1 * vy)
                    w1 += wg
                v2 = ng * q2 - x2 * x2
                if v2 > 1e-12 * ng * q2:
                    s2 += wg * (ng * c2 - x2 * sy[g]) / math.sqrt(v2 * vy)
                    w2 += wg
            out1[p, b] = s1 / w1 if w1 > 0 else 0.0
            out2[p, b] = s2 / w2 if w2 > 0 else 0.0
    return out1, out2
