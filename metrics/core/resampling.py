"""Resampling statistics: the default seed, bootstrap multiplicities, the paired bootstrap test.

* :data:`DEFAULT_SEED`: the one seed every seeded bootstrap of the project starts from unless
  told otherwise (it is part of the signatures that record a seed).
* :func:`multiplicities`: how often each unit occurs in each resample, so that a statistic that
  is a sum over units is resampled by one matrix product instead of one pass per resample.
* :func:`paired_bootstrap` (Koehn 2004): resample the segments two systems share with
  replacement; two-sided p = twice the share of resampled weighted mean differences on the
  other side of zero.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .significance import SIGNIFICANCE_LEVEL

FloatArray = npt.NDArray[np.float64]

DEFAULT_SEED = 12345
"""Seed of the bootstrap resamples when the caller gives none."""
SIGNIFICANCE_BOOTSTRAP = 1000
"""Resamples of :func:`paired_bootstrap` by default."""


def multiplicities(picks: npt.NDArray[np.int64], size: int) -> FloatArray:
    """How often each of ``size`` units occurs in each resample (one row per resample)."""
    rows = np.repeat(np.arange(picks.shape[0]), picks.shape[1])
    flat = np.bincount(rows * size + picks.ravel(), minlength=picks.shape[0] * size)
    return flat.reshape(picks.shape[0], size).astype(np.float64)


@dataclass(frozen=True)
class PairTest:
    """System a minus system b: weighted mean difference over their common segments, p-value."""

    a: str
    b: str
    difference: float
    p: float
    n: int

    @property
    def significant(self) -> bool:
        return self.p < SIGNIFICANCE_LEVEL


def paired_bootstrap(
    sentence: Mapping[str, Mapping[str, float]],
    weights: Mapping[str, float],
    *,
    samples: int = SIGNIFICANCE_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> list[PairTest]:
    """Paired bootstrap test of every pair of systems (module docstring).

    Args:
        sentence: system -> segment id -> sentence score.
        weights: segment id -> weight (1 for unweighted means).
        samples: bootstrap resamples; the same resampled segments serve every pair.
        seed: the generator's seed.

    Returns:
        One test per ordered pair (a before b in name order); ``p`` is 1 with fewer than two
        common segments.
    """
    systems = sorted(sentence)
    segments = sorted({seg for scores in sentence.values() for seg in scores})
    column = {seg: k for k, seg in enumerate(segments)}
    h = np.full((len(systems), len(segments)), np.nan)
    for row, system in enumerate(systems):
        for seg, value in sentence[system].items():
            h[row, column[seg]] = value
    w = np.array([float(weights.get(seg, 0.0)) for seg in segments])
    picks = np.random.default_rng(seed).integers(0, max(len(segments), 1), (samples, len(segments)))
    # Resample weighted means through multiplicities: one matrix product for all pairs.
    drawn = multiplicities(picks, len(segments)) if segments else np.zeros((samples, 0))
    pairs = list(itertools.combinations(range(len(systems)), 2))
    numerators = np.zeros((len(segments), len(pairs)))
    denominators = np.zeros((len(segments), len(pairs)))
    for column, (a, b) in enumerate(pairs):
        mask = ~np.isnan(h[a]) & ~np.isnan(h[b]) & (w > 0)
        weight = np.where(mask, w, 0.0)
        numerators[:, column] = weight * np.where(mask, h[a] - h[b], 0.0)
        denominators[:, column] = weight
    with np.errstate(invalid="ignore", divide="ignore"):
        resampled = (drawn @ numerators) / (drawn @ denominators)
    tests = []
    for column, (a, b) in enumerate(pairs):
        n = int((denominators[:, column] > 0).sum())
        if n < 2:
            tests.append(PairTest(systems[a], systems[b], math.nan, 1.0, n))
            continue
        observed = float(numerators[:, column].sum() / denominators[:, column].sum())
        values = resampled[:, column]
        values = values[np.isfinite(values)]
        below = float(np.mean(values <= 0.0))
        above = float(np.mean(values >= 0.0))
        tests.append(
            PairTest(systems[a], systems[b], observed, min(1.0, 2.0 * min(below, above)), n)
        )
    return tests
