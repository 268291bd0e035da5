"""Writes that compute a run: plan it into chunk tasks, compute a chunk, aggregate the scores.

The measure pipeline (DESIGN.md, "The measure pipeline"):

1. ``metric_run_plan`` (in a worker) splits the work into (system, chunk of segments) tasks,
   leaving out what is already stored: results are keyed by (test-set version, system,
   signature), so a measure computed by any earlier run is never computed again.
2. ``metric_chunk_compute`` computes every missing measure of the run on one chunk and stores
   one ``SegmentStatistics`` row per measure. Rows are unique per (test set, system,
   signature, start, stop) and inserted with ``ignore_conflicts``: a task delivered twice, or
   a chunk re-sent after a worker died, stores its statistics once. The task that stores the
   last missing chunk sends the *finalize* task.
3. ``metric_run_finalize`` aggregates each (system, measure) into a ``SystemScore`` and marks
   the run done.

Test-set-wide measure context (NIST information weights, ...) is built from all references of
the test set and cached per worker process, keyed by (test set id, content hash, signature):
test sets never change under a content hash, so the cache cannot go stale, and each worker
process builds a context once instead of once per chunk.
"""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone

from evaltrans.corpora.models import System, TestSet
from metrics.core import Measure
from metrics.measure_choices import RunError, measure_build
from metrics.models import MetricRun, SegmentStatistics, SystemScore, pack_floats
from metrics.selectors.hter import HterError, campaign_targeted, testset_postedit_campaign
from metrics.selectors.runs import run_chunks_complete, runs_stored_work, segment_arrays
from metrics.selectors.texts import system_candidates, testset_references
from metrics.services.dispatch import chunks_send, finalize_send
from metrics.services.runs import metric_run_transition

logger = logging.getLogger(__name__)

Status = MetricRun.Status

POSTEDITS_CHANGED = (
    "the post-edits of campaign {name!r} changed after this run started; start the run again "
    "to compute HTER against them"
)

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


def _references(test_set: TestSet) -> list[list[str]]:
    """``testset_references``, cached per process."""
    key = (test_set.pk, test_set.content_hash)
    if key in _REFERENCES:
        _REFERENCES.move_to_end(key)
        return _REFERENCES[key]
    references = testset_references(test_set=test_set)
    return _remember(_REFERENCES, key, references, _CACHE_SIZE["references"])


def measure_context(*, test_set: TestSet, measure: Measure, signature: str) -> Any:
    """The measure's test-set-wide context (built from ALL references), cached per process."""
    key = (test_set.pk, test_set.content_hash, signature)
    if key in _CONTEXTS:
        _CONTEXTS.move_to_end(key)
        return _CONTEXTS[key]
    context = measure.context(_references(test_set))
    return _remember(_CONTEXTS, key, context, _CACHE_SIZE["contexts"])


# --- planning, computing, aggregating ------------------------------------------------------


def run_missing_work(run: MetricRun) -> tuple[list[tuple[int, int, int]], int, bool]:
    """Chunks that still need computing, units already stored, and whether scores are missing.

    Returns ``(chunks, reused_units, needs_scores)``: ``chunks`` are (system id, start, stop)
    with at least one measure lacking its chunk row, the long ones first.
    """
    work = runs_stored_work(runs=[run])[run.pk]
    signatures = [item.signature for item in work.measures]
    chunks: list[tuple[int, int, int]] = []
    reused = 0
    needs_scores = False
    for system_id in work.system_ids:
        open_signatures = [sig for sig in signatures if (system_id, sig) not in work.scored]
        reused += (len(signatures) - len(open_signatures)) * run.segment_count
        needs_scores = needs_scores or bool(open_signatures)
        for start, stop in work.layout:
            missing = [
                sig for sig in open_signatures if (system_id, sig, start, stop) not in work.chunks
            ]
            reused += (len(open_signatures) - len(missing)) * (stop - start)
            if missing:
                chunks.append((system_id, start, stop))
    # Long chunks first (stable: system by system within a length), for the plan and for a
    # resume alike: a run ends on the short last chunks of chunk_layout, so no worker waits
    # long for another's last task.
    chunks.sort(key=lambda chunk: chunk[1] - chunk[2])
    return chunks, reused, needs_scores


@transaction.atomic
def metric_run_plan(*, run_id: int) -> int:
    """Split a queued run into chunk tasks and send them; returns how many were sent."""
    run = MetricRun.objects.select_related("test_set").get(pk=run_id)
    if run.status != Status.QUEUED:
        return 0  # a duplicate plan message, or cancelled while waiting
    chunks, reused, _ = run_missing_work(run)
    now = timezone.now()
    if not metric_run_transition(
        run.pk,
        Status.RUNNING,
        started_at=now,
        planned_tasks=len(chunks),
        reused_units=reused,
        dispatched_at=run.dispatched_at or now,
    ):
        return 0
    run.refresh_from_db()
    chunks_send(run=run, chunks=chunks)
    return len(chunks)


def metric_chunk_compute(
    *, run_id: int, system_id: int, start: int, stop: int, generation: int = 0
) -> int:
    """Compute the run's missing measures on segments [start, stop) of one system.

    Returns the number of statistics rows stored (0 for a duplicate delivery or a run that
    is no longer running). Idempotent: rows are unique and inserted with ignore_conflicts.
    """
    # order_by(): the reads of a chunk task need no order, and the models' default orders join
    # the test set and the system to sort by their names (and sort the chunk's candidates).
    run = MetricRun.objects.select_related("test_set").filter(pk=run_id).order_by().first()
    if run is None or run.status != Status.RUNNING or generation < run.generation:
        return 0
    test_set = run.test_set
    measures = list(run.measures.order_by())
    signatures = [m.signature for m in measures]
    done = set(
        SegmentStatistics.objects.filter(
            test_set=test_set, system_id=system_id, start=start, stop=stop, signature__in=signatures
        )
        .order_by()
        .values_list("signature", flat=True)
    )
    scored = set(
        SystemScore.objects.filter(test_set=test_set, system_id=system_id, signature__in=signatures)
        .order_by()
        .values_list("signature", flat=True)
    )
    todo = [m for m in measures if m.signature not in done and m.signature not in scored]
    rows: list[SegmentStatistics] = []
    if todo:
        hypotheses = system_candidates(system_ids=[system_id], start=start, stop=stop)[system_id]
        references = _references(test_set)[start:stop]
        for item in todo:
            began = time.perf_counter()
            measure = measure_build(name=item.measure, options=item.options)
            context = measure_context(test_set=test_set, measure=measure, signature=item.signature)
            refs = references
            if measure.targeted_references:
                refs = _targeted_references(
                    measure, test_set=test_set, system_id=system_id, start=start, stop=stop
                )
            stats = np.asarray(measure.statistics(hypotheses, refs, context), dtype=float)
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
    if run_chunks_complete(run=run):
        finalize_send(run_id=run.pk)
    return len(rows)


def _targeted_references(
    measure: Measure, *, test_set: TestSet, system_id: int, start: int, stop: int
) -> list[list[str]]:
    """The post-edits of one system's segments [start, stop) from the campaign the measure
    names (HTER); refused when the campaign is gone or its post-edits are no longer those the
    run was started with (the results would be stored under another fingerprint)."""
    try:
        campaign = testset_postedit_campaign(test_set=test_set, name=measure.option("post-edits"))
    except HterError as error:
        raise RunError(str(error)) from None
    targeted = campaign_targeted(campaign=campaign)
    if targeted.fingerprint != measure.option("post-edits-version"):
        raise RunError(POSTEDITS_CHANGED.format(name=campaign.name))
    system = System.objects.get(pk=system_id)
    return targeted.references(system=system.name, start=start, stop=stop)


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
    return metric_run_transition(run.pk, Status.DONE, finished_at=timezone.now())


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
