"""Sending the human-score app's Celery task by name, so that the import never imports
``judging.humanscores.tasks`` (tasks → services, one way), as ``evaltrans.corpora.dispatch``."""

from __future__ import annotations

import logging

from django.db import transaction
from kombu.exceptions import KombuError

from evaltrans.corpora.dispatch import SEND_RETRY_POLICY, task

logger = logging.getLogger(__name__)

PANELS_WARM_TASK = "humanscores.panels_warm"


def panels_warm_send(*, judgment_set_id: int) -> None:
    """Have a worker compute the set's panels once the current transaction commits, so that
    the first look at them is a cached one. Without a broker the first viewer computes them
    (seconds at WMT size); the import itself is not failed."""

    def send() -> None:
        try:
            task(PANELS_WARM_TASK).apply_async(
                args=[judgment_set_id], retry=True, retry_policy=dict(SEND_RETRY_POLICY)
            )
        except (KombuError, OSError) as error:
            logger.warning(
                "judgment set %s: its panels were not queued for computing (broker "
                "unavailable: %s); the first look at each computes it",
                judgment_set_id,
                error,
            )

    transaction.on_commit(send)
