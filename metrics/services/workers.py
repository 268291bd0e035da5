"""Writes about the Celery workers themselves: their heartbeat."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from metrics.models import WorkerHeartbeat


def worker_heartbeat_record(*, hostname: str, now: datetime | None = None) -> None:
    """Record that the worker ``hostname`` is alive (now, unless ``now`` is given).

    One row per worker name, updated in place: a worker restarted under the same name (the
    usual case) reuses its row, so the table stays as small as the fleet.
    """
    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname[:255], defaults={"last_seen": now or timezone.now()}
    )
