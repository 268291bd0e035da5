"""Reads on corpora: lists, the segment browser, a whole test set back as CorpusData, import
jobs and their progress."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.files.storage import default_storage
from django.db.models import BooleanField, Count, ExpressionWrapper, Q, QuerySet
from django.utils import timezone

from .formats.base import CorpusData, EvaluationData, SegmentData
from .models import Candidate, CorpusImport, RawEvaluation, Reference, Segment, System, TestSet
from .text_index import index_available, indexed_matches, query_words

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


@dataclass
class SegmentPage:
    """One page of the segment browser, found by keyset pagination (never ``OFFSET``).

    Without a search, page ``number`` holds the segments from index ``(number - 1) × 20`` on,
    so page links are plain numbers and ``count`` is the size of the test set. With a search
    the matches have no page numbers: ``previous_before`` / ``next_after`` are the cursors
    (the ``before`` / ``after`` query parameters) of the neighbouring pages, and ``count`` is
    known only when every match is on this page (counting them all would read the whole set).
    ``index_pending`` says that the search may have read a large set (more than
    ``SEARCH_SLOW_UNINDEXED`` segments) window by window: its text index is not built yet.
    """

    rows: list[SegmentRow]
    has_previous: bool
    has_next: bool
    number: int | None = None
    num_pages: int | None = None
    count: int | None = None
    previous_before: int | None = None
    next_after: int | None = None
    index_pending: bool = False


def testset_segment_page(
    *,
    test_set: TestSet,
    query: str = "",
    systems: list[System] | None = None,
    page_number: int | str | None = 1,
    after: int | None = None,
    before: int | None = None,
) -> SegmentPage:
    """A page of segments, optionally filtered by text found in the source, a reference or
    a candidate (case-insensitive), showing the given systems (default: all).

    Every query reads the segments in the order of the unique ``(test_set, index)`` index from
    a known index on and stops after one page, so a page costs the same at the start and at the
    end of a test set of any size. Without ``query``: page ``page_number`` (an invalid number
    is page 1, one past the end the last page). With ``query``: the first page, or the page of
    matches after index ``after`` or before index ``before``.
    """
    shown = list(systems) if systems else list(test_set.systems.all())
    segments = test_set.segments.order_by("index")
    if not query:
        # Indexes run 0 … n-1 in a stored set, so the last one gives the count through the
        # index, where COUNT(*) would read every segment of the set.
        last = segments.reverse().values_list("index", flat=True).first()
        count = 0 if last is None else last + 1
        num_pages = max(1, -(-count // SEGMENTS_PER_PAGE))
        number = min(max(_as_int(page_number, 1), 1), num_pages)
        start = (number - 1) * SEGMENTS_PER_PAGE
        page = list(segments.filter(index__gte=start)[:SEGMENTS_PER_PAGE])
        rows = _segment_rows(page, shown, filtered=False)
        return SegmentPage(rows, number > 1, number < num_pages, number, num_pages, count=count)
    last = segments.reverse().values_list("index", flat=True).first()
    last = -1 if last is None else last

    def search(limit: int, **cursor: int | None) -> list[Segment]:
        return _search(test_set, query, last, limit=limit, **cursor)

    if before is not None:
        found = search(SEGMENTS_PER_PAGE + 1, before=before)
        has_previous = len(found) > SEGMENTS_PER_PAGE
        page = found[:SEGMENTS_PER_PAGE][::-1]
        has_next = bool(search(1, after=before - 1))
    else:
        found = search(SEGMENTS_PER_PAGE + 1, after=after)
        has_next = len(found) > SEGMENTS_PER_PAGE
        page = found[:SEGMENTS_PER_PAGE]
        has_previous = after is not None and bool(search(1, before=after + 1))
    return SegmentPage(
        _segment_rows(page, shown, filtered=True),
        has_previous,
        has_next,
        count=len(page) if not (has_previous or has_next) else None,
        previous_before=page[0].index if has_previous and page else None,
        next_after=page[-1].index if has_next and page else None,
        index_pending=last >= SEARCH_SLOW_UNINDEXED
        and not test_set.words_indexed
        and index_available(),
    )


def _as_int(value: int | str | None, default: int) -> int:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def segment_browser_url(*, test_set: TestSet, index: int) -> str:
    """Where the browser shows the segment at ``index`` (0-based): its page, at its anchor."""
    page = index // SEGMENTS_PER_PAGE + 1
    return f"{test_set.get_absolute_url()}?page={page}#seg-{index + 1}"


SEARCH_WINDOW = 250
SEARCH_WINDOW_MAX = 4_000
SEARCH_INDEX_MAX = 4_000  # segments the text index may propose for checking at once
# Above this many segments, a search without the text index is slow enough to explain: it
# reads every text window by window (100,000 segments: 2.0 s on SQLite, 5.7 s on PostgreSQL).
SEARCH_SLOW_UNINDEXED = 10_000


def _search(
    test_set: TestSet,
    query: str,
    last: int,
    *,
    limit: int,
    after: int | None = None,
    before: int | None = None,
) -> list[Segment]:
    """Up to ``limit`` segments whose source, a reference or a candidate contains ``query``
    (any case): after index ``after`` in index order, or before index ``before`` in reverse
    order.

    The first window of ``SEARCH_WINDOW`` segments is read and checked (a common word fills
    the page there). Then, when the set's words are indexed (``text_index``), the index
    proposes the segments of the rest of the range that hold every word of the query; if
    they are at most ``SEARCH_INDEX_MAX``, only they are checked, window by window, and a word
    found nowhere costs one look-up. Otherwise the set is read window by window of indexes
    (doubling up to ``SEARCH_WINDOW_MAX``) until enough are found.

    Each window is three plain queries: its segments, then the references and candidates of
    exactly those segment ids through their segment indexes. One query over the whole set
    with ``EXISTS`` subqueries was planned by PostgreSQL as a scan of every text of every
    test set (2-6 s on 2 M candidates) even when the page of matches was at hand.
    """
    forward = before is None
    low, high = (0 if after is None else after + 1, last + 1) if forward else (0, before)
    high = min(high, last + 1)
    words = query_words(query) if test_set.words_indexed else []
    found: list[tuple[int, int]] = []
    window = SEARCH_WINDOW
    while len(found) < limit and low < high:
        span = test_set.segments.filter(
            index__gte=low if forward else max(high - window, low),
            index__lt=min(low + window, high) if forward else high,
        )
        hits = _window_hits(query, span)
        found += (hits if forward else hits[::-1])[: limit - len(found)]
        low, high = (min(low + window, high), high) if forward else (low, max(high - window, low))
        window = min(2 * window, SEARCH_WINDOW_MAX)
        if words and len(found) < limit and low < high:
            proposed = indexed_matches(test_set, words, low, high, cap=SEARCH_INDEX_MAX)
            if proposed is not None:
                found += _check_proposed(
                    query, proposed if forward else proposed[::-1], limit - len(found)
                )
                break
            words = []
    by_id = test_set.segments.in_bulk([pk for _, pk in found])
    return [by_id[pk] for _, pk in found]


def _check_proposed(
    query: str, proposed: list[tuple[int, int]], limit: int
) -> list[tuple[int, int]]:
    """The first ``limit`` true matches among the (index, id) the text index proposed, in the
    given order, checked window by window."""
    found: list[tuple[int, int]] = []
    start, window = 0, SEARCH_WINDOW
    while len(found) < limit and start < len(proposed):
        ids = {pk for _, pk in proposed[start : start + window]}
        hits = {pk for _, pk in _window_hits(query, Segment.objects.filter(pk__in=ids))}
        found += [item for item in proposed[start : start + window] if item[1] in hits]
        start += window
        window = min(2 * window, SEARCH_WINDOW_MAX)
    return found[:limit]


def _window_hits(query: str, segments: QuerySet[Segment]) -> list[tuple[int, int]]:
    """(index, id) of ``segments`` whose source, a reference or a candidate contains
    ``query`` (any case), in index order."""
    window = list(
        segments.order_by("index")
        .annotate(hit=ExpressionWrapper(Q(source__icontains=query), output_field=BooleanField()))
        .values_list("index", "pk", "hit")
    )
    hits = {pk for _, pk, hit in window if hit}
    rest = [pk for _, pk, hit in window if not hit]
    for model in (Reference, Candidate):
        if rest:
            hits.update(
                model.objects.filter(segment_id__in=rest, text__icontains=query)
                .order_by()
                .values_list("segment_id", flat=True)
            )
            rest = [pk for pk in rest if pk not in hits]
    return [(index, pk) for index, pk, _ in window if pk in hits]


def _segment_rows(segments: list[Segment], shown: list[System], filtered: bool) -> list[SegmentRow]:
    ids = [segment.pk for segment in segments]
    references: dict[int, list[Reference]] = defaultdict(list)
    for reference in Reference.objects.filter(segment_id__in=ids).order_by("label"):
        references[reference.segment_id].append(reference)
    candidates = {
        (candidate.segment_id, candidate.system_id): candidate
        for candidate in Candidate.objects.filter(segment_id__in=ids, system__in=shown).order_by()
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
