"""Reads on corpora: lists, the segment browser, a whole test set back as CorpusData."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from .formats.base import CorpusData, EvaluationData, SegmentData
from .models import Candidate, RawEvaluation, Reference, Segment, System, TestSet

SEGMENTS_PER_PAGE = 20


def testset_list() -> QuerySet[TestSet]:
    """Every test set version, newest version first within a name, with its counts."""
    return TestSet.objects.annotate(
        segment_count=Count("segments", distinct=True),
        system_count=Count("systems", distinct=True),
    ).order_by("name", "-version")


@dataclass
class SegmentRow:
    """One segment of the browser: its source, references and the chosen systems' outputs."""

    segment: Segment
    references: list[Reference]
    candidates: list[tuple[System, Candidate | None]]
    starts_document: bool
    matches: set[str] = field(default_factory=set)


def testset_segment_page(
    *,
    test_set: TestSet,
    query: str = "",
    systems: list[System] | None = None,
    page_number: int | str = 1,
) -> tuple[Page, list[SegmentRow]]:
    """A page of segments, optionally filtered by text found in the source, a reference or
    a candidate (case-insensitive), showing the given systems (default: all)."""
    shown = list(systems) if systems else list(test_set.systems.all())
    segments = test_set.segments.all().order_by("index")
    if query:
        segments = segments.filter(_text_filter(query, test_set))
    page = Paginator(segments, SEGMENTS_PER_PAGE).get_page(page_number)
    page_segments = list(page.object_list)
    return page, _segment_rows(page_segments, shown, filtered=bool(query))


def segment_browser_url(*, test_set: TestSet, index: int) -> str:
    """Where the browser shows the segment at ``index`` (0-based): its page, at its anchor."""
    page = index // SEGMENTS_PER_PAGE + 1
    return f"{test_set.get_absolute_url()}?page={page}#seg-{index + 1}"


def _text_filter(query: str, test_set: TestSet) -> Q:
    in_references = Reference.objects.filter(segment=OuterRef("pk"), text__icontains=query)
    in_candidates = Candidate.objects.filter(
        segment=OuterRef("pk"), text__icontains=query, system__test_set=test_set
    )
    return Q(source__icontains=query) | Q(Exists(in_references)) | Q(Exists(in_candidates))


def _segment_rows(segments: list[Segment], shown: list[System], filtered: bool) -> list[SegmentRow]:
    ids = [segment.pk for segment in segments]
    references: dict[int, list[Reference]] = defaultdict(list)
    for reference in Reference.objects.filter(segment_id__in=ids).order_by("label"):
        references[reference.segment_id].append(reference)
    candidates = {
        (candidate.segment_id, candidate.system_id): candidate
        for candidate in Candidate.objects.filter(segment_id__in=ids, system__in=shown)
    }
    rows = []
    previous_doc = None
    for position, segment in enumerate(segments):
        # Without a filter the page is contiguous, so the previous segment tells whether a
        # document starts here; the first row of a page always shows its document.
        starts = position == 0 or segment.doc_id != previous_doc or filtered
        previous_doc = segment.doc_id
        rows.append(
            SegmentRow(
                segment=segment,
                references=references[segment.pk],
                candidates=[(system, candidates.get((segment.pk, system.pk))) for system in shown],
                starts_document=starts and bool(segment.doc_id),
            )
        )
    return rows


def testset_reference_labels(*, test_set: TestSet) -> list[str]:
    labels = test_set.metadata.get("reference_labels")
    if labels is not None:
        return list(labels)
    return list(
        Reference.objects.filter(segment__test_set=test_set)
        .values_list("label", flat=True)
        .distinct()
        .order_by("label")
    )


def testset_corpus_data(*, test_set: TestSet) -> CorpusData:
    """The whole test set as the in-memory corpus the export writers take."""
    segments = list(test_set.segments.order_by("index"))
    by_id = {
        segment.pk: SegmentData(segment.source, segment.doc_id, segment.seg_id)
        for segment in segments
    }
    for label, segment_id, text in Reference.objects.filter(segment__test_set=test_set).values_list(
        "label", "segment_id", "text"
    ):
        by_id[segment_id].references[label] = text
    _restore_reference_order(by_id.values(), testset_reference_labels(test_set=test_set))
    for system_name, segment_id, text in (
        Candidate.objects.filter(system__test_set=test_set)
        .order_by("system__pk")
        .values_list("system__name", "segment_id", "text")
    ):
        by_id[segment_id].candidates[system_name] = text
    for evaluation in RawEvaluation.objects.filter(segment__test_set=test_set).order_by(
        "segment_id", "position"
    ):
        by_id[evaluation.segment_id].evaluations.append(
            EvaluationData(
                target_kind=evaluation.target_kind,
                target_name=evaluation.target_name,
                aspect=evaluation.aspect,
                value=evaluation.value,
                attributes=dict(evaluation.attributes),
            )
        )
    metadata = {
        key: value
        for key, value in test_set.metadata.items()
        if key not in ("reference_labels", "original_name")
    }
    return CorpusData(
        source_lang=test_set.source_lang,
        target_lang=test_set.target_lang,
        segments=[by_id[segment.pk] for segment in segments],
        name=test_set.metadata.get("original_name", ""),
        metadata=metadata,
    )


def _restore_reference_order(segments: Iterable[SegmentData], labels: list[str]) -> None:
    rank = {label: position for position, label in enumerate(labels)}
    for segment in segments:
        ordered = sorted(segment.references.items(), key=lambda item: rank.get(item[0], len(rank)))
        segment.references = dict(ordered)
