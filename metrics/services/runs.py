"""Writes on the life of a metric run: create, start, status changes, cancel, fail.

``metric_run_start`` stores the run (status ``queued``) and sends one *plan* task
(``dispatch``). When the broker cannot be reached the run stays queued with ``dispatched_at``
empty, the caller gets ``dispatch.BrokerUnavailable``, and ``recovery.metric_runs_resume``
sends it later. Planning, chunk computing and finalizing are in ``computation``.

Status changes are conditional UPDATEs (``metric_run_transition``), so two workers racing on
one run cannot both move it, and illegal moves (e.g. done → running) are refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from evaltrans.corpora.models import System, TestSet
from metrics.command_line import evaluate_command_line
from metrics.core import Measure
from metrics.measure_choices import NO_MEASURES, MeasureChoice, RunError, measure_build
from metrics.models import MetricRun, RunMeasure
from metrics.selectors.hter import (
    NO_POSTEDITS,
    HterError,
    campaign_targeted,
    testset_postedit_campaign,
)
from metrics.selectors.texts import testset_reference_count
from metrics.services.dispatch import metric_run_dispatch

Status = MetricRun.Status

DEFAULT_CHUNK_SEGMENTS = 1500

NO_SYSTEMS = "choose at least one system"
FOREIGN_SYSTEM = "system {name!r} does not belong to test set {test_set}"
EMPTY_TEST_SET = "test set {test_set} has no segments"
ILLEGAL_TRANSITION = "a {current} run cannot become {target}"

# Which status may follow which; everything else is refused.
TRANSITIONS: dict[str, set[str]] = {
    Status.QUEUED: {Status.RUNNING, Status.FAILED, Status.CANCELLED},
    Status.RUNNING: {Status.DONE, Status.FAILED, Status.CANCELLED},
    Status.DONE: set(),
    Status.FAILED: set(),
    Status.CANCELLED: set(),
}


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
        measure, refs = _measure_and_nrefs(test_set=test_set, choice=choice, n_refs=n_refs)
        signature = str(measure.signature(refs))
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
            test_set_name=test_set.name,
            test_set_version=test_set.version,
            system_names=[system.name for system in systems],
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


def _measure_and_nrefs(
    *, test_set: TestSet, choice: MeasureChoice, n_refs: int
) -> tuple[Measure, int]:
    """The measure of a choice and the ``nrefs`` of its signature. A measure scored against a
    post-editing campaign (``targeted_references``: HTER) gets the fingerprint of the
    campaign's post-edits now, so its results are keyed by the post-edits they were computed
    with, and its nrefs is the most post-edits of one (segment, system)."""
    measure = measure_build(name=choice.name, options=choice.options)
    if not measure.targeted_references:
        return measure, n_refs
    try:
        campaign = testset_postedit_campaign(test_set=test_set, name=measure.option("post-edits"))
    except HterError as error:
        raise RunError(str(error)) from None
    targeted = campaign_targeted(campaign=campaign)
    if not targeted.by_system:
        raise RunError(NO_POSTEDITS.format(name=campaign.name))
    options = {**choice.options, "post-edits-version": targeted.fingerprint}
    return measure_build(name=choice.name, options=options), targeted.n_refs


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


def metric_run_transition(run_id: int, target: str, **fields: Any) -> bool:
    """Move a run to ``target`` if its current status allows it; False when it did not move.

    One conditional UPDATE, so concurrent workers cannot both make the same move.
    """
    sources = [source for source, targets in TRANSITIONS.items() if target in targets]
    moved = MetricRun.objects.filter(pk=run_id, status__in=sources).update(status=target, **fields)
    return bool(moved)


def metric_run_cancel(*, run: MetricRun) -> MetricRun:
    """Stop a queued or running run; tasks still queued stand down when they start."""
    if not metric_run_transition(run.pk, Status.CANCELLED, finished_at=timezone.now()):
        run.refresh_from_db()
        raise RunError(ILLEGAL_TRANSITION.format(current=run.status, target=Status.CANCELLED))
    run.refresh_from_db()
    return run


def metric_run_fail(*, run_id: int, reason: str) -> bool:
    """Mark a run failed with the reason shown to the user (no-op when already finished)."""
    return metric_run_transition(
        run_id, Status.FAILED, error=reason[:2000], finished_at=timezone.now()
    )
