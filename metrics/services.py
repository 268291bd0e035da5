"""Writes on metric runs: create, dispatch, plan, compute chunks, aggregate, cancel, fail, resume.

The life of a run (DESIGN.md, "The measure pipeline"):

1. ``metric_run_start`` stores the run (status ``queued``) and sends one *plan* task. When the
   broker cannot be reached the run stays queued with ``dispatched_at`` empty, the caller gets
   :class:`BrokerUnavailable`, and ``metric_runs_resume`` sends it later.
2. ``metric_run_plan`` (in a worker) splits the work into (system, chunk of segments) tasks,
   leaving out what is already stored: results are keyed by (test-set version, system,
   signature), so a measure computed by any earlier run is never computed again.
3. ``metric_chunk_compute`` computes every missing measure of the run on one chunk and stores
   one ``SegmentStatistics`` row per measure. Rows are unique per (test set, system,
   signature, start, stop) and inserted with ``ignore_conflicts``: a task delivered twice, or
   a chunk re-sent after a worker died, stores its statistics once. The task that stores the
   last missing chunk sends the *finalize* task.
4. ``metric_run_finalize`` aggregates each (system, measure) into a ``SystemScore`` and marks
   the run done.

Status changes are conditional UPDATEs (``_transition``), so two workers racing on one run
cannot both move it, and illegal moves (e.g. done → running) are refused.

Test-set-wide measure context (NIST information weights, ...) is built from all references of
the test set and cached per worker process, keyed by (test set id, content hash, signature):
test sets never change under a content hash, so the cache cannot go stale, and each worker
process builds a context once instead of once per chunk.
"""

from __future__ import annotations

import logging
import math
import os
import shlex
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from kombu.exceptions import KombuError

from evaltrans.corpora.models import Candidate, Reference, System, TestSet
from evaltrans.corpora.selectors import testset_reference_labels
from metrics.core import METRICS, Measure, MeasureError, get_metric
from metrics.core.base import format_bool, parse_bool
from metrics.core.presets import PRESETS

from .models import MetricRun, RunMeasure, SegmentStatistics, SystemScore, pack_floats
from .selectors import chunk_layout, segment_arrays

logger = logging.getLogger(__name__)

Status = MetricRun.Status

DEFAULT_CHUNK_SEGMENTS = 1000

NO_SYSTEMS = "choose at least one system"
NO_MEASURES = "choose at least one measure"
FOREIGN_SYSTEM = "system {name!r} does not belong to test set {test_set}"
EMPTY_TEST_SET = "test set {test_set} has no segments"
UNKNOWN_PRESET = "unknown preset {name!r} (known: {known})"
ILLEGAL_TRANSITION = "a {current} run cannot become {target}"
BROKER_DOWN = (
    "The task queue (Celery broker) cannot be reached ({error}). The run is saved as queued "
    "and starts as soon as the broker is back and a worker is running."
)

# Which status may follow which; everything else is refused.
TRANSITIONS: dict[str, set[str]] = {
    Status.QUEUED: {Status.RUNNING, Status.FAILED, Status.CANCELLED},
    Status.RUNNING: {Status.DONE, Status.FAILED, Status.CANCELLED},
    Status.DONE: set(),
    Status.FAILED: set(),
    Status.CANCELLED: set(),
}


class RunError(ValueError):
    """A run cannot be created or changed; ``str(error)`` is the message for the user."""


class BrokerUnavailable(RuntimeError):
    """The run was stored but its first task could not be sent; the message says what next."""

    def __init__(self, run: MetricRun, error: Exception) -> None:
        super().__init__(BROKER_DOWN.format(error=_short(error)))
        self.run = run


@dataclass(frozen=True)
class MeasureChoice:
    """A measure as requested: registry name and option values (may be partial)."""

    name: str
    options: dict[str, Any]


def _short(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:200]


# --- choosing measures ---------------------------------------------------------------------


def preset_measures(*, preset: str) -> list[MeasureChoice]:
    """The measures a preset names, with its option values, in registry order.

    A preset that names no measure (``default``) means every registered measure at defaults.
    """
    if preset not in PRESETS:
        raise RunError(UNKNOWN_PRESET.format(name=preset, known=", ".join(sorted(PRESETS))))
    values = PRESETS[preset]
    names = [name for name in METRICS if name in values] if values else list(METRICS)
    return [MeasureChoice(name, dict(values.get(name, {}))) for name in names]


def measure_choices_resolve(
    *, names: Sequence[str], preset: str = "", options: dict[str, dict[str, Any]] | None = None
) -> list[MeasureChoice]:
    """Measures to run: ``names`` (or, when empty, the preset's), each with the preset's
    option values overridden by explicit ``options[name]``."""
    preset_values: dict[str, dict[str, Any]] = {}
    if preset:
        preset_values = {choice.name: choice.options for choice in preset_measures(preset=preset)}
    chosen = list(names) or list(preset_values)
    explicit = options or {}
    return [
        MeasureChoice(name, {**preset_values.get(name, {}), **explicit.get(name, {})})
        for name in chosen
    ]


def measure_build(*, name: str, options: dict[str, Any]) -> Measure:
    """An instance of a registered measure; bad names or options raise RunError."""
    try:
        return get_metric(name)(**options)
    except MeasureError as error:
        raise RunError(str(error)) from None


# --- creating and dispatching runs ---------------------------------------------------------


def testset_reference_count(*, test_set: TestSet) -> int:
    """Largest number of references of any segment (the ``nrefs`` of signatures)."""
    from django.db.models import Count

    counts = (
        Reference.objects.filter(segment__test_set=test_set)
        .values("segment_id")
        .annotate(n=Count("id"))
        .aggregate(most=Max("n"))
    )
    return int(counts["most"] or 0)


@transaction.atomic
def metric_run_create(
    *,
    test_set: TestSet,
    systems: Iterable[System],
    measures: Sequence[MeasureChoice],
    preset: str = "",
    comment: str = "",
    command_line: str = "",
    chunk_size: int | None = None,
    user: AbstractBaseUser | None = None,
) -> MetricRun:
    """Store a queued run; measures are validated and their signatures fixed now.

    Without ``command_line`` (a run started on the web) the equivalent ``evaluate`` call is
    stored, so every report names the command that reproduces it.
    """
    systems = list(systems)
    if not systems:
        raise RunError(NO_SYSTEMS)
    if not measures:
        raise RunError(NO_MEASURES)
    for system in systems:
        if system.test_set_id != test_set.pk:
            raise RunError(FOREIGN_SYSTEM.format(name=system.name, test_set=test_set))
    segment_count = test_set.segments.count()
    if segment_count == 0:
        raise RunError(EMPTY_TEST_SET.format(test_set=test_set))
    n_refs = testset_reference_count(test_set=test_set)
    built: list[tuple[str, dict[str, Any], str]] = []
    seen: set[str] = set()
    for choice in measures:
        measure = measure_build(name=choice.name, options=choice.options)
        signature = str(measure.signature(n_refs))
        if signature not in seen:  # the same measure asked twice is computed once
            seen.add(signature)
            built.append((choice.name, dict(measure.values), signature))
    size = chunk_size or getattr(settings, "METRICS_CHUNK_SEGMENTS", DEFAULT_CHUNK_SEGMENTS)
    run = MetricRun(
        test_set=test_set,
        preset=preset,
        comment=comment,
        command_line=command_line
        or evaluate_command_line(
            test_set=test_set,
            systems=systems,
            measures=measures,
            preset=preset,
            comment=comment,
            chunk_size=chunk_size,
        ),
        chunk_size=max(1, int(size)),
        segment_count=segment_count,
        n_refs=n_refs,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    run.full_clean()
    run.save()
    run.systems.set(systems)
    RunMeasure.objects.bulk_create(
        RunMeasure(run=run, position=position, measure=name, options=values, signature=signature)
        for position, (name, values, signature) in enumerate(built)
    )
    return run


def metric_run_dispatch(*, run: MetricRun) -> None:
    """Send the run's plan task once the current transaction commits.

    Raises BrokerUnavailable when the broker cannot be reached, also inside an outer
    transaction (``broker_check`` runs first). The run stays queued with ``dispatched_at``
    empty, which its page shows, and ``metric_runs_resume`` sends it later; so does a send
    that fails at commit time after the check passed.
    """
    from .tasks import metric_run_plan_task

    failure: list[Exception] = []

    def send() -> None:
        try:
            metric_run_plan_task.apply_async(
                args=[run.pk],
                retry=True,
                retry_policy={
                    "max_retries": 2,
                    "interval_start": 0,
                    "interval_step": 0.5,
                    "interval_max": 1,
                },
            )
        except (KombuError, OSError) as error:
            logger.warning("run %s: broker unavailable: %s", run.pk, error)
            failure.append(error)
            return
        # The eager mode of the tests may already have finished the run: touch only this field.
        MetricRun.objects.filter(pk=run.pk, dispatched_at__isnull=True).update(
            dispatched_at=timezone.now()
        )

    try:
        broker_check()
    except (KombuError, OSError) as error:
        logger.warning("run %s: broker unavailable: %s", run.pk, error)
        raise BrokerUnavailable(run, error) from None
    transaction.on_commit(send)
    if failure:  # the callback ran at once: no transaction was open
        raise BrokerUnavailable(run, failure[0])


def broker_check() -> None:
    """Raise the broker's error (KombuError or OSError) when it cannot take a message now.

    Done before the plan task is queued for the commit: inside an outer transaction the
    message is only sent when that commits, too late to tell the caller. kombu's filesystem
    transport connects without looking at its folder, so that folder is checked here. Eager
    mode (tests, ``evaluate --eager``) uses no broker.
    """
    from evaltrans.celery import app

    if app.conf.task_always_eager:
        return
    with app.connection_for_write() as connection:
        connection.ensure_connection(
            max_retries=2, interval_start=0, interval_step=0.5, interval_max=1, timeout=5
        )
        if connection.transport.driver_type == "filesystem":
            folder = str(connection.transport_options.get("data_folder_out", ""))
            if not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
                raise OSError(f"the broker folder {folder} is not a writable folder")


def metric_run_start(
    *,
    test_set: TestSet,
    systems: Iterable[System],
    measures: Sequence[MeasureChoice],
    preset: str = "",
    comment: str = "",
    command_line: str = "",
    chunk_size: int | None = None,
    user: AbstractBaseUser | None = None,
) -> MetricRun:
    """Create a run and send it to the workers (see ``metric_run_dispatch`` for failures)."""
    run = metric_run_create(
        test_set=test_set,
        systems=systems,
        measures=measures,
        preset=preset,
        comment=comment,
        command_line=command_line,
        chunk_size=chunk_size,
        user=user,
    )
    metric_run_dispatch(run=run)
    run.refresh_from_db()
    return run


# --- status changes ------------------------------------------------------------------------


def _transition(run_id: int, target: str, **fields: Any) -> bool:
    """Move a run to ``target`` if its current status allows it; False when it did not move.

    One conditional UPDATE, so concurrent workers cannot both make the same move.
    """
    sources = [source for source, targets in TRANSITIONS.items() if target in targets]
    moved = MetricRun.objects.filter(pk=run_id, status__in=sources).update(status=target, **fields)
    return bool(moved)


def metric_run_cancel(*, run: MetricRun) -> MetricRun:
    """Stop a queued or running run; tasks still queued stand down when they start."""
    if not _transition(run.pk, Status.CANCELLED, finished_at=timezone.now()):
        run.refresh_from_db()
        raise RunError(ILLEGAL_TRANSITION.format(current=run.status, target=Status.CANCELLED))
    run.refresh_from_db()
    return run


def metric_run_fail(*, run_id: int, reason: str) -> bool:
    """Mark a run failed with the reason shown to the user (no-op when already finished)."""
    return _transition(run_id, Status.FAILED, error=reason[:2000], finished_at=timezone.now())


# --- test-set data, cached per process -----------------------------------------------------

_REFERENCES: OrderedDict[tuple[int, str], list[list[str]]] = OrderedDict()
_CONTEXTS: OrderedDict[tuple[int, str, str], Any] = OrderedDict()
_CACHE_SIZE = {"references": 4, "contexts": 32}


def _remember(cache: OrderedDict, key: Any, value: Any, size: int) -> Any:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)
    return value


def caches_clear() -> None:
    """Forget cached references and contexts (tests that reuse ids after a rollback)."""
    _REFERENCES.clear()
    _CONTEXTS.clear()


def testset_references(*, test_set: TestSet) -> list[list[str]]:
    """``references[k]``: the reference texts of segment k, in the test set's label order."""
    key = (test_set.pk, test_set.content_hash)
    if key in _REFERENCES:
        _REFERENCES.move_to_end(key)
        return _REFERENCES[key]
    rank = {label: n for n, label in enumerate(testset_reference_labels(test_set=test_set))}
    count = test_set.segments.count()
    collected: list[list[tuple[int, str]]] = [[] for _ in range(count)]
    rows = Reference.objects.filter(segment__test_set=test_set).values_list(
        "segment__index", "label", "text"
    )
    for index, label, text in rows:
        collected[index].append((rank.get(label, len(rank)), text))
    references = [
        [text for _, text in sorted(refs, key=lambda item: item[0])] for refs in collected
    ]
    return _remember(_REFERENCES, key, references, _CACHE_SIZE["references"])


def measure_context(*, test_set: TestSet, measure: Measure, signature: str) -> Any:
    """The measure's test-set-wide context (built from ALL references), cached per process."""
    key = (test_set.pk, test_set.content_hash, signature)
    if key in _CONTEXTS:
        _CONTEXTS.move_to_end(key)
        return _CONTEXTS[key]
    context = measure.context(testset_references(test_set=test_set))
    return _remember(_CONTEXTS, key, context, _CACHE_SIZE["contexts"])


def system_hypotheses(*, system_id: int, start: int, stop: int) -> list[str]:
    """Candidate texts of segments [start, stop); a missing candidate counts as empty."""
    texts = [""] * (stop - start)
    rows = Candidate.objects.filter(
        system_id=system_id, segment__index__gte=start, segment__index__lt=stop
    ).values_list("segment__index", "text")
    for index, text in rows:
        texts[index - start] = text
    return texts


# --- planning, computing, aggregating ------------------------------------------------------


def _missing_work(run: MetricRun) -> tuple[list[tuple[int, int, int]], int, bool]:
    """Chunks that still need computing, units already stored, and whether scores are missing.

    Returns ``(tasks, reused_units, needs_scores)``: ``tasks`` are (system id, start, stop)
    with at least one measure lacking its chunk row.
    """
    signatures = list(run.measures.values_list("signature", flat=True))
    system_ids = list(run.systems.values_list("pk", flat=True))
    layout = chunk_layout(run.segment_count, run.chunk_size)
    scored = set(
        SystemScore.objects.filter(
            test_set_id=run.test_set_id, system_id__in=system_ids, signature__in=signatures
        ).values_list("system_id", "signature")
    )
    stored = set(
        SegmentStatistics.objects.filter(
            test_set_id=run.test_set_id, system_id__in=system_ids, signature__in=signatures
        ).values_list("system_id", "signature", "start", "stop")
    )
    tasks: list[tuple[int, int, int]] = []
    reused = 0
    needs_scores = False
    for system_id in system_ids:
        open_signatures = [sig for sig in signatures if (system_id, sig) not in scored]
        reused += (len(signatures) - len(open_signatures)) * run.segment_count
        needs_scores = needs_scores or bool(open_signatures)
        for start, stop in layout:
            missing = [
                sig for sig in open_signatures if (system_id, sig, start, stop) not in stored
            ]
            reused += (len(open_signatures) - len(missing)) * (stop - start)
            if missing:
                tasks.append((system_id, start, stop))
    return tasks, reused, needs_scores


def _send_chunks(run: MetricRun, tasks: Sequence[tuple[int, int, int]]) -> None:
    from .tasks import metric_chunk_compute_task, metric_run_finalize_task

    if not tasks:
        metric_run_finalize_task.delay_on_commit(run.pk)
        return
    for system_id, start, stop in tasks:
        metric_chunk_compute_task.delay_on_commit(run.pk, system_id, start, stop, run.generation)


@transaction.atomic
def metric_run_plan(*, run_id: int) -> int:
    """Split a queued run into chunk tasks and send them; returns how many were sent."""
    run = MetricRun.objects.select_related("test_set").get(pk=run_id)
    if run.status != Status.QUEUED:
        return 0  # a duplicate plan message, or cancelled while waiting
    tasks, reused, _ = _missing_work(run)
    now = timezone.now()
    if not _transition(
        run.pk,
        Status.RUNNING,
        started_at=now,
        planned_tasks=len(tasks),
        reused_units=reused,
        dispatched_at=run.dispatched_at or now,
    ):
        return 0
    run.refresh_from_db()
    _send_chunks(run, tasks)
    return len(tasks)


def metric_chunk_compute(
    *, run_id: int, system_id: int, start: int, stop: int, generation: int = 0
) -> int:
    """Compute the run's missing measures on segments [start, stop) of one system.

    Returns the number of statistics rows stored (0 for a duplicate delivery or a run that
    is no longer running). Idempotent: rows are unique and inserted with ignore_conflicts.
    """
    run = MetricRun.objects.select_related("test_set").filter(pk=run_id).first()
    if run is None or run.status != Status.RUNNING or generation < run.generation:
        return 0
    test_set = run.test_set
    measures = list(run.measures.all())
    done = set(
        SegmentStatistics.objects.filter(
            test_set=test_set,
            system_id=system_id,
            start=start,
            stop=stop,
            signature__in=[m.signature for m in measures],
        ).values_list("signature", flat=True)
    )
    scored = set(
        SystemScore.objects.filter(
            test_set=test_set, system_id=system_id, signature__in=[m.signature for m in measures]
        ).values_list("signature", flat=True)
    )
    todo = [m for m in measures if m.signature not in done and m.signature not in scored]
    rows: list[SegmentStatistics] = []
    if todo:
        hypotheses = system_hypotheses(system_id=system_id, start=start, stop=stop)
        references = testset_references(test_set=test_set)[start:stop]
        for item in todo:
            began = time.perf_counter()
            measure = measure_build(name=item.measure, options=item.options)
            context = measure_context(test_set=test_set, measure=measure, signature=item.signature)
            stats = np.asarray(measure.statistics(hypotheses, references, context), dtype=float)
            sentence = np.asarray(measure.sentence_scores(stats), dtype=float)
            rows.append(
                SegmentStatistics(
                    test_set=test_set,
                    system_id=system_id,
                    signature=item.signature,
                    measure=item.measure,
                    start=start,
                    stop=stop,
                    stat_names=list(measure.stat_names),
                    stats=pack_floats(stats),
                    sentence_scores=pack_floats(sentence),
                    seconds=time.perf_counter() - began,
                )
            )
        SegmentStatistics.objects.bulk_create(rows, ignore_conflicts=True)
    if _chunks_complete(run):
        from .tasks import metric_run_finalize_task

        metric_run_finalize_task.delay_on_commit(run.pk)
    return len(rows)


def _chunks_complete(run: MetricRun) -> bool:
    tasks, _, _ = _missing_work(run)
    return not tasks


@transaction.atomic
def metric_run_finalize(*, run_id: int) -> bool:
    """Aggregate every (system, measure) of a running run and mark it done.

    Returns False when the run is not running (duplicate message) or chunks are missing.
    """
    run = MetricRun.objects.select_related("test_set").filter(pk=run_id).first()
    if run is None or run.status != Status.RUNNING:
        return False
    systems = list(run.systems.all())
    existing = set(
        SystemScore.objects.filter(test_set_id=run.test_set_id, system__in=systems).values_list(
            "system_id", "signature"
        )
    )
    scores: list[SystemScore] = []
    for item in run.measures.all():
        open_ids = [system.pk for system in systems if (system.pk, item.signature) not in existing]
        if not open_ids:
            continue
        measure = measure_build(name=item.measure, options=item.options)
        arrays = segment_arrays(
            test_set=run.test_set, signature=item.signature, system_ids=open_ids
        )
        for system_id in open_ids:
            found = arrays.get(system_id)
            if found is None or len(found.stats) != run.segment_count:
                logger.warning("run %s: chunks missing for %s", run.pk, item.signature)
                return False
            score = measure.aggregate(found.stats, n_refs=run.n_refs)
            value = float(score.score)
            scores.append(
                SystemScore(
                    test_set_id=run.test_set_id,
                    system_id=system_id,
                    signature=item.signature,
                    measure=item.measure,
                    score=value if math.isfinite(value) else None,
                    higher_is_better=measure.higher_is_better,
                    details=_json_safe(score.details),
                    segment_count=len(found.stats),
                    seconds=found.seconds,
                )
            )
    SystemScore.objects.bulk_create(scores, ignore_conflicts=True)
    return _transition(run.pk, Status.DONE, finished_at=timezone.now())


def _json_safe(value: Any) -> Any:
    """Details for a JSONField: numpy scalars and arrays become Python, NaN becomes null."""
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    if isinstance(value, np.ndarray):
        return _json_safe(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


# --- recovery ------------------------------------------------------------------------------


def metric_runs_resume() -> list[int]:
    """Send again whatever active runs lost: after a worker died or the broker was down.

    * queued runs (never dispatched, or whose plan message died with a worker): plan again;
      a duplicate plan finds the run running and does nothing;
    * running runs: bump ``generation`` and send every chunk still missing (or the finalize
      step); copies of older generations still in the queue stand down when they start, so
      the work is not done twice. A chunk being computed right now by a live worker may be
      computed twice; the second write is ignored.

    Returns the ids of the runs touched. Called when a worker connects to the broker.
    """
    from .tasks import metric_run_plan_task

    touched: list[int] = []
    queued = list(MetricRun.objects.filter(status=Status.QUEUED))
    running = list(MetricRun.objects.filter(status=Status.RUNNING).values_list("pk", flat=True))
    for run in queued:
        try:
            metric_run_plan_task.delay(run.pk)
        except (KombuError, OSError) as error:
            logger.warning("resume: run %s still waits for the broker: %s", run.pk, error)
            continue
        MetricRun.objects.filter(pk=run.pk, dispatched_at__isnull=True).update(
            dispatched_at=timezone.now()
        )
        touched.append(run.pk)
    for run_id in running:
        with transaction.atomic():
            run = MetricRun.objects.select_for_update().select_related("test_set").get(pk=run_id)
            if run.status != Status.RUNNING:
                continue
            run.generation += 1
            run.save(update_fields=["generation"])
            tasks, _, _ = _missing_work(run)
            _send_chunks(run, tasks)
        touched.append(run_id)
    return touched


# --- options from the command line (EvalTrans' batch options, spec §15) -------------------

BAD_OPTION = "--option {pair!r}: expected MEASURE.KEY=VALUE, KEY=VALUE or an EvalTrans option"
OPTION_MATCHES_NOTHING = "--option {pair!r}: no chosen measure has an option {key!r}{owners}"
MEASURE_NOT_CHOSEN = "--option {pair!r}: measure {name!r}{alias} is not chosen"
FAMILY_MATCHES_NOTHING = (
    "--option {pair!r}: no chosen measure of EvalTrans' {prefix}- options ({family}) has an "
    "option {key!r}"
)
BLEU_ONLY = (
    "--option {pair!r}: in EvalTrans max-ngram is BLEU's (spec §15) and bleu is not chosen; "
    "use nist-max-ngram, nper-max-ngram or MEASURE.max-ngram"
)

# Prefixed EvalTrans options that set one key on a group of our measures (spec §15, Table
# A.1): ``wer-…`` is "WER, PER, etc." (CDER included: Fig. A.2 gives it a reference-length
# rule); ``nper-…`` is m-PER, whose boundaries and length rule skip-bigram PER shares.
EVALTRANS_FAMILIES: dict[str, tuple[str, ...]] = {
    "wer": ("wer", "per", "msder", "cder", "ljwer", "invwer"),
    "nper": ("mper", "skipper"),
}
# Report tags of the spec that name one of our measures, for messages.
EVALTRANS_ALIASES = {"nper": "mper"}
# Bare EvalTrans options that belong to one measure although others have a key of that name.
EVALTRANS_OWNED_KEYS = {"max-ngram": "bleu"}
# EvalTrans flags (Table A.2) that switch a measure option on.
EVALTRANS_MEASURE_FLAGS = {"nper-choose-references-separately"}

# Table A.1/A.2 rows that are not measure options: what each becomes in ``evaluate``.
EVALTRANS_RUN_SETTINGS = {
    "output-file": "report",
    "comment": "comment",
    "sentences-in-detail": "sentences_in_detail",
    "include-sentences": "include_sentences",
}
EVALTRANS_MEASURE_SWITCHES = {"allow-transpositions": "invwer", "allow-long-jumps": "ljwer"}
EVALTRANS_ACCEPTED_ENCODINGS = {"utf-8", "utf8"}
# Rows evaltrans does not support, with why and what to use instead (one line each).
EVALTRANS_REFUSED = {
    "leaving-one-out": (
        "is not supported: every measure scores against all stored references; to score a "
        "reference against the others, import it as a system of a test set without it"
    ),
    "all-ngrams": (
        "is not supported: the report's <n-gram n> blocks give every order's counts and "
        "precision; for the score up to order M run bleu or nist with max-ngram=M"
    ),
    "extrapolate": (
        "is not supported: runs compute automatic measures only; human scores come from "
        "judging campaigns (docs/human-scores.md)"
    ),
    "encoding": (
        "must be utf-8: stored test sets are Unicode and the report is UTF-8; choose the "
        "input encoding when importing (import_corpus --encoding)"
    ),
}


@dataclass
class BatchOptions:
    """What ``evaluate --option`` pairs ask for: measures, their options and run settings."""

    measures: list[str]
    options: dict[str, dict[str, str]]
    report: str = ""
    comment: str = ""
    sentences_in_detail: bool = False
    include_sentences: bool = False


def _measure_has(name: str, key: str) -> bool:
    measure = METRICS.get(name)
    return measure is not None and key in measure.options


def _option_owners(key: str) -> str:
    owners = [name for name in METRICS if _measure_has(name, key)]
    return f" (measures with it: {', '.join(owners)})" if owners else ""


def _split_pair(pair: str, flags: Iterable[str]) -> tuple[str, str]:
    """``(key, value)`` of one pair; a bare flag name means ``true``."""
    target, separator, value = pair.partition("=")
    target = target.strip().replace("_", "-")
    if not separator and target in flags:
        return target, "true"
    if not separator or not target:
        raise RunError(BAD_OPTION.format(pair=pair))
    return target, value


def _flag_value(pair: str, value: str) -> bool:
    try:
        return parse_bool(value)
    except MeasureError as error:
        raise RunError(f"--option {pair!r}: {error}") from None


def batch_options_parse(*, pairs: Sequence[str], measures: Sequence[str]) -> BatchOptions:
    """Measures, options and run settings from ``--option`` pairs, EvalTrans' rows included.

    Every row of spec §15 (Tables A.1, A.2) is either mapped (``output-file`` → the report,
    ``allow-long-jumps`` → LJWER, ``nper-max-ngram`` → m-PER, ...) or refused with a message
    that says why and what to use instead (``EVALTRANS_REFUSED``). Everything else goes to
    :func:`measure_options_parse`.
    """
    flags = {"sentences-in-detail", "include-sentences", "xml-mode", *EVALTRANS_MEASURE_SWITCHES}
    flags.update({*EVALTRANS_REFUSED, *EVALTRANS_MEASURE_FLAGS})
    names = list(dict.fromkeys(measures))
    settings: dict[str, Any] = {}
    measure_pairs: list[str] = []
    for pair in pairs:
        key, value = _split_pair(pair, flags)
        if key in EVALTRANS_REFUSED:
            if key == "encoding" and value.strip().lower() in EVALTRANS_ACCEPTED_ENCODINGS:
                continue
            raise RunError(f"--option {pair!r}: EvalTrans' {key} {EVALTRANS_REFUSED[key]}")
        if key == "xml-mode":  # the report is always XML
            _flag_value(pair, value)
        elif key in EVALTRANS_MEASURE_SWITCHES:
            if _flag_value(pair, value) and EVALTRANS_MEASURE_SWITCHES[key] not in names:
                names.append(EVALTRANS_MEASURE_SWITCHES[key])
        elif key in ("sentences-in-detail", "include-sentences"):
            settings[EVALTRANS_RUN_SETTINGS[key]] = _flag_value(pair, value)
        elif key in EVALTRANS_RUN_SETTINGS:
            settings[EVALTRANS_RUN_SETTINGS[key]] = value
        else:
            measure_pairs.append(pair)
    options = measure_options_parse(pairs=measure_pairs, measures=names)
    return BatchOptions(measures=names, options=options, **settings)


def measure_options_parse(
    *, pairs: Sequence[str], measures: Sequence[str]
) -> dict[str, dict[str, str]]:
    """Option values per measure from ``--option`` pairs; these spellings are accepted:

    * ``MEASURE.KEY=VALUE`` (``cder.pad-rule=both``): one measure;
    * ``MEASURE-KEY=VALUE``, the EvalTrans batch spelling (``cder-pad-rule=both``,
      ``bleu-ref-length-rule=average``); ``wer-KEY`` and ``nper-KEY`` set KEY on every chosen
      measure of their group (``EVALTRANS_FAMILIES``). ``nper-max-ngram=M`` is EvalTrans'
      (1..M)-PER, so it also sets m-PER's min-ngram to 1 unless ``mper.min-ngram`` is given;
    * ``KEY=VALUE`` (``tokenize=13a``, ``substitution-cost-rule=prefix``): every chosen
      measure that has the option KEY, except ``max-ngram``, which is BLEU's as in EvalTrans;
    * the flag ``nper-choose-references-separately`` (bare or ``=true``).

    Values stay strings; each measure converts and checks them. Later pairs win.
    """
    result: dict[str, dict[str, str]] = {name: {} for name in measures}
    implied: dict[str, dict[str, str]] = {name: {} for name in measures}

    def chosen_or_refuse(pair: str, name: str) -> None:
        if name not in result:
            alias = next(
                (f" (EvalTrans {a})" for a, n in EVALTRANS_ALIASES.items() if n == name), ""
            )
            raise RunError(MEASURE_NOT_CHOSEN.format(pair=pair, name=name, alias=alias))

    for pair in pairs:
        target, value = _split_pair(pair, EVALTRANS_MEASURE_FLAGS)
        if "." in target:
            name, _, key = target.partition(".")
            chosen_or_refuse(pair, name)
            result[name][key] = value
            continue
        prefix, dash, key = target.partition("-")
        if dash and prefix in EVALTRANS_FAMILIES:
            family = EVALTRANS_FAMILIES[prefix]
            matched = [name for name in result if name in family and _measure_has(name, key)]
            if not matched:
                alias = EVALTRANS_ALIASES.get(prefix)
                if alias and _measure_has(alias, key):
                    chosen_or_refuse(pair, alias)
                raise RunError(
                    FAMILY_MATCHES_NOTHING.format(
                        pair=pair, prefix=prefix, family=", ".join(family), key=key
                    )
                )
            for name in matched:
                result[name][key] = value
            if prefix == "nper" and key == "max-ngram" and "mper" in implied:
                implied["mper"]["min-ngram"] = "1"
            continue
        if dash and prefix in METRICS and _measure_has(prefix, key):
            chosen_or_refuse(pair, prefix)
            result[prefix][key] = value
            continue
        if target in EVALTRANS_OWNED_KEYS:
            owner = EVALTRANS_OWNED_KEYS[target]
            if owner not in result:
                raise RunError(BLEU_ONLY.format(pair=pair))
            result[owner][target] = value
            continue
        matched = [name for name in result if _measure_has(name, target)]
        if not matched:
            raise RunError(
                OPTION_MATCHES_NOTHING.format(pair=pair, key=target, owners=_option_owners(target))
            )
        for name in matched:
            result[name][target] = value
    return {name: {**implied[name], **values} for name, values in result.items()}


# --- the command line that reproduces a run ------------------------------------------------


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return format_bool(value)
    return str(value)


def evaluate_command_line(
    *,
    test_set: TestSet,
    systems: Sequence[System],
    measures: Sequence[MeasureChoice],
    preset: str = "",
    comment: str = "",
    chunk_size: int | None = None,
) -> str:
    """The ``manage.py evaluate`` call that computes the same run (same signatures).

    Used for runs started on the web, so their report's ``<command-line>`` reproduces them
    too. Only option values that differ from what ``--preset`` (or the defaults) gives are
    written, as ``--option MEASURE.KEY=VALUE``.
    """
    names = list(dict.fromkeys(choice.name for choice in measures))
    parts = ["manage.py", "evaluate", "--test-set", test_set.name]
    parts += ["--test-set-version", str(test_set.version)]
    parts += ["--systems", ",".join(system.name for system in systems)]
    parts += ["--measures", ",".join(names)]
    if preset:
        parts += ["--preset", preset]
    baseline = {
        choice.name: choice.options
        for choice in measure_choices_resolve(names=names, preset=preset)
    }
    for choice in measures:
        wanted = measure_build(name=choice.name, options=choice.options).values
        given = measure_build(name=choice.name, options=baseline.get(choice.name, {})).values
        for key, value in wanted.items():
            if value != given[key]:
                parts += ["--option", f"{choice.name}.{key}={_option_text(value)}"]
    if chunk_size:
        parts += ["--chunk-size", str(chunk_size)]
    if comment:
        parts += ["--comment", comment]
    return shlex.join(parts)
