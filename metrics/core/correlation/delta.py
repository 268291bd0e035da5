"""Predicting the humans' differences between systems from a measure's (EDPM paper, spec
``edpm-and-protocols.md`` §A10, experiment 2: predicting ΔHTER).

For two systems b and z and a unit i (a document or a sentence) Δs(i, b, z) = s(t_{i,z}) −
s(t_{i,b}), for the measure and for the humans alike. Every pair of systems b < z (row order)
gives one point per unit; the pair is oriented so that Δhuman ≥ 0 (Δs flips with it), and the
result is Pearson's r of Δs against Δhuman over all (unit, pair) points, with its Fisher-z
interval. A pair the humans tie (Δhuman = 0) is kept, its Δs left as z − b; ``human_ties``
counts those points.

* **Documents**: a system's measure score of a document is the measure's own corpus
  aggregation (``aggregate``, e.g. ``Measure.aggregate``: statistics summed over the rows)
  over the document's segments the humans judged for that system (:func:`document_aggregates`);
  its human score is the plain mean of those segments' human scores (:func:`document_means`).
* **Sentences**: each point is scaled by a weight, the reference length |r_i| (paper footnote
  7): (|r_i|·Δs, |r_i|·Δhuman) — multiplied, not a weighted Pearson (Table 9's caption).

Scores must be oriented higher-is-better on both sides (negate error measures and error-type
human scores first), so that a positive r always means agreement. Numpy only; Pearson and the
interval are :func:`~.core.correlate` and :func:`~.bootstrap.fisher_intervals`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .bootstrap import fisher_intervals
from .core import correlate
from .errors import CorrelationError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Aggregate = Callable[[FloatArray], float]
"""The score of one system from its statistics rows (n, C): a measure's corpus aggregation."""


@dataclass(frozen=True)
class DeltaPoints:
    """Oriented (unit, pair) points: ``measures`` (M, N), ``human`` (N,); NaN where undefined."""

    measures: FloatArray
    human: FloatArray


@dataclass(frozen=True)
class DeltaCorrelations:
    """Per measure (M,): r (NaN where undefined), points used, the Fisher-z interval (NaN
    where none) and the used points with Δhuman = 0."""

    values: FloatArray
    n: IntArray
    low: FloatArray
    high: FloatArray
    human_ties: IntArray


def system_pairs(count: int) -> list[tuple[int, int]]:
    """Every pair (b, z) of ``count`` systems with b < z: count·(count − 1)/2 pairs."""
    return [(b, z) for b in range(count) for z in range(b + 1, count)]


def _as_matrix(values: npt.ArrayLike, name: str, ndim: int) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != ndim:
        raise CorrelationError(f"{name} must be {ndim}-D, got shape {array.shape}")
    return array


def oriented_points(
    measures: npt.ArrayLike, human: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> DeltaPoints:
    """The Δ points of ``measures`` (M, S, U) and ``human`` (S, U) over every system pair and
    unit, pair-major; each oriented so that Δhuman ≥ 0 and multiplied by ``weights`` (U,)."""
    m = _as_matrix(measures, "measure scores", 3)
    h = _as_matrix(human, "human scores", 2)
    if m.shape[1:] != h.shape:
        raise CorrelationError(f"measure scores {m.shape} do not match human scores {h.shape}")
    if h.shape[0] < 2:
        raise CorrelationError(f"differences need at least 2 systems, got {h.shape[0]}")
    w = np.ones(h.shape[1]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (h.shape[1],):
        raise CorrelationError(f"weights {w.shape} do not match {h.shape[1]} units")
    b, z = np.array(system_pairs(h.shape[0])).T
    delta_h = h[z] - h[b]
    sign = np.where(delta_h < 0, -1.0, 1.0)
    delta_m = (m[:, z] - m[:, b]) * sign * w
    return DeltaPoints(
        measures=delta_m.reshape(m.shape[0], -1), human=(delta_h * sign * w).reshape(-1)
    )


def delta_correlation(
    measures: npt.ArrayLike,
    human: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    confidence: float = 0.95,
) -> DeltaCorrelations:
    """Pearson r of the oriented Δs with Δhuman (:func:`oriented_points`) per measure, over the
    points where both are finite, with its Fisher-z interval tanh(atanh r ± z/√(n − 3))."""
    points = oriented_points(measures, human, weights)
    if points.human.size == 0:
        raise CorrelationError("no units: nothing to correlate")
    result = correlate(points.human[None, :], points.measures[:, None, :], coefficient="pearson")
    low, high = fisher_intervals(result, confidence)
    used = np.isfinite(points.measures) & np.isfinite(points.human)
    ties = (used & (points.human == 0)).sum(axis=1)
    return DeltaCorrelations(
        values=result.values,
        n=result.n.astype(np.int64),
        low=low,
        high=high,
        human_ties=ties.astype(np.int64),
    )


def document_groups(documents: Sequence[Hashable]) -> tuple[list[Hashable], list[IntArray]]:
    """The distinct document ids in order of first appearance and each one's unit positions."""
    order: dict[Hashable, list[int]] = {}
    for position, document in enumerate(documents):
        order.setdefault(document, []).append(position)
    return list(order), [np.array(positions, dtype=np.int64) for positions in order.values()]


def _checked(human: npt.ArrayLike, documents: Sequence[Hashable]) -> FloatArray:
    h = _as_matrix(human, "human scores", 2)
    if len(documents) != h.shape[1]:
        raise CorrelationError(f"{len(documents)} document ids for {h.shape[1]} segments")
    return h


def _judged_cells(
    human: FloatArray, documents: Sequence[Hashable]
) -> Iterator[tuple[int, int, IntArray]]:
    """(system row, document, positions of its segments judged for that system), where any."""
    for d, positions in enumerate(document_groups(documents)[1]):
        for row in range(human.shape[0]):
            judged = positions[np.isfinite(human[row, positions])]
            if judged.size:
                yield row, d, judged


def document_means(human: npt.ArrayLike, documents: Sequence[Hashable]) -> FloatArray:
    """Human document scores (S, D): the mean of each system's judged segment scores in the
    document (``human`` (S, K), NaN = not judged; ``documents`` (K,) the segments' document ids,
    D in first-appearance order); NaN where a system has no judged segment there."""
    h = _checked(human, documents)
    means = np.full((h.shape[0], len(document_groups(documents)[1])), np.nan)
    for row, d, judged in _judged_cells(h, documents):
        means[row, d] = h[row, judged].mean()
    return means


def document_aggregates(
    stats: npt.ArrayLike,
    human: npt.ArrayLike,
    documents: Sequence[Hashable],
    aggregate: Aggregate,
) -> FloatArray:
    """Measure document scores (S, D), on the same segments as :func:`document_means`: for each
    system, ``aggregate`` of the statistics rows (``stats`` (S, K, C)) of the document's
    segments the humans judged for it; NaN where there is none."""
    s = _as_matrix(stats, "statistics", 3)
    h = _checked(human, documents)
    if s.shape[:2] != h.shape:
        raise CorrelationError(f"statistics {s.shape} do not match human scores {h.shape}")
    scores = np.full((h.shape[0], len(document_groups(documents)[1])), np.nan)
    for row, d, judged in _judged_cells(h, documents):
        scores[row, d] = float(aggregate(s[row, judged]))
    return scores
