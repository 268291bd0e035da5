"""Reads for the segment page (issue 18: why did each measure score this sentence as it did?).

:func:`segment_page`: one segment of a test set with its document context, references, every
system's candidate with every stored sentence score of that segment (read from the one chunk
that holds it, not the whole test set) and every human judgment of it (``judgments``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet
from metrics.core import METRICS
from metrics.core.base import format_signature_value
from metrics.models import SegmentStatistics, SystemScore, unpack_floats
from metrics.selectors.correlation import signature_label
from metrics.selectors.segments.judgments import HumanTable, segment_judgments
from metrics.selectors.segments.measures import GRID_MEASURES


def testset_segment(*, test_set_pk: int, number: int) -> tuple[TestSet, Segment]:
    """The test set and its segment ``number`` (1-based).

    Raises:
        TestSet.DoesNotExist, Segment.DoesNotExist: no such test set or segment.
    """
    test_set = TestSet.objects.get(pk=test_set_pk)
    segment = Segment.objects.get(test_set=test_set, index=number - 1)
    return test_set, segment


@dataclass
class ScoreColumn:
    """One stored measure setting of the test set."""

    measure: str
    signature: str
    label: str
    higher_is_better: bool
    grid_options: dict[str, str] | None
    """Options for the grid view (``option.KEY`` values) when the grid draws this measure."""


@dataclass
class ScoreCell:
    value: float | None
    best: bool = False


@dataclass
class CandidateRow:
    system: System
    text: str | None
    scores: list[ScoreCell]


@dataclass
class SegmentPage:
    test_set: TestSet
    segment: Segment
    count: int
    previous: Segment | None
    next: Segment | None
    context_before: Segment | None
    context_after: Segment | None
    references: list[Reference]
    columns: list[ScoreColumn]
    rows: list[CandidateRow]
    human: list[HumanTable] = field(default_factory=list)


def segment_page(*, test_set: TestSet, segment: Segment, reveal_judges: bool) -> SegmentPage:
    """Everything the segment page shows. ``reveal_judges``: show judge names even where a
    campaign hides them (admins)."""
    index = segment.index
    neighbours = {
        s.index: s
        for s in Segment.objects.filter(test_set=test_set, index__in=(index - 1, index + 1))
    }
    previous, following = neighbours.get(index - 1), neighbours.get(index + 1)
    count = Segment.objects.filter(test_set=test_set).count()
    references = list(Reference.objects.filter(segment=segment).order_by("label"))
    references = _in_label_order(references, test_set.metadata.get("reference_labels"))
    systems = list(System.objects.filter(test_set=test_set).order_by("name"))
    texts = dict(Candidate.objects.filter(segment=segment).values_list("system_id", "text"))
    columns = score_columns(test_set=test_set)
    values = stored_sentence_scores(test_set=test_set, index=index)
    rows = [
        CandidateRow(
            system=system,
            text=texts.get(system.pk),
            scores=[ScoreCell(values.get((system.pk, column.signature))) for column in columns],
        )
        for system in systems
    ]
    _mark_best(rows, columns)
    return SegmentPage(
        test_set=test_set,
        segment=segment,
        count=count,
        previous=previous,
        next=following,
        context_before=previous if previous and previous.doc_id == segment.doc_id else None,
        context_after=following if following and following.doc_id == segment.doc_id else None,
        references=references,
        columns=columns,
        rows=rows,
        human=segment_judgments(test_set=test_set, segment=segment, reveal_judges=reveal_judges),
    )


def _in_label_order(references: list[Reference], labels: Sequence[str] | None) -> list[Reference]:
    if not labels:
        return references
    rank = {label: position for position, label in enumerate(labels)}
    return sorted(references, key=lambda ref: (rank.get(ref.label, len(rank)), ref.label))


def score_columns(*, test_set: TestSet) -> list[ScoreColumn]:
    """Every measure setting with stored results on the test set, in registry order."""
    rows = (
        SystemScore.objects.filter(test_set=test_set)
        .order_by()
        .values_list("measure", "signature", "higher_is_better")
        .distinct()
    )
    order = {name: position for position, name in enumerate(METRICS)}
    return [
        ScoreColumn(
            measure=measure,
            signature=signature,
            label=signature_label(measure, signature),
            higher_is_better=bool(higher),
            grid_options=signature_options(measure, signature)
            if measure in GRID_MEASURES
            else None,
        )
        for measure, signature, higher in sorted(
            set(rows), key=lambda row: (order.get(row[0], 99), row[1])
        )
    ]


def stored_sentence_scores(*, test_set: TestSet, index: int) -> dict[tuple[int, str], float | None]:
    """(system id, signature) -> the stored sentence score of segment ``index`` (None: NaN).

    Reads only the chunks that hold the segment (one query); the numbers are those
    ``segment_arrays`` assembles for the whole test set.
    """
    rows = SegmentStatistics.objects.filter(
        test_set=test_set, start__lte=index, stop__gt=index
    ).values_list("system_id", "signature", "start", "sentence_scores")
    scores: dict[tuple[int, str], float | None] = {}
    for system_id, signature, start, blob in rows:
        value = float(unpack_floats(blob)[index - start])
        scores[(system_id, signature)] = value if math.isfinite(value) else None
    return scores


def _mark_best(rows: list[CandidateRow], columns: list[ScoreColumn]) -> None:
    for position, column in enumerate(columns):
        values = [row.scores[position].value for row in rows]
        known = [value for value in values if value is not None]
        if len(known) < 2 or min(known) == max(known):
            continue
        best = max(known) if column.higher_is_better else min(known)
        for row in rows:
            cell = row.scores[position]
            cell.best = cell.value is not None and cell.value == best


def signature_options(measure: str, signature: str) -> dict[str, str]:
    """The options of a stored signature that differ from the measure's defaults, as the grid
    view's ``option.KEY`` values (empty for an unknown measure or an unreadable signature)."""
    try:
        options = METRICS[measure].options
    except KeyError:
        return {}
    by_short = {(option.short or key): (key, option) for key, option in options.items()}
    result: dict[str, str] = {}
    for part in signature.split("|")[1:]:
        short, _, value = part.partition(":")
        if short not in by_short:
            continue
        key, option = by_short[short]
        if value == format_signature_value(option.default):
            continue
        if option.kind is bool:
            value = "true" if value == "yes" else "false"
        result[key] = value
    return result
