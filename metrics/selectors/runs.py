"""Reads on metric runs: lists, what is stored, progress, result tables, numpy arrays.

``segment_arrays`` is the entry point for anything statistical (sentence-level pages, the
correlation dashboards, bootstrap resampling): it returns, per system, the per-segment
statistics as a 2-D float array and the sentence scores as a 1-D array (NaN = undefined) of a
(test set, signature), assembled from the stored chunk rows in segment order.

``runs_stored_work`` says what of a run is already stored (system scores, chunk rows); the
planner, the recovery and the progress bars all read it.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet, Sum
from django.utils import timezone

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet
from metrics.core import METRICS
from metrics.models import (
    MetricRun,
    RunMeasure,
    SegmentStatistics,
    SystemScore,
    WorkerHeartbeat,
    unpack_floats,
)


def chunk_layout(segment_count: int, chunk_size: int) -> list[tuple[int, int]]:
    """The (start, stop) spans a run cuts a test set into: as many chunks as ``chunk_size``
    segments each on average, rounded to the nearest count (3004 segments by 1500 give two
    chunks, not a third task for 4 segments, whose queueing would cost more than its work),
    of near-equal length but the last, which is half as long.

    The plan sends the long chunks first, so a run ends on its short chunks: with several
    workers, the first worker done waits for at most a short chunk of another (guided
    scheduling), while the run keeps the few tasks of long chunks (each task costs queries
    and a message; docs/runs.md, "Chunk size and the last chunks")."""
    if segment_count <= 0:
        return []
    size = max(1, chunk_size)
    count = max(1, (segment_count + size // 2) // size)
    # count - 1 chunks of 2n / (2 count - 1) segments and one of half that; none is empty,
    # since count <= n makes 2n / (2 count - 1) > 1.
    bounds = [2 * segment_count * number // (2 * count - 1) for number in range(count)]
    return list(itertools.pairwise([*bounds, segment_count]))


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


def run_list_rows(
    *, test_set: TestSet | None = None, limit: int = 200
) -> list[tuple[MetricRun, RunProgress | None]]:
    """The newest ``limit`` runs, each with its progress while it is active (else None).

    At most seven queries whatever the number of runs: the list, then ``runs_progress`` of the
    active ones.
    """
    runs = list(run_list(test_set=test_set)[:limit])
    progress = runs_progress(runs=[run for run in runs if run.is_active])
    return [(run, progress.get(run.pk)) for run in runs]


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


def segment_arrays(
    *, test_set: TestSet, signature: str, system_ids: Iterable[int] | None = None
) -> dict[int, SegmentArrays]:
    """Statistics and sentence scores per system id, for systems whose chunks cover the set.

    One query; each chunk's packed arrays are unpacked once.
    """
    # In the covering index's order: the model's default order joins the test set and the
    # system to sort every packed row by their names (finalize of 16 x 3 chunks: 80 -> 30 ms).
    rows = SegmentStatistics.objects.filter(test_set=test_set, signature=signature).order_by(
        "start", "stop"
    )
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
        names = list(chain[0][0])
        sentence_scores = np.concatenate([unpack_floats(item[2]) for item in chain])
        result[system_id] = SegmentArrays(
            stat_names=names,
            # Imported (external) scores store sentence scores only: no statistics columns.
            stats=np.concatenate([unpack_floats(item[1], len(names)) for item in chain])
            if names
            else np.empty((len(sentence_scores), 0)),
            sentence_scores=sentence_scores,
            seconds=float(sum(item[3] for item in chain)),
        )
    return result


# --- progress ------------------------------------------------------------------------------


@dataclass
class MeasureProgress:
    """Segments done / total of one measure, and its computing time.

    ``elapsed_s`` is the computing time of this measure's chunks stored since the run
    started, summed over workers; ``remaining_s`` the computing time its missing segments
    need at the seconds per segment of every stored chunk of it (0 when complete, None
    before any chunk is stored or when the run stopped).
    """

    measure: str
    signature: str
    done: int
    total: int
    elapsed_s: float = 0.0
    remaining_s: float | None = None

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
    worker_silent_s: float | None = None
    """Seconds since a worker last showed life to this run (a heartbeat of any worker, or a
    chunk of the run stored); None when the run is not waiting on workers."""
    stalled: bool = False
    """The run waits on workers and none has shown life for ``METRICS_STALLED_AFTER_S``."""

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 0.0

    @property
    def stalled_for(self) -> str:
        """``worker_silent_s`` for the warning: "45 s", "3 min", "2 h 5 min"."""
        return "" if self.worker_silent_s is None else _duration_text(self.worker_silent_s)

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
            "stalled": self.stalled,
            "stalled_for": self.stalled_for,
            "worker_silent_s": None
            if self.worker_silent_s is None
            else round(self.worker_silent_s, 1),
            "measures": [
                {
                    "measure": item.measure,
                    "signature": item.signature,
                    "done": item.done,
                    "total": item.total,
                    "percent": round(item.percent, 1),
                    # Three decimals: a measure of a few milliseconds is "< 1 s", not nothing.
                    "elapsed_s": round(item.elapsed_s, 3),
                    "remaining_s": None if item.remaining_s is None else round(item.remaining_s, 1),
                }
                for item in self.measures
            ],
        }


def _measure_times(
    totals: ChunkTotals, done: int, total: int, status: str
) -> tuple[float, float | None]:
    """Computing time of one measure: (elapsed, remaining) from the totals of its stored chunks."""
    if done >= total or status == MetricRun.Status.DONE:
        return totals.fresh_seconds, 0.0
    if status not in (MetricRun.Status.QUEUED, MetricRun.Status.RUNNING) or not totals.segments:
        return totals.fresh_seconds, None
    return totals.fresh_seconds, (total - done) * totals.seconds / totals.segments


@dataclass
class ChunkTotals:
    """Sums over stored chunk rows of one measure: segments, computing seconds, the seconds of
    the rows stored since the run started, and when the latest row was stored."""

    segments: int = 0
    seconds: float = 0.0
    fresh_seconds: float = 0.0
    latest: datetime | None = None

    def add(
        self, segments: int, seconds: float, fresh_seconds: float, latest: datetime | None
    ) -> None:
        self.segments += segments
        self.seconds += seconds
        self.fresh_seconds += fresh_seconds
        if latest is not None and (self.latest is None or latest > self.latest):
            self.latest = latest

    def merge(self, other: ChunkTotals) -> None:
        self.add(other.segments, other.seconds, other.fresh_seconds, other.latest)


@dataclass
class StoredWork:
    """What of a run is already stored, by the run itself or by any earlier run."""

    measures: list[RunMeasure]
    system_ids: list[int]
    layout: list[tuple[int, int]]
    """The (start, stop) chunks of the run (``chunk_layout``)."""
    scored: set[tuple[int, str]]
    """(system id, signature) pairs with a stored system score."""
    chunks: dict[tuple[int, str, int, int], tuple[float, datetime]]
    """(system id, signature, start, stop) of the stored chunk rows of the run's layout whose
    (system, signature) has no score yet → (computing seconds, time stored)."""
    scored_chunks: dict[str, ChunkTotals] = field(default_factory=dict)
    """Signature → totals of the chunk rows of the run's layout whose (system, signature) has a
    score: only their sums matter, so the database sums them."""


def runs_stored_work(*, runs: Sequence[MetricRun]) -> dict[int, StoredWork]:
    """What each run already has stored, by run id; five queries whatever the number of runs.

    Chunk rows of another layout (a run with another chunk size) do not count here. The rows
    of scored (system, signature) pairs, all of them once a run is done, are summed by the
    database per (signature, chunk), one column set per run, rather than read: the 24,000 chunk
    rows of a 2 M-candidate run took 0.35 s to read under load.
    """
    if not runs:
        return {}
    run_ids = [run.pk for run in runs]
    measures: dict[int, list[RunMeasure]] = defaultdict(list)
    for item in RunMeasure.objects.filter(run_id__in=run_ids):
        measures[item.run_id].append(item)
    systems: dict[int, list[int]] = defaultdict(list)
    for run_id, system_id in (
        MetricRun.systems.through.objects.filter(metricrun_id__in=run_ids)
        .order_by("system__test_set", "system__name")
        .values_list("metricrun_id", "system_id")
    ):
        systems[run_id].append(system_id)
    test_set_ids = {run.test_set_id for run in runs}
    system_ids = {system_id for ids in systems.values() for system_id in ids}
    signatures = {item.signature for items in measures.values() for item in items}
    scored = set(
        SystemScore.objects.filter(
            test_set_id__in=test_set_ids, system_id__in=system_ids, signature__in=signatures
        ).values_list("test_set_id", "system_id", "signature")
    )
    rows = SegmentStatistics.objects.filter(
        test_set_id__in=test_set_ids, system_id__in=system_ids, signature__in=signatures
    )
    has_score = _has_score()
    open_rows = list(
        rows.filter(~has_score)
        .order_by()
        .values_list(
            "test_set_id", "system_id", "signature", "start", "stop", "seconds", "created_at"
        )
    )
    totals = _scored_chunk_totals(rows.filter(has_score), runs, systems)
    result: dict[int, StoredWork] = {}
    for run in runs:
        own_systems = set(systems[run.pk])
        own_signatures = {item.signature for item in measures[run.pk]}
        layout = chunk_layout(run.segment_count, run.chunk_size)
        spans = set(layout)
        scored_chunks: dict[str, ChunkTotals] = defaultdict(ChunkTotals)
        for (test_set_id, signature, start, stop), sums in totals[run.pk]:
            if (
                test_set_id == run.test_set_id
                and signature in own_signatures
                and (start, stop) in spans
            ):
                scored_chunks[signature].merge(sums)
        result[run.pk] = StoredWork(
            measures=measures[run.pk],
            system_ids=systems[run.pk],
            layout=layout,
            scored={
                (system_id, signature)
                for test_set_id, system_id, signature in scored
                if test_set_id == run.test_set_id
                and system_id in own_systems
                and signature in own_signatures
            },
            chunks={
                (system_id, signature, start, stop): (seconds, created)
                for test_set_id, system_id, signature, start, stop, seconds, created in open_rows
                if test_set_id == run.test_set_id
                and system_id in own_systems
                and signature in own_signatures
                and (start, stop) in spans
            },
            scored_chunks=dict(scored_chunks),
        )
    return result


def _has_score() -> Exists:
    """Whether a chunk row's (test set, system, signature) has its system score."""
    return Exists(
        SystemScore.objects.filter(
            test_set_id=OuterRef("test_set_id"),
            system_id=OuterRef("system_id"),
            signature=OuterRef("signature"),
        )
    )


def run_chunks_complete(*, run: MetricRun) -> bool:
    """Whether every (system, measure) of the run has its score or all the chunk rows of the
    run's layout: what each chunk task asks when it ends.

    Counts rows in the database, over the covering index, rather than reading them
    (``runs_stored_work``): 138 ms → 13 ms per task at the end of a run of 24,000 chunks, and
    a run of 2,000 tasks asks 2,000 times. Every task but the last finds fewer rows than the
    run needs in one plain count; only then are the rows counted per chunk."""
    system_ids = list(run.systems.order_by().values_list("pk", flat=True))
    signatures = list(run.measures.order_by().values_list("signature", flat=True))
    scored = (
        SystemScore.objects.filter(
            test_set_id=run.test_set_id, system_id__in=system_ids, signature__in=signatures
        )
        .order_by()
        .count()
    )
    open_pairs = len(system_ids) * len(signatures) - scored
    if not open_pairs:
        return True
    rows = SegmentStatistics.objects.filter(
        test_set_id=run.test_set_id, system_id__in=system_ids, signature__in=signatures
    ).order_by()
    layout = chunk_layout(run.segment_count, run.chunk_size)
    # Rows of another layout or of a scored pair only add to this count, never take away.
    if rows.count() < open_pairs * len(layout):
        return False
    counts = {
        (start, stop): count
        for start, stop, count in rows.filter(~_has_score())
        .values("start", "stop")
        .annotate(count=Count("pk"))
        .values_list("start", "stop", "count")
    }
    return all(counts.get(span, 0) == open_pairs for span in layout)


def _scored_chunk_totals(
    rows: QuerySet[SegmentStatistics], runs: Sequence[MetricRun], systems: dict[int, list[int]]
) -> dict[int, list[tuple[tuple[int, str, int, int], ChunkTotals]]]:
    """Per run: the totals of each (test set, signature, start, stop) over the run's systems;
    one grouped query for all runs."""
    sums: dict[str, Any] = {}
    for run in runs:
        own = Q(system_id__in=systems[run.pk])
        sums[f"n{run.pk}"] = Count("pk", filter=own)
        sums[f"s{run.pk}"] = Sum("seconds", filter=own)
        sums[f"t{run.pk}"] = Max("created_at", filter=own)
        if run.started_at is not None:  # before its start no row is the run's own
            sums[f"f{run.pk}"] = Sum("seconds", filter=own & Q(created_at__gte=run.started_at))
    grouped = rows.order_by().values("test_set_id", "signature", "start", "stop").annotate(**sums)
    result: dict[int, list[tuple[tuple[int, str, int, int], ChunkTotals]]] = {
        run.pk: [] for run in runs
    }
    for group in grouped:
        key = (group["test_set_id"], group["signature"], group["start"], group["stop"])
        for run in runs:
            if count := group[f"n{run.pk}"]:
                totals = ChunkTotals(
                    segments=count * (key[3] - key[2]),
                    seconds=group[f"s{run.pk}"],
                    fresh_seconds=group.get(f"f{run.pk}") or 0.0,
                    latest=group[f"t{run.pk}"],
                )
                result[run.pk].append((key, totals))
    return result


def run_progress(*, run: MetricRun) -> RunProgress:
    """Segments done / total per measure, elapsed and estimated remaining time, and whether
    the run is stalled for want of a worker.

    Five queries (``runs_stored_work``), six while the run is active (the workers'
    heartbeat). A (system, signature) with a stored score counts as complete; otherwise the
    chunk rows of the run's layout count. The remaining time extrapolates the rate of the work
    done by this run (reused results do not count toward the rate). Per measure, the times are
    computing times from the stored chunks' ``seconds`` (``MeasureProgress``).
    """
    return runs_progress(runs=[run])[run.pk]


def runs_progress(*, runs: Sequence[MetricRun]) -> dict[int, RunProgress]:
    """``run_progress`` of several runs by run id, in the same six queries."""
    work = runs_stored_work(runs=runs)
    heard = worker_last_seen() if any(_waits_on_workers(run) for run in runs) else None
    now = timezone.now()
    return {run.pk: _progress(run, work[run.pk], heard, now) for run in runs}


def worker_last_seen() -> datetime | None:
    """The latest heartbeat of any worker (``WorkerHeartbeat``), None when none ever beat."""
    return WorkerHeartbeat.objects.aggregate(latest=Max("last_seen"))["latest"]


def _waits_on_workers(run: MetricRun) -> bool:
    # A queued run that never reached the broker waits on the broker (``waiting_for_broker``).
    if run.status == MetricRun.Status.QUEUED:
        return run.dispatched_at is not None
    return run.status == MetricRun.Status.RUNNING


def _worker_silence(
    run: MetricRun, work: StoredWork, heard: datetime | None, now: datetime
) -> float | None:
    """Seconds since the last sign of a worker for ``run``: any worker's heartbeat, the run's
    start or a chunk stored for it. Until that silence outlasts the threshold the run is only
    slow, however long its chunks take, as the heartbeat goes on while they compute."""
    if not _waits_on_workers(run):
        return None
    signs = [run.created_at, run.dispatched_at, run.started_at, heard]
    signs.extend(created for _, created in work.chunks.values())
    signs.extend(totals.latest for totals in work.scored_chunks.values())
    latest = max(sign for sign in signs if sign is not None)
    return max((now - latest).total_seconds(), 0.0)


def _duration_text(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


def _progress(
    run: MetricRun, work: StoredWork, heard: datetime | None, now: datetime
) -> RunProgress:
    partial: dict[tuple[int, str], int] = defaultdict(int)
    totals: dict[str, ChunkTotals] = defaultdict(ChunkTotals)
    for signature, scored in work.scored_chunks.items():
        totals[signature].merge(scored)
    for (system_id, signature, start, stop), (seconds, created) in work.chunks.items():
        partial[(system_id, signature)] += stop - start
        fresh = run.started_at is not None and created >= run.started_at
        totals[signature].add(stop - start, seconds, seconds if fresh else 0.0, None)
    per_system = run.segment_count
    total = per_system * len(work.system_ids)
    progress: list[MeasureProgress] = []
    for item in work.measures:
        done = sum(
            per_system
            if (system_id, item.signature) in work.scored
            else min(partial[(system_id, item.signature)], per_system)
            for system_id in work.system_ids
        )
        if run.status == MetricRun.Status.DONE:
            done = total
        elapsed, remaining = _measure_times(totals[item.signature], done, total, run.status)
        progress.append(
            MeasureProgress(item.measure, item.signature, done, total, elapsed, remaining)
        )
    done_units = sum(item.done for item in progress)
    total_units = sum(item.total for item in progress)
    elapsed = remaining = None
    if run.started_at is not None:
        end = run.finished_at or now
        elapsed = max((end - run.started_at).total_seconds(), 0.0)
        fresh = done_units - run.reused_units
        if run.status == MetricRun.Status.RUNNING and fresh > 0 and elapsed > 0:
            remaining = (total_units - done_units) / (fresh / elapsed)
        elif run.status == MetricRun.Status.DONE:
            remaining = 0.0
    silence = _worker_silence(run, work, heard, now)
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
        worker_silent_s=silence,
        stalled=silence is not None and silence >= settings.METRICS_STALLED_AFTER_S,
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
