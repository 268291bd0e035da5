"""Test sets and their texts: segments, references, systems and candidate translations."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone


class TestSet(models.Model):
    """One version of a test set. Changed content under the same name makes a new version."""

    name = models.CharField(max_length=200)
    version = models.PositiveIntegerField(default=1)
    content_hash = models.CharField(
        max_length=64, unique=True, help_text="SHA-256 of every text, id and language."
    )
    source_lang = models.CharField(max_length=16)
    target_lang = models.CharField(max_length=16)
    import_format = models.CharField(max_length=32)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    words_indexed = models.BooleanField(
        default=False,
        help_text="Every segment has its SegmentWords row: the search may ask the text index.",
    )

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="testset_name_version_unique")
        ]

    # Not a test class, whatever pytest's collector makes of the name.
    __test__ = False

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    def get_absolute_url(self) -> str:
        return reverse("corpora:test_set_detail", args=[self.pk])

    @property
    def language_pair(self) -> str:
        return f"{self.source_lang}-{self.target_lang}"


class Segment(models.Model):
    """A source sentence at a position of its test set, inside a document."""

    # Looked up by the unique (test_set, index) index, whose first column it is; a second
    # index on test_set alone would only slow the import of large sets.
    test_set = models.ForeignKey(
        TestSet, on_delete=models.CASCADE, related_name="segments", db_index=False
    )
    index = models.PositiveIntegerField(help_text="0-based position in the test set.")
    doc_id = models.CharField(max_length=200, blank=True)
    seg_id = models.CharField(max_length=64, blank=True, help_text="Id in the imported file.")
    source = models.TextField()

    class Meta:
        ordering = ["test_set", "index"]
        constraints = [
            models.UniqueConstraint(fields=["test_set", "index"], name="segment_position_unique")
        ]

    def __str__(self) -> str:
        return f"{self.test_set} #{self.index + 1}"

    @property
    def number(self) -> int:
        return self.index + 1


class SegmentWords(models.Model):
    """The distinct words of a segment's source, references and candidates, one space apart:
    the document of the search's text index (PostgreSQL: a trigram GIN index on
    ``UPPER(words)``; SQLite: an FTS5 trigram table over this one; migration ``0005``).

    Built by a worker after the import (``testset_words_index``), never in the import's
    transaction, and only read as a prefilter: the search still checks every text it shows.
    """

    segment = models.OneToOneField(
        Segment, on_delete=models.CASCADE, primary_key=True, related_name="words"
    )
    words = models.TextField()

    def __str__(self) -> str:
        return f"words of {self.segment_id}"


class Reference(models.Model):
    """A reference translation of a segment; ``label`` names the reference stream (A, B …)."""

    # Served by the unique (segment, label) index.
    segment = models.ForeignKey(
        Segment, on_delete=models.CASCADE, related_name="references", db_index=False
    )
    label = models.CharField(max_length=100)
    text = models.TextField()

    class Meta:
        ordering = ["segment", "label"]
        constraints = [
            models.UniqueConstraint(fields=["segment", "label"], name="reference_label_unique")
        ]

    def __str__(self) -> str:
        return f"{self.segment} ref {self.label}"


class System(models.Model):
    """An MT system (or a human translation judged as one) whose outputs a test set holds."""

    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["test_set", "name"]
        constraints = [
            models.UniqueConstraint(fields=["test_set", "name"], name="system_name_unique")
        ]

    def __str__(self) -> str:
        return self.name


class Candidate(models.Model):
    """The output of one system for one segment."""

    # Served by the unique (system, segment) index; segment keeps its own index (the browser
    # reads the candidates of a page of segments).
    system = models.ForeignKey(
        System, on_delete=models.CASCADE, related_name="candidates", db_index=False
    )
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="candidates")
    text = models.TextField()

    class Meta:
        ordering = ["segment", "system"]
        constraints = [
            models.UniqueConstraint(fields=["system", "segment"], name="candidate_unique")
        ]

    def __str__(self) -> str:
        return f"{self.system} on {self.segment}"


class RawEvaluation(models.Model):
    """A human score imported with a corpus (EvalTrans XML ``<eval>``), kept exactly as read.

    The human-scores import turns these into judgments; here they are only preserved.
    """

    class TargetKind(models.TextChoices):
        REFERENCE = "reference", "Reference"
        CANDIDATE = "candidate", "Candidate"

    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="evaluations")
    position = models.PositiveIntegerField(help_text="Order within the segment, for export.")
    target_kind = models.CharField(max_length=16, choices=TargetKind.choices)
    target_name = models.CharField(max_length=200)
    aspect = models.CharField(max_length=100)
    value = models.FloatField()
    attributes = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["segment", "position"]

    def __str__(self) -> str:
        return f"{self.aspect}={self.value:g} for {self.target_name}"


class CorpusImport(models.Model):
    """One import of uploaded files as a test set, and its progress (``import_jobs``).

    The uploaded files wait in the default storage under ``corpus-imports/<pk>/`` until the
    import ends (done or failed), then they are deleted. ``files`` lists them:
    ``{"role": "source" | "reference" | "system" | "docs" | "file", "label": str | None,
    "name": the uploaded file name, "path": the storage name, "size": bytes}``.
    ``options`` holds the form's other fields (languages, encoding, reference systems).
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    name = models.CharField(max_length=200, help_text="The test set name asked for.")
    import_format = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    files = models.JSONField(default=list, blank=True)
    total_bytes = models.PositiveBigIntegerField(default=0)
    background = models.BooleanField(default=False, help_text="Run by a Celery worker.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    phase = models.CharField(max_length=32, blank=True, help_text="What the import is doing.")
    done = models.PositiveIntegerField(default=0, help_text="Segments stored.")
    total = models.PositiveIntegerField(default=0, help_text="Segments to store.")
    message = models.TextField(blank=True, help_text="The summary, or why the import failed.")
    test_set = models.ForeignKey(
        TestSet, null=True, blank=True, on_delete=models.SET_NULL, related_name="imports"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["status"], name="corpusimport_status_idx")]

    def __str__(self) -> str:
        return f"Import {self.pk} of {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("corpora:import_detail", args=[self.pk])

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def storage_folder(self) -> str:
        """Where the uploaded files wait in the default storage."""
        return f"corpus-imports/{self.pk}"

    @property
    def progress_file(self) -> str:
        """Storage name of the counts written while the texts are stored."""
        return f"{self.storage_folder}/progress.json"
