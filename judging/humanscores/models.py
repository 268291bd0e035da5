"""Judgment sets: human judgments made elsewhere (WMT DA, MQM, EvalTrans XML), kept as read.

A judgment set is keyed by system name and segment id *as the file gives them*. It is attached
to a test set (``test_set`` and each judgment's ``segment``) only when the import could check
that the file's ids are that test set's (see ``services.judgmentset_import``); otherwise it
stands alone and is scored without segment lengths. A campaign's judgments are read from the
judging app and are not copied here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from evaltrans.corpora.models import Segment, TestSet
from judging.formats.base import KIND_BAD_REF, KIND_REF, KIND_REPEAT, KIND_SYSTEM


class JudgmentSet(models.Model):
    """One import of external judgments, under a unique name."""

    class SourceFormat(models.TextChoices):
        WMT_DA_CSV = "wmt-da-csv", "WMT DA per-judge CSV"
        MQM_TSV = "mqm-tsv", "MQM error annotations (TSV)"
        EVALTRANS_XML = "evaltrans-xml", "EvalTrans XML <eval> elements"

    name = models.CharField(max_length=200, unique=True)
    source_format = models.CharField(max_length=32, choices=SourceFormat.choices)
    file_name = models.CharField(max_length=255, blank=True)
    test_set = models.ForeignKey(
        TestSet,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="judgment_sets",
        help_text="Set when the file's system names and segment ids were checked to be "
        "this test set's.",
    )
    attachment_note = models.CharField(
        max_length=300, blank=True, help_text="How the ids were matched, or why they were not."
    )
    metadata = models.JSONField(
        default=dict,
        blank=True,
        help_text="Per-aspect scales, judge time, counts and import options.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revision = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text="Raised whenever the set or one of its judgments is saved or deleted: with the "
        "id it keys the cached panels, which then need not read the judgments.",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:  # an edit (the admin's): scales or attachment may have changed
            self.revision += 1
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("humanscores:ranking", args=["set", self.pk])

    @property
    def attached(self) -> bool:
        return self.test_set_id is not None


def judgments_changed(judgment_set_ids: Iterable[int]) -> None:
    """Raise the revision of these sets: their judgments changed (see ``revision``)."""
    JudgmentSet.objects.filter(pk__in=list(judgment_set_ids)).update(revision=F("revision") + 1)


class ExternalJudgment(models.Model):
    """One judge's score of one candidate for one aspect (a :class:`JudgmentRecord` stored)."""

    class Kind(models.TextChoices):
        SYSTEM = KIND_SYSTEM, "System output"
        REPEAT = KIND_REPEAT, "Repeat (same judge again)"
        BAD_REF = KIND_BAD_REF, "Degraded reference (quality control)"
        REF = KIND_REF, "Reference (quality control)"

    judgment_set = models.ForeignKey(
        JudgmentSet, on_delete=models.CASCADE, related_name="judgments"
    )
    system = models.CharField(max_length=200)
    segment_key = models.CharField(max_length=64, help_text="The segment id in the file.")
    segment = models.ForeignKey(
        Segment,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The test-set segment, when the set is attached.",
    )
    judge = models.CharField(max_length=200)
    aspect = models.CharField(max_length=100)
    raw = models.FloatField(null=True, blank=True, help_text="Score on the judgment's own scale.")
    z_given = models.FloatField(
        null=True, blank=True, help_text="Normalized score shipped with the file (WMT's z)."
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SYSTEM)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["judgment_set", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["judgment_set", "system", "segment_key", "judge", "aspect", "kind"],
                name="external_judgment_key_unique",
            ),
            models.CheckConstraint(
                condition=models.Q(raw__isnull=False) | models.Q(z_given__isnull=False),
                name="external_judgment_has_score",
            ),
        ]
        indexes = [
            models.Index(fields=["judgment_set", "aspect"], name="extjudgment_set_aspect"),
            models.Index(fields=["judgment_set", "judge"], name="extjudgment_set_judge"),
        ]

    def __str__(self) -> str:
        return f"{self.judge}: {self.aspect} of {self.system} #{self.segment_key}"

    # An import stores its judgments in bulk with the new set; any later change goes through
    # these two (the admin), and must move the set's revision or a cached panel goes stale.
    def save(self, *args: Any, **kwargs: Any) -> None:
        super().save(*args, **kwargs)
        judgments_changed([self.judgment_set_id])

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        deleted = super().delete(*args, **kwargs)
        judgments_changed([self.judgment_set_id])
        return deleted
