"""The Celery application; configuration comes from Django settings (CELERY_*)."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evaltrans.settings.dev")

app = Celery("evaltrans")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def ensure_broker_folders() -> None:
    """Create the folders of kombu's filesystem broker, which does not create them itself."""
    from django.conf import settings

    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        return
    for folder in settings.CELERY_BROKER_TRANSPORT_OPTIONS.values():
        os.makedirs(folder, exist_ok=True)


@worker_init.connect
def _prepare_worker(**_: object) -> None:
    ensure_broker_folders()
