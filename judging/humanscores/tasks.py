"""Celery task of the human-score pages: a thin wrapper (set id in, one service call).

The import sends it by name (``dispatch.PANELS_WARM_TASK``) and never imports this module.
Database hiccups are retried with backoff; anything else is logged by Celery and costs only
the cache: the first viewer then computes the panel, as without a worker.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

from evaltrans.celery import app

from . import dispatch, services


@app.task(
    name=dispatch.PANELS_WARM_TASK,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    soft_time_limit=600,
    time_limit=660,
)
def judgmentset_panels_warm_task(judgment_set_id: int) -> list[str]:
    return services.judgmentset_panels_warm(judgment_set_id=judgment_set_id)
