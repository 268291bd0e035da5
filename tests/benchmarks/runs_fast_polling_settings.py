"""Settings for one bench_runs row: the dev settings with the filesystem broker polled every
0.1 s instead of kombu's default 1 s (a proposed change to evaltrans/settings/base.py)."""

from evaltrans.settings.dev import *  # noqa: F403
from evaltrans.settings.dev import CELERY_BROKER_TRANSPORT_OPTIONS

if CELERY_BROKER_TRANSPORT_OPTIONS:
    CELERY_BROKER_TRANSPORT_OPTIONS = {**CELERY_BROKER_TRANSPORT_OPTIONS, "polling_interval": 0.1}
