"""Celery tasks of metric runs: registered names, JSON arguments, thin calls, failure policy."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.db import OperationalError

from evaltrans.celery import app
from metrics import tasks
from metrics.models import MetricRun
from metrics.services import computation, runs
from tests.metrics.run_helpers import choices, make_test_set

pytestmark = pytest.mark.django_db


def test_tasks_are_registered_with_stable_names_and_retry_policy():
    for name in ("metrics.run_plan", "metrics.chunk_compute", "metrics.run_finalize"):
        task = app.tasks[name]
        assert OperationalError in task.autoretry_for
        assert task.max_retries == 5
    assert "metrics.runs_resume" in app.tasks


def test_task_arguments_are_plain_json_ids(django_capture_on_commit_callbacks):
    test_set = make_test_set()
    sent = []
    with mock.patch.object(
        tasks.metric_chunk_compute_task, "delay", side_effect=lambda *a: sent.append(a)
    ):
        run = runs.metric_run_create(
            test_set=test_set, systems=test_set.systems.all(), measures=choices("wer"), chunk_size=5
        )
        with django_capture_on_commit_callbacks(execute=True):
            computation.metric_run_plan(run_id=run.pk)
    assert len(sent) == 4  # 2 systems x 2 chunks
    for args in sent:
        assert json.loads(json.dumps(args)) == list(args)
        assert all(isinstance(value, int) for value in args)


def test_tasks_call_one_service_each():
    with mock.patch.object(computation, "metric_chunk_compute", return_value=3) as service:
        assert tasks.metric_chunk_compute_task.run(1, 2, 0, 10, 4) == 3
    service.assert_called_once_with(run_id=1, system_id=2, start=0, stop=10, generation=4)
    with mock.patch.object(computation, "metric_run_finalize", return_value=True) as service:
        assert tasks.metric_run_finalize_task.run(7) is True
    service.assert_called_once_with(run_id=7)


def test_time_limit_fails_the_run_with_a_hint():
    test_set = make_test_set()
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
    )
    MetricRun.objects.filter(pk=run.pk).update(status=MetricRun.Status.RUNNING)
    with mock.patch.object(
        computation, "metric_chunk_compute", side_effect=SoftTimeLimitExceeded()
    ):
        with pytest.raises(SoftTimeLimitExceeded):
            tasks.metric_chunk_compute_task(run.pk, 1, 0, 4)
    run.refresh_from_db()
    assert run.status == MetricRun.Status.FAILED and "time limit" in run.error


def test_database_errors_are_retried_not_failed():
    test_set = make_test_set()
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
    )
    MetricRun.objects.filter(pk=run.pk).update(status=MetricRun.Status.RUNNING)
    with mock.patch.object(
        computation, "metric_chunk_compute", side_effect=OperationalError("locked")
    ):
        with pytest.raises(OperationalError):
            tasks.metric_chunk_compute_task(run.pk, 1, 0, 4)
    run.refresh_from_db()
    assert run.status == MetricRun.Status.RUNNING


def test_a_starting_worker_loads_the_compiled_kernels(monkeypatch):
    from celery.signals import worker_init

    # Sending the signal would also run Celery's Django fix-up, which needs a real worker.
    assert tasks.load_kernels in worker_init._live_receivers(None)
    calls = []
    monkeypatch.setattr(tasks.kernels, "warm_up", lambda *_: calls.append("loaded"))
    tasks.load_kernels()
    assert calls == ["loaded"]


def test_a_kernel_that_fails_to_load_does_not_stop_the_worker(monkeypatch, caplog):
    def broken(*_: object) -> None:
        raise RuntimeError("no compiler")

    monkeypatch.setattr(tasks.kernels, "warm_up", broken)
    tasks.load_kernels()
    assert "could not load the compiled kernels" in caplog.text
