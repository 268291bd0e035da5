"""Reads for the scatter page of one measure setting against one human column: the points,
the regression lines and coefficients, the two system rankings side by side, and the segments
where measure and humans disagree most."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.urls import reverse

from evaltrans.corpora.models import System
from judging.humanscores.selectors import HumanSource, ranking_panel
from metrics.core import MeasureError, get_metric
from metrics.core.correlation import (
    CorrelationError,
    correlate,
    regression_lines,
    significance_clusters,
)
from metrics.core.resampling import DEFAULT_SEED
from metrics.models import RunMeasure
from metrics.selectors.correlation import (
    CorrelationInputs,
    MetaEvaluationError,
    correlation_inputs,
    human_side,
    measure_results,
)
from metrics.selectors.runs import segment_arrays
from metrics.selectors.texts import testset_reference_count

SCATTER_COEFFICIENTS = {"r": "pearson", "ρ": "spearman", "τ_b": "kendall-b"}
DISCRETE_LEVELS = 12
"""At most this many distinct human values: the scale is discrete, so points are jittered."""
JITTER_SHARE = 0.3
DISAGREEMENTS = 25
UNKNOWN_SIGNATURE = "no stored result with signature {signature!r} on this test set"


def segment_url(inputs: CorrelationInputs, index: int) -> str:
    """The segment page of a segment of the test set (0-based index): its scores, judgments
    and alignment grids."""
    return reverse("segments:detail", args=[inputs.test_set.pk, index + 1])


@dataclass(frozen=True)
class ScatterRequest:
    signature: str
    aspect: str
    view: str
    aggregation: str = "corpus"
    include_human_systems: bool = False


def scatter_inputs(*, source: HumanSource, request: ScatterRequest) -> CorrelationInputs:
    """The aligned matrices of one measure setting and one human column.

    Raises:
        MetaEvaluationError: unknown signature, or anything ``correlation_inputs`` refuses.
    """
    if source.test_set is None:
        raise MetaEvaluationError(f"{source.name!r} is not attached to a test set")
    results = [
        result
        for result in measure_results(test_set=source.test_set)
        if result.signature == request.signature
    ]
    if not results:
        raise MetaEvaluationError(UNKNOWN_SIGNATURE.format(signature=request.signature))
    human = human_side(source=source, aspect=request.aspect, normalized=request.view != "raw")
    return correlation_inputs(
        test_set=source.test_set,
        human=human,
        results=results,
        aggregation=request.aggregation,
        include_human_systems=request.include_human_systems,
    )


def _coefficients(x: np.ndarray, y: np.ndarray) -> dict[str, float | None]:
    stats: dict[str, float | None] = {}
    for label, name in SCATTER_COEFFICIENTS.items():
        try:
            value = correlate(y[None, :], x[None, None, :], coefficient=name).values[0]
        except CorrelationError:
            value = math.nan
        stats[label] = float(value) if math.isfinite(value) else None
    stats["n"] = float(len(x))
    return stats


def _lines(x: np.ndarray, y: np.ndarray) -> dict[str, dict[str, float]]:
    if len(x) < 2:
        return {}
    try:
        lines = regression_lines(x, y)
    except CorrelationError:
        return {}
    return {
        key: {"slope": float(line.slope), "intercept": float(line.intercept)}
        for key, line in (
            ("y_on_x", lines.y_on_x),
            ("x_on_y", lines.x_on_y),
            ("orthogonal", lines.orthogonal),
        )
    }


def _titles(inputs: CorrelationInputs) -> tuple[str, str]:
    measure = inputs.measures[0]
    x_title = measure.label + (" (negated: higher is better)" if measure.negated else "")
    human = inputs.human
    y_title = f"human {human.aspect} ({human.view})" + (" (negated)" if human.negated else "")
    return x_title, y_title


def system_scatter(
    inputs: CorrelationInputs,
    human_cis: dict[str, tuple[float, float]],
    measure_cis: dict[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Points, lines and coefficients at system level (measure scores oriented)."""
    x = inputs.measure_systems[0]
    y = inputs.human_systems
    keep = np.isfinite(x) & np.isfinite(y)
    sign = -1.0 if inputs.human.negated else 1.0
    points = []
    for k, name in enumerate(inputs.systems):
        if not keep[k]:
            continue
        ci = human_cis.get(name)
        if ci is not None:
            ci = tuple(sorted((sign * ci[0], sign * ci[1])))
        points.append(
            {
                "system": name,
                "x": float(x[k]),
                "y": float(y[k]),
                "human_ci": ci,
                "measure_ci": (measure_cis or {}).get(name),
            }
        )
    x_title, y_title = _titles(inputs)
    return {
        "systems": inputs.systems,
        "points": points,
        "lines": _lines(x[keep], y[keep]),
        "stats": _coefficients(x[keep], y[keep]),
        "x_title": x_title,
        "y_title": y_title,
    }


def segment_scatter(inputs: CorrelationInputs, *, seed: int = 0) -> dict[str, Any]:
    """Points per system (with segment URLs), lines and pooled coefficients at segment level.

    Jitter (display only; lines and coefficients use the exact values): when the human scores
    take at most ``DISCRETE_LEVELS`` distinct values, each point moves vertically by a seeded
    uniform amount of ±15 % of the smallest gap between levels.
    """
    human = inputs.human_segments
    measure = inputs.measure_segments[0]
    keep = np.isfinite(human) & np.isfinite(measure)
    levels = np.unique(human[keep])
    jitter = 0.0
    if 1 < len(levels) <= DISCRETE_LEVELS:
        jitter = JITTER_SHARE * float(np.min(np.diff(levels))) / 2
    rng = np.random.default_rng(seed)
    by_system: dict[str, dict[str, list[Any]]] = {}
    count = 0
    for row, name in enumerate(inputs.systems):
        columns = np.flatnonzero(keep[row])
        if not len(columns):
            continue
        noise = rng.uniform(-jitter, jitter, len(columns)) if jitter else np.zeros(len(columns))
        by_system[name] = {
            "x": [float(v) for v in measure[row, columns]],
            "y": [float(v) for v in human[row, columns] + noise],
            "segment": [inputs.items[c] + 1 for c in columns],
            "url": [segment_url(inputs, inputs.items[c]) for c in columns],
        }
        count += len(columns)
    x_title, y_title = _titles(inputs)
    x_range = _view_range(measure[keep])
    y_range = _view_range(human[keep], pad=jitter)
    outside = ~(_inside(measure[keep], x_range) & _inside(human[keep], y_range))
    return {
        "systems": inputs.systems,
        "x_range": x_range,
        "y_range": y_range,
        "clipped": int(outside.sum()),
        "by_system": by_system,
        "count": count,
        "opacity": float(min(0.85, max(0.15, 400 / max(count, 1)))),
        "lines": _lines(measure[keep], human[keep]),
        "stats": _coefficients(measure[keep], human[keep]),
        "jittered": bool(jitter),
        "x_title": x_title,
        "y_title": y_title,
    }


VIEW_QUANTILES = (0.005, 0.995)


def _view_range(values: np.ndarray, pad: float = 0.0) -> list[float]:
    """The initial axis range: the central 99 % of the values, padded by 5 %, so that a few
    extreme sentences (a WER of 300 %) do not squash the rest; zooming out shows them."""
    if not len(values):
        return [0.0, 1.0]
    low, high = (float(v) for v in np.quantile(values, VIEW_QUANTILES))
    if high <= low:
        low, high = float(values.min()), float(values.max())
    margin = 0.05 * (high - low) if high > low else 0.5
    return [low - margin - pad, high + margin + pad]


def _inside(values: np.ndarray, bounds: list[float]) -> np.ndarray:
    return (values >= bounds[0]) & (values <= bounds[1])


def _ranks(values: np.ndarray) -> list[int]:
    """1 = best (highest); ties share the better rank."""
    order = sorted(range(len(values)), key=lambda k: -values[k])
    ranks = [0] * len(values)
    for position, k in enumerate(order):
        previous = order[position - 1] if position else None
        same = previous is not None and values[previous] == values[k]
        ranks[k] = ranks[previous] if same else position + 1
    return ranks


def human_clusters(source: HumanSource, inputs: CorrelationInputs) -> dict[str, int]:
    """Human significance clusters of the used systems, from the ranking panel's paired
    bootstrap tests (rank 1 = not significantly worse than the best system). None for a
    ranking campaign: Expected Wins have no such tests."""
    human = inputs.human
    if human.preferences is not None:
        return {}
    panel = ranking_panel(source=source, aspect=human.aspect, weighting=None)
    tests = panel["tests_raw" if human.view == "raw" else "tests_normalized"]
    index = {name: k for k, name in enumerate(inputs.systems)}
    pvalues = np.ones((len(index), len(index)))
    for test in tests:
        if test.a in index and test.b in index:
            winner, loser = (test.a, test.b) if test.difference > 0 else (test.b, test.a)
            pvalues[index[winner], index[loser]] = test.p
    clusters = significance_clusters(inputs.human_systems, pvalues)
    return {name: int(clusters[k]) for name, k in index.items()}


def human_intervals(
    source: HumanSource, inputs: CorrelationInputs
) -> dict[str, tuple[float, float]]:
    """Each system's human 95 % bootstrap interval (from the ranking panel, cached); none for
    a ranking campaign's Expected Wins."""
    human = inputs.human
    if human.preferences is not None:
        return {}
    panel = ranking_panel(source=source, aspect=human.aspect, weighting=None)
    intervals = {}
    for score in panel["scores"].systems:
        ci = score.raw_ci if human.view == "raw" else score.normalized_ci
        if ci is not None:
            intervals[score.system] = (ci.low, ci.high)
    return intervals


MEASURE_BOOTSTRAP = 1000


def measure_intervals(
    inputs: CorrelationInputs, *, samples: int = MEASURE_BOOTSTRAP, seed: int = DEFAULT_SEED
) -> dict[str, tuple[float, float]]:
    """Each system's 95 % bootstrap interval of its measure score, oriented like the points.

    Corpus aggregation resamples the segments' stored sufficient statistics and aggregates
    them with the measure's own options (found on a run that computed the signature); the
    sentence-mean aggregation resamples the judged sentence scores. Nothing for a measure whose
    options are unknown here (an imported external measure has no statistics).
    """
    result = inputs.measures[0]
    sign = -1.0 if result.negated else 1.0
    rng = np.random.default_rng(seed)
    intervals: dict[str, tuple[float, float]] = {}
    if inputs.aggregation == "sentence-mean":
        for row, name in enumerate(inputs.systems):
            values = inputs.measure_segments[0, row]
            values = values[np.isfinite(values) & np.isfinite(inputs.human_segments[row])]
            if len(values) > 1:
                means = values[rng.integers(0, len(values), (samples, len(values)))].mean(axis=1)
                intervals[name] = _percentiles(means)
        return intervals
    run_measure = RunMeasure.objects.filter(
        run__test_set=inputs.test_set, signature=result.signature
    ).first()
    if run_measure is None:
        return intervals
    try:
        measure = get_metric(result.measure)(**run_measure.options)
    except MeasureError:
        return intervals  # options of an older version of the measure
    names = dict(
        System.objects.filter(test_set=inputs.test_set, name__in=inputs.systems).values_list(
            "pk", "name"
        )
    )
    n_refs = max(1, testset_reference_count(test_set=inputs.test_set))
    arrays = segment_arrays(
        test_set=inputs.test_set, signature=result.signature, system_ids=list(names)
    )
    for pk, data in arrays.items():
        rows = len(data.stats)
        if rows < 2 or data.stats.shape[1] == 0:
            continue
        picks = rng.integers(0, rows, (samples, rows))
        scores = np.array(
            [measure.aggregate(data.stats[pick], n_refs=n_refs).score for pick in picks]
        )
        scores = sign * scores[np.isfinite(scores)]
        if len(scores):
            intervals[names[pk]] = _percentiles(scores)
    return intervals


def _percentiles(values: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def rankings(inputs: CorrelationInputs, clusters: dict[str, int]) -> dict[str, Any]:
    """Human and measure system ranks side by side, and the discordant pairs."""
    human = inputs.human_systems
    measure = inputs.measure_systems[0]
    keep = [
        k for k in range(len(inputs.systems)) if np.isfinite(human[k]) and np.isfinite(measure[k])
    ]
    names = [inputs.systems[k] for k in keep]
    human_ranks = _ranks(human[keep])
    measure_ranks = _ranks(measure[keep])
    pairs = []
    for i in range(len(keep)):
        for j in range(i + 1, len(keep)):
            h = np.sign(human[keep[i]] - human[keep[j]])
            m = np.sign(measure[keep[i]] - measure[keep[j]])
            if h != 0 and h != m:
                better, worse = (names[i], names[j]) if h > 0 else (names[j], names[i])
                pairs.append({"human_better": better, "human_worse": worse})
    rows = [
        {
            "system": name,
            "human": float(human[k]),
            "measure": float(measure[k]),
            "human_rank": human_ranks[position],
            "measure_rank": measure_ranks[position],
            "human_cluster": clusters.get(name),
        }
        for position, (name, k) in enumerate(zip(names, keep, strict=True))
    ]
    rows.sort(key=lambda row: (row["human_rank"], row["system"]))
    total = len(keep) * (len(keep) - 1) // 2
    significant = [
        pair
        for pair in pairs
        if clusters.get(pair["human_better"]) != clusters.get(pair["human_worse"])
    ]
    return {
        "rows": rows,
        "discordant": pairs,
        "significant": significant,
        "discordant_systems": sorted({name for pair in pairs for name in pair.values()}),
        "significant_systems": sorted({name for pair in significant for name in pair.values()}),
        "pairs": total,
        "measure_label": inputs.measures[0].label,
    }


def disagreements(
    inputs: CorrelationInputs, *, system: str = "", limit: int = DISAGREEMENTS
) -> list[dict[str, Any]]:
    """Segments where measure and humans disagree most: the largest |z(measure) − z(human)|,
    both z-scored over the pooled (system, segment) cells; optionally of one system."""
    human = inputs.human_segments
    measure = inputs.measure_segments[0]
    keep = np.isfinite(human) & np.isfinite(measure)
    if keep.sum() < 3:
        return []

    def zscores(values: np.ndarray) -> np.ndarray:
        sd = values[keep].std()
        return (values - values[keep].mean()) / (sd if sd > 0 else 1.0)

    residual = zscores(measure) - zscores(human)
    rows = []
    for row, name in enumerate(inputs.systems):
        if system and name != system:
            continue
        for column in np.flatnonzero(keep[row]):
            rows.append(
                {
                    "system": name,
                    "segment": inputs.items[column] + 1,
                    "url": segment_url(inputs, inputs.items[column]),
                    "measure": float(measure[row, column]),
                    "human": float(human[row, column]),
                    "residual": float(residual[row, column]),
                    "verdict": "measure likes it more"
                    if residual[row, column] > 0
                    else "humans like it more",
                }
            )
    rows.sort(key=lambda item: -abs(item["residual"]))
    return rows[:limit]


def scatter_page(
    *, source: HumanSource, request: ScatterRequest, level: str, system: str = ""
) -> dict[str, Any]:
    """Everything the scatter page shows for one measure setting × human column × level.

    Raises:
        MetaEvaluationError: as ``scatter_inputs``; fewer than 3 systems at system level.
    """
    inputs = scatter_inputs(source=source, request=request)
    page: dict[str, Any] = {"inputs": inputs, "measure": inputs.measures[0], "level": level}
    if level == "system":
        if len(inputs.systems) < 3:
            raise MetaEvaluationError(
                f"system level needs at least 3 systems with both scores, found {len(inputs.systems)}"
            )
        page["scatter"] = system_scatter(
            inputs, human_intervals(source, inputs), measure_intervals(inputs)
        )
        page["rankings"] = rankings(inputs, human_clusters(source, inputs))
    else:
        page["scatter"] = segment_scatter(inputs)
        page["disagreements"] = disagreements(inputs, system=system)
    return page


def scatter_numbers(page: dict[str, Any]) -> dict[str, Any]:
    """The numbers behind the scatter page, for its CSV/JSON downloads."""
    inputs: CorrelationInputs = page["inputs"]
    scatter = page["scatter"]
    result: dict[str, Any] = {
        "measure": inputs.measures[0].measure,
        "signature": inputs.measures[0].signature,
        "negated": inputs.measures[0].negated,
        "human": {
            "name": inputs.human.name,
            "aspect": inputs.human.aspect,
            "view": inputs.human.view,
        },
        "level": page["level"],
        "aggregation": inputs.aggregation,
        "coefficients": scatter["stats"],
        "lines": scatter["lines"],
    }
    if page["level"] == "system":
        result["points"] = [
            {"system": p["system"], "measure": p["x"], "human": p["y"]} for p in scatter["points"]
        ]
    else:
        human = inputs.human_segments
        measure = inputs.measure_segments[0]
        result["points"] = [
            {
                "system": name,
                "segment": inputs.items[column] + 1,
                "measure": float(measure[row, column]),
                "human": float(human[row, column]),
            }
            for row, name in enumerate(inputs.systems)
            for column in range(len(inputs.items))
            if np.isfinite(human[row, column]) and np.isfinite(measure[row, column])
        ]
    return result
