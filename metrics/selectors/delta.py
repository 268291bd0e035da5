"""Reads for the Δ-prediction experiment (EDPM paper §A10, ``manage.py delta_correlate``): how
well each stored measure's differences between two systems predict the humans' differences.

The input is gathered exactly as ``manage.py correlate`` gathers it
(:mod:`metrics.selectors.correlation`): the human side of a judgment set or campaign, the
stored results of the test set, systems matched by name (human translations left out), both
sides oriented so that higher is better (error measures and error-type human scores negated).
The statistics are :mod:`metrics.core.correlation.delta`:

* ``sentence``: one point per (judged segment, system pair), scaled by the length of the
  segment's first reference in ``13a`` tokens (sacreBLEU's default tokenizer); a segment
  without a reference (length 0) is left out;
* ``document``: one point per (document, system pair). A system's document score is the
  measure's corpus aggregation (``Measure.aggregate``, the step that makes the stored corpus
  score of ``correlate --aggregation corpus``) over the stored statistics of the document's
  segments the humans judged for that system, with the options of a run that computed the
  signature; its human document score is the mean of those segments' human scores. A measure
  without stored statistics (imported scores) has no document scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evaltrans.corpora.models import Segment, System, TestSet
from metrics.core.correlation import CorrelationError
from metrics.core.correlation.delta import (
    Aggregate,
    delta_correlation,
    document_aggregates,
    document_groups,
    document_means,
    system_pairs,
)
from metrics.core.preprocessing import tokenize_13a_many
from metrics.measure_choices import RunError, measure_build
from metrics.models import RunMeasure
from metrics.selectors.correlation import (
    CorrelationInputs,
    HumanSide,
    MeasureResult,
    MetaEvaluationError,
    correlation_inputs,
)
from metrics.selectors.runs import segment_arrays
from metrics.selectors.texts import testset_references

FloatArray = npt.NDArray[np.float64]

UNITS = ("document", "sentence")
LENGTH_TOKENIZER = "13a"

UNKNOWN_UNIT = "unknown unit {unit!r} (known: document, sentence)"
TOO_FEW_SYSTEMS = (
    "differences between systems need at least 2 systems with both scores, found {count} ({names})"
)
NO_DOC_IDS = (
    "test set {name!r} has no document ids on {missing} of its {total} judged segments; "
    "use --unit sentence"
)
NO_JUDGED = "{name!r} judged no segment of the shared systems"
NO_STATISTICS = "no stored sufficient statistics (imported scores): no document scores"
NO_OPTIONS = "no run here computed this signature: its options are unknown"


@dataclass(frozen=True)
class DeltaRow:
    """The Δ correlation of one measure setting (positive = agreement)."""

    measure: str
    signature: str
    label: str
    value: float | None
    n: int
    ci: tuple[float, float] | None
    negated: bool
    human_ties: int
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "signature": self.signature,
            "value": self.value,
            "n": self.n,
            "ci": list(self.ci) if self.ci else None,
            "negated": self.negated,
            "human_ties": self.human_ties,
            "note": self.note,
        }


@dataclass(frozen=True)
class DeltaTable:
    """Every measure's Δ correlation against one human column, at one unit."""

    unit: str
    inputs: CorrelationInputs
    pairs: int
    units: int
    rows: list[DeltaRow]

    def as_dict(self) -> dict[str, Any]:
        """The JSON of ``manage.py delta_correlate --json`` (docs/measures.md)."""
        human = self.inputs.human
        return {
            "unit": self.unit,
            "test_set": self.inputs.test_set.name,
            "human": {
                "name": human.name,
                "aspect": human.aspect,
                "view": human.view,
                "negated": human.negated,
                "judgments": human.judgments,
            },
            "systems": self.inputs.systems,
            "excluded": sorted(self.inputs.excluded),
            "excluded_reasons": dict(sorted(self.inputs.excluded.items())),
            "pairs": self.pairs,
            "units": self.units,
            "length_tokenizer": LENGTH_TOKENIZER if self.unit == "sentence" else None,
            "correlations": [row.as_dict() for row in self.rows],
        }


def delta_table(
    *,
    test_set: TestSet,
    human: HumanSide,
    results: list[MeasureResult],
    unit: str,
    include_human_systems: bool = False,
) -> DeltaTable:
    """Pearson r of every measure's oriented Δs with Δhuman over (unit, system pair) points,
    with Fisher-z 95 % intervals.

    Raises:
        MetaEvaluationError: unknown unit, nothing stored, fewer than 2 shared systems, or
            judged segments without a document id at document level.
    """
    if unit not in UNITS:
        raise MetaEvaluationError(UNKNOWN_UNIT.format(unit=unit))
    inputs = correlation_inputs(
        test_set=test_set,
        human=human,
        results=results,
        aggregation="corpus",
        include_human_systems=include_human_systems,
    )
    if len(inputs.systems) < 2:
        raise MetaEvaluationError(
            TOO_FEW_SYSTEMS.format(count=len(inputs.systems), names=", ".join(inputs.systems))
        )
    if not inputs.items:
        raise MetaEvaluationError(NO_JUDGED.format(name=human.name))
    if unit == "sentence":
        measures, humans, weights, notes = _sentence_points(inputs)
        units = len(inputs.items)
    else:
        documents = _document_ids(inputs)
        measures, humans, notes = _document_points(inputs, documents)
        weights = None
        units = len(document_groups(documents)[0])
    try:
        found = delta_correlation(measures, humans, weights)
    except CorrelationError as error:
        raise MetaEvaluationError(str(error)) from None
    rows = [
        DeltaRow(
            measure=result.measure,
            signature=result.signature,
            label=result.label,
            value=_finite(found.values[m]),
            n=int(found.n[m]),
            ci=_interval(found.low[m], found.high[m]),
            negated=result.negated,
            human_ties=int(found.human_ties[m]),
            note=notes[m],
        )
        for m, result in enumerate(inputs.measures)
    ]
    pairs = len(system_pairs(len(inputs.systems)))
    return DeltaTable(unit=unit, inputs=inputs, pairs=pairs, units=units, rows=rows)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _interval(low: float, high: float) -> tuple[float, float] | None:
    if np.isfinite(low) and np.isfinite(high):
        return float(low) + 0.0, float(high) + 0.0
    return None


# --------------------------------------------------------------------------- sentences


def reference_lengths(*, test_set: TestSet, items: list[int]) -> FloatArray:
    """|r_i| of each item (0-based segment index): tokens of its first reference (the test
    set's label order) under the ``13a`` tokenizer; NaN where it has none or it is empty."""
    references = testset_references(test_set=test_set)
    firsts = [references[index][0] if references[index] else "" for index in items]
    lengths = np.array([len(tokens) for tokens in tokenize_13a_many(firsts)], dtype=np.float64)
    lengths[lengths == 0] = np.nan
    return lengths


def _sentence_points(
    inputs: CorrelationInputs,
) -> tuple[FloatArray, FloatArray, FloatArray, list[str]]:
    weights = reference_lengths(test_set=inputs.test_set, items=inputs.items)
    return inputs.measure_segments, inputs.human_segments, weights, [""] * len(inputs.measures)


# --------------------------------------------------------------------------- documents


def _document_ids(inputs: CorrelationInputs) -> list[str]:
    """The document id of each judged item; MetaEvaluationError when any has none."""
    doc_of = dict(
        Segment.objects.filter(test_set=inputs.test_set, index__in=inputs.items).values_list(
            "index", "doc_id"
        )
    )
    documents = [doc_of.get(index, "") for index in inputs.items]
    missing = sum(1 for document in documents if not document)
    if missing:
        raise MetaEvaluationError(
            NO_DOC_IDS.format(name=inputs.test_set.name, missing=missing, total=len(documents))
        )
    return documents


def _document_points(
    inputs: CorrelationInputs, documents: list[str]
) -> tuple[FloatArray, FloatArray, list[str]]:
    """Measure document scores (M, S, D), human ones (S, D), a note per measure."""
    humans = document_means(inputs.human_segments, documents)
    measures = np.full((len(inputs.measures), *humans.shape), np.nan)
    notes = []
    for m, result in enumerate(inputs.measures):
        stats, note = _statistics(inputs, result)
        if stats is not None:
            aggregate, note = _aggregation(inputs.test_set, result)
            if aggregate is not None:
                measures[m] = document_aggregates(
                    stats, inputs.human_segments, documents, aggregate
                )
        notes.append(note)
    return measures, humans, notes


def _statistics(inputs: CorrelationInputs, result: MeasureResult) -> tuple[FloatArray | None, str]:
    """The stored statistics (S, K, C) of one measure at the judged items, or a note why not."""
    ids = dict(
        System.objects.filter(test_set=inputs.test_set, name__in=inputs.systems).values_list(
            "name", "pk"
        )
    )
    arrays = segment_arrays(
        test_set=inputs.test_set, signature=result.signature, system_ids=list(ids.values())
    )
    positions = np.array(inputs.items, dtype=np.int64)
    rows = []
    for name in inputs.systems:
        found = arrays.get(ids.get(name, -1))
        if found is None or found.stats.shape[1] == 0 or len(found.stats) <= positions.max():
            return None, NO_STATISTICS
        rows.append(found.stats[positions])
    return np.stack(rows), ""


def _aggregation(test_set: TestSet, result: MeasureResult) -> tuple[Aggregate | None, str]:
    """The oriented corpus aggregation of one stored signature: the measure built with the
    options of a run that computed it, scoring statistics rows with that run's ``n_refs``."""
    run_measure = (
        RunMeasure.objects.filter(run__test_set=test_set, signature=result.signature)
        .select_related("run")
        .first()
    )
    if run_measure is None:
        return None, NO_OPTIONS
    try:
        measure = measure_build(name=result.measure, options=run_measure.options)
    except RunError as error:
        return None, str(error)
    sign = -1.0 if result.negated else 1.0
    n_refs = run_measure.run.n_refs

    def aggregate(rows: FloatArray) -> float:
        return sign * float(measure.aggregate(rows, n_refs=n_refs).score)

    return aggregate, ""
