"""Metric runs through real Celery workers while PostgreSQL restarts, Redis restarts, or the
worker is killed with SIGKILL in the middle of a chunk.

Each run is compared with the same run computed eagerly, without faults, on an identical copy
of its test set: every system score (value, details, segment count) and every chunk's
statistics and sentence scores must be *equal*, not close, and each chunk is stored once.

What the user sees: the run's progress bar stops during the outage and goes on after it; the
run ends ``done``, never ``failed``. A run whose worker died shows "No worker has reported…"
(``stalled`` in its progress JSON) until a worker is started again.
"""

from __future__ import annotations

import random
import re
import signal
import time

from django.test import Client
from django.urls import reverse

from metrics.models import MetricRun, SegmentStatistics, SystemScore
from metrics.services.runs import metric_run_create, metric_run_start
from tests.conftest import make_user
from tests.faults.support import FAULT_MARKS, wait_for
from tests.metrics.run_helpers import choices, make_test_set

pytestmark = FAULT_MARKS

MEASURES = ("wer", "cder", "ter", "bleu", "chrf")
SEGMENTS = 400
SYSTEMS = 2
CHUNK = 20
CHUNKS = SEGMENTS // CHUNK
ROWS = SYSTEMS * len(MEASURES) * CHUNKS  # SegmentStatistics rows of a complete run
OUTAGE_S = 3.0
KOMBU_RESTORE_ERROR = (
    "Unrecoverable error: AttributeError(\"'NoneType' object has no attribute 'hostname'\")"
)
RUN_TIMEOUT_S = 120
WORDS = (
    "the a cat dog house garden sat ran on in under over big small red blue green tree car "
    "road river city old new walked saw quickly slowly"
).split()


def corpus(seed: int = 5) -> tuple[list[str], dict[str, list[str]]]:
    rng = random.Random(seed)
    references = [" ".join(rng.choices(WORDS, k=rng.randint(8, 30))) for _ in range(SEGMENTS)]
    outputs = {}
    for number in range(SYSTEMS):
        lines = []
        for reference in references:
            tokens = reference.split()
            for _ in range(rng.randint(0, 5)):
                tokens[rng.randrange(len(tokens))] = rng.choice(WORDS)
            if rng.random() < 0.3:
                rng.shuffle(tokens)
            lines.append(" ".join(tokens))
        outputs[f"sys{number}"] = lines
    return references, outputs


def queued_run(name: str) -> MetricRun:
    """A run stored as queued and never sent: the first worker to connect plans it."""
    references, outputs = corpus()
    test_set = make_test_set(name, references, outputs)
    return metric_run_create(
        test_set=test_set,
        systems=test_set.systems.all(),
        measures=choices(*MEASURES),
        chunk_size=CHUNK,
    )


def results(run: MetricRun) -> tuple[dict, dict]:
    """Everything the run stored, keyed without ids (so two test sets compare)."""
    scores = {
        (row.system.name, row.signature): (
            row.score,
            row.details,
            row.segment_count,
            row.higher_is_better,
        )
        for row in SystemScore.objects.filter(test_set=run.test_set).select_related("system")
    }
    chunks = {
        (row.system.name, row.signature, row.start, row.stop): (
            row.stat_names,
            bytes(row.stats),
            bytes(row.sentence_scores),
        )
        for row in SegmentStatistics.objects.filter(test_set=run.test_set).select_related("system")
    }
    return scores, chunks


_UNDISTURBED: list[tuple[dict, dict]] = []


def undisturbed_results() -> tuple[dict, dict]:
    """The same run computed eagerly in this process, without faults (once per module: the
    results are keyed by names, not ids, so they outlive the test's database)."""
    if not _UNDISTURBED:
        _UNDISTURBED.append(_compute_undisturbed())
    return _UNDISTURBED[0]


def _compute_undisturbed() -> tuple[dict, dict]:
    references, outputs = corpus()
    test_set = make_test_set("undisturbed", references, outputs)
    run = metric_run_start(
        test_set=test_set,
        systems=test_set.systems.all(),
        measures=choices(*MEASURES),
        chunk_size=CHUNK,
    )
    assert run.status == MetricRun.Status.DONE, run.error
    expected = results(run)
    assert len(expected[0]) == SYSTEMS * len(MEASURES) and len(expected[1]) == ROWS
    return expected


def stored(run: MetricRun) -> int:
    return SegmentStatistics.objects.filter(test_set=run.test_set).count()


def status(run: MetricRun) -> str:
    run.refresh_from_db()
    return run.status


def wait_done(run: MetricRun, log) -> None:
    def finished() -> bool:
        current = status(run)
        assert current in (MetricRun.Status.RUNNING, MetricRun.Status.DONE), (
            f"run {current}: {run.error}\n{log()[-6000:]}"
        )
        return current == MetricRun.Status.DONE

    try:
        wait_for(finished, RUN_TIMEOUT_S, "the run to finish", step=0.2)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{log()[-6000:]}") from None


def mid_run(run: MetricRun) -> int:
    """Wait until about a fifth of the run is stored; returns the rows stored then."""
    return wait_for(
        lambda: (count := stored(run)) >= ROWS // 5 and count,
        RUN_TIMEOUT_S,
        "the first fifth of the run",
        step=0.02,
    )


def outage(proxy, run: MetricRun, figures, what: str, during=None, supervise=None) -> float:
    """Cut ``proxy`` in the middle of the run for OUTAGE_S (calling ``during`` meanwhile),
    then restore it (calling ``supervise`` while waiting for work to resume); returns when
    (``time.monotonic()``) it was restored."""
    mid_run(run)
    proxy.cut()
    at_cut = stored(run)
    assert at_cut < ROWS, "the run finished before the outage: make it longer"
    assert status(run) == MetricRun.Status.RUNNING
    if during is not None:
        during()
    time.sleep(OUTAGE_S)
    assert status(run) == MetricRun.Status.RUNNING  # not failed while the outage lasts
    at_restore = stored(run)  # chunks computing at the cut may finish during the outage
    proxy.restore()
    restored = time.monotonic()

    def resumed() -> bool:
        if supervise is not None:
            supervise()
        return stored(run) > at_restore

    wait_for(resumed, RUN_TIMEOUT_S, f"work to resume after the {what}")
    figures(f"{what}: rows stored at the cut, at the restore", f"{at_cut}, {at_restore} of {ROWS}")
    figures(f"{what}: first chunk stored after restore (s)", round(time.monotonic() - restored, 1))
    return restored


def assert_identical(run: MetricRun, expected: tuple[dict, dict], figures) -> None:
    scores, chunks = results(run)
    assert scores == expected[0]  # exactly: same floats, same details
    assert chunks == expected[1]
    assert stored(run) == ROWS  # every chunk of every measure, none twice
    figures("results", f"identical ({len(scores)} system scores, {len(chunks)} chunk rows)")


def test_database_restart_during_a_run(site, figures):
    expected = undisturbed_results()
    run = queued_run("db-restart")
    worker = site.processes.worker("db")
    restored = outage(site.db_proxy, run, figures, "database restart")
    wait_done(run, lambda: site.processes.log(worker))
    figures("restore to run done (s)", round(time.monotonic() - restored, 1))
    assert_identical(run, expected, figures)
    # The outage reached the worker's tasks, which retried (not a lucky quiet moment).
    assert "OperationalError" in site.processes.log(worker)


def test_database_refuses_one_connection_during_a_run(site, figures):
    """A connection refused once (PostgreSQL "starting up") in the middle of a run: the task
    that met it retries, and the run is not failed for it. With DATABASE_CONN_MAX_AGE=0 every
    task connects anew, and a heartbeat of a minute leaves the connections to the tasks."""
    expected = undisturbed_results()
    run = queued_run("refused")
    worker = site.processes.worker("refused", DATABASE_CONN_MAX_AGE="0", FAULTS_HEARTBEAT_S="60")
    mid_run(run)
    refused = site.db_proxy.refuse_next(1)
    wait_for(refused.is_set, RUN_TIMEOUT_S, "a task to connect to the database")
    wait_done(run, lambda: site.processes.log(worker))
    assert_identical(run, expected, figures)
    assert "retry: Retry in" in site.processes.log(worker)


def test_broker_restart_during_a_run(site, figures):
    """Redis restarts and comes back empty (a crash, or no persistence): every queued chunk
    message is lost; the worker reconnects, and its resume task sends the missing chunks."""
    expected = undisturbed_results()
    run = queued_run("broker-restart")
    workers = [site.processes.worker("broker")]

    def log() -> str:
        return "".join(site.processes.log(worker) for worker in workers)

    def supervise() -> None:
        """What the process manager does (systemd ``Restart=always``): kombu 5.7.0 sometimes
        stops the worker when the broker drops while a message is unacknowledged, restoring
        it ("Unrecoverable error: AttributeError(... 'hostname')"). A new worker's resume task
        then sends the missing chunks, as the reconnected worker's would."""
        if workers[-1].poll() is None:
            return
        assert KOMBU_RESTORE_ERROR in site.processes.log(workers[-1]), log()[-6000:]
        workers.append(site.processes.worker(f"broker{len(workers)}"))
        figures("the worker stopped on kombu's restore error and was started again", "yes")

    lost: list[int] = []
    restored = outage(
        site.broker_proxy,
        run,
        figures,
        "broker restart",
        lambda: lost.append(site.redis_flush()),
        supervise,
    )
    wait_done(run, log)
    figures("restore to run done (s)", round(time.monotonic() - restored, 1))
    assert_identical(run, expected, figures)
    text = log()
    assert "Connection to broker lost" in text
    resumed = re.findall(r"Task metrics\.runs_resume\[[0-9a-f-]+\] succeeded", text)
    assert len(resumed) == 2  # at the start, and after the reconnection (or the new start)
    figures("queued messages lost with the restart", lost[0])
    assert lost[0] > 0  # work really was lost, and sent again by the resume task


TASK_LINE = re.compile(r"Task metrics\.chunk_compute\[([0-9a-f-]+)\] (received|succeeded|retry)")


def chunks_in_progress(log: str) -> set[str]:
    """Chunk tasks the worker received and has not finished, from its INFO log."""
    received, finished = set(), set()
    for task_id, event in TASK_LINE.findall(log):
        (received if event == "received" else finished).add(task_id)
    return received - finished


def test_worker_killed_mid_chunk(site, figures, settings):
    settings.METRICS_STALLED_AFTER_S = 3  # the threshold of the progress JSON read below
    viewer = Client()
    viewer.force_login(make_user("faultadmin", staff=True))
    expected = undisturbed_results()
    run = queued_run("killed")
    url = reverse("metrics:run_progress", args=[run.pk])

    def progress() -> dict:
        response = viewer.get(url)
        assert response.status_code == 200
        return response.json()

    first = site.processes.worker("first")
    mid_run(run)
    busy = wait_for(
        lambda: chunks_in_progress(site.processes.log(first)),
        RUN_TIMEOUT_S,
        "a chunk in progress",
        step=0.01,
    )
    assert progress()["stalled"] is False  # the live worker beats every 0.5 s
    site.processes.kill(first, signal.SIGKILL)
    killed = time.monotonic()
    at_kill = stored(run)
    assert at_kill < ROWS and status(run) == MetricRun.Status.RUNNING
    figures("chunks in progress at the kill", len(busy))

    stalled = wait_for(lambda: (p := progress())["stalled"] and p, 30, "the run to be stalled")
    figures("stalled shown after the kill (s)", round(time.monotonic() - killed, 1))
    assert stalled["status"] == "running" and stalled["stalled_for"]
    assert stored(run) == at_kill

    second = site.processes.worker("second")
    restarted = time.monotonic()
    wait_done(run, lambda: site.processes.log(second))
    figures("new worker start to run done (s)", round(time.monotonic() - restarted, 1))
    assert progress()["stalled"] is False
    assert_identical(run, expected, figures)
