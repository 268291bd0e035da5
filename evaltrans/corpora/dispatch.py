"""Sending the corpora app's Celery tasks by name, so that writers never import
``evaltrans.corpora.tasks``: the dependency points one way (tasks → services), as in
``metrics.services.dispatch``."""

from __future__ import annotations

import logging

from celery import Task
from django.db import transaction
from kombu.exceptions import KombuError

from evaltrans.celery import app

logger = logging.getLogger(__name__)

IMPORT_TASK = "corpora.import_execute"
WORDS_INDEX_TASK = "corpora.words_index"
SEND_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}


def task(name: str) -> Task:
    """The registered task ``name``; a process that has not imported the task modules yet (the
    web server, a management command) imports them first."""
    if name not in app.tasks:
        app.autodiscover_tasks(force=True)
    return app.tasks[name]


def send_on_commit(name: str, args: list[object], unsent: str) -> None:
    """Send task ``name`` once the current transaction commits. A broker that cannot be
    reached is logged as the warning ``unsent`` (``{error}`` is the broker's error) and
    changes nothing else: the caller's work is kept."""

    def send() -> None:
        try:
            task(name).apply_async(args=args, retry=True, retry_policy=dict(SEND_RETRY_POLICY))
        except (KombuError, OSError) as error:
            logger.warning(unsent.format(error=error))

    transaction.on_commit(send)


def words_index_send(*, test_set_id: int) -> None:
    """Have a worker index the words of a test set for the search once the current
    transaction commits. Without a broker the set is searched without its index (every text
    read) until ``manage.py index_words`` builds it: the import itself is not failed."""
    send_on_commit(
        WORDS_INDEX_TASK,
        [test_set_id],
        f"test set {test_set_id}: the search index was not queued (broker unavailable: "
        "{error}); run manage.py index_words to build it",
    )
