"""Sending the human-score app's Celery task by name, so that the import never imports
``judging.humanscores.tasks`` (tasks → services, one way), as ``evaltrans.corpora.dispatch``."""

from __future__ import annotations

from evaltrans.corpora.dispatch import send_on_commit

PANELS_WARM_TASK = "humanscores.panels_warm"


def panels_warm_send(*, judgment_set_id: int) -> None:
    """Have a worker compute the set's panels once the current transaction commits, so that
    the first look at them is a cached one. Without a broker the first viewer computes them
    (seconds at WMT size); the import itself is not failed."""
    send_on_commit(
        PANELS_WARM_TASK,
        [judgment_set_id],
        f"judgment set {judgment_set_id}: its panels were not queued for computing (broker "
        "unavailable: {error}); the first look at each computes it",
    )
