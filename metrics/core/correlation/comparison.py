"""Is measure A's correlation with the human scores significantly higher than measure B's?

* :func:`compare` with ``method="williams"``: Williams' test for two dependent Pearson
  correlations sharing the human variable (Graham & Baldwin 2014, D14-1020; mt-metrics-eval
  ``WilliamsSigDiff``/``WilliamsTest``), one-sided.
* :func:`compare` with ``method="permutation"``: PERM-BOTH (Deutsch et al. 2021, arXiv
  2104.00054; mt-metrics-eval ``PermutationSigDiff``) for every coefficient, and with
  ``perm_test="pairs"`` the pairwise variant for tie-calibrated acc23/τ23
  (``PairwisePermutationSigDiff``, the WMT23/24 segment-level setting).
* :func:`significance_clusters`: mt-metrics-eval's ``AssignRanks``.
"""

from __future__ import annotations

import functools
import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.stats import t as student_t

from ..resampling import DEFAULT_SEED
from ._layout import as_inputs, coefficient_for, grouped, valid_cells
from ._pairs import (
    PairCounts,
    Segments,
    count,
    kernel_weights,
    pair_values,
    partner_counts,
    prepare,
    raw_counts,
)
from ._permutation import (
    HYBRID_CODES,
    doubled_layout,
    hybrid_linear_terms,
    hybrid_means,
    pearson_draws,
)
from ._values import aggregate, group_values, pearson_exact
from .coefficients import KENDALL_FAMILY
from .core import resolve_options
from .errors import CorrelationError
from .ties import calibrate

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

METHODS = ("permutation", "williams")
PERM_TESTS = ("scores", "pairs")
SUB_BLOCK = 128
"""Draws per batched product in the Pearson test (bounds its memory)."""


def williams_p(r_a: FloatArray, r_b: FloatArray, r_ab: FloatArray, n: FloatArray) -> FloatArray:
    """One-sided p of Williams' test that r(human, A) > r(human, B) (Graham & Baldwin 2014).

    t = (r_a - r_b)·√((n-1)(1+r_ab)) / √(2(n-1)/(n-3)·|R| + ((r_a+r_b)/2)²(1-r_ab)³) with
    |R| = 1 - r_a² - r_b² - r_ab² + 2 r_a r_b r_ab, p = P(T_{n-3} >= t). mt-metrics-eval's
    ``WilliamsTest`` uses |t|, which equals this p whenever r_a >= r_b (the only case its
    significance matrix reads). Equal correlations give t = 0, p = 0.5.
    """
    det = 1.0 - r_a**2 - r_b**2 - r_ab**2 + 2.0 * r_a * r_b * r_ab
    mean = (r_a + r_b) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        num = (r_a - r_b) * np.sqrt((n - 1.0) * (1.0 + r_ab))
        den = np.sqrt(2.0 * (n - 1.0) / (n - 3.0) * det + mean**2 * (1.0 - r_ab) ** 3)
        t = np.where(r_a == r_b, 0.0, num / den)
    return np.where(n > 3, student_t.sf(t, n - 3.0), np.nan)


def _williams(hy: FloatArray, mx: FloatArray, valid: BoolArray) -> FloatArray:
    measures = mx.shape[0]
    p = np.full((measures, measures), np.nan)
    shared = np.all(valid == valid[:1], axis=tuple(range(1, valid.ndim)))
    if shared.all():
        # The usual case: every measure scored the same cells, so one product gives every
        # pair's r_ab at once instead of one pass over the data per pair.
        return _williams_shared(hy, mx, valid[0])
    for i, j in itertools.permutations(range(measures), 2):
        common = (valid[i] & valid[j])[None]
        r_a, n = pearson_exact(hy, mx[i : i + 1], common)
        r_b, _ = pearson_exact(hy, mx[j : j + 1], common)
        r_ab, _ = pearson_exact(mx[i], mx[j : j + 1], common)
        p[i, j] = williams_p(r_a[0, 0], r_b[0, 0], r_ab[0, 0], n[0, 0])
    return p


def _williams_shared(hy: FloatArray, mx: FloatArray, mask: BoolArray) -> FloatArray:
    """:func:`_williams` when every measure has the same valid cells ``mask``."""
    measures = mx.shape[0]
    r_h, n = pearson_exact(hy, mx, np.broadcast_to(mask, mx.shape))
    x = mx[:, mask]
    centred = x - x.mean(axis=1, keepdims=True)
    norms = np.sqrt((centred * centred).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        r_ab = np.clip((centred @ centred.T) / np.outer(norms, norms), -1.0, 1.0)
    r_a = np.repeat(r_h[:, :1], measures, axis=1)
    p = williams_p(r_a, r_a.T, r_ab, np.full((measures, measures), n[0, 0]))
    p[np.isnan(r_a) | np.isnan(r_a.T)] = np.nan
    np.fill_diagonal(p, np.nan)
    return p


def _zscore(values: FloatArray, mask: BoolArray) -> FloatArray:
    """z-scores over the masked cells (population sd, as scipy.stats.zscore); 0 elsewhere."""
    z = np.zeros(values.shape)
    picked = values[mask]
    if picked.size == 0:  # a measure with no usable cell (no sentence scores): nothing to test
        return z
    sd = picked.std()
    z[mask] = (picked - picked.mean()) / (sd if sd > 0 else 1.0)
    return z


class _PearsonTester:
    """Hybrid Pearson correlations from per-group sums that are linear in the draw bits."""

    def __init__(self, hy: FloatArray, mx: FloatArray, valid: BoolArray, weighted: bool) -> None:
        self.hy, self.mx, self.valid, self.weighted = hy, mx, valid, weighted
        self.uniform = bool(np.all(valid == valid[:1]))
        if self.uniform:
            self.state = self._prepare(list(range(mx.shape[0])), valid[0])

    def _prepare(self, measures: list[int], mask: BoolArray) -> dict[str, Any]:
        hy = np.where(mask, self.hy, 0.0)
        n = mask.sum(axis=1).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            centred = np.where(mask, hy - (hy.sum(axis=1) / n)[:, None], 0.0)
        constant = np.array(
            [n[g] < 2 or np.ptp(self.hy[g][mask[g]]) == 0 for g in range(mask.shape[0])]
        )
        z = np.stack([_zscore(self.mx[m], mask) for m in measures])  # (m, G, L)
        quantities = np.stack([z, z * z, z * centred])  # (3, m, G, L)
        return {
            "measures": {m: k for k, m in enumerate(measures)},
            "per_group": np.ascontiguousarray(quantities.transpose(2, 3, 0, 1)).reshape(
                mask.shape[0], mask.shape[1], -1
            ),
            "totals": quantities.sum(axis=-1),  # (3, m, G)
            "n": n,
            "sy": centred.sum(axis=1),
            "syy": (centred * centred).sum(axis=1),
            "gok": ~constant,
            "count": len(measures),
        }

    def _sums(self, state: dict[str, Any], bits: npt.NDArray[np.uint8]) -> FloatArray:
        groups, length = self.hy.shape
        draws = bits.shape[0]
        out = np.empty((3, state["count"], draws, groups))
        for lo in range(0, draws, SUB_BLOCK):
            w = bits[lo : lo + SUB_BLOCK].reshape(-1, groups, length).astype(np.float64)
            if groups == 1:
                sums = (w[:, 0, :] @ state["per_group"][0])[None]  # (1, k, 3m)
            else:
                sums = np.matmul(w.transpose(1, 0, 2), state["per_group"])  # (G, k, 3m)
            sums = sums.reshape(groups, -1, 3, state["count"]).transpose(2, 3, 1, 0)
            out[:, :, lo : lo + SUB_BLOCK, :] = sums
        return out

    def draws(
        self, pairs: list[tuple[int, int]], bits: npt.NDArray[np.uint8]
    ) -> tuple[FloatArray, FloatArray]:
        if self.uniform:
            return self._run(self.state, pairs, bits)
        first, second = [], []
        for i, j in pairs:
            state = self._prepare([i, j], self.valid[i] & self.valid[j])
            a, b = self._run(state, [(i, j)], bits)
            first.append(a[0])
            second.append(b[0])
        return np.array(first), np.array(second)

    def _run(
        self, state: dict[str, Any], pairs: list[tuple[int, int]], bits: npt.NDArray[np.uint8]
    ) -> tuple[FloatArray, FloatArray]:
        sums = self._sums(state, bits)
        index = np.array([[state["measures"][i], state["measures"][j]] for i, j in pairs])
        totals = state["totals"]
        return pearson_draws(
            index.astype(np.int64),
            sums[0],
            sums[1],
            sums[2],
            totals[0],
            totals[1],
            totals[2],
            state["n"],
            state["sy"],
            state["syy"],
            state["gok"],
            self.weighted,
        )


class _SwapTester:
    """Hybrid pair statistics by the weighted pair kernel over doubled cells.

    Each cell appears twice, once with z_i and once with z_j; hybrid 1 of a draw weighs the
    z_i copy with the draw's bit and the z_j copy with its complement, hybrid 2 the opposite.
    Two copies of one cell never both weigh 1, so the weighted counts are exactly those of the
    hybrid, and every draw of a block is one column of the kernel's weight matrix. For the
    coefficients of :data:`._permutation.HYBRID_CODES` hybrid 2 is derived from hybrid 1
    (:func:`._permutation.hybrid_means`), which halves the counting.
    """

    def __init__(
        self,
        name: str,
        hy: FloatArray,
        mx: FloatArray,
        valid: BoolArray,
        options: dict[str, Any],
    ) -> None:
        self.name, self.hy, self.mx, self.valid = name, hy, mx, valid
        self.threshold = options["threshold"] if name == "kendall-like" else None
        self.epsilon = options["epsilon"]
        self.weighted = options["weighted"]
        self.cache: dict[tuple[int, int], Segments] = {}
        self.units: dict[tuple[tuple[int, int], float | None], tuple[FloatArray, FloatArray]] = {}
        # Per-group orders of each measure's scores and of the human scores, shared by pairs.
        self.orders = np.argsort(mx, axis=2, kind="stable")
        self.hy_order = np.argsort(hy, axis=1, kind="stable")

    def _segments(self, i: int, j: int) -> Segments:
        if (i, j) not in self.cache:
            mask = self.valid[i] & self.valid[j]
            zi, zj = _zscore(self.mx[i], mask), _zscore(self.mx[j], mask)
            groups, length = self.hy.shape
            if self.threshold is None:
                seg_start, x, yrank, ny_seg, cell = doubled_layout(
                    zi, zj, self.orders[i], self.orders[j], self.hy, self.hy_order, mask
                )
                cut = np.zeros(x.shape[0], dtype=np.int64)
                segments = Segments(
                    1, groups, 2 * length, seg_start, x, yrank, ny_seg, cell, cut, False
                )
            else:  # Kendall-like needs each cell's threshold cut: the general preparation
                segments = prepare(
                    np.concatenate([self.hy, self.hy], axis=1),
                    np.concatenate([zi, zj], axis=1)[None],
                    np.concatenate([mask, mask], axis=1)[None],
                    threshold=self.threshold,
                )
            self.cache[(i, j)] = segments
        return self.cache[(i, j)]

    def _mean(self, counts: PairCounts) -> FloatArray:
        values, n = pair_values(self.name, counts)
        mean = aggregate(values, n, weighted=self.weighted)[0][:, 0]
        return np.where(np.isfinite(mean), mean, 0.0)

    def _values(self, segments: Segments, weights: FloatArray, eps: float | None) -> FloatArray:
        epsilon = None if eps is None else np.array([eps])
        return self._mean(count(segments, epsilon=epsilon, cell_weights=weights))

    def _both_hybrids(
        self,
        pair: tuple[int, int],
        hybrid1: FloatArray,
        bits: FloatArray,
        eps: float | None,
    ) -> tuple[FloatArray, FloatArray]:
        """Hybrid 1 counted; hybrid 2 (weights 1 - w) derived from it (``bits``: (G, B, L))."""
        segments = self._segments(*pair)
        epsilon = None if eps is None else np.array([eps])
        key = (pair, eps)
        if key not in self.units:
            groups, length = self.hy.shape
            self.units[key] = (
                raw_counts(segments, epsilon, kernel_weights(segments, None)),
                partner_counts(segments, epsilon)[0].reshape(groups, 2, length, 3),
            )
        units, partners = self.units[key]
        return hybrid_means(
            raw_counts(segments, epsilon, hybrid1, distinct_x=False),
            units,
            hybrid_linear_terms(partners, bits),
            HYBRID_CODES[self.name],
            bool(self.weighted),
        )

    def _pair_values(
        self,
        pair: tuple[int, int],
        hybrid1: FloatArray,
        hybrid2: FloatArray | None,
        bits64: FloatArray,
    ) -> tuple[FloatArray, FloatArray]:
        i, j = pair
        eps_i = None if self.epsilon is None else float(self.epsilon[i])
        eps_j = None if self.epsilon is None else float(self.epsilon[j])
        if self._derived(pair):
            return self._both_hybrids(pair, hybrid1, bits64, eps_i)
        # Each hybrid keeps the ε of the measure whose role it plays.
        assert hybrid2 is not None
        segments = self._segments(i, j)
        return self._values(segments, hybrid1, eps_i), self._values(segments, hybrid2, eps_j)

    def _derived(self, pair: tuple[int, int]) -> bool:
        """Whether hybrid 2 of ``pair`` is derived from hybrid 1 (same ε, coefficient known)."""
        if self.name not in HYBRID_CODES:
            return False
        return self.epsilon is None or self.epsilon[pair[0]] == self.epsilon[pair[1]]

    def draws(
        self, pairs: list[tuple[int, int]], bits: npt.NDArray[np.uint8]
    ) -> tuple[FloatArray, FloatArray]:
        groups, length = self.hy.shape
        one: list[list[FloatArray]] = [[] for _ in pairs]
        two: list[list[FloatArray]] = [[] for _ in pairs]
        for pair in pairs:  # prepared here, so the threads below only read the caches
            self._segments(*pair)
        workers = min(len(pairs), os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for lo in range(0, bits.shape[0], SUB_BLOCK):
                w = bits[lo : lo + SUB_BLOCK].reshape(-1, groups, length).astype(np.float32)
                # The weights depend on the draws only: laid out once for every pair.
                layout = self._segments(*pairs[0])
                hybrid1 = kernel_weights(layout, np.concatenate([w, 1 - w], axis=2))
                hybrid2 = None
                if not all(self._derived(pair) for pair in pairs):
                    hybrid2 = kernel_weights(layout, np.concatenate([1 - w, w], axis=2))
                bits64 = np.ascontiguousarray(w.transpose(1, 0, 2), dtype=np.float64)
                # The kernels release the GIL: pairs run on every core.
                values = functools.partial(
                    self._pair_values, hybrid1=hybrid1, hybrid2=hybrid2, bits64=bits64
                )
                results = pool.map(values, pairs)
                for k, (values_1, values_2) in enumerate(results):
                    one[k].append(values_1)
                    two[k].append(values_2)
        return (
            np.array([np.concatenate(parts) for parts in one]),
            np.array([np.concatenate(parts) for parts in two]),
        )


class _GenericTester:
    """Any coefficient: the hybrids are built and evaluated like measures (slow, general)."""

    def __init__(
        self,
        name: str,
        hy: FloatArray,
        mx: FloatArray,
        valid: BoolArray,
        grouping: str,
        options: dict[str, Any],
    ) -> None:
        self.name, self.hy, self.mx, self.valid = name, hy, mx, valid
        self.grouping, self.options = grouping, options

    def draws(
        self, pairs: list[tuple[int, int]], bits: npt.NDArray[np.uint8]
    ) -> tuple[FloatArray, FloatArray]:
        first, second = [], []
        groups, length = self.hy.shape
        for i, j in pairs:
            mask = self.valid[i] & self.valid[j]
            zi, zj = _zscore(self.mx[i], mask), _zscore(self.mx[j], mask)
            w = bits.reshape(-1, groups, length).astype(bool)
            stack = np.concatenate([np.where(w, zi, zj), np.where(w, zj, zi)])
            stack_valid = np.broadcast_to(mask, stack.shape)
            eps = self.options["epsilon"]
            if eps is not None:  # each hybrid keeps the ε of the measure whose role it plays
                eps = np.repeat([eps[i], eps[j]], w.shape[0])
            if self.options["calibrate_ties"]:
                eps = calibrate(self.hy, stack, stack_valid, grouping=self.grouping)
            values, n = group_values(
                self.name,
                self.hy,
                stack,
                stack_valid,
                epsilon=eps,
                threshold=self.options["threshold"],
            )
            mean = aggregate(values, n, weighted=self.options["weighted"])[0][0]
            mean = np.where(np.isfinite(mean), mean, 0.0)
            half = mean.size // 2
            first.append(mean[:half])
            second.append(mean[half:])
        return np.array(first), np.array(second)


class _PairsTester:
    """PairwisePermutationSigDiff: swap the two measures' verdicts on each pair of cells."""

    def __init__(
        self,
        name: str,
        hy: FloatArray,
        mx: FloatArray,
        valid: BoolArray,
        eps: FloatArray,
        weighted: bool,
    ) -> None:
        groups, length = hy.shape
        self.name, self.weighted = name, weighted
        ia, ib = np.triu_indices(length, 1)
        self.pair_count = ia.size
        dy = hy[:, ia] - hy[:, ib]  # (G, P)
        self.present = np.isfinite(dy)
        agree = []
        for m in range(mx.shape[0]):
            dx = mx[m][:, ia] - mx[m][:, ib]
            tie = np.abs(dx) <= eps[m]
            ok = (tie & (dy == 0)) | (~tie & (dx > 0) & (dy > 0)) | (~tie & (dx < 0) & (dy < 0))
            agree.append(np.where(np.isfinite(dx), ok, False))
        self.agree = np.stack(agree).astype(np.float64)  # (M, G, P)
        self.metric_ok = np.stack(
            [np.isfinite(mx[m][:, ia] - mx[m][:, ib]) for m in range(mx.shape[0])]
        )
        self.groups = groups

    def draws(
        self, pairs: list[tuple[int, int]], bits: npt.NDArray[np.uint8]
    ) -> tuple[FloatArray, FloatArray]:
        w = bits.reshape(-1, self.groups, self.pair_count).astype(np.float64)  # (k, G, P)
        first, second = [], []
        for i, j in pairs:
            usable = self.present & self.metric_ok[i] & self.metric_ok[j]
            total = usable.sum(axis=1).astype(np.float64)  # (G,)
            ai = np.where(usable, self.agree[i], 0.0)
            aj = np.where(usable, self.agree[j], 0.0)
            diff = ai - aj
            swap = np.einsum("kgp,gp->kg", w, diff)
            hybrid1 = swap + aj.sum(axis=1)  # agreements of hybrid 1 per draw and group
            hybrid2 = ai.sum(axis=1) + aj.sum(axis=1) - hybrid1
            result = []
            for agreements in (hybrid1, hybrid2):
                with np.errstate(invalid="ignore", divide="ignore"):
                    acc = agreements / total
                value = acc if self.name == "acc23" else 2.0 * acc - 1.0
                used = total > 0
                weight = np.where(used, total if self.weighted else 1.0, 0.0)
                mean = (np.where(used, value, 0.0) * weight).sum(axis=1) / max(weight.sum(), 1e-300)
                result.append(np.where(weight.sum() > 0, mean, 0.0))
            first.append(result[0])
            second.append(result[1])
        return np.array(first), np.array(second)


def _identity_bits(width: int) -> npt.NDArray[np.uint8]:
    return np.ones((1, width), dtype=np.uint8)


def _run(
    tester: Any,
    measures: int,
    width: int,
    *,
    samples: int,
    seed: int,
    block_size: int,
    early_min: float,
    early_max: float,
) -> FloatArray:
    """The permutation p-values of every ordered pair, with early stopping by blocks."""
    pairs = list(itertools.combinations(range(measures), 2))
    observed = {}
    if pairs:
        one, two = tester.draws(pairs, _identity_bits(width))
        for k, pair in enumerate(pairs):
            observed[pair] = float(one[k, 0] - two[k, 0])
    ge = dict.fromkeys(pairs, 0)
    le = dict.fromkeys(pairs, 0)
    done = dict.fromkeys(pairs, 0)
    active = list(pairs)
    rng = np.random.default_rng(seed)
    drawn = 0
    while active and drawn < samples:
        size = min(block_size, samples - drawn)
        bits = rng.integers(0, 2, size=(size, width), dtype=np.uint8)
        drawn += size
        one, two = tester.draws(active, bits)
        still = []
        for k, pair in enumerate(active):
            delta = one[k] - two[k]
            ge[pair] += int((delta >= observed[pair]).sum())
            le[pair] += int((delta <= observed[pair]).sum())
            done[pair] += size
            p_main = (ge[pair] if observed[pair] >= 0 else le[pair]) / done[pair]
            if not (p_main < early_min or p_main > early_max):
                still.append(pair)
        active = still
    p = np.full((measures, measures), np.nan)
    for i, j in pairs:
        p[i, j] = ge[(i, j)] / done[(i, j)]
        p[j, i] = le[(i, j)] / done[(i, j)]
    return p


def compare(
    human: npt.ArrayLike,
    metrics: npt.ArrayLike,
    *,
    coefficient: str,
    grouping: str = "none",
    method: str = "permutation",
    samples: int = 1000,
    seed: int = DEFAULT_SEED,
    block_size: int = 100,
    early_min: float = 0.02,
    early_max: float = 0.5,
    perm_test: str = "scores",
    **coefficient_options: Any,
) -> FloatArray:
    """One-sided p-values that the row measure correlates better than the column one: (M, M).

    ``method="williams"`` (Pearson, grouping ``none`` only): :func:`williams_p` on the cells
    both measures and the human scores have; p[i, j] small when r_i > r_j.

    ``method="permutation"`` (PERM-BOTH, mt-metrics-eval ``PermutationSigDiff``): for each pair
    of measures, over the cells both have, the scores are z-normalised (population sd, over all
    those cells); a draw swaps the two measures' scores in each cell with probability 1/2 and
    recomputes the coefficient of both hybrids (grouped and averaged as :func:`correlate`
    does); p[i, j] is the share of draws whose difference (hybrid of i minus hybrid of j) is
    >= the observed difference, p[j, i] the share <= it. Draws come in blocks of
    ``block_size`` (mt-metrics-eval's ``Task`` uses 100; 1000 = ``PermutationSigDiffParams``
    default, no early stop at k = 1000): after each block a pair stops once the p-value of
    "the higher beats the lower" is below ``early_min`` or above ``early_max``. The same
    draws (seeded) serve every pair, so the matrix is reproducible; MTME draws afresh per pair.
    The observed difference is computed by the same code as the draws, so a draw that
    reproduces the data counts as ">=". Where a hybrid has no defined group its value is 0 (as
    MTME). Identical measures give p = 1 both ways.

    ``perm_test="pairs"`` (acc23/tau23; ``PairwisePermutationSigDiff``, WMT23/24): each
    measure's verdict on each pair of cells in a group (agree: concordant or tied in both, with
    the measure's own ε — calibrated when ``calibrate_ties=True``, as WMT) is swapped with the
    other measure's with probability 1/2. Needs grouping ``item`` or ``system``; ε is not
    re-searched per draw (that is the point of the variant).

    With ``calibrate_ties=True`` and ``perm_test="scores"`` ε is re-searched for every hybrid,
    as MTME does with ``KendallWithTiesOpt`` — exact but slow.

    Returns:
        (M, M) p-values, NaN on the diagonal.
    """
    h, m = as_inputs(human, metrics)
    coefficient_for(coefficient, h, grouping)
    if method not in METHODS:
        raise CorrelationError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if perm_test not in PERM_TESTS:
        raise CorrelationError(f"perm_test must be one of {', '.join(PERM_TESTS)}")
    options = resolve_options(coefficient, m.shape[0], coefficient_options)
    hy, mx = grouped(h, m, grouping)
    valid = valid_cells(hy, mx)
    measures = m.shape[0]
    if method == "williams":
        if coefficient != "pearson" or grouping != "none":
            raise CorrelationError("Williams' test is defined for Pearson with grouping 'none'")
        return _williams(hy, mx, valid)
    if samples < 1 or block_size < 1:
        raise CorrelationError("samples and block_size must be >= 1")
    if coefficient == "pce":
        raise CorrelationError("permutation tests of pce are not implemented")
    groups, length = hy.shape
    run = functools.partial(
        _run,
        measures=measures,
        samples=samples,
        seed=seed,
        block_size=block_size,
        early_min=early_min,
        early_max=early_max,
    )
    if perm_test == "pairs":
        if coefficient not in ("acc23", "tau23"):
            raise CorrelationError("perm_test='pairs' is defined for acc23 and tau23")
        if grouping == "none":
            raise CorrelationError(
                "perm_test='pairs' needs grouping 'item' or 'system' (pooled cells have too "
                "many pairs to swap one by one)"
            )
        eps = options["epsilon"]
        if options["calibrate_ties"]:
            eps = calibrate(hy, mx, valid, grouping=grouping)
        if eps is None:
            eps = np.zeros(measures)
        tester = _PairsTester(coefficient, hy, mx, valid, eps, options["weighted"])
        return run(tester, width=groups * tester.pair_count)
    if coefficient == "pearson":
        tester: Any = _PearsonTester(hy, mx, valid, options["weighted"])
    elif coefficient in KENDALL_FAMILY and not options["calibrate_ties"]:
        tester = _SwapTester(coefficient, hy, mx, valid, options)
    else:
        tester = _GenericTester(coefficient, hy, mx, valid, grouping, options)
    return run(tester, width=groups * length)


def significance_clusters(
    values: npt.ArrayLike, pvalues: npt.ArrayLike, alpha: float = 0.05
) -> list[int]:
    """Significance cluster rank (1 = top) of each measure: mt-metrics-eval ``AssignRanks``.

    Measures are taken in decreasing order of ``values`` (ties: original order; NaN last).
    Walking down, a measure starts a new, lower cluster when a measure above it in the
    current cluster beats it significantly (``pvalues[above, it] <= alpha``); otherwise it joins
    the current cluster. A measure of rank r is thus not significantly outperformed by any
    other of rank r. Returns the ranks in the original order.
    """
    v = np.asarray(values, dtype=np.float64)
    p = np.asarray(pvalues, dtype=np.float64)
    if v.ndim != 1 or p.shape != (v.size, v.size):
        raise CorrelationError("values must be (M,) and pvalues (M, M)")
    order = sorted(
        range(v.size), key=lambda k: (np.isnan(v[k]), -v[k] if np.isfinite(v[k]) else 0, k)
    )
    ranks = [0] * v.size
    rank, start = 1, 0
    for position, k in enumerate(order):
        above = [order[a] for a in range(start, position)]
        if any(p[a, k] <= alpha for a in above):
            rank += 1
            start = position
        ranks[k] = rank
    return ranks
