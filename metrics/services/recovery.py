"""Writes that resume metric runs after a worker died or the broker was down."""

from __future__ import annotations

import logging

from django.db import transaction
from kombu.exceptions import KombuError

from metrics.models import MetricRun
from metrics.services.computation import run_missing_work
from metrics.services.dispatch import chunks_send, plan_send

logger = logging.getLogger(__name__)

Status = MetricRun.Status


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
    touched: list[int] = []
    queued = list(MetricRun.objects.filter(status=Status.QUEUED))
    running = list(MetricRun.objects.filter(status=Status.RUNNING).values_list("pk", flat=True))
    for run in queued:
        try:
            plan_send(run_id=run.pk)
        except (KombuError, OSError) as error:
            logger.warning("resume: run %s still waits for the broker: %s", run.pk, error)
            continue
        touched.append(run.pk)
    for run_id in running:
        with transaction.atomic():
            run = MetricRun.objects.select_for_update().select_related("test_set").get(pk=run_id)
            if run.status != Status.RUNNING:
                continue
            run.generation += 1
            run.save(update_fields=["generation"])
            chunks, _, _ = run_missing_work(run)
            chunks_send(run=run, chunks=chunks)
        touched.append(run_id)
    return touched
