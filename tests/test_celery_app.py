"""The Celery app: JSON only, late acks, and the filesystem broker's folders created on demand."""

from __future__ import annotations

from evaltrans.celery import app, ensure_broker_folders


def test_filesystem_broker_folders_are_created(settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(tmp_path / "queue"),
        "data_folder_out": str(tmp_path / "queue"),
        "processed_folder": str(tmp_path / "processed"),
        "control_folder": str(tmp_path / "control"),
        "store_processed": False,
    }
    ensure_broker_folders()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["control", "processed", "queue"]


def test_tasks_are_json_only_and_acknowledged_late():
    assert app.conf.task_serializer == "json"
    assert app.conf.accept_content == ["json"]
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.task_time_limit > app.conf.task_soft_time_limit > 0
