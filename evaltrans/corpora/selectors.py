"""Reads on corpora: lists, the segment browser, a whole test set back as CorpusData, import
jobs and their progress."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.files.storage import default_storage
from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from .formats.base import CorpusData, EvaluationData, SegmentData
from .models import Candidate, CorpusImport, RawEvaluation, Reference, Segment, System, TestSet

SEGMENTS_PER_PAGE = 20
EXPORT_CHUNK = 5000


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
    # Plain values, read in chunks: model instances of a test set of 10⁵–10⁶ segments cost
    # several times the memory of its texts.
    by_id = {
        pk: SegmentData(source, doc_id, seg_id)
        for pk, source, doc_id, seg_id in test_set.segments.order_by("index")
        .values_list("pk", "source", "doc_id", "seg_id")
        .iterator(chunk_size=EXPORT_CHUNK)
    }
    for label, segment_id, text in (
        Reference.objects.filter(segment__test_set=test_set)
        .values_list("label", "segment_id", "text")
        .iterator(chunk_size=EXPORT_CHUNK)
    ):
        by_id[segment_id].references[label] = text
    _restore_reference_order(by_id.values(), testset_reference_labels(test_set=test_set))
    for system_name, segment_id, text in (
        Candidate.objects.filter(system__test_set=test_set)
        .order_by("system__pk")
        .values_list("system__name", "segment_id", "text")
        .iterator(chunk_size=EXPORT_CHUNK)
    ):
        by_id[segment_id].candidates[system_name] = text
    for evaluation in (
        RawEvaluation.objects.filter(segment__test_set=test_set)
        .order_by("segment_id", "position")
        .iterator(chunk_size=EXPORT_CHUNK)
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
        segments=list(by_id.values()),  # in index order, as read
        name=test_set.metadata.get("original_name", ""),
        metadata=metadata,
    )


def _restore_reference_order(segments: Iterable[SegmentData], labels: list[str]) -> None:
    rank = {label: position for position, label in enumerate(labels)}
    for segment in segments:
        ordered = sorted(segment.references.items(), key=lambda item: rank.get(item[0], len(rank)))
        segment.references = dict(ordered)


RECENT_IMPORTS = 20


def corpus_imports_recent(*, limit: int = RECENT_IMPORTS) -> QuerySet[CorpusImport]:
    """The latest import jobs, newest first, for the import page."""
    return CorpusImport.objects.select_related("test_set", "created_by").order_by(
        "-created_at", "-pk"
    )[:limit]


def corpus_import_progress(*, corpus_import: CorpusImport) -> dict[str, Any]:
    """The progress of an import as the import page shows it and ``progress.json`` returns it.

    While the texts are stored the counts come from the job's progress file (the store step is
    one transaction: see ``import_jobs``); otherwise from the row.
    """
    job = corpus_import
    done, total = job.done, job.total
    if job.status == CorpusImport.Status.RUNNING and job.phase == "storing":
        counts = _progress_file(job)
        if counts is not None:
            done, total = counts
    if job.status == CorpusImport.Status.DONE:
        percent = 100.0
    else:
        percent = 100.0 * done / total if total else 0.0
    end = job.finished_at or timezone.now()
    start = job.started_at
    test_set = job.test_set
    return {
        "status": job.status,
        "status_label": job.get_status_display(),
        "phase": job.phase,
        "phase_label": PHASE_LABELS.get(job.phase, ""),
        "done": done,
        "total": total,
        "percent": round(percent, 1),
        "message": job.message,
        "elapsed_s": (end - start).total_seconds() if start is not None else None,
        "test_set_url": test_set.get_absolute_url() if test_set is not None else "",
        "test_set_label": str(test_set) if test_set is not None else "",
    }


PHASE_LABELS = {
    "parsing": "Reading and checking the files",
    "storing": "Storing segments",
}


def _progress_file(job: CorpusImport) -> tuple[int, int] | None:
    try:
        with default_storage.open(job.progress_file, "rb") as stored:
            data = json.loads(stored.read().decode("utf-8"))
        return int(data["done"]), int(data["total"])
    except (OSError, ValueError, KeyError, TypeError):  # not written yet, or being rewritten
        return None
