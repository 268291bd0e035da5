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

    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="segments")
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


class Reference(models.Model):
    """A reference translation of a segment; ``label`` names the reference stream (A, B …)."""

    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="references")
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

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="candidates")
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
