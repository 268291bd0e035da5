"""Runs of automatic measures over stored test sets, and the results they leave behind.

Results are keyed by **(test-set version, system, measure signature)**, not by run: a run is a
request ("these systems, these measures") and a progress record; the numbers it produces belong
to the test set and are shared by every later run that asks for the same signature. A new
test-set version is a new ``TestSet`` row, so it invalidates nothing of the old one.

* ``MetricRun`` → ``RunMeasure`` (one per measure and options, with its signature) and the
  chosen systems.
* ``SegmentStatistics``: one row per (test set, system, signature, chunk of segments) holding
  the chunk's per-segment sufficient statistics and sentence scores as packed float64 arrays
  (``pack_floats``; NaN stays NaN, and no JSON is encoded or parsed per number). Chunk rows
  are the unit of idempotent writes: a task delivered twice finds its row and stores nothing.
  ``metrics.selectors.runs.segment_arrays`` turns them into numpy arrays per (system, signature) for
  the results pages and the correlation dashboards.
* ``SystemScore``: the aggregated corpus score of one (test set, system, signature).
* ``WorkerHeartbeat``: when each Celery worker last said it is alive, so that a run page can
  tell a run without a worker from a slow one.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from evaltrans.corpora.models import System, TestSet


class MetricRun(models.Model):
    """A request to compute measures for systems of a test set, and its progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="metric_runs")
    systems = models.ManyToManyField(System, related_name="metric_runs")
    preset = models.CharField(max_length=32, blank=True, help_text="Preset the options came from.")
    comment = models.TextField(blank=True)
    command_line = models.TextField(
        blank=True, help_text="The evaluate command line that reproduces the run."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True, help_text="Why the run failed, for the user.")
    chunk_size = models.PositiveIntegerField(default=1000)
    segment_count = models.PositiveIntegerField(default=0)
    n_refs = models.PositiveIntegerField(default=0)
    planned_tasks = models.PositiveIntegerField(default=0)
    reused_units = models.PositiveIntegerField(
        default=0, help_text="Segment × measure units already stored when the run was planned."
    )
    generation = models.PositiveIntegerField(
        default=0, help_text="Bumped when lost work is sent again; older task copies stand down."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["status"], name="metricrun_status_idx")]

    def __str__(self) -> str:
        return f"Run {self.pk} on {self.test_set}"

    def get_absolute_url(self) -> str:
        return reverse("metrics:run_detail", args=[self.pk])

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class RunMeasure(models.Model):
    """One measure of a run with all its option values (defaults filled in) and signature."""

    run = models.ForeignKey(MetricRun, on_delete=models.CASCADE, related_name="measures")
    position = models.PositiveIntegerField()
    measure = models.CharField(max_length=64)
    options = models.JSONField(default=dict)
    signature = models.CharField(max_length=1000)

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "signature"], name="runmeasure_unique"),
        ]

    def __str__(self) -> str:
        return self.signature


FLOAT_LAYOUT = np.dtype("<f8")  # the byte layout of stored arrays, whatever the machine


def pack_floats(values: npt.ArrayLike) -> bytes:
    """The bytes of a float array as stored in ``SegmentStatistics`` (row-major, float64 LE)."""
    return np.ascontiguousarray(values, dtype=FLOAT_LAYOUT).tobytes()


def unpack_floats(data: bytes | memoryview, columns: int | None = None) -> npt.NDArray[np.float64]:
    """The array of :func:`pack_floats`; ``columns`` gives rows of that width."""
    values = np.frombuffer(data, dtype=FLOAT_LAYOUT).astype(np.float64)
    return values if columns is None else values.reshape(-1, columns)


class SegmentStatistics(models.Model):
    """Sufficient statistics and sentence scores of segments [start, stop) of one system.

    ``stats`` holds (stop - start) rows of ``len(stat_names)`` numbers, ``sentence_scores``
    one number per segment (NaN where undefined), both packed by :func:`pack_floats`.
    """

    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="+")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="+")
    signature = models.CharField(max_length=1000)
    measure = models.CharField(max_length=64)
    start = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    stat_names = models.JSONField(default=list)
    stats = models.BinaryField(default=bytes)
    sentence_scores = models.BinaryField(default=bytes)
    seconds = models.FloatField(default=0.0, help_text="Computing time of this chunk.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["test_set", "system", "signature", "start"]
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "system", "signature", "start", "stop"],
                name="segmentstatistics_chunk_unique",
            ),
            models.CheckConstraint(
                condition=models.Q(stop__gt=models.F("start")), name="segmentstatistics_span"
            ),
        ]
        indexes = [
            # Covers the progress of a run (``runs_stored_work``): its sums per chunk come from
            # the index in chunk order, without reading the packed arrays of every row (24,000
            # chunk rows: 0.10 s → 0.05 s, with the sums). Its prefix serves the other
            # reads of a (test set, signature).
            models.Index(
                fields=[
                    "test_set",
                    "signature",
                    "start",
                    "stop",
                    "system",
                    "seconds",
                    "created_at",
                ],
                name="segstats_progress_idx",
            ),
        ]
        verbose_name_plural = "segment statistics"

    def __str__(self) -> str:
        return f"{self.system} {self.signature} [{self.start}:{self.stop})"

    @property
    def size(self) -> int:
        return self.stop - self.start


class SystemScore(models.Model):
    """The corpus score of one system under one measure signature."""

    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="system_scores")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="scores")
    signature = models.CharField(max_length=1000)
    measure = models.CharField(max_length=64)
    score = models.FloatField(null=True, help_text="Null when the score is undefined (NaN).")
    higher_is_better = models.BooleanField(default=False)
    details = models.JSONField(default=dict, blank=True)
    segment_count = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0, help_text="Computing time summed over chunks.")
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["test_set", "system", "measure"]
        constraints = [
            models.UniqueConstraint(
                fields=["test_set", "system", "signature"], name="systemscore_unique"
            ),
        ]
        indexes = [
            models.Index(fields=["test_set", "signature"], name="sysscore_testset_sig_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.system}: {self.measure} = {self.score}"


class WorkerHeartbeat(models.Model):
    """The last sign of life of one Celery worker (by its node name, ``celery@host``).

    Workers write it every ``METRICS_WORKER_HEARTBEAT_S`` (``metrics.tasks.Heartbeat``); the
    row of a worker that stopped stays, with the time it last wrote. In the database rather
    than the cache: the web processes and the workers share no other store.
    """

    hostname = models.CharField(max_length=255, unique=True)
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} (last seen {self.last_seen:%Y-%m-%d %H:%M:%S})"
