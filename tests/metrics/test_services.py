"""Metric-run services: create, plan, chunked computation, aggregation, reuse, cancel, resume."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import numpy as np
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from evaltrans.broker import transport_for
from metrics import measure_choices
from metrics.core import get_metric
from metrics.models import MetricRun, RunMeasure, SegmentStatistics, SystemScore, pack_floats
from metrics.selectors.runs import (
    run_chunks_complete,
    run_progress,
    run_results,
    runs_progress,
    segment_arrays,
)
from metrics.services import computation, dispatch, recovery, runs
from tests.metrics.run_helpers import OUTPUTS, REFERENCES, choices, make_test_set

pytestmark = pytest.mark.django_db

Status = MetricRun.Status

# The 8 segments of the test set in chunks of 4 (chunk_layout): a chunk of 5 segments and the
# half-length last one of 3.
HEAD, TAIL = (0, 5), (5, 8)


def start(test_set, measures, chunk_size=3, capture=None, **kwargs):
    """Start a run eagerly, running the on-commit callbacks the test transaction holds back."""
    with capture(execute=True):
        run = runs.metric_run_start(
            test_set=test_set,
            systems=test_set.systems.all(),
            measures=measures,
            chunk_size=chunk_size,
            **kwargs,
        )
    run.refresh_from_db()
    return run


def direct_scores(name, options=None, outputs=OUTPUTS, references=REFERENCES):
    measure = get_metric(name)(**(options or {}))
    refs = [[text] for text in references]
    return {
        system: measure.corpus_score(list(texts), refs).score for system, texts in outputs.items()
    }


def test_chunked_run_equals_direct_core_computation(django_capture_on_commit_callbacks):
    """Scores of a run split into chunks of 3 segments equal metrics.core on the whole set."""
    test_set = make_test_set()
    run = start(test_set, choices("wer", "cder"), capture=django_capture_on_commit_callbacks)
    assert run.status == Status.DONE
    assert run.planned_tasks == 2 * 3  # 2 systems x ceil(8 / 3) chunks
    for name in ("wer", "cder"):
        expected = direct_scores(name)
        stored = {
            score.system.name: score.score
            for score in SystemScore.objects.filter(test_set=test_set, measure=name)
        }
        assert stored == pytest.approx(expected, abs=1e-12)


def test_segment_arrays_concatenate_chunks_in_order(django_capture_on_commit_callbacks):
    test_set = make_test_set()
    run = start(test_set, choices("wer"), capture=django_capture_on_commit_callbacks)
    signature = run.measures.get().signature
    arrays = segment_arrays(test_set=test_set, signature=signature)
    system = test_set.systems.get(name="sys-a")
    measure = get_metric("wer")()
    refs = [[text] for text in REFERENCES]
    expected = measure.statistics(OUTPUTS["sys-a"], refs, measure.context(refs))
    np.testing.assert_array_equal(arrays[system.pk].stats, expected)
    np.testing.assert_array_equal(
        arrays[system.pk].sentence_scores, measure.sentence_scores(expected)
    )
    assert arrays[system.pk].stat_names == list(measure.stat_names)


def test_stored_results_are_not_computed_again(django_capture_on_commit_callbacks):
    """A second run asking for the same signature plans no task and reuses the scores."""
    test_set = make_test_set()
    start(test_set, choices("wer"), capture=django_capture_on_commit_callbacks)
    rows = SegmentStatistics.objects.count()
    again = start(test_set, choices("wer", "per"), capture=django_capture_on_commit_callbacks)
    assert again.status == Status.DONE
    assert again.reused_units == 2 * len(REFERENCES)  # wer for both systems
    assert SegmentStatistics.objects.filter(measure="wer").count() == rows
    assert SystemScore.objects.filter(test_set=test_set, measure="wer").count() == 2
    only_reuse = start(test_set, choices("wer"), capture=django_capture_on_commit_callbacks)
    assert only_reuse.planned_tasks == 0 and only_reuse.status == Status.DONE


def test_new_test_set_version_keeps_old_results(django_capture_on_commit_callbacks):
    old = make_test_set("news")
    start(old, choices("wer"), capture=django_capture_on_commit_callbacks)
    new = make_test_set("news", references=[text + " ." for text in REFERENCES], version=2)
    start(new, choices("wer"), capture=django_capture_on_commit_callbacks)
    assert SystemScore.objects.filter(test_set=old).count() == 2
    assert SystemScore.objects.filter(test_set=new).count() == 2


def _running_run(test_set, *names: str) -> MetricRun:
    """A run of every system of ``test_set`` in chunks of 4, marked running as if planned."""
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices(*names), chunk_size=4
    )
    MetricRun.objects.filter(pk=run.pk).update(status=Status.RUNNING)
    run.refresh_from_db()
    return run


def test_task_delivered_twice_stores_statistics_once(django_capture_on_commit_callbacks):
    test_set = make_test_set()
    run = _running_run(test_set, "wer")
    system = test_set.systems.first()
    with django_capture_on_commit_callbacks(execute=False):
        first = computation.metric_chunk_compute(
            run_id=run.pk, system_id=system.pk, start=HEAD[0], stop=HEAD[1]
        )
        second = computation.metric_chunk_compute(
            run_id=run.pk, system_id=system.pk, start=HEAD[0], stop=HEAD[1]
        )
    assert (first, second) == (1, 0)
    assert SegmentStatistics.objects.filter(system=system).count() == 1
    # Even a racing duplicate that passed the existence check inserts nothing twice.
    row = SegmentStatistics.objects.get(system=system)
    row.pk = None
    SegmentStatistics.objects.bulk_create([row], ignore_conflicts=True)
    assert SegmentStatistics.objects.filter(system=system).count() == 1


def test_a_chunk_task_sorts_nothing_and_asks_few_queries(django_capture_on_commit_callbacks):
    """A run of 100,000 segments sends thousands of chunk tasks, each paying for its queries.
    None sorts (the models' default orders join the test set and the system to sort by their
    names); only the task that stores the last chunk counts the rows per chunk."""
    test_set = make_test_set()
    run = _running_run(test_set, "wer", "per")
    system = test_set.systems.first()
    with django_capture_on_commit_callbacks(execute=False):
        # The first task of a worker process reads the references; later ones find them.
        computation.metric_chunk_compute(
            run_id=run.pk, system_id=system.pk, start=HEAD[0], stop=HEAD[1]
        )
        with CaptureQueriesContext(connection) as queries:
            stored = computation.metric_chunk_compute(
                run_id=run.pk, system_id=system.pk, start=TAIL[0], stop=TAIL[1]
            )
    assert stored == 2
    orders = [
        query["sql"].split(" ORDER BY ")[1]
        for query in queries.captured_queries
        if " ORDER BY " in query["sql"]
    ]
    assert orders == ['"metrics_metricrun"."id" ASC LIMIT 1']  # first(): the run by its pk
    grouped = [query for query in queries.captured_queries if "GROUP BY" in query["sql"]]
    # The run, its measures, the chunk's rows and scores, the candidates, the insert, and the
    # completeness check's systems, measures, scores and rows: a count, not grouped.
    assert len(queries.captured_queries) - _transaction_statements(queries) == 10
    assert not grouped


def _transaction_statements(queries: CaptureQueriesContext) -> int:
    return sum(
        1
        for query in queries.captured_queries
        if query["sql"].split(" ")[0] in {"BEGIN", "COMMIT", "SAVEPOINT", "RELEASE"}
    )


def test_options_and_presets_resolve_into_signatures():
    chosen = measure_choices.measure_choices_resolve(
        names=["wer"], options={"wer": {"ref-length-rule": "average", "lowercase": "yes"}}
    )
    measure = measure_choices.measure_build(name=chosen[0].name, options=chosen[0].options)
    assert "reflen:average" in str(measure.signature(1))
    assert "lc:yes" in str(measure.signature(1))
    with pytest.raises(measure_choices.RunError, match="unknown option"):
        measure_choices.measure_build(name="wer", options={"colour": "blue"})
    with pytest.raises(measure_choices.RunError, match="unknown measure"):
        measure_choices.measure_build(name="nope", options={})
    with pytest.raises(measure_choices.RunError, match="unknown preset"):
        measure_choices.preset_measures(preset="nope")


def test_same_measure_twice_is_one_column():
    test_set = make_test_set()
    run = runs.metric_run_create(
        test_set=test_set,
        systems=test_set.systems.all(),
        measures=choices("wer", "wer"),
    )
    assert RunMeasure.objects.filter(run=run).count() == 1


def test_create_refuses_bad_requests():
    test_set = make_test_set()
    other = make_test_set("other")
    with pytest.raises(measure_choices.RunError, match=runs.NO_SYSTEMS):
        runs.metric_run_create(test_set=test_set, systems=[], measures=choices("wer"))
    with pytest.raises(measure_choices.RunError, match=measure_choices.NO_MEASURES):
        runs.metric_run_create(test_set=test_set, systems=test_set.systems.all(), measures=[])
    with pytest.raises(measure_choices.RunError, match="does not belong"):
        runs.metric_run_create(
            test_set=test_set, systems=other.systems.all(), measures=choices("wer")
        )
    assert MetricRun.objects.count() == 0


def test_cancel_stops_pending_chunks_and_illegal_moves_are_refused():
    test_set = make_test_set()
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices("wer"), chunk_size=4
    )
    MetricRun.objects.filter(pk=run.pk).update(status=Status.RUNNING)
    runs.metric_run_cancel(run=run)
    assert run.status == Status.CANCELLED
    system = test_set.systems.first()
    assert (
        computation.metric_chunk_compute(
            run_id=run.pk, system_id=system.pk, start=HEAD[0], stop=HEAD[1]
        )
        == 0
    )
    with pytest.raises(measure_choices.RunError, match="cannot become"):
        runs.metric_run_cancel(run=run)
    assert not runs.metric_run_fail(run_id=run.pk, reason="late")
    assert not computation.metric_run_finalize(run_id=run.pk)


def test_failing_measure_marks_run_failed_with_reason(django_capture_on_commit_callbacks):
    test_set = make_test_set()
    boom = RuntimeError("measure exploded on segment 3")
    with mock.patch("metrics.core.wer.WER.statistics", side_effect=boom):
        with pytest.raises(RuntimeError):
            start(test_set, choices("wer"), capture=django_capture_on_commit_callbacks)
    run = MetricRun.objects.get()
    assert run.status == Status.FAILED
    assert "measure exploded on segment 3" in run.error
    progress = run_progress(run=run)
    assert progress.status == "failed" and "exploded" in progress.error


@pytest.mark.django_db(transaction=True)
def test_broker_down_leaves_run_queued_with_clear_message():
    """Outside a transaction (as in a view) the refusal reaches the caller at once."""
    test_set = make_test_set()
    refused = KombuOperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    with mock.patch("metrics.tasks.metric_run_plan_task.apply_async", side_effect=refused):
        with pytest.raises(dispatch.BrokerUnavailable) as caught:
            dispatch.metric_run_dispatch(
                run=runs.metric_run_create(
                    test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
                )
            )
    assert "cannot be reached" in str(caught.value) and "Connection refused" in str(caught.value)
    run = MetricRun.objects.get()
    assert run.status == Status.QUEUED and run.dispatched_at is None
    assert run_progress(run=run).waiting_for_broker


def test_resume_sends_waiting_and_lost_work(django_capture_on_commit_callbacks):
    """Queued runs are planned; running runs get their missing chunks again, once."""
    test_set = make_test_set()
    queued = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
    )
    with django_capture_on_commit_callbacks(execute=True):
        touched = recovery.metric_runs_resume()
    assert touched == [queued.pk]
    queued.refresh_from_db()
    assert queued.status == Status.DONE

    # A running run that lost one chunk (as with a worker killed by SIGKILL).
    lost = runs.metric_run_create(
        test_set=test_set,
        systems=test_set.systems.all(),
        measures=choices("per"),
        chunk_size=4,
    )
    MetricRun.objects.filter(pk=lost.pk).update(status=Status.RUNNING)
    system = test_set.systems.first()
    with django_capture_on_commit_callbacks(execute=False):
        computation.metric_chunk_compute(
            run_id=lost.pk, system_id=system.pk, start=HEAD[0], stop=HEAD[1]
        )
    # An old-generation copy still queued stands down after resume.
    with django_capture_on_commit_callbacks(execute=True):
        recovery.metric_runs_resume()
    lost.refresh_from_db()
    assert lost.status == Status.DONE and lost.generation == 1
    other = test_set.systems.exclude(pk=system.pk).first()
    assert (
        computation.metric_chunk_compute(
            run_id=lost.pk, system_id=other.pk, start=TAIL[0], stop=TAIL[1], generation=0
        )
        == 0
    )
    assert SegmentStatistics.objects.filter(measure="per").count() == 4
    assert direct_scores("per") == pytest.approx(
        {row.system.name: row.cells[0].score for row in run_results(run=lost).rows}
    )


def test_progress_counts_segments_per_measure(django_capture_on_commit_callbacks):
    test_set = make_test_set()
    run = _running_run(test_set, "wer", "per")
    system = test_set.systems.first()
    with django_capture_on_commit_callbacks(execute=False):
        computation.metric_chunk_compute(
            run_id=run.pk, system_id=system.pk, start=HEAD[0], stop=HEAD[1]
        )
    progress = run_progress(run=run)
    assert (progress.done, progress.total) == (10, 32)
    assert [(item.done, item.total) for item in progress.measures] == [(5, 16), (5, 16)]
    assert progress.as_dict()["percent"] == 31.2  # 10 / 32, to one decimal


def test_presets_choose_measures_and_options():
    wmt = measure_choices.measure_choices_resolve(names=[], preset="wmt")
    assert {choice.name for choice in wmt} == {"bleu", "chrf", "ter"}
    bleu = next(choice for choice in wmt if choice.name == "bleu")
    assert bleu.options["tokenize"] == "13a" and bleu.options["smoothing"] == "exp"
    # Explicit options win over the preset's; named measures narrow it.
    thesis = measure_choices.measure_choices_resolve(
        names=["wer"], preset="thesis", options={"wer": {"lowercase": True}}
    )
    assert [choice.name for choice in thesis] == ["wer"]
    assert thesis[0].options["ref-length-rule"] == "lowestError"
    assert thesis[0].options["lowercase"] is True


@pytest.mark.parametrize(
    ("segments", "size", "expected"),
    [
        (3004, 1500, [(0, 2002), (2002, 3004)]),
        (3004, 1000, [(0, 1201), (1201, 2403), (2403, 3004)]),
        (529, 1500, [(0, 529)]),
        (1000, 1000, [(0, 1000)]),
        (10, 3, [(0, 4), (4, 8), (8, 10)]),
        (2, 1, [(0, 1), (1, 2)]),
        (0, 5, []),
    ],
)
def test_chunks_cover_every_segment_once_and_the_last_is_half_as_long(segments, size, expected):
    from metrics.selectors.runs import chunk_layout

    layout = chunk_layout(segments, size)
    assert layout == expected
    assert [i for start, stop in layout for i in range(start, stop)] == list(range(segments))


def test_every_layout_has_no_empty_chunk():
    from metrics.selectors.runs import chunk_layout

    for segments in range(1, 200):
        for size in range(1, 40):
            assert all(stop > start for start, stop in chunk_layout(segments, size))


def test_the_plan_sends_the_long_chunks_first():
    """A run ends on the short last chunks, so no worker waits long for another's last task."""
    test_set = make_test_set()
    run = runs.metric_run_create(
        test_set=test_set,
        systems=test_set.systems.all(),
        measures=choices("wer"),
        chunk_size=3,
    )
    with mock.patch.object(computation, "chunks_send") as send:
        assert computation.metric_run_plan(run_id=run.pk) == 6
    sent = send.call_args.kwargs["chunks"]
    systems = sorted(test_set.systems.values_list("pk", flat=True))
    # 8 segments by 3: two chunks of 3 and a last one of 2, for each of the 2 systems.
    assert [(start, stop) for _, start, stop in sent] == [(0, 3), (3, 6)] * 2 + [(6, 8)] * 2
    assert [system for system, _, _ in sent[:4]] == [systems[0]] * 2 + [systems[1]] * 2
    # A resume sends what is missing in the same order.
    assert computation.run_missing_work(run)[0] == sent


# --- per-measure times in the progress -----------------------------------------------------


def store_chunk(run, system, signature, measure, span, seconds, created):
    start, stop = span
    SegmentStatistics.objects.create(
        test_set=run.test_set,
        system=system,
        signature=signature,
        measure=measure,
        start=start,
        stop=stop,
        stat_names=["distance", "ref_length"],
        stats=pack_floats([[0.0, 1.0]] * (stop - start)),
        sentence_scores=pack_floats([0.0] * (stop - start)),
        seconds=seconds,
        created_at=created,
    )


def test_progress_gives_each_measure_its_computing_time():
    """Elapsed counts chunks stored since the run started; the remaining time extrapolates
    the seconds per segment of every stored chunk (reused ones too) to the missing ones."""
    test_set = make_test_set()
    run = runs.metric_run_create(
        test_set=test_set,
        systems=test_set.systems.all(),
        measures=choices("wer", "per", "cder"),
        chunk_size=4,
    )
    started = timezone.now() - timedelta(minutes=10)
    MetricRun.objects.filter(pk=run.pk).update(status=Status.RUNNING, started_at=started)
    run.refresh_from_db()
    wer, per, _ = run.measures.all()
    system = test_set.systems.get(name="sys-a")
    store_chunk(run, system, wer.signature, "wer", HEAD, 2.0, started - timedelta(hours=1))
    store_chunk(run, system, wer.signature, "wer", TAIL, 6.0, started + timedelta(seconds=10))
    store_chunk(run, system, per.signature, "per", HEAD, 1.0, started + timedelta(seconds=5))
    # A chunk of another layout is not part of this run's progress.
    store_chunk(run, system, per.signature, "per", (0, 3), 50.0, started)

    measures = run_progress(run=run).as_dict()["measures"]
    times = [(m["done"], m["total"], m["elapsed_s"], m["remaining_s"]) for m in measures]
    assert times == [
        (8, 16, 6.0, 8.0),  # (2 + 6) s / 8 segments x 8 missing
        (5, 16, 1.0, 2.2),  # 1 s / 5 segments x 11 missing
        (0, 16, 0.0, None),  # nothing stored yet: no estimate
    ]
    MetricRun.objects.filter(pk=run.pk).update(status=Status.FAILED)
    run.refresh_from_db()
    assert [m.remaining_s for m in run_progress(run=run).measures] == [None, None, None]
    MetricRun.objects.filter(pk=run.pk).update(status=Status.DONE)
    run.refresh_from_db()
    progress = run_progress(run=run)
    assert [(m.elapsed_s, m.remaining_s) for m in progress.measures] == [
        (6.0, 0.0),
        (1.0, 0.0),
        (0.0, 0.0),
    ]
    # Milliseconds survive the JSON, so the page can say "< 1 s" rather than nothing.
    SegmentStatistics.objects.filter(measure="per").update(seconds=0.004)
    per_times = [m["elapsed_s"] for m in run_progress(run=run).as_dict()["measures"]]
    assert per_times[1] == 0.004


def test_progress_sums_the_chunks_of_scored_pairs_in_the_database(django_assert_num_queries):
    """Once a (system, measure) has its score, the database sums its chunk rows, one set of
    columns per run: the same figures as row by row, each run with its own start and systems,
    chunks of another layout left out."""
    test_set = make_test_set()
    sys_a = test_set.systems.get(name="sys-a")
    sys_b = test_set.systems.get(name="sys-b")
    started = timezone.now() - timedelta(minutes=10)

    def running(systems, start):
        run = runs.metric_run_create(
            test_set=test_set, systems=systems, measures=choices("wer", "per"), chunk_size=4
        )
        MetricRun.objects.filter(pk=run.pk).update(status=Status.RUNNING, started_at=start)
        run.refresh_from_db()
        return run

    both = running([sys_a, sys_b], started)
    only_a = running([sys_a], started + timedelta(seconds=8))
    wer, per = both.measures.all()
    later = started + timedelta(seconds=5)
    store_chunk(both, sys_a, wer.signature, "wer", HEAD, 2.0, later)
    store_chunk(both, sys_a, wer.signature, "wer", TAIL, 6.0, started + timedelta(seconds=10))
    store_chunk(both, sys_a, wer.signature, "wer", (0, 3), 50.0, later)  # another layout
    store_chunk(both, sys_b, wer.signature, "wer", HEAD, 3.0, started - timedelta(hours=1))
    store_chunk(both, sys_a, per.signature, "per", HEAD, 1.0, later)
    SystemScore.objects.create(
        test_set=test_set, system=sys_a, signature=wer.signature, measure="wer", score=0.5
    )

    def times():
        progress = runs_progress(runs=[both, only_a])
        return {
            run.pk: [
                (m["done"], m["total"], m["elapsed_s"], m["remaining_s"])
                for m in progress[run.pk].as_dict()["measures"]
            ]
            for run in (both, only_a)
        }

    with django_assert_num_queries(6):
        summed = times()
    assert summed == {
        # wer: sys-a scored (8 + 6 s since the start), sys-b's first chunk done before it; 3
        # segments left at (2 + 6 + 3) s / 13 segments. per: 11 left at 1 s / 5 segments.
        both.pk: [(13, 16, 8.0, 2.5), (5, 16, 1.0, 2.2)],
        # Started 8 s later: only the chunk stored at +10 s is its own work.
        only_a.pk: [(8, 8, 6.0, 0.0), (5, 8, 0.0, 0.6)],
    }
    SystemScore.objects.all().delete()
    assert times() == summed  # row by row: the same


def test_a_run_is_complete_when_every_pair_has_its_score_or_all_its_chunks():
    test_set = make_test_set()
    sys_a = test_set.systems.get(name="sys-a")
    sys_b = test_set.systems.get(name="sys-b")
    run = runs.metric_run_create(
        test_set=test_set, systems=[sys_a, sys_b], measures=choices("wer", "per"), chunk_size=4
    )
    wer, per = run.measures.all()
    now = timezone.now()
    for system in (sys_a, sys_b):
        for span in [HEAD, TAIL]:
            store_chunk(run, system, wer.signature, "wer", span, 1.0, now)
    store_chunk(run, sys_a, per.signature, "per", HEAD, 1.0, now)
    store_chunk(run, sys_a, per.signature, "per", TAIL, 1.0, now)
    store_chunk(run, sys_b, per.signature, "per", HEAD, 1.0, now)
    store_chunk(run, sys_b, per.signature, "per", (5, 7), 1.0, now)  # another layout
    assert not run_chunks_complete(run=run)  # sys-b's per lacks TAIL
    assert computation.run_missing_work(run)[0] == [(sys_b.pk, *TAIL)]
    # A score stored by an earlier run counts as complete, without chunk rows of this layout.
    SegmentStatistics.objects.filter(system=sys_b, measure="per").delete()
    SystemScore.objects.create(
        test_set=test_set, system=sys_b, signature=per.signature, measure="per", score=0.5
    )
    assert run_chunks_complete(run=run)
    assert computation.run_missing_work(run)[0] == []
    SegmentStatistics.objects.filter(system=sys_a, measure="wer", start=0).delete()
    assert not run_chunks_complete(run=run)


# --- the broker is checked before the commit -----------------------------------------------


@pytest.fixture
def real_broker(tmp_path, monkeypatch):
    """The Celery app with a broker instead of eager mode; ``configure`` points it elsewhere."""
    import kombu.pools

    from evaltrans.celery import app

    # Celery reads these variables before its configuration (CI sets CELERY_BROKER_URL).
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    monkeypatch.delenv("CELERY_BROKER_WRITE_URL", raising=False)

    keys = (
        "task_always_eager",
        "broker_url",
        "broker_write_url",
        "broker_transport",
        "broker_transport_options",
    )
    saved = {key: app.conf[key] for key in keys}

    def configure(url: str = "filesystem://", folder=None) -> None:
        folder = folder or tmp_path / "broker"
        app.conf.update(
            task_always_eager=False,
            broker_url=url,
            broker_write_url=None,
            broker_transport=transport_for(url),  # as the settings choose it for the URL
            broker_transport_options={
                "data_folder_in": str(folder),
                "data_folder_out": str(folder),
                "control_folder": str(tmp_path / "control"),
                "processed_folder": str(tmp_path / "processed"),
            },
        )

    def forget_connections() -> None:
        # Producer pools are keyed by broker URL, and every filesystem broker is "filesystem://":
        # without this, messages would go to the folders of a pool made earlier.
        app._pool = None
        app.amqp._producer_pool = None
        kombu.pools.reset()

    forget_connections()
    yield configure
    app.conf.update(saved)
    forget_connections()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("filesystem://", "broker folder .* is not a writable folder"),
        ("redis://127.0.0.1:1/0", "cannot be reached"),  # nothing listens on port 1
    ],
)
def test_broker_down_is_reported_inside_an_outer_transaction(real_broker, tmp_path, url, message):
    test_set = make_test_set()
    real_broker(url, folder=tmp_path / "missing")
    with transaction.atomic():
        run = runs.metric_run_create(
            test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
        )
        with pytest.raises(dispatch.BrokerUnavailable, match=message) as caught:
            dispatch.metric_run_dispatch(run=run)
        assert caught.value.run == run
    run.refresh_from_db()
    assert run.status == Status.QUEUED and run.dispatched_at is None
    assert run_progress(run=run).waiting_for_broker


def test_broker_up_sends_the_plan_task_when_the_transaction_commits(
    real_broker, tmp_path, django_capture_on_commit_callbacks
):
    test_set = make_test_set()
    folder = tmp_path / "queue"
    for path in (folder, tmp_path / "control", tmp_path / "processed"):
        path.mkdir()
    real_broker(folder=folder)
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            run = runs.metric_run_start(
                test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
            )
            assert not list(folder.iterdir())  # nothing is sent before the commit
    assert len(list(folder.iterdir())) == 1
    run.refresh_from_db()
    assert run.dispatched_at is not None and not run_progress(run=run).waiting_for_broker

    # A send that fails at commit time after the check passed: the run page says so.
    refused = KombuOperationalError("connection reset")
    with mock.patch("metrics.tasks.metric_run_plan_task.apply_async", side_effect=refused):
        with django_capture_on_commit_callbacks(execute=True):
            with transaction.atomic():
                late = runs.metric_run_start(
                    test_set=test_set, systems=test_set.systems.all(), measures=choices("per")
                )
    late.refresh_from_db()
    assert late.status == Status.QUEUED and late.dispatched_at is None
    assert run_progress(run=late).waiting_for_broker
