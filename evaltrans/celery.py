"""The Celery application; configuration comes from Django settings (CELERY_*)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evaltrans.settings.dev")

app = Celery("evaltrans")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


BROKER_FOLDER_OPTIONS = ("data_folder_in", "data_folder_out", "processed_folder", "control_folder")


def ensure_broker_folders() -> None:
    """Create the folders of kombu's filesystem broker, which does not create them itself."""
    from django.conf import settings

    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        return
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    for key in BROKER_FOLDER_OPTIONS:
        if key in options:
            os.makedirs(options[key], exist_ok=True)


@app.on_after_configure.connect
def _prepare_broker(**_: object) -> None:
    # Runs in every process that uses the app (web server and workers) before any message.
    ensure_broker_folders()
