"""Reads on metric runs and stored results: lists, progress, result tables, numpy arrays.

``segment_arrays`` is the entry point for anything statistical (sentence-level pages, the
correlation dashboards, bootstrap resampling): it returns, per system, the per-segment
statistics as a 2-D float array and the sentence scores as a 1-D array (NaN = undefined) of a
(test set, signature), assembled from the stored chunk rows in segment order.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db.models import Count, QuerySet
from django.utils import timezone

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet

from .models import MetricRun, RunMeasure, SegmentStatistics, SystemScore


def chunk_layout(segment_count: int, chunk_size: int) -> list[tuple[int, int]]:
    """The (start, stop) spans a run cuts a test set into: chunks of near-equal length, as many
    as ``chunk_size`` segments each on average, rounded to the nearest count (3004 segments by
    1000 give 1001 + 1001 + 1002, not a fourth task for 4 segments, whose queueing would cost
    more than its work)."""
    if segment_count <= 0:
        return []
    size = max(1, chunk_size)
    count = max(1, (segment_count + size // 2) // size)
    bounds = [segment_count * number // count for number in range(count + 1)]
    return list(itertools.pairwise(bounds))


# --- lists ---------------------------------------------------------------------------------


def run_list(*, test_set: TestSet | None = None) -> QuerySet[MetricRun]:
    """Runs, newest first, with their test set, creator and counts in one query."""
    runs = MetricRun.objects.select_related("test_set", "created_by").annotate(
        system_count=Count("systems", distinct=True),
        measure_count=Count("measures", distinct=True),
    )
    if test_set is not None:
        runs = runs.filter(test_set=test_set)
    return runs


def run_measures(*, run: MetricRun) -> list[RunMeasure]:
    return list(run.measures.all())


def run_systems(*, run: MetricRun) -> list[System]:
    return list(run.systems.order_by("name"))


# --- arrays --------------------------------------------------------------------------------


@dataclass
class SegmentArrays:
    """Per-segment numbers of one (system, signature), in segment order."""

    stat_names: list[str]
    stats: npt.NDArray[np.float64]
    sentence_scores: npt.NDArray[np.float64]
    seconds: float = 0.0


def _cover(rows: list[tuple[int, int, Any]]) -> list[Any] | None:
    """Chunk payloads covering [0, n) without overlap, or None when there is a gap.

    Chunk layouts only differ if the chunk size changed between runs; a breadth-first walk
    over chunk ends finds a complete cover whenever one exists.
    """
    by_start: dict[int, list[tuple[int, Any]]] = defaultdict(list)
    for start, stop, payload in rows:
        by_start[start].append((stop, payload))
    end = max((stop for _, stop, _ in rows), default=0)
    previous: dict[int, tuple[int, Any]] = {}
    frontier = [0]
    while frontier:
        position = frontier.pop()
        for stop, payload in by_start.get(position, []):
            if stop not in previous:
                previous[stop] = (position, payload)
                frontier.append(stop)
    if end == 0 or end not in previous:
        return None
    chain: list[Any] = []
    position = end
    while position != 0:
        position, payload = previous[position]
        chain.append(payload)
    chain.reverse()
    return chain


def _as_floats(values: list) -> npt.NDArray[np.float64]:
    return np.array([[math.nan if v is None else v for v in row] for row in values], dtype=float)


def segment_arrays(
    *, test_set: TestSet, signature: str, system_ids: Iterable[int] | None = None
) -> dict[int, SegmentArrays]:
    """Statistics and sentence scores per system id, for systems whose chunks cover the set.

    One query; the JSON of each chunk is decoded once.
    """
    rows = SegmentStatistics.objects.filter(test_set=test_set, signature=signature)
    if system_ids is not None:
        rows = rows.filter(system_id__in=list(system_ids))
    grouped: dict[int, list[tuple[int, int, Any]]] = defaultdict(list)
    for system_id, start, stop, names, stats, sentence, seconds in rows.values_list(
        "system_id", "start", "stop", "stat_names", "stats", "sentence_scores", "seconds"
    ):
        grouped[system_id].append((start, stop, (names, stats, sentence, seconds)))
    result: dict[int, SegmentArrays] = {}
    for system_id, chunks in grouped.items():
        chain = _cover(chunks)
        if chain is None:
            continue
        stats_rows: list = []
        sentence: list = []
        for _, chunk_stats, chunk_sentence, _ in chain:
            stats_rows.extend(chunk_stats)
            sentence.extend(chunk_sentence)
        if any(None in row for row in stats_rows):
            stats_array = _as_floats(stats_rows)
        else:
            stats_array = np.array(stats_rows, dtype=float).reshape(len(stats_rows), -1)
        result[system_id] = SegmentArrays(
            stat_names=list(chain[0][0]),
            stats=stats_array,
            sentence_scores=np.array([math.nan if v is None else v for v in sentence], dtype=float),
            seconds=float(sum(item[3] for item in chain)),
        )
    return result


# --- progress ------------------------------------------------------------------------------


@dataclass
class MeasureProgress:
    measure: str
    signature: str
    done: int
    total: int

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 100.0


@dataclass
class RunProgress:
    run_id: int
    status: str
    status_label: str
    error: str
    done: int
    total: int
    elapsed_s: float | None
    remaining_s: float | None
    measures: list[MeasureProgress] = field(default_factory=list)
    waiting_for_broker: bool = False

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run_id,
            "status": self.status,
            "status_label": self.status_label,
            "error": self.error,
            "done": self.done,
            "total": self.total,
            "percent": round(self.percent, 1),
            "elapsed_s": None if self.elapsed_s is None else round(self.elapsed_s, 1),
            "remaining_s": None if self.remaining_s is None else round(self.remaining_s, 1),
            "waiting_for_broker": self.waiting_for_broker,
            "measures": [
                {
                    "measure": item.measure,
                    "signature": item.signature,
                    "done": item.done,
                    "total": item.total,
                    "percent": round(item.percent, 1),
                }
                for item in self.measures
            ],
        }


def run_progress(*, run: MetricRun) -> RunProgress:
    """Segments done / total per measure, elapsed and estimated remaining time.

    Three queries. A (system, signature) with a stored score counts as complete; otherwise the
    chunk rows of the run's layout count. The remaining time extrapolates the rate of the work
    done by this run (reused results do not count toward the rate).
    """
    measures = list(run.measures.all())
    signatures = [item.signature for item in measures]
    system_ids = list(run.systems.values_list("pk", flat=True))
    layout = set(chunk_layout(run.segment_count, run.chunk_size))
    scored = set(
        SystemScore.objects.filter(
            test_set_id=run.test_set_id, system_id__in=system_ids, signature__in=signatures
        ).values_list("system_id", "signature")
    )
    partial: dict[tuple[int, str], int] = defaultdict(int)
    for system_id, signature, start, stop in SegmentStatistics.objects.filter(
        test_set_id=run.test_set_id, system_id__in=system_ids, signature__in=signatures
    ).values_list("system_id", "signature", "start", "stop"):
        if (start, stop) in layout:
            partial[(system_id, signature)] += stop - start
    per_system = run.segment_count
    total = per_system * len(system_ids)
    progress: list[MeasureProgress] = []
    for item in measures:
        done = sum(
            per_system
            if (system_id, item.signature) in scored
            else min(partial[(system_id, item.signature)], per_system)
            for system_id in system_ids
        )
        if run.status == MetricRun.Status.DONE:
            done = total
        progress.append(MeasureProgress(item.measure, item.signature, done, total))
    done_units = sum(item.done for item in progress)
    total_units = sum(item.total for item in progress)
    elapsed = remaining = None
    if run.started_at is not None:
        end = run.finished_at or timezone.now()
        elapsed = max((end - run.started_at).total_seconds(), 0.0)
        fresh = done_units - run.reused_units
        if run.status == MetricRun.Status.RUNNING and fresh > 0 and elapsed > 0:
            remaining = (total_units - done_units) / (fresh / elapsed)
        elif run.status == MetricRun.Status.DONE:
            remaining = 0.0
    return RunProgress(
        run_id=run.pk,
        status=run.status,
        status_label=run.get_status_display(),
        error=run.error,
        done=done_units,
        total=total_units,
        elapsed_s=elapsed,
        remaining_s=remaining,
        measures=progress,
        waiting_for_broker=run.status == MetricRun.Status.QUEUED and run.dispatched_at is None,
    )


def runs_stalled(*, older_than: timedelta) -> QuerySet[MetricRun]:
    """Queued runs never handed to the broker for longer than ``older_than``."""
    return MetricRun.objects.filter(
        status=MetricRun.Status.QUEUED,
        dispatched_at__isnull=True,
        created_at__lt=timezone.now() - older_than,
    )


# --- results -------------------------------------------------------------------------------


@dataclass
class ResultCell:
    score: float | None
    signature: str
    best: bool = False

    @property
    def display(self) -> str:
        return "—" if self.score is None else f"{self.score:.2f}"


@dataclass
class ResultColumn:
    measure: str
    signature: str
    higher_is_better: bool
    options: dict[str, Any]


@dataclass
class ResultRow:
    system: System
    cells: list[ResultCell]


@dataclass
class ResultsTable:
    columns: list[ResultColumn]
    rows: list[ResultRow]

    @property
    def complete(self) -> bool:
        return all(cell.score is not None for row in self.rows for cell in row.cells)

    def as_records(self) -> list[dict[str, Any]]:
        """One record per (system, measure), for CSV and JSON downloads."""
        return [
            {
                "system": row.system.name,
                "measure": column.measure,
                "score": cell.score,
                "signature": column.signature,
                "higher_is_better": column.higher_is_better,
                "best": cell.best,
            }
            for row in self.rows
            for column, cell in zip(self.columns, row.cells, strict=True)
        ]


def run_results(*, run: MetricRun) -> ResultsTable:
    """The system × measure table of a run; ``best`` marks the best score of each column.

    Three queries whatever the size (measures, systems, scores).
    """
    from metrics.core import METRICS

    measures = list(run.measures.all())
    systems = list(run.systems.order_by("name"))
    values = {
        (system_id, signature): score
        for system_id, signature, score in SystemScore.objects.filter(
            test_set_id=run.test_set_id,
            system__in=systems,
            signature__in=[item.signature for item in measures],
        ).values_list("system_id", "signature", "score")
    }
    columns = [
        ResultColumn(
            measure=item.measure,
            signature=item.signature,
            higher_is_better=bool(getattr(METRICS.get(item.measure), "higher_is_better", False)),
            options=item.options,
        )
        for item in measures
    ]
    rows = [
        ResultRow(
            system=system,
            cells=[
                ResultCell(values.get((system.pk, column.signature)), column.signature)
                for column in columns
            ],
        )
        for system in systems
    ]
    for position, column in enumerate(columns):
        scores = [row.cells[position].score for row in rows]
        present = [score for score in scores if score is not None]
        if len(present) < 2:
            continue
        best = max(present) if column.higher_is_better else min(present)
        for row in rows:
            if row.cells[position].score == best:
                row.cells[position].best = True
    return ResultsTable(columns=columns, rows=rows)


def run_score_details(*, run: MetricRun) -> dict[tuple[int, str], SystemScore]:
    """Stored scores of a run with their details, keyed by (system id, signature)."""
    signatures = list(run.measures.values_list("signature", flat=True))
    return {
        (score.system_id, score.signature): score
        for score in SystemScore.objects.filter(
            test_set_id=run.test_set_id, system__in=run.systems.all(), signature__in=signatures
        )
    }


@dataclass
class SentenceRow:
    index: int
    source: str
    candidate: str
    references: list[str]
    score: float | None


def sentence_rows(
    *, test_set: TestSet, system: System, signature: str, start: int = 0, stop: int | None = None
) -> list[SentenceRow]:
    """Sentence scores of one system and measure with the texts, for segments [start, stop)."""
    arrays = segment_arrays(test_set=test_set, signature=signature, system_ids=[system.pk])
    if system.pk not in arrays:
        return []
    scores = arrays[system.pk].sentence_scores
    stop = len(scores) if stop is None else min(stop, len(scores))
    segments = Segment.objects.filter(
        test_set=test_set, index__gte=start, index__lt=stop
    ).values_list("pk", "index", "source")
    by_index = {index: (pk, source) for pk, index, source in segments}
    pks = [pk for pk, _ in by_index.values()]
    candidates = dict(
        Candidate.objects.filter(system=system, segment_id__in=pks).values_list(
            "segment_id", "text"
        )
    )
    references: dict[int, list[str]] = defaultdict(list)
    for segment_id, text in (
        Reference.objects.filter(segment_id__in=pks)
        .order_by("label")
        .values_list("segment_id", "text")
    ):
        references[segment_id].append(text)
    rows = []
    for index in range(start, stop):
        pk, source = by_index.get(index, (None, ""))
        value = float(scores[index])
        rows.append(
            SentenceRow(
                index=index,
                source=source,
                candidate=candidates.get(pk, ""),
                references=references.get(pk, []),
                score=None if math.isnan(value) else value,
            )
        )
    return rows


# --- reports -------------------------------------------------------------------------------


def run_report_data(
    *,
    run: MetricRun,
    author: str = "",
    sentences_in_detail: bool = False,
    include_sentences: bool = False,
) -> Any:
    """Plain data for ``metrics.reports.report_xml``: scores, options, signatures, test set.

    ``sentences_in_detail`` adds per-sentence scores and statistics (spec §15 flag),
    ``include_sentences`` the texts as well.
    """
    from django.conf import settings

    from metrics.core.base import VERSION

    from .reports import ReportData, ReportMeasure, ReportSentence, ReportSystem

    test_set = run.test_set
    measures = list(run.measures.all())
    systems = list(run.systems.order_by("name"))
    stored = run_score_details(run=run)
    texts: list[SentenceRow] = []
    arrays: dict[str, dict[int, SegmentArrays]] = {}
    if sentences_in_detail:
        arrays = {
            item.signature: segment_arrays(
                test_set=test_set, signature=item.signature, system_ids=[s.pk for s in systems]
            )
            for item in measures
        }
        if include_sentences:
            texts = _segment_texts(test_set=test_set)
    report_systems = []
    for system in systems:
        scores = {}
        for item in measures:
            found = stored.get((system.pk, item.signature))
            scores[item.signature] = (
                (found.score, found.details) if found is not None else (None, {})
            )
        sentences = None
        if sentences_in_detail:
            candidates = (
                dict(Candidate.objects.filter(system=system).values_list("segment__index", "text"))
                if include_sentences
                else {}
            )
            sentences = []
            for index in range(run.segment_count):
                per_score: dict[str, float | None] = {}
                per_stats: dict[str, dict[str, float]] = {}
                for item in measures:
                    found_arrays = arrays[item.signature].get(system.pk)
                    if found_arrays is None:
                        continue
                    value = float(found_arrays.sentence_scores[index])
                    per_score[item.signature] = None if math.isnan(value) else value
                    per_stats[item.signature] = dict(
                        zip(
                            found_arrays.stat_names,
                            (float(x) for x in found_arrays.stats[index]),
                            strict=False,
                        )
                    )
                row = texts[index] if texts else None
                sentences.append(
                    ReportSentence(
                        index=index,
                        source=row.source if row else "",
                        candidate=candidates.get(index, ""),
                        references=row.references if row else [],
                        scores=per_score,
                        stats=per_stats,
                    )
                )
        report_systems.append(
            ReportSystem(
                name=system.name,
                scores=scores,
                statistics={
                    "sentences": run.segment_count,
                    "references": run.n_refs,
                },
                sentences=sentences,
            )
        )
    version = getattr(settings, "EVALTRANS_VERSION", "") or "0.1.0"
    finished = run.finished_at or run.created_at
    return ReportData(
        author=author or (run.created_by.get_username() if run.created_by else ""),
        date=finished.isoformat(timespec="seconds"),
        software=f"evaltrans {version}; measures version {VERSION}; run {run.pk}",
        test_set={
            "name": test_set.name,
            "version": test_set.version,
            "content_hash": test_set.content_hash,
            "source_lang": test_set.source_lang,
            "target_lang": test_set.target_lang,
            "segments": run.segment_count,
            "references": run.n_refs,
        },
        measures=[
            ReportMeasure(item.measure, item.signature, dict(item.options)) for item in measures
        ],
        systems=report_systems,
        comment=run.comment,
        command_line=run.command_line,
        include_sentences=include_sentences,
    )


def _segment_texts(*, test_set: TestSet) -> list[SentenceRow]:
    """Source and references of every segment, in order (two queries)."""
    segments = list(test_set.segments.order_by("index").values_list("pk", "index", "source"))
    references: dict[int, list[str]] = defaultdict(list)
    for segment_id, text in (
        Reference.objects.filter(segment__test_set=test_set)
        .order_by("segment_id", "label")
        .values_list("segment_id", "text")
    ):
        references[segment_id].append(text)
    return [
        SentenceRow(index=index, source=source, candidate="", references=references[pk], score=None)
        for pk, index, source in segments
    ]


def testset_by_name(*, name: str, version: int | None = None) -> TestSet | None:
    """A test set by name: the given version, or the latest."""
    test_sets = TestSet.objects.filter(name=name)
    if version is not None:
        return test_sets.filter(version=version).first()
    return test_sets.order_by("-version").first()
