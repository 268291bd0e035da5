"""A run without a worker is told apart from a slow one: workers record a heartbeat, and a run
whose progress and workers have both been silent for METRICS_STALLED_AFTER_S is stalled; its
page and progress JSON say so and how to start a worker. Time is set through the stored
timestamps, never waited for."""

from __future__ import annotations

import threading
from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User
from django.db import OperationalError
from django.urls import reverse
from django.utils import timezone

from evaltrans.celery import app
from evaltrans.roles import VIEWERS_GROUP
from metrics import tasks
from metrics.models import MetricRun, SegmentStatistics, WorkerHeartbeat, pack_floats
from metrics.selectors.runs import chunk_layout, run_progress, runs_progress
from metrics.services import runs, workers
from tests.metrics.run_helpers import choices, make_test_set

pytestmark = pytest.mark.django_db

WARNING = "No worker has reported for"
Status = MetricRun.Status


@pytest.fixture(autouse=True)
def threshold(settings):
    settings.METRICS_STALLED_AFTER_S = 60
    return settings


@pytest.fixture
def viewer_client(client):
    account = User.objects.create_user("reader", password="pw")
    account.groups.add(Group.objects.get_or_create(name=VIEWERS_GROUP)[0])
    client.force_login(account)
    return client


def ago(**delta) -> timezone.datetime:
    return timezone.now() - timedelta(**delta)


def running_run(
    *, started: timezone.datetime, chunk_stored: timezone.datetime | None = None, name="tiny"
):
    """A run the workers were computing: started at ``started``, with one chunk stored at
    ``chunk_stored`` (of the eight segments of two systems) when given."""
    test_set = make_test_set(name)
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices("wer"), chunk_size=3
    )
    MetricRun.objects.filter(pk=run.pk).update(
        status=Status.RUNNING, created_at=started, dispatched_at=started, started_at=started
    )
    run.refresh_from_db()
    if chunk_stored is not None:
        start, stop = chunk_layout(run.segment_count, run.chunk_size)[0]
        SegmentStatistics.objects.create(
            test_set=test_set,
            system=test_set.systems.order_by("name").first(),
            signature=run.measures.get().signature,
            measure="wer",
            start=start,
            stop=stop,
            stat_names=["edits", "length"],
            stats=pack_floats([[1.0, 6.0]] * (stop - start)),
            sentence_scores=pack_floats([1 / 6] * (stop - start)),
            created_at=chunk_stored,
        )
    return run


def beat(hostname: str = "celery@alpha", **delta) -> None:
    workers.worker_heartbeat_record(hostname=hostname, now=ago(**delta))


def test_no_progress_and_no_heartbeat_for_three_minutes_is_stalled(viewer_client):
    run = running_run(started=ago(minutes=10), chunk_stored=ago(minutes=3, seconds=5))
    beat(minutes=4)  # the worker died after its last chunk

    data = viewer_client.get(reverse("metrics:run_progress", args=[run.pk])).json()
    assert data["status"] == "running" and 0 < data["done"] < data["total"]
    assert data["stalled"] is True
    assert data["stalled_for"] == "3 min"
    assert data["worker_silent_s"] >= 180

    page = viewer_client.get(run.get_absolute_url()).content.decode()
    box = page[page.index('id="run-stalled"') :].split("</div>", 1)[0]
    assert "hidden" not in box.split(">", 1)[0]
    assert f"{WARNING} <span" in box and ">3 min</span>" in box
    assert "make worker" in box and "resumes where it stopped" in box


def test_a_fresh_heartbeat_means_a_slow_run_not_a_stalled_one(viewer_client):
    # One long chunk: nothing stored for ten minutes, but the worker is alive.
    run = running_run(started=ago(minutes=10))
    beat(seconds=10)

    data = viewer_client.get(reverse("metrics:run_progress", args=[run.pk])).json()
    assert data["stalled"] is False
    page = viewer_client.get(run.get_absolute_url()).content.decode()
    box = page[page.index('id="run-stalled"') :].split(">", 1)[0]
    assert "hidden" in box


def test_recent_progress_means_not_stalled_even_without_heartbeats():
    # Workers of a version without the heartbeat: the stored chunks still show life.
    run = running_run(started=ago(minutes=10), chunk_stored=ago(seconds=20))
    progress = run_progress(run=run)
    assert not progress.stalled and progress.worker_silent_s < 60


def test_a_run_that_never_heard_from_a_worker_stalls_after_the_threshold(settings):
    run = running_run(started=ago(seconds=30))
    assert not run_progress(run=run).stalled
    settings.METRICS_STALLED_AFTER_S = 20
    progress = run_progress(run=run)
    assert progress.stalled and progress.stalled_for == "30 s"


def test_the_latest_heartbeat_of_any_worker_counts():
    run = running_run(started=ago(hours=3))
    beat("celery@alpha", hours=2)
    beat("celery@beta", seconds=5)
    assert not run_progress(run=run).stalled
    WorkerHeartbeat.objects.filter(hostname="celery@beta").delete()
    progress = run_progress(run=run)
    assert progress.stalled and progress.stalled_for == "2 h 0 min"


def test_a_queued_run_stalls_once_sent_but_not_while_waiting_for_the_broker():
    run = running_run(started=ago(minutes=5))
    MetricRun.objects.filter(pk=run.pk).update(status=Status.QUEUED, started_at=None)
    run.refresh_from_db()
    assert run_progress(run=run).stalled  # sent to the broker; no worker took it
    MetricRun.objects.filter(pk=run.pk).update(dispatched_at=None)
    run.refresh_from_db()
    progress = run_progress(run=run)
    assert progress.waiting_for_broker and not progress.stalled


@pytest.mark.parametrize("status", [Status.DONE, Status.FAILED, Status.CANCELLED])
def test_finished_runs_are_never_stalled(status):
    run = running_run(started=ago(hours=1))
    MetricRun.objects.filter(pk=run.pk).update(status=status, finished_at=ago(minutes=50))
    run.refresh_from_db()
    progress = run_progress(run=run)
    assert not progress.stalled and progress.worker_silent_s is None
    assert progress.as_dict()["stalled_for"] == ""


def test_the_heartbeat_is_read_once_for_a_list_of_runs(django_assert_num_queries):
    active = [running_run(started=ago(minutes=5), name=f"set {k}") for k in range(3)]
    beat(minutes=4)
    with django_assert_num_queries(6):  # runs_stored_work's five, and the heartbeat
        progress = runs_progress(runs=active)
    assert all(item.stalled for item in progress.values())


def test_a_heartbeat_updates_the_workers_row():
    beat("celery@alpha", minutes=5)
    beat("celery@alpha", seconds=1)
    row = WorkerHeartbeat.objects.get()
    assert row.hostname == "celery@alpha" and row.last_seen > ago(seconds=30)


def test_a_failed_heartbeat_is_logged_not_raised(caplog):
    with mock.patch.object(workers, "worker_heartbeat_record", side_effect=OperationalError):
        tasks.heartbeat_once("celery@alpha")
    assert "could not record the heartbeat of celery@alpha" in caplog.text


def test_every_worker_runs_the_heartbeat_step_until_it_stops(settings):
    assert tasks.Heartbeat in app.steps["worker"]
    settings.METRICS_WORKER_HEARTBEAT_S = 3600
    called = threading.Event()
    with mock.patch.object(tasks, "heartbeat_once", side_effect=lambda _: called.set()) as once:
        worker = mock.Mock(hostname="celery@alpha")
        step = tasks.Heartbeat(worker)
        step.start(worker)
        assert called.wait(timeout=10)
        step.stop(worker)
    assert not step.thread.is_alive()
    once.assert_called_once_with("celery@alpha")
