"""Celery tasks of metric runs: thin wrappers (ids in, one service call); policy lives here.

The services send these tasks by name (``metrics.services.dispatch``) and never import this
module, so the dependency points one way: tasks → services.

* Retries: database hiccups (SQLite "database is locked" past its timeout, a dropped
  PostgreSQL connection) are retried with backoff; anything else fails the run at once with
  its message (bad options, a bug), because computing it again gives the same error.
* Late acknowledgement and ``reject_on_worker_lost`` come from the settings; the services
  make every write idempotent, so a redelivered task is harmless.
* Recovery: a worker that dies with SIGKILL takes its prefetched messages with it on the
  filesystem broker (and on Redis they come back only after the visibility timeout). So every
  time a worker's consumer (re)connects to the broker it sends ``metric_runs_resume_task``,
  which re-sends whatever active runs still miss (``metric_runs_resume``). This also starts
  runs that were created while the broker was down.
* Heartbeat: every worker records that it is alive every ``METRICS_WORKER_HEARTBEAT_S``
  (``Heartbeat``), so a run page can say that no worker is running instead of showing a run
  that never moves as merely slow.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import bootsteps
from celery.exceptions import Retry, SoftTimeLimitExceeded
from celery.signals import worker_init
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections

from evaltrans.celery import app
from metrics.core import invwer, kernels, ljwer
from metrics.measure_choices import RunError
from metrics.services import computation, dispatch, recovery, runs, workers

logger = logging.getLogger(__name__)

RETRY_ON = (OperationalError, InterfaceError)
RETRY_POLICY: dict[str, Any] = {
    "autoretry_for": RETRY_ON,
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 5,
}
TIME_LIMIT_MESSAGE = "a task exceeded its time limit ({limit}); try a smaller chunk size"


def _failure_reason(exc: BaseException) -> str:
    if isinstance(exc, SoftTimeLimitExceeded):
        return TIME_LIMIT_MESSAGE.format(limit=app.conf.task_soft_time_limit)
    if isinstance(exc, RunError):  # written for the user already
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _record_failure(run_id: int | None, exc: BaseException, where: str) -> None:
    if run_id is None:
        return
    reason = _failure_reason(exc)
    logger.error("run %s failed in %s: %s", run_id, where, reason)
    try:
        runs.metric_run_fail(run_id=run_id, reason=reason)
    except Exception:  # the failure path must not raise (e.g. the database is down)
        logger.exception("could not record the failure of run %s", run_id)


class RunTask(app.Task):
    """A task of one run: errors that retrying cannot fix fail the run at once, with reason.

    Retryable errors (``RETRY_ON``) go through ``autoretry_for``; when the retries are used
    up, ``on_failure`` fails the run. The check is in ``__call__`` rather than only in
    ``on_failure`` so that eager runs (``evaluate --eager``, the tests) record it too.
    """

    abstract = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except (Retry, *RETRY_ON):
            # Retry: a worker's ``autoretry_for`` turned a RETRY_ON error into a retry, which
            # must not fail the run (it did whenever the database answered again in time).
            raise
        except Exception as exc:
            _record_failure(args[0] if args else kwargs.get("run_id"), exc, self.name)
            raise

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:  # noqa: ANN001
        _record_failure(args[0] if args else kwargs.get("run_id"), exc, self.name)


@app.task(base=RunTask, name=dispatch.PLAN_TASK, **RETRY_POLICY)
def metric_run_plan_task(run_id: int) -> int:
    return computation.metric_run_plan(run_id=run_id)


@app.task(base=RunTask, name=dispatch.CHUNK_TASK, **RETRY_POLICY)
def metric_chunk_compute_task(
    run_id: int, system_id: int, start: int, stop: int, generation: int = 0
) -> int:
    return computation.metric_chunk_compute(
        run_id=run_id, system_id=system_id, start=start, stop=stop, generation=generation
    )


@app.task(base=RunTask, name=dispatch.FINALIZE_TASK, **RETRY_POLICY)
def metric_run_finalize_task(run_id: int) -> bool:
    return computation.metric_run_finalize(run_id=run_id)


@app.task(name=dispatch.RESUME_TASK, **RETRY_POLICY)
def metric_runs_resume_task() -> list[int]:
    return recovery.metric_runs_resume()


class ResumeRunsOnConnect(bootsteps.StartStopStep):
    """Consumer step: after each (re)connection to the broker, resume active runs."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def start(self, consumer: Any) -> None:
        try:
            dispatch.resume_send()
        except Exception:  # never keep a worker from starting
            logger.exception("could not send the resume task")


app.steps["consumer"].add(ResumeRunsOnConnect)


def heartbeat_once(hostname: str) -> None:
    """Record one heartbeat of ``hostname``; a failure is logged, never raised (the database
    may be away for a moment; the next beat tries again)."""
    try:
        workers.worker_heartbeat_record(hostname=hostname)
    except Exception:
        logger.warning("could not record the heartbeat of %s", hostname, exc_info=True)
    finally:
        # The thread's own connection: kept open between beats it would pin an SQLite
        # snapshot or a PostgreSQL session for nothing.
        connections.close_all()


class Heartbeat(bootsteps.StartStopStep):
    """Worker step: a thread that records this worker's heartbeat until the worker stops.

    A thread of its own, not the worker's timer: a slow database (SQLite waits up to 30 s for
    a lock) then delays only the heartbeat, never the consumer. Started after the pool so the
    pool's processes are not forked while it runs.
    """

    requires = {"celery.worker.components:Pool"}

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, worker: Any) -> None:
        self.stopping.clear()
        self.thread = threading.Thread(
            target=self.run, args=(worker.hostname,), name="evaltrans-heartbeat", daemon=True
        )
        self.thread.start()

    def run(self, hostname: str) -> None:
        interval = settings.METRICS_WORKER_HEARTBEAT_S
        while True:
            heartbeat_once(hostname)
            if self.stopping.wait(interval):
                return

    def stop(self, worker: Any) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=5)

    terminate = stop


app.steps["worker"].add(Heartbeat)


@worker_init.connect
def load_kernels(**_: Any) -> None:
    """Load the compiled kernels in the worker's main process, before the pool forks, so every
    pool process has them and a run's first chunk does not wait for numba."""
    try:
        kernels.warm_up(invwer.warm_up, ljwer.warm_up)
    except Exception:  # a worker without its kernels still works: they load at first use
        logger.exception("could not load the compiled kernels")
