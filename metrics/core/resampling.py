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
from collections.abc import Mapping, Sequence
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
    return paired_bootstraps([sentence], weights, samples=samples, seed=seed)[0]


def paired_bootstraps(
    tables: Sequence[Mapping[str, Mapping[str, float]]],
    weights: Mapping[str, float],
    *,
    samples: int = SIGNIFICANCE_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> list[list[PairTest]]:
    """:func:`paired_bootstrap` of each table (a ranking's raw and its normalized scores), each
    the test that function gives; tables of the same segments share one draw of resamples."""
    prepared = [_PairTable(table, weights) for table in tables]
    resampled: dict[int, FloatArray] = {}
    by_segments: dict[tuple[str, ...], list[int]] = {}
    for number, table in enumerate(prepared):
        by_segments.setdefault(tuple(table.segments), []).append(number)
    for segments, numbers in by_segments.items():
        size = len(segments)
        picks = np.random.default_rng(seed).integers(
            0, max(size, 1), (samples, size), dtype=np.int32
        )
        for number in numbers:
            resampled[number] = np.empty((samples, len(prepared[number].pairs)))
        # Blocks of resamples bound the multiplicity matrix (B × segments) to a few MB.
        for start in range(0, samples, RESAMPLE_BLOCK):
            block = picks[start : start + RESAMPLE_BLOCK]
            drawn = multiplicities(block, size) if size else np.zeros((len(block), 0))
            for number in numbers:
                table = prepared[number]
                with np.errstate(invalid="ignore", divide="ignore"):
                    resampled[number][start : start + len(block)] = (drawn @ table.numerators) / (
                        drawn @ table.denominators
                    )
    return [table.tests(resampled[number]) for number, table in enumerate(prepared)]


RESAMPLE_BLOCK = 100
"""Resamples of :func:`paired_bootstraps` multiplied at a time."""


class _PairTable:
    """One table's weighted score differences of every pair of systems, per segment."""

    def __init__(self, sentence: Mapping[str, Mapping[str, float]], weights: Mapping[str, float]):
        self.systems = sorted(sentence)
        self.segments = sorted({seg for scores in sentence.values() for seg in scores})
        column = {seg: k for k, seg in enumerate(self.segments)}
        h = np.full((len(self.systems), len(self.segments)), np.nan)
        for row, system in enumerate(self.systems):
            scores = sentence[system]
            h[row, [column[seg] for seg in scores]] = list(scores.values())
        w = np.array([float(weights.get(seg, 0.0)) for seg in self.segments])
        self.pairs = list(itertools.combinations(range(len(self.systems)), 2))
        self.numerators = np.zeros((len(self.segments), len(self.pairs)))
        self.denominators = np.zeros((len(self.segments), len(self.pairs)))
        for number, (a, b) in enumerate(self.pairs):
            mask = ~np.isnan(h[a]) & ~np.isnan(h[b]) & (w > 0)
            weight = np.where(mask, w, 0.0)
            self.numerators[:, number] = weight * np.where(mask, h[a] - h[b], 0.0)
            self.denominators[:, number] = weight

    def tests(self, resampled: FloatArray) -> list[PairTest]:
        tests = []
        for number, (a, b) in enumerate(self.pairs):
            n = int((self.denominators[:, number] > 0).sum())
            if n < 2:
                tests.append(PairTest(self.systems[a], self.systems[b], math.nan, 1.0, n))
                continue
            observed = float(self.numerators[:, number].sum() / self.denominators[:, number].sum())
            values = resampled[:, number]
            values = values[np.isfinite(values)]
            below = float(np.mean(values <= 0.0))
            above = float(np.mean(values >= 0.0))
            p = min(1.0, 2.0 * min(below, above))
            tests.append(PairTest(self.systems[a], self.systems[b], observed, p, n))
        return tests
