"""Celery task of corpus imports: a thin wrapper (job id in, one service call); policy lives here.

``import_jobs`` sends this task by name (``IMPORT_TASK``) and never imports this module, so the
dependency points one way: tasks → services. Celery's ``autodiscover_tasks`` finds it as the
``tasks`` module of the installed app ``evaltrans.corpora``.

* Retries: database hiccups (SQLite "database is locked" past its timeout, a dropped
  PostgreSQL connection) are retried with backoff; the store step is one transaction, so a
  retry starts from nothing stored. Refusals of the input fail the job inside the service.
* Time limit: ``CORPUS_IMPORT_TIME_LIMIT_S`` (default 1800 s; an import of 400,000 segments
  takes minutes, more than the 600 s of a metric chunk). Past it the job fails with a message
  and the transaction is rolled back.
* Any other error fails the job with its message; the uploaded files are deleted then.
"""

from __future__ import annotations

import logging
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from evaltrans.celery import app

from . import dispatch, import_jobs, services

logger = logging.getLogger(__name__)

RETRY_ON = (OperationalError, InterfaceError)
DEFAULT_TIME_LIMIT_S = 1800
TIME_LIMIT_MESSAGE = (
    "the import exceeded its time limit of {limit} s and was stopped; nothing was imported "
    "(an administrator can raise CORPUS_IMPORT_TIME_LIMIT_S)"
)


def time_limit_s() -> int:
    return getattr(settings, "CORPUS_IMPORT_TIME_LIMIT_S", DEFAULT_TIME_LIMIT_S)


def _failure_reason(exc: BaseException) -> str:
    if isinstance(exc, SoftTimeLimitExceeded):
        return TIME_LIMIT_MESSAGE.format(limit=time_limit_s())
    return f"{type(exc).__name__}: {exc}"


def _record_failure(import_id: int | None, exc: BaseException) -> None:
    if import_id is None:
        return
    reason = _failure_reason(exc)
    logger.error("corpus import %s failed: %s", import_id, reason)
    try:
        import_jobs.corpus_import_fail(import_id=import_id, reason=reason)
    except Exception:  # the failure path must not raise (e.g. the database is down)
        logger.exception("could not record the failure of corpus import %s", import_id)


class ImportTask(app.Task):
    """Errors that retrying cannot fix fail the job at once (also in eager mode); retryable
    ones go through ``autoretry_for`` and fail the job in ``on_failure`` when used up."""

    abstract = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except RETRY_ON:
            raise
        except Exception as exc:
            _record_failure(args[0] if args else kwargs.get("import_id"), exc)
            raise

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:  # noqa: ANN001
        _record_failure(args[0] if args else kwargs.get("import_id"), exc)


# Both tasks: database hiccups retried with backoff, and the import's time limit.
RETRIES: dict[str, Any] = {
    "autoretry_for": RETRY_ON,
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 5,
    "soft_time_limit": time_limit_s(),
    "time_limit": time_limit_s() + 60,
}


@app.task(
    base=ImportTask,
    name=dispatch.IMPORT_TASK,
    **RETRIES,
)
def corpus_import_execute_task(import_id: int) -> str:
    return import_jobs.corpus_import_execute(import_id=import_id).status


@app.task(
    name=dispatch.WORDS_INDEX_TASK,
    **RETRIES,
)
def testset_words_index_task(test_set_id: int) -> int:
    """Index a test set's words for the search (after its import): batches commit one by one,
    so a retry or a second delivery goes on where the last stopped."""
    return services.testset_words_index(test_set_id=test_set_id)
