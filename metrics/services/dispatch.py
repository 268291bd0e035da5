"""The one place that sends Celery tasks of metric runs, and the broker check before a run.

Tasks are looked up by their registered name, so this module never imports ``metrics.tasks``
(which imports the services): the dependency points one way, tasks → services. The task
objects are the same ones ``metrics.tasks`` defines, so eager mode (tests, ``evaluate
--eager``) and ``delay_on_commit`` behave as with a direct import.

Sends that belong to a database change (the plan after a run is stored, chunks after planning,
finalize after the last chunk) wait for the transaction to commit: a worker never sees a
message about rows it cannot read yet.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from celery import Task
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import KombuError

from evaltrans.celery import app
from metrics.models import MetricRun

logger = logging.getLogger(__name__)

PLAN_TASK = "metrics.run_plan"
CHUNK_TASK = "metrics.chunk_compute"
FINALIZE_TASK = "metrics.run_finalize"
RESUME_TASK = "metrics.runs_resume"

BROKER_DOWN = (
    "The task queue (Celery broker) cannot be reached ({error}). The run is saved as queued "
    "and starts as soon as the broker is back and a worker is running."
)
PLAN_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}


class BrokerUnavailable(RuntimeError):
    """The run was stored but its first task could not be sent; the message says what next."""

    def __init__(self, run: MetricRun, error: Exception) -> None:
        super().__init__(BROKER_DOWN.format(error=_short(error)))
        self.run = run


def _short(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:200]


def _task(name: str) -> Task:
    """The registered task ``name``; a process that has not imported the task modules yet (the
    web server, a management command) imports them first."""
    if name not in app.tasks:
        app.autodiscover_tasks(force=True)
    return app.tasks[name]


def _mark_dispatched(run_id: int) -> None:
    # The eager mode of the tests may already have finished the run: touch only this field.
    MetricRun.objects.filter(pk=run_id, dispatched_at__isnull=True).update(
        dispatched_at=timezone.now()
    )


def broker_check() -> None:
    """Raise the broker's error (KombuError or OSError) when it cannot take a message now.

    Done before the plan task is queued for the commit: inside an outer transaction the
    message is only sent when that commits, too late to tell the caller. kombu's filesystem
    transport connects without looking at its folder, so that folder is checked here. Eager
    mode (tests, ``evaluate --eager``) uses no broker.
    """
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


def metric_run_dispatch(*, run: MetricRun) -> None:
    """Send the run's plan task once the current transaction commits.

    Raises BrokerUnavailable when the broker cannot be reached, also inside an outer
    transaction (``broker_check`` runs first). The run stays queued with ``dispatched_at``
    empty, which its page shows, and ``metric_runs_resume`` sends it later; so does a send
    that fails at commit time after the check passed.
    """
    failure: list[Exception] = []

    def send() -> None:
        try:
            _task(PLAN_TASK).apply_async(
                args=[run.pk], retry=True, retry_policy=dict(PLAN_RETRY_POLICY)
            )
        except (KombuError, OSError) as error:
            logger.warning("run %s: broker unavailable: %s", run.pk, error)
            failure.append(error)
            return
        _mark_dispatched(run.pk)

    try:
        broker_check()
    except (KombuError, OSError) as error:
        logger.warning("run %s: broker unavailable: %s", run.pk, error)
        raise BrokerUnavailable(run, error) from None
    transaction.on_commit(send)
    if failure:  # the callback ran at once: no transaction was open
        raise BrokerUnavailable(run, failure[0])


def plan_send(*, run_id: int) -> None:
    """Send a queued run's plan task now and mark the run dispatched.

    The broker's error (KombuError or OSError) reaches the caller; the run is then left as it
    was. A duplicate plan finds the run running and does nothing.
    """
    _task(PLAN_TASK).delay(run_id)
    _mark_dispatched(run_id)


def chunks_send(*, run: MetricRun, chunks: Sequence[tuple[int, int, int]]) -> None:
    """Send one compute task per (system id, start, stop) of the run's current generation, or
    the finalize task when no chunk is missing, once the transaction commits."""
    if not chunks:
        finalize_send(run_id=run.pk)
        return
    task = _task(CHUNK_TASK)
    for system_id, start, stop in chunks:
        task.delay_on_commit(run.pk, system_id, start, stop, run.generation)


def finalize_send(*, run_id: int) -> None:
    """Send the run's finalize task once the transaction commits."""
    _task(FINALIZE_TASK).delay_on_commit(run_id)


def resume_send() -> None:
    """Send the task that resumes every active run (``metric_runs_resume``)."""
    _task(RESUME_TASK).delay()
