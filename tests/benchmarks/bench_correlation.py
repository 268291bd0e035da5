"""Meta-evaluation statistics: bootstrap intervals and permutation tests over 20 measures.

Synthetic, seeded data of the dashboards' shape: 14 systems × 529 segments (MQM TED en-de),
MQM-like human scores (minus a Poisson count of errors: many ties) and 20 measures = human +
noise of 20 different scales. Rows:

* bootstrap: 1,000 resamples of the segments (each with all its systems), all 20 measures,
  for Pearson and τ-b, pooled (grouping ``none``) and grouped by item;
* permutation: PERM-BOTH over the 190 pairs of measures, 1,000 draws, with mt-metrics-eval's
  early stopping by blocks of 100 (``Task`` setting) and without (blocks of 1,000);
* tie calibration of acc23 (KendallWithTiesOpt, sample_rate 1.0) for the 20 measures.

The oracle is the same work done naively with scipy, the way mt-metrics-eval does it: one
``scipy.stats`` call per resample, measure and group (bootstrap), or per pair, draw, hybrid
and group (PERM-BOTH without early stopping). Where the full naive run would take minutes to
hours it is timed on a slice (a few resamples, or one pair and a few draws) and scaled
linearly; the note says so. Our side is always measured in full, except the τ-b permutation
test without early stopping, which is timed on 100 draws per pair and scaled to 1,000 (noted).
Each naive slice is also checked against our values on the same resamples.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from tests.benchmarks.common import BenchRow, timed

SYSTEMS, ITEMS, MEASURES = 14, 529, 20
SAMPLES = 1000
TARGET = "< 2 s"


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2024)
    human = -rng.poisson(2.0, (SYSTEMS, ITEMS)).astype(float)
    scales = np.linspace(0.5, 4.0, MEASURES)[:, None, None]
    metrics = human[None] + rng.normal(size=(MEASURES, SYSTEMS, ITEMS)) * scales
    return human, np.round(metrics, 3)


def _scipy(name: str):  # noqa: ANN202
    from scipy import stats

    if name == "pearson":
        return lambda x, y: stats.pearsonr(x, y)[0]
    return lambda x, y: stats.kendalltau(x, y)[0]


def _naive_value(name: str, grouping: str, human: np.ndarray, metric: np.ndarray) -> float:
    """One measure's coefficient with one scipy call per group (NaN groups dropped)."""
    function = _scipy(name)
    if grouping == "none":
        return float(function(metric.ravel(), human.ravel()))
    values = []
    for k in range(human.shape[1]):
        x, y = metric[:, k], human[:, k]
        if np.all(x == x[0]) or np.all(y == y[0]):
            continue
        values.append(function(x, y))
    return float(np.mean(values))


def _bootstrap_rows(human: np.ndarray, metrics: np.ndarray) -> list[BenchRow]:
    from metrics.core.correlation import bootstrap_distribution
    from metrics.core.resampling import DEFAULT_SEED

    rows = []
    picks = np.random.default_rng(DEFAULT_SEED).integers(0, ITEMS, (SAMPLES, ITEMS))
    for name in ("pearson", "kendall-b"):
        for grouping in ("none", "item"):
            ours_s, ours = timed(
                lambda name=name, grouping=grouping: bootstrap_distribution(
                    human, metrics, coefficient=name, grouping=grouping, samples=SAMPLES
                )
            )
            # naive slice: a few resamples, every measure
            slice_size = 50 if (name, grouping) == ("pearson", "none") else 3
            start = time.perf_counter()
            naive = np.array(
                [
                    [
                        _naive_value(name, grouping, human[:, pick], metrics[m][:, pick])
                        for m in range(MEASURES)
                    ]
                    for pick in picks[:slice_size]
                ]
            )
            oracle_s = (time.perf_counter() - start) * SAMPLES / slice_size
            diff = float(np.nanmax(np.abs(naive - ours[:slice_size])))
            rows.append(
                BenchRow(
                    f"bootstrap {name}, grouping {grouping}: {SAMPLES} x {MEASURES} x "
                    f"{ITEMS} x {SYSTEMS}",
                    ours_s,
                    "scipy per resample (naive)",
                    oracle_s,
                    TARGET,
                    f"oracle scaled from {slice_size} resamples; max diff {diff:.1e}"
                    + ("" if ours_s < 2.0 else "; TARGET MISSED"),
                )
            )
    return rows


def _naive_permutation_seconds(
    name: str, grouping: str, human: np.ndarray, metrics: np.ndarray, draws: int
) -> float:
    """Seconds of ``draws`` PERM-BOTH draws of one pair, done naively (MTME-style)."""
    from scipy.stats import zscore

    rng = np.random.default_rng(0)
    zi, zj = zscore(metrics[0], axis=None), zscore(metrics[1], axis=None)
    start = time.perf_counter()
    for _ in range(draws):
        w = rng.integers(0, 2, human.shape).astype(bool)
        _naive_value(name, grouping, human, np.where(w, zi, zj))
        _naive_value(name, grouping, human, np.where(w, zj, zi))
    return time.perf_counter() - start


def _permutation_rows(human: np.ndarray, metrics: np.ndarray) -> list[BenchRow]:
    from metrics.core.correlation import compare

    pairs = MEASURES * (MEASURES - 1) // 2
    rows = []
    for name in ("pearson", "kendall-b"):
        for grouping in ("none", "item"):
            slice_draws = 20 if grouping == "none" else 2
            per_draw = _naive_permutation_seconds(name, grouping, human, metrics, slice_draws)
            oracle_s = per_draw / slice_draws * pairs * SAMPLES
            label = f"PERM-BOTH {name}, grouping {grouping}: {pairs} pairs x {SAMPLES} draws"
            ours_s, _ = timed(
                lambda name=name, grouping=grouping: compare(
                    human, metrics, coefficient=name, grouping=grouping, samples=SAMPLES
                )
            )
            rows.append(
                BenchRow(
                    label + ", early stop (blocks of 100)",
                    ours_s,
                    "",
                    None,
                    TARGET,
                    "stops per pair as mt-metrics-eval's Task does"
                    + ("" if ours_s < 2.0 else "; TARGET MISSED"),
                )
            )
            if name == "pearson":
                full_s, _ = timed(
                    lambda grouping=grouping: compare(
                        human,
                        metrics,
                        coefficient="pearson",
                        grouping=grouping,
                        samples=SAMPLES,
                        block_size=SAMPLES,
                    )
                )
                note = "all draws"
            else:
                part_s, _ = timed(
                    lambda name=name, grouping=grouping: compare(
                        human,
                        metrics,
                        coefficient=name,
                        grouping=grouping,
                        samples=100,
                        block_size=100,
                    )
                )
                full_s = part_s * SAMPLES / 100
                note = "ours scaled from 100 draws per pair"
            rows.append(
                BenchRow(
                    label + ", no early stop",
                    full_s,
                    "scipy per hybrid (naive)",
                    oracle_s,
                    TARGET,
                    f"{note}; oracle scaled from {slice_draws} draws of one pair"
                    + ("" if full_s < 2.0 else "; TARGET MISSED"),
                )
            )
    return rows


def _calibration_rows(human: np.ndarray, metrics: np.ndarray) -> list[BenchRow]:
    from metrics.core.correlation import correlate

    rows = []
    for grouping in ("item", "none"):
        ours_s, _ = timed(
            lambda grouping=grouping: correlate(
                human, metrics, coefficient="acc23", grouping=grouping, calibrate_ties=True
            )
        )
        pairs = "48 k" if grouping == "item" else "27 M"
        rows.append(
            BenchRow(
                f"tie calibration acc23, grouping {grouping} ({pairs} pairs per measure), "
                f"{MEASURES} measures",
                ours_s,
                note="exact (sample_rate 1.0)",
            )
        )
    return rows


def run() -> list[BenchRow]:
    from metrics.core.correlation import bootstrap_distribution, compare, correlate

    human, metrics = _data()
    # Load the compiled kernels (numba's cache) before timing: both float widths of the pair
    # kernel (small groups count in float32, pooled cells in float64).
    small_h, small_m = human[:, :20], metrics[:2, :, :20]
    for name in ("pearson", "kendall-b"):
        for grouping in ("none", "item"):
            bootstrap_distribution(
                human, metrics[:2], coefficient=name, grouping=grouping, samples=2
            )
            compare(small_h, small_m, coefficient=name, grouping=grouping, samples=3)
            compare(human, metrics[:2], coefficient=name, grouping=grouping, samples=2)
    correlate(small_h, small_m, coefficient="acc23", calibrate_ties=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (
            _bootstrap_rows(human, metrics)
            + _permutation_rows(human, metrics)
            + _calibration_rows(human, metrics)
        )
