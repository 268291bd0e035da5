"""Reads for meta-evaluation: human scores and stored measure scores as aligned matrices, and
the correlation tables computed from them (``manage.py correlate`` and the dashboards).

The statistics are pure (``metrics.core.correlation``); this module only gathers their input:

* the **human side** — a judgment set's or campaign's scores (``judging.humanscores``), raw or
  normalized, per (system, segment) and per system;
* the **measure side** — every stored result of the test set (one per signature; a signature
  names every option that changes the number) or those of one run: the corpus score of each
  system (``SystemScore``) and its sentence scores (``segment_arrays``);
* both laid out as systems × segments, oriented so that higher is better on both sides: an
  error measure (WER, TER, …) is negated, and so is an error-type human score, so that a
  positive correlation always means agreement (thesis §8.1, spec §2.1).

Systems are matched by name; those present on one side only are left out and listed. Human
translations judged as systems (a name equal to a reference label of the test set, or starting
``ref``/``reference``/``human`` followed by a separator, digit or capital: ``ref``, ``refA``,
``Human-A.0``) are left out unless asked for, as WMT reports both ways.

A system's measure score at system level is, by ``aggregation``:

* ``corpus`` (default): its corpus score, from the sufficient statistics summed over every
  segment — the number the run pages show and papers report;
* ``sentence-mean``: the mean of its sentence scores over the segments the humans scored for
  it — what mt-metrics-eval's ``*.sys.score`` files hold.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from django.core.cache import cache

from evaltrans.corpora.models import Reference, Segment, TestSet
from judging.humanscores.selectors import (
    HumanSource,
    human_source_list,
    source_human_scores,
)
from metrics.core import METRICS
from metrics.core.correlation import (
    COEFFICIENTS,
    GROUPINGS,
    CorrelationError,
    bootstrap_intervals,
    compare,
    correlate,
    fisher_intervals,
    format_value,
    significance_clusters,
)
from metrics.core.human_scores import HumanScoresError
from metrics.core.resampling import DEFAULT_SEED
from metrics.human_systems import is_human_system
from metrics.models import MetricRun, SystemScore
from metrics.selectors import preferences as ranking
from metrics.selectors.runs import segment_arrays

FloatArray = npt.NDArray[np.float64]

LEVELS = ("system", "segment")
AGGREGATIONS = ("corpus", "sentence-mean")
DEFAULT_COEFFICIENTS = ("pearson", "spearman", "kendall-b")
ERROR_ASPECTS = frozenset({"hter", "mqm-penalty", "errors"})
"""Human aspects where lower is better. MQM scores are stored as minus the penalty, DA and the
LDC scales grow with quality: none of those is negated."""

NOT_ATTACHED = (
    "{name!r} is not attached to a test set, so there are no measure scores to correlate with"
)
STAND_ALONE_SEGMENTS = (
    "{name!r} is not attached to the test set (its segment ids are its own), so it gives "
    "system scores only: use --level system"
)
NO_RESULTS = (
    "no stored measure results for test set {test_set!r}{which}; compute them first "
    "(manage.py evaluate or the Runs page)"
)
NO_SHARED_SYSTEMS = (
    "no system has both human scores in {human!r} and measure scores; "
    "human systems: {humans}; measure systems: {measures}"
)
TOO_FEW_SYSTEMS = "system level needs at least 3 systems with both scores, found {count} ({names})"
UNKNOWN_LEVEL = "unknown level {level!r} (known: system, segment)"
UNKNOWN_GROUPING = "unknown grouping {grouping!r} (known: none, item, system)"
GROUPING_AT_SYSTEM_LEVEL = (
    "grouping {grouping!r} needs segment level (system level has one value per system)"
)
UNKNOWN_COEFFICIENT = "unknown coefficient {name!r} (known: {known})"
COEFFICIENT_NOT_AT_LEVEL = "coefficient {name!r} is not defined at {level} level"
UNKNOWN_AGGREGATION = "unknown aggregation {name!r} (known: corpus, sentence-mean)"
RUN_NOT_DONE = "run {pk} has no stored results yet (status: {status})"
NO_RAW = "{name!r} has no raw {aspect} scores (only normalized ones); use the normalized view"
UNKNOWN_MEASURE = (
    "no stored results of measure {name!r} for test set {test_set!r} (stored: {known})"
)


class MetaEvaluationError(ValueError):
    """The correlation cannot be computed as asked; the message is for the user."""


# --------------------------------------------------------------------------- the two sides


@dataclass(frozen=True)
class HumanSide:
    """Human scores of one source, aspect and view (raw or normalized), oriented."""

    name: str
    aspect: str
    view: str
    weighting: str
    negated: bool
    systems: dict[str, float]
    segments: dict[tuple[str, int], float]
    judgments: int
    preferences: tuple[ranking.Preference, ...] | None = None
    """A ranking campaign's pairwise preferences (``metrics.selectors.preferences``): then
    ``systems`` are Expected Wins and the segment level is WMT's τ over these; else None."""
    stand_alone: bool = False
    """A set not attached to the test set (its segment ids are its own, e.g. a WMT DA file):
    system scores only, matched by system name; no segment level."""


@dataclass(frozen=True)
class MeasureResult:
    """The stored scores of one measure signature on a test set (not yet oriented)."""

    measure: str
    signature: str
    higher_is_better: bool
    corpus: dict[str, float]
    sentences: dict[str, FloatArray]

    @property
    def negated(self) -> bool:
        return not self.higher_is_better

    @property
    def label(self) -> str:
        """The measure name and the options that differ from its defaults."""
        return signature_label(self.measure, self.signature)


def signature_label(measure: str, signature: str) -> str:
    """A short name for one setting: ``cder (pad:none)`` when the signature differs from the
    measure's default signature, else just ``cder``."""
    parts = signature.split("|")[1:]
    n_refs = next((int(p[6:]) for p in parts if p.startswith("nrefs:") and p[6:].isdigit()), 1)
    try:
        default = set(str(METRICS[measure]().signature(n_refs)).split("|"))
    except (KeyError, ValueError, TypeError):
        default = set()  # a measure since removed: show every part
    differing = [part for part in parts if part not in default and part != f"nrefs:{n_refs}"]
    return f"{measure} ({', '.join(differing)})" if differing else measure


def human_side(
    *,
    source: HumanSource,
    aspect: str,
    normalized: bool = True,
    weighting: str | None = None,
    test_set: TestSet | None = None,
) -> HumanSide:
    """The human scores of ``source`` keyed by system and 0-based segment index of its test set.

    A stand-alone source (not attached) gives its system scores only, for ``test_set``.

    Raises:
        MetaEvaluationError: the source is neither attached nor given a ``test_set``, has no
            raw scores for a raw view, or bad human options.
    """
    if source.is_ranking and normalized:
        raise MetaEvaluationError(ranking.NOT_NORMALIZED.format(name=source.name))
    sides = human_sides(source=source, aspect=aspect, weighting=weighting, test_set=test_set)
    view = "normalized" if normalized else "raw"
    if view not in sides:
        raise MetaEvaluationError(NO_RAW.format(name=source.name, aspect=aspect))
    return sides[view]


def human_sides(
    *,
    source: HumanSource,
    aspect: str,
    weighting: str | None = None,
    test_set: TestSet | None = None,
) -> dict[str, HumanSide]:
    """Both views of one aspect from one computation: ``normalized`` always, ``raw`` where
    every scored judgment has a raw score (a file may ship only WMT's z). A stand-alone
    source needs ``test_set`` and gives no segment scores."""
    stand_alone = source.test_set is None
    if stand_alone and (test_set is None or source.is_ranking):
        raise MetaEvaluationError(NOT_ATTACHED.format(name=source.name))
    if source.is_ranking:
        return {"raw": _ranking_side(source, aspect)}
    try:
        scores = source_human_scores(
            source=source, aspect=aspect, weighting=weighting, bootstrap_samples=0
        )
    except HumanScoresError as error:
        raise MetaEvaluationError(str(error)) from None
    index_of = {} if stand_alone else _segment_indices(source)
    sign = -1.0 if aspect in ERROR_ASPECTS else 1.0
    judgments = sum(score.n_judgments for score in scores.systems)
    sides = {}
    for view in ("raw", "normalized"):
        if view == "raw" and any(score.raw is None for score in scores.systems):
            continue

        def value(score: Any, view: str = view) -> float:
            number = getattr(score, view)
            return math.nan if number is None else sign * float(number)

        sides[view] = HumanSide(
            name=source.name,
            aspect=aspect,
            view=view,
            weighting=weighting or source.default_weighting,
            negated=sign < 0,
            systems={score.system: value(score) for score in scores.systems},
            segments={
                (score.system, index_of[score.segment_id]): value(score)
                for score in scores.segments
                if score.segment_id in index_of
            },
            judgments=judgments,
            stand_alone=stand_alone,
        )
    return sides


def _ranking_side(source: HumanSource, aspect: str) -> HumanSide:
    """A ranking campaign's side: Expected Wins and preferences (``selectors.preferences``)."""
    if aspect != ranking.RANKING_ASPECT:
        raise MetaEvaluationError(
            ranking.UNKNOWN_ASPECT.format(
                name=source.name, aspect=ranking.RANKING_ASPECT, asked=aspect
            )
        )
    try:
        data = ranking.ranking_human(source=source)
    except ranking.RankingError as error:
        raise MetaEvaluationError(str(error)) from None
    return HumanSide(
        name=source.name,
        aspect=aspect,
        view="raw",
        weighting="none",
        negated=False,
        systems=data.systems,
        segments=data.segments,
        judgments=data.comparisons,
        preferences=data.preferences,
    )


def _segment_indices(source: HumanSource) -> dict[str, int]:
    index_by_pk = dict(Segment.objects.filter(test_set=source.test_set).values_list("pk", "index"))
    return {key: index_by_pk[pk] for key, pk in source.segment_links.items() if pk in index_by_pk}


def measure_results(
    *, test_set: TestSet, run: MetricRun | None = None, measures: Sequence[str] = ()
) -> list[MeasureResult]:
    """The stored results of a run, or every stored result of the test set (optionally only of
    the named measures), in registry order, then by signature.

    Raises:
        MetaEvaluationError: nothing stored, or a named measure has no stored result.
    """
    rows = SystemScore.objects.filter(test_set=test_set).values_list(
        "measure", "signature", "higher_is_better", "system_id", "system__name", "score"
    )
    if run is not None:
        signatures = list(run.measures.values_list("signature", flat=True))
        rows = rows.filter(signature__in=signatures)
    grouped: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for row in rows:
        grouped[row[1]].append(row)
    if run is not None and not grouped:
        raise MetaEvaluationError(RUN_NOT_DONE.format(pk=run.pk, status=run.status))
    present = sorted({rows[0][0] for rows in grouped.values()})
    for name in measures:
        if name not in present:
            raise MetaEvaluationError(
                UNKNOWN_MEASURE.format(
                    name=name, test_set=test_set.name, known=", ".join(present) or "none"
                )
            )
    if not grouped:
        raise MetaEvaluationError(NO_RESULTS.format(test_set=test_set.name, which=""))
    order = {name: position for position, name in enumerate(METRICS)}
    results = []
    for signature, group in sorted(
        grouped.items(), key=lambda item: (order.get(item[1][0][0], 99), item[0])
    ):
        measure = group[0][0]
        if measures and measure not in measures:
            continue
        names = {row[3]: row[4] for row in group}
        arrays = segment_arrays(test_set=test_set, signature=signature, system_ids=list(names))
        results.append(
            MeasureResult(
                measure=measure,
                signature=signature,
                higher_is_better=bool(group[0][2]),
                corpus={row[4]: math.nan if row[5] is None else float(row[5]) for row in group},
                sentences={names[pk]: data.sentence_scores for pk, data in arrays.items()},
            )
        )
    return results


# --------------------------------------------------------------------------- matrices


@dataclass(frozen=True)
class CorrelationInputs:
    """Both sides as aligned, oriented matrices.

    ``human_segments`` is (S, K) over ``systems`` × ``items`` (0-based segment indices judged
    for at least one used system), NaN where a system's segment was not judged;
    ``measure_segments`` (M, S, K) the sentence scores there; ``human_systems`` (S,) and
    ``measure_systems`` (M, S) the system-level scores under ``aggregation``.
    """

    test_set: TestSet
    human: HumanSide
    measures: list[MeasureResult]
    aggregation: str
    systems: list[str]
    excluded: dict[str, str]
    items: list[int]
    human_segments: FloatArray
    human_systems: FloatArray
    measure_segments: FloatArray
    measure_systems: FloatArray


def correlation_inputs(
    *,
    test_set: TestSet,
    human: HumanSide,
    results: list[MeasureResult],
    aggregation: str = "corpus",
    include_human_systems: bool = False,
) -> CorrelationInputs:
    """Align the two sides on shared systems and judged segments.

    Raises:
        MetaEvaluationError: unknown aggregation, no system on both sides.
    """
    if aggregation not in AGGREGATIONS:
        raise MetaEvaluationError(UNKNOWN_AGGREGATION.format(name=aggregation))
    if not results:
        raise MetaEvaluationError(NO_RESULTS.format(test_set=test_set.name, which=""))
    labels = set(
        Reference.objects.filter(segment__test_set=test_set).values_list("label", flat=True)
    )
    measured = set.intersection(*(set(result.corpus) for result in results))
    every_measured = set.union(*(set(result.corpus) for result in results))
    excluded: dict[str, str] = {}
    systems = []
    for name in sorted(set(human.systems) | every_measured):
        if name not in human.systems:
            excluded[name] = "no human scores"
        elif name not in measured:
            excluded[name] = (
                "human translation" if is_human_system(name, labels) else "no measure scores"
            )
        elif is_human_system(name, labels) and not include_human_systems:
            excluded[name] = "human translation"
        else:
            systems.append(name)
    if not systems:
        raise MetaEvaluationError(
            NO_SHARED_SYSTEMS.format(
                human=human.name,
                humans=", ".join(sorted(human.systems)) or "none",
                measures=", ".join(sorted(every_measured)) or "none",
            )
        )
    items = sorted({index for (name, index) in human.segments if name in systems})
    human_segments = np.full((len(systems), len(items)), np.nan)
    for row, name in enumerate(systems):
        for position, index in enumerate(items):
            human_segments[row, position] = human.segments.get((name, index), np.nan)
    measure_segments = np.full((len(results), len(systems), len(items)), np.nan)
    positions = np.array(items, dtype=np.int64)
    for m, result in enumerate(results):
        sign = -1.0 if result.negated else 1.0
        for row, name in enumerate(systems):
            sentences = result.sentences.get(name)
            if sentences is not None and len(sentences) > (positions.max() if items else -1):
                measure_segments[m, row] = sign * sentences[positions]
    measure_systems = np.full((len(results), len(systems)), np.nan)
    for m, result in enumerate(results):
        sign = -1.0 if result.negated else 1.0
        for row, name in enumerate(systems):
            if aggregation == "corpus":
                measure_systems[m, row] = sign * result.corpus[name]
            else:
                judged = ~np.isnan(human_segments[row])
                values = measure_segments[m, row][judged]
                values = values[~np.isnan(values)]
                measure_systems[m, row] = values.mean() if values.size else np.nan
    return CorrelationInputs(
        test_set=test_set,
        human=human,
        measures=results,
        aggregation=aggregation,
        systems=systems,
        excluded=excluded,
        items=items,
        human_segments=human_segments,
        human_systems=np.array([human.systems[name] for name in systems], dtype=np.float64),
        measure_segments=measure_segments,
        measure_systems=measure_systems,
    )


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class CorrelationCell:
    """One coefficient of one measure: the value (positive = agreement), its n and interval."""

    measure: str
    signature: str
    label: str
    coefficient: str
    value: float | None
    n: int
    ci: tuple[float, float] | None
    ci_method: str
    negated: bool
    groups_skipped: int = 0
    best: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "signature": self.signature,
            "coefficient": self.coefficient,
            "value": self.value,
            "n": self.n,
            "ci": list(self.ci) if self.ci else None,
            "ci_method": self.ci_method,
            "negated": self.negated,
            "groups_skipped": self.groups_skipped,
        }


@dataclass(frozen=True)
class CorrelationTable:
    """Every asked coefficient of every measure against one human column."""

    level: str
    grouping: str
    aggregation: str
    coefficients: list[str]
    inputs: CorrelationInputs
    cells: list[CorrelationCell] = field(default_factory=list)

    def cell(self, signature: str, coefficient: str) -> CorrelationCell:
        for cell in self.cells:
            if cell.signature == signature and cell.coefficient == coefficient:
                return cell
        raise KeyError((signature, coefficient))

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract of ``manage.py correlate --json`` (docs/correlation.md)."""
        human = self.inputs.human
        return {
            "level": self.level,
            "grouping": self.grouping,
            "aggregation": self.aggregation,
            "test_set": self.inputs.test_set.name,
            "human": {
                "name": human.name,
                "aspect": human.aspect,
                "view": human.view,
                "weighting": human.weighting,
                "negated": human.negated,
                "judgments": human.judgments,
                "attached": not human.stand_alone,
            },
            "systems": self.inputs.systems,
            "excluded": sorted(self.inputs.excluded),
            "excluded_reasons": dict(sorted(self.inputs.excluded.items())),
            "segments": len(self.inputs.items),
            "correlations": [cell.as_dict() for cell in self.cells],
        }


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def check_request(*, level: str, grouping: str, coefficients: Sequence[str]) -> None:
    """Raises MetaEvaluationError for a level, grouping or coefficient that cannot be asked."""
    if level not in LEVELS:
        raise MetaEvaluationError(UNKNOWN_LEVEL.format(level=level))
    if grouping not in GROUPINGS:
        raise MetaEvaluationError(UNKNOWN_GROUPING.format(grouping=grouping))
    if level == "system" and grouping != "none":
        raise MetaEvaluationError(GROUPING_AT_SYSTEM_LEVEL.format(grouping=grouping))
    for name in coefficients:
        if name not in COEFFICIENTS:
            known = ", ".join(COEFFICIENTS)
            raise MetaEvaluationError(UNKNOWN_COEFFICIENT.format(name=name, known=known))
        spec = COEFFICIENTS[name]
        defined = spec.system_level if level == "system" else spec.segment_level
        if not defined:
            raise MetaEvaluationError(COEFFICIENT_NOT_AT_LEVEL.format(name=name, level=level))


def level_arrays(
    inputs: CorrelationInputs, level: str, coefficient: str = ""
) -> tuple[FloatArray, FloatArray]:
    """(human, measures) in the statistics' layout: (S, K) and (M, S, K); K = 1 at system level,
    except for a system-level statistic computed from the segments (PCE)."""
    spec = COEFFICIENTS.get(coefficient)
    if level == "system" and not (spec is not None and spec.needs_segments):
        return inputs.human_systems[:, None], inputs.measure_systems[:, :, None]
    return inputs.human_segments, inputs.measure_segments


def correlation_table(
    inputs: CorrelationInputs,
    *,
    level: str,
    grouping: str = "none",
    coefficients: Sequence[str] = DEFAULT_COEFFICIENTS,
    bootstrap: int = 0,
    seed: int = DEFAULT_SEED,
) -> CorrelationTable:
    """Every coefficient of every measure of ``inputs``.

    Intervals: Fisher-z 95 % for Pearson (thesis §2.9; n = cells pooled, or systems), and, when
    ``bootstrap`` > 0, seeded percentile bootstrap intervals for every coefficient instead,
    resampling segments with all their systems (segment level) or systems (system level).

    Raises:
        MetaEvaluationError: a level, grouping or coefficient that cannot be asked, or fewer
            than 3 systems at system level.
    """
    check_request(level=level, grouping=grouping, coefficients=coefficients)
    if inputs.human.stand_alone and level == "segment":
        raise MetaEvaluationError(STAND_ALONE_SEGMENTS.format(name=inputs.human.name))
    if inputs.human.preferences is not None:
        error = ranking.ranking_request_error(
            name=inputs.human.name, level=level, grouping=grouping, coefficients=coefficients
        )
        if error:
            raise MetaEvaluationError(error)
    if level == "system" and len(inputs.systems) < 3:
        raise MetaEvaluationError(
            TOO_FEW_SYSTEMS.format(count=len(inputs.systems), names=", ".join(inputs.systems))
        )
    cells: list[CorrelationCell] = []
    for name in coefficients:
        human, measures = level_arrays(inputs, level, name)
        try:
            low = high = None
            method = ""
            if inputs.human.preferences is not None and level == "segment":
                result, low, high = ranking.preference_correlations(
                    inputs, bootstrap=bootstrap, seed=seed
                )
                method = f"bootstrap-{bootstrap}" if bootstrap > 0 else ""
            else:
                result = correlate(human, measures, coefficient=name, grouping=grouping)
                if bootstrap > 0 and not COEFFICIENTS[name].needs_segments:
                    low, high = bootstrap_intervals(
                        human,
                        measures,
                        coefficient=name,
                        grouping=grouping,
                        resample="systems" if level == "system" else "items",
                        samples=bootstrap,
                        seed=seed,
                    )
                    method = f"bootstrap-{bootstrap}"
                elif name == "pearson" and grouping == "none":
                    low, high = fisher_intervals(result)
                    method = "fisher-z"
        except CorrelationError as error:
            raise MetaEvaluationError(str(error)) from None
        values = [_finite(value) for value in result.values]
        finite = [value for value in values if value is not None]
        best = max(finite) if finite else None
        for m, measure in enumerate(inputs.measures):
            interval = None
            if (
                low is not None
                and high is not None
                and np.isfinite(low[m])
                and np.isfinite(high[m])
            ):
                interval = (float(low[m]) + 0.0, float(high[m]) + 0.0)
            cells.append(
                CorrelationCell(
                    measure=measure.measure,
                    signature=measure.signature,
                    label=measure.label,
                    coefficient=name,
                    value=values[m],
                    n=int(result.n[m]),
                    ci=interval,
                    ci_method=method if interval else "",
                    negated=measure.negated,
                    groups_skipped=int(result.groups_skipped[m]),
                    best=values[m] is not None and values[m] == best,
                )
            )
    return CorrelationTable(
        level=level,
        grouping=grouping,
        aggregation=inputs.aggregation,
        coefficients=list(coefficients),
        inputs=inputs,
        cells=cells,
    )


# --------------------------------------------------------------------------- the matrix


@dataclass(frozen=True)
class MatrixColumn:
    """One human column of the matrix: aspect × view × level."""

    aspect: str
    view: str
    level: str
    grouping: str
    judgments: int
    systems: int
    segments: int

    @property
    def key(self) -> str:
        return f"{self.aspect}|{self.view}|{self.level}"

    @property
    def label(self) -> str:
        level = "system" if self.level == "system" else f"segment ({self.grouping})"
        return f"{self.aspect} · {self.view} · {level}"


@dataclass(frozen=True)
class MatrixCell:
    value: float | None
    n: int
    ci: tuple[float, float] | None
    ci_method: str
    best: bool
    cluster: int | None


@dataclass(frozen=True)
class MeasureRow:
    """A row of the matrix: one stored measure setting."""

    measure: str
    signature: str
    label: str
    negated: bool


@dataclass(frozen=True)
class CorrelationMatrix:
    """Rows = stored measure settings, columns = human aspect × view × level, one coefficient."""

    coefficient: str
    grouping: str
    aggregation: str
    source_name: str
    fingerprint: str
    rows: list[MeasureRow]
    columns: list[MatrixColumn]
    cells: list[list[MatrixCell | None]]
    systems: list[str]
    excluded: dict[str, str]
    judgments: int
    notes: list[str]
    significance_tested: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The numbers of the matrix for its JSON download."""
        return {
            "coefficient": self.coefficient,
            "grouping": self.grouping,
            "aggregation": self.aggregation,
            "human": self.source_name,
            "judgments": self.judgments,
            "systems": self.systems,
            "excluded": dict(sorted(self.excluded.items())),
            "columns": [
                {"aspect": c.aspect, "view": c.view, "level": c.level, "grouping": c.grouping}
                for c in self.columns
            ],
            "rows": [
                {
                    "measure": row.measure,
                    "signature": row.signature,
                    "negated": row.negated,
                    "cells": [
                        None
                        if cell is None
                        else {
                            "value": cell.value,
                            "n": cell.n,
                            "ci": list(cell.ci) if cell.ci else None,
                            "ci_method": cell.ci_method,
                            "best": cell.best,
                            "cluster": cell.cluster,
                        }
                        for cell in cells
                    ],
                }
                for row, cells in zip(self.rows, self.cells, strict=True)
            ],
            "notes": self.notes,
        }


def correlation_matrix(
    *,
    source: HumanSource,
    coefficient: str = "pearson",
    grouping: str = "none",
    aggregation: str = "corpus",
    aspects: Sequence[str] = (),
    measures: Sequence[str] = (),
    significance: bool = True,
    include_human_systems: bool = False,
) -> CorrelationMatrix:
    """Every stored measure setting of the source's test set against every human column.

    A coefficient defined at one level only leaves the other level's columns empty. Intervals:
    Fisher-z for Pearson (pooled or system level); none for the others here (the scatter page
    and the command give bootstrap intervals). Significance clusters per column (rank 1 = not
    significantly worse than the best, p > 0.05): Williams' test for Pearson, PERM-BOTH with 200
    resamples for the other coefficients (``significance=False`` skips them).

    Raises:
        MetaEvaluationError: not attached, nothing stored, no shared systems, bad options.
    """
    check_request(level="segment", grouping=grouping, coefficients=[])
    if coefficient not in COEFFICIENTS:
        known = ", ".join(COEFFICIENTS)
        raise MetaEvaluationError(UNKNOWN_COEFFICIENT.format(name=coefficient, known=known))
    if source.test_set is None:
        raise MetaEvaluationError(NOT_ATTACHED.format(name=source.name))
    results = measure_results(test_set=source.test_set, measures=measures)
    spec = COEFFICIENTS[coefficient]
    columns: list[MatrixColumn] = []
    column_cells: list[list[MatrixCell | None]] = []
    systems: list[str] = []
    excluded: dict[str, str] = {}
    notes: list[str] = []
    judgments = 0
    for aspect in aspects or ranking.correlation_aspects(source):
        for view, human in human_sides(source=source, aspect=aspect).items():
            inputs = correlation_inputs(
                test_set=source.test_set,
                human=human,
                results=results,
                aggregation=aggregation,
                include_human_systems=include_human_systems,
            )
            systems, excluded, judgments = inputs.systems, inputs.excluded, human.judgments
            for level in LEVELS:
                defined = spec.system_level if level == "system" else spec.segment_level
                column_grouping = grouping if level == "segment" else "none"
                if human.preferences is not None:  # a ranking campaign: WMT's pooled τ only
                    column_grouping = "none"
                    asked = {"name": source.name, "level": level, "grouping": "none"}
                    defined = not ranking.ranking_request_error(**asked, coefficients=[coefficient])
                    if not defined and level == "segment":
                        notes.append(ranking.MATRIX_NOTE)
                columns.append(
                    MatrixColumn(
                        aspect=aspect,
                        view=view,
                        level=level,
                        grouping=column_grouping,
                        judgments=human.judgments,
                        systems=len(inputs.systems),
                        segments=len(inputs.items),
                    )
                )
                if not defined or (level == "system" and len(inputs.systems) < 3):
                    column_cells.append([None] * len(results))
                    continue
                column_cells.append(
                    _matrix_column(inputs, level, column_grouping, coefficient, significance)
                )
    if not spec.segment_level or not spec.system_level:
        missing = "segment" if not spec.segment_level else "system"
        notes.append(f"{coefficient} is not defined at {missing} level: those columns are empty")
    cells = [[column[m] for column in column_cells] for m in range(len(results))]
    return CorrelationMatrix(
        coefficient=coefficient,
        grouping=grouping,
        aggregation=aggregation,
        source_name=source.name,
        fingerprint=source.fingerprint,
        rows=[MeasureRow(r.measure, r.signature, r.label, r.negated) for r in results],
        columns=columns,
        cells=cells,
        systems=systems,
        excluded=excluded,
        judgments=judgments,
        notes=notes,
        significance_tested=significance,
    )


MATRIX_PERMUTATIONS = 200


def _matrix_column(
    inputs: CorrelationInputs, level: str, grouping: str, coefficient: str, significance: bool
) -> list[MatrixCell | None]:
    human, measures = level_arrays(inputs, level, coefficient)
    pairwise = inputs.human.preferences is not None and level == "segment"
    try:
        if pairwise:
            result = ranking.preference_correlations(inputs)[0]
        else:
            result = correlate(human, measures, coefficient=coefficient, grouping=grouping)
        low = high = None
        if coefficient == "pearson" and grouping == "none":
            low, high = fisher_intervals(result)
        clusters = None
        testable = not COEFFICIENTS[coefficient].needs_segments and not pairwise
        if significance and testable and len(inputs.measures) > 1:
            pearson = coefficient == "pearson" and grouping == "none"
            pvalues = compare(
                human,
                measures,
                coefficient=coefficient,
                grouping=grouping,
                method="williams" if pearson else "permutation",
                samples=MATRIX_PERMUTATIONS,
            )
            clusters = significance_clusters(result.values, pvalues)
    except CorrelationError as error:
        raise MetaEvaluationError(str(error)) from None
    values = [_finite(value) for value in result.values]
    finite = [value for value in values if value is not None]
    best = max(finite) if finite else None
    column: list[MatrixCell | None] = []
    for m, value in enumerate(values):
        interval = None
        if low is not None and high is not None and np.isfinite(low[m]) and np.isfinite(high[m]):
            interval = (float(low[m]) + 0.0, float(high[m]) + 0.0)
        column.append(
            MatrixCell(
                value=value,
                n=int(result.n[m]),
                ci=interval,
                ci_method="fisher-z" if interval else "",
                best=value is not None and value == best,
                cluster=None if clusters is None or value is None else int(clusters[m]),
            )
        )
    return column


MATRIX_CACHE_SECONDS = 3600
MATRIX_CACHE_VERSION = 2


def stored_results_key(test_set: TestSet) -> str:
    """Changes whenever a result of the test set is stored or recomputed."""
    rows = SystemScore.objects.filter(test_set=test_set)
    latest = rows.order_by("-computed_at").values_list("computed_at", flat=True).first()
    return f"{rows.count()}:{latest.isoformat() if latest else ''}"


def cached_correlation_matrix(
    *,
    source: HumanSource,
    coefficient: str = "pearson",
    grouping: str = "none",
    aggregation: str = "corpus",
    significance: str = "auto",
) -> CorrelationMatrix:
    """``correlation_matrix`` from the cache, keyed by the judgments' fingerprint and the stored
    results, so a new judgment or a finished run shows at once. ``significance``: ``on``,
    ``off``, or ``auto`` = on for Pearson (Williams' test is cheap), off otherwise (permutation
    tests over every column take seconds)."""
    if source.test_set is None:
        raise MetaEvaluationError(NOT_ATTACHED.format(name=source.name))
    tests = significance == "on" or (significance == "auto" and coefficient == "pearson")
    key = ":".join(
        [
            f"correlation:v{MATRIX_CACHE_VERSION}",
            source.kind,
            str(source.pk),
            source.fingerprint,
            ranking.ranking_fingerprint(source=source) if source.is_ranking else "",
            stored_results_key(source.test_set),
            coefficient,
            grouping,
            aggregation,
            str(tests),
        ]
    )
    matrix = cache.get(key)
    if matrix is None:
        matrix = correlation_matrix(
            source=source,
            coefficient=coefficient,
            grouping=grouping,
            aggregation=aggregation,
            significance=tests,
        )
        cache.set(key, matrix, MATRIX_CACHE_SECONDS)
    return matrix


def matrix_display(matrix: CorrelationMatrix) -> dict[str, Any]:
    """The matrix as the page shows it: labels and cells for the figure, rows for the table."""
    cells = [
        [
            None
            if cell is None
            else {
                "value": cell.value,
                "n": cell.n,
                "ci": cell.ci,
                "best": cell.best,
                "cluster": cell.cluster,
            }
            for cell in row_cells
        ]
        for row_cells in matrix.cells
    ]
    table_rows = []
    for row, row_cells in zip(matrix.rows, cells, strict=True):
        display = []
        for column, cell in zip(matrix.columns, row_cells, strict=True):
            if cell is not None and cell["value"] is not None:
                cell = {
                    **cell,
                    "text": format_value(cell["value"]),
                    "half_width": (cell["ci"][1] - cell["ci"][0]) / 2 if cell["ci"] else None,
                    "aspect": column.aspect,
                    "view": column.view,
                    "level": column.level,
                }
            display.append(cell)
        table_rows.append(
            {
                "label": row.label,
                "signature": row.signature,
                "negated": row.negated,
                "display_cells": display,
            }
        )
    return {
        "coefficient": matrix.coefficient,
        "row_labels": [row.label + (" ↓" if row.negated else "") for row in matrix.rows],
        "column_labels": [column.label for column in matrix.columns],
        "columns": matrix.columns,
        "cells": cells,
        "table_rows": table_rows,
    }


def correlatable_sources() -> list[dict[str, Any]]:
    """Human sources attached to a test set, with how many measure settings are stored for it."""
    rows = [row for row in human_source_list() if row.get("test_set") is not None]
    counts: dict[int, int] = defaultdict(int)
    pairs = SystemScore.objects.order_by().values_list("test_set_id", "signature").distinct()
    for test_set_id, _signature in pairs:
        counts[test_set_id] += 1
    for row in rows:
        row["stored_settings"] = counts.get(row["test_set"].pk, 0)
    return rows


def stored_measures(*, source: HumanSource) -> list[MeasureRow]:
    """The measure settings stored for the source's test set, in registry order (for pickers)."""
    if source.test_set is None:
        return []
    rows = (
        SystemScore.objects.filter(test_set=source.test_set)
        .order_by()
        .values_list("measure", "signature", "higher_is_better")
        .distinct()
    )
    order = {name: position for position, name in enumerate(METRICS)}
    return [
        MeasureRow(measure, signature, signature_label(measure, signature), not higher)
        for measure, signature, higher in sorted(
            set(rows), key=lambda row: (order.get(row[0], 99), row[1])
        )
    ]


def correlation_sources_for(*, test_set: TestSet) -> list[dict[str, Any]]:
    """The judgment sets and campaigns attached to a test set (links from its run pages)."""
    return human_source_list(test_set=test_set)
