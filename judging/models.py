"""Human judging: campaigns, the items they judge, assignments of items to judges, judgments.

A campaign judges with one *protocol*: categorical levels, WMT direct assessment on 0-100
sliders, relative ranking (2-5 candidates of one source side by side, each ranked 1-5), or
error spans (MQM: spans with category and severity, scored by the MQM weights; ESA: spans
with severity, then a 0-100 overall score) or post-editing (the judge edits the candidate into
a correct translation: a targeted reference for HTER; active time gives the post-editing
effort), on the same items, assignments, QC, timing and exports. A campaign's protocol is fixed at creation, and every
judgment stores the protocol that produced it (``Judgment.protocol``): exports write it on
every row, and a judgment is reused in another campaign only when it was made under that
campaign's protocol (a rank means nothing outside the screen it was given on).

Campaign → Aspect (the scale, as data)
Campaign → Item (one distinct (segment, text) pair; stands for every system with that output)
Campaign → Assignment (one judge) → AssignedItem (an item at a screen of the judge's order)
AssignedItem → Judgment (one per aspect; revisions kept in JudgmentRevision); the item's
  optional comment (campaigns with a comment box) is ``AssignedItem.comment``
Judgment → ErrorSpan (MQM/ESA: the marked errors of the judged text)
Judgment → PostEdit (post-editing: the judge's edited text, or translation from scratch)
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet

from .qc import QC_MIN_JUDGMENTS, SAME_LEVEL_SHARE
from .scales import (
    KIND_LEVELS,
    KIND_POSTEDIT,
    KIND_SLIDER,
    KIND_SPANS,
    MAX_LABEL_LENGTH,
    MAX_NAME_LENGTH,
    MAX_QUESTION_LENGTH,
    scale_range,
)

COMMENT_MAX_LENGTH = 1000
"""A judge's comment on an item: at most this many characters."""


def text_key(source: str, text: str) -> str:
    """Key of a (source, candidate text) pair: EvalTrans keys its sentence database by text.
    Surrounding whitespace is ignored (as EvalTrans trims); JSON keeps the two parts apart."""
    pair = json.dumps([source.strip(), text.strip()], ensure_ascii=False)
    return hashlib.sha256(pair.encode()).hexdigest()


class Campaign(models.Model):
    """A human evaluation of some systems of one test set by a group of judges."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        CLOSED = "closed", "Closed"

    class Presentation(models.TextChoices):
        SINGLE = "single", "One candidate per screen"
        GROUPED = "grouped", "All systems for one source on one screen"

    class AspectOrder(models.TextChoices):
        SEQUENTIAL = "sequential", "Fluency first, then adequacy with the reference"
        TOGETHER = "together", "All aspects at once"

    class Protocol(models.TextChoices):
        """How judges score (post-editing: the judge edits the candidate; the judgment's
        score is 0, its text is a ``PostEdit``)."""

        CATEGORICAL = "categorical", "Categorical levels (LDC fluency and adequacy)"
        DIRECT_ASSESSMENT = "direct-assessment", "Direct assessment (0–100 slider, WMT)"
        RANKING = "ranking", "Relative ranking (2–5 candidates ranked 1–5, WMT)"
        MQM = "mqm", "MQM error spans (category and severity, WMT 2021–)"
        ESA = "esa", "ESA (error spans, then a 0–100 score; Kocmi et al. 2024)"
        POST_EDIT = "post-edit", "Post-editing (edit the candidate; HTER, time per word)"

    class Practice(models.TextChoices):
        """The practice phase (``judging.practice``): screens with known answers first."""

        OFF = "off", "Off"
        OFFERED = "offered", "Offered (judges may skip it)"
        REQUIRED = "required", "Required before the real items"

    name = models.CharField(max_length=200, unique=True)
    protocol = models.CharField(
        max_length=32,
        choices=Protocol.choices,
        default=Protocol.CATEGORICAL,
        editable=False,
        help_text="Fixed at creation: every judgment of the campaign is of this protocol.",
    )
    test_set = models.ForeignKey(TestSet, on_delete=models.PROTECT, related_name="campaigns")
    systems = models.ManyToManyField(System, related_name="campaigns")
    reference_label = models.CharField(
        max_length=100, blank=True, help_text="Reference shown to judges for adequacy."
    )
    reference_as_system = models.CharField(
        max_length=100,
        blank=True,
        help_text="Label of a reference judged like a system (quality control); blank: none.",
    )
    judges = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="judging_campaigns")
    judges_per_item = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    presentation = models.CharField(
        max_length=16, choices=Presentation.choices, default=Presentation.SINGLE
    )
    candidates_per_screen = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(2), MaxValueValidator(5)],
        help_text="Relative ranking: at most this many candidates of one source per screen "
        "(WMT 2012-2016: 5).",
    )
    aspect_order = models.CharField(
        max_length=16, choices=AspectOrder.choices, default=AspectOrder.SEQUENTIAL
    )
    error_categories = models.JSONField(
        default=list,
        blank=True,
        help_text="MQM: the error categories judges choose from (default: the WMT MQM "
        "typology); empty for other protocols.",
    )
    segment_sample = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Judge only this many segments, drawn at random with the seed; blank: all.",
    )
    show_source = models.BooleanField(default=True)
    show_context = models.BooleanField(
        default=False,
        help_text="Show sentences of the same document around the judged one (subdued).",
    )
    context_before = models.PositiveSmallIntegerField(
        default=2,
        validators=[MinValueValidator(0), MaxValueValidator(5)],
        help_text="Document context: segments shown before the judged one (0-5).",
    )
    context_after = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(0), MaxValueValidator(5)],
        help_text="Document context: segments shown after the judged one (0-5).",
    )
    comment_box = models.BooleanField(
        default=False,
        help_text="Offer judges an optional comment box under each item (at most "
        "1,000 characters; exported in the column 'comment').",
    )
    anonymous_judges = models.BooleanField(
        default=False,
        help_text="Show judges to viewers as 'judge 1, judge 2, …' on the result pages "
        "(admins still see names).",
    )
    seed = models.BigIntegerField(help_text="Seed of the random assignment and order.")
    repeat_share = models.FloatField(
        default=0.05,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text="Share of each judge's screens shown a second time (intra-judge consistency).",
    )
    bad_reference_share = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text="Share of each judge's candidate screens followed, later, by a degraded copy "
        "('bad reference', WMT DA quality control).",
    )
    scratch_share = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text="Post-editing: share of items translated from scratch (the candidate not "
        "shown), for the relative efficiency of post-editing; 0: none.",
    )
    reuse_judgments = models.BooleanField(
        default=False, help_text="Reuse judgments of the same (source, text) from other campaigns."
    )
    min_seconds_per_item = models.FloatField(
        default=3.0, help_text="QC: a judge whose median active time per item is lower is flagged."
    )
    same_level_share = models.FloatField(
        default=SAME_LEVEL_SHARE,
        help_text="QC: a judge giving one level to this share of items is flagged.",
    )
    qc_min_judgments = models.PositiveIntegerField(
        default=QC_MIN_JUDGMENTS,
        help_text="QC flags are raised only after this many judgments per aspect.",
    )
    practice = models.CharField(
        max_length=16,
        choices=Practice.choices,
        default=Practice.OFF,
        help_text="Practice phase before the real items (known answers, feedback after each "
        "screen): off, offered (judges may skip it) or required.",
    )
    practice_screens = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text="Practice phase: how many screens (1-10).",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(judges_per_item__gte=1), name="campaign_judges_per_item_min"
            ),
            models.CheckConstraint(
                condition=models.Q(repeat_share__gte=0) & models.Q(repeat_share__lte=0.5),
                name="campaign_repeat_share_range",
            ),
            models.CheckConstraint(
                condition=models.Q(bad_reference_share__gte=0)
                & models.Q(bad_reference_share__lte=0.5),
                name="campaign_bad_reference_share_range",
            ),
            models.CheckConstraint(
                condition=models.Q(scratch_share__gte=0) & models.Q(scratch_share__lte=0.5),
                name="campaign_scratch_share_range",
            ),
            models.CheckConstraint(
                condition=models.Q(context_before__lte=5) & models.Q(context_after__lte=5),
                name="campaign_context_range",
            ),
            models.CheckConstraint(
                condition=models.Q(candidates_per_screen__gte=2)
                & models.Q(candidates_per_screen__lte=5),
                name="campaign_candidates_per_screen_range",
            ),
            models.CheckConstraint(
                condition=models.Q(practice_screens__gte=1) & models.Q(practice_screens__lte=10),
                name="campaign_practice_screens_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("judging:campaign_detail", args=[self.pk])

    @property
    def has_spans(self) -> bool:
        """Whether judges mark error spans (MQM, ESA)."""
        return self.protocol in (self.Protocol.MQM, self.Protocol.ESA)

    @property
    def is_postedit(self) -> bool:
        """Whether judges post-edit the candidates."""
        return self.protocol == self.Protocol.POST_EDIT


class Aspect(models.Model):
    """One scale of a campaign (fluency, adequacy …). ``levels`` is the scale as data:
    ``[{"value": 5, "text": "Flawless"}, …]`` from best to worst; for a slider (direct
    assessment) they are its labelled anchors and any integer between the ends is a score."""

    class Kind(models.TextChoices):
        LEVELS = KIND_LEVELS, "Levels"
        SLIDER = KIND_SLIDER, "Slider"
        SPANS = KIND_SPANS, "Error spans (MQM score)"
        POSTEDIT = KIND_POSTEDIT, "Post-edit (text; no score)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="aspects")
    name = models.SlugField(max_length=MAX_NAME_LENGTH)
    label = models.CharField(max_length=MAX_LABEL_LENGTH)
    question = models.CharField(max_length=MAX_QUESTION_LENGTH, blank=True)
    position = models.PositiveSmallIntegerField(default=0)
    needs_reference = models.BooleanField(
        default=False, help_text="Judged with the reference revealed (adequacy)."
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.LEVELS)
    levels = models.JSONField()
    perfect = models.IntegerField(help_text="The reference level (EvalTrans 'perfect').")

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="aspect_name_unique")
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def values(self) -> list[int]:
        return [int(level["value"]) for level in self.levels]

    @property
    def is_slider(self) -> bool:
        return self.kind == self.Kind.SLIDER

    @property
    def is_spans(self) -> bool:
        """An MQM aspect: scored from the judge's error spans, not given by the judge."""
        return self.kind == self.Kind.SPANS

    @property
    def minimum(self) -> int:
        return scale_range({"levels": self.levels})[0]

    @property
    def maximum(self) -> int:
        return scale_range({"levels": self.levels})[1]

    def accepts(self, value: int) -> bool:
        """Whether ``value`` is a score of this scale: one of its levels, or for a slider any
        integer between its ends; for MQM spans, any penalty (x100: 0 or below); a post-edit
        has no score (always 0)."""
        if self.kind == self.Kind.POSTEDIT:
            return value == 0
        if self.is_spans:
            return value <= 0
        if self.is_slider:
            return self.minimum <= value <= self.maximum
        return value in self.values


class Item(models.Model):
    """A distinct text to judge for one segment: the outputs of every chosen system that wrote
    exactly this text, and/or the reference judged as a system. Judged once, applies to each."""

    class Kind(models.TextChoices):
        CANDIDATE = "candidate", "Candidate"
        REFERENCE = "reference", "Reference (quality control)"
        BAD_REFERENCE = "bad_reference", "Degraded candidate, 'bad reference' (quality control)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    segment = models.ForeignKey(Segment, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    key = models.CharField(max_length=64, db_index=True, help_text="text_key(source, text)")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.CANDIDATE)
    candidates = models.ManyToManyField(Candidate, related_name="judging_items", blank=True)
    reference = models.ForeignKey(
        Reference, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    judges_needed = models.PositiveSmallIntegerField(
        help_text="New judges to assign: judges_per_item minus judges reused from other campaigns."
    )
    reused_judgments = models.ManyToManyField("Judgment", related_name="reused_by", blank=True)
    degraded_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="degraded_copies",
        help_text="For a bad reference: the item whose text was degraded.",
    )

    class Meta:
        ordering = ["campaign", "segment", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "segment", "key"], name="item_text_unique")
        ]

    def __str__(self) -> str:
        return f"{self.segment} [{self.key[:8]}]"


class Assignment(models.Model):
    """The work of one judge in one campaign, in the judge's own random order."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judging_assignments"
    )
    created_at = models.DateTimeField(default=timezone.now)
    practice_answers = models.JSONField(
        default=list,
        blank=True,
        help_text="Practice phase: the graded answer of each practice screen answered so far "
        "(whether it matched, and the feedback shown); never judgments.",
    )
    practice_matched = models.PositiveSmallIntegerField(
        default=0, help_text="Practice phase: answers that matched the expected one."
    )
    practice_skipped = models.BooleanField(
        default=False, help_text="Practice phase: the judge skipped it (campaigns offering it)."
    )
    practice_done_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the practice phase was finished or skipped; empty: not yet (or off).",
    )

    class Meta:
        ordering = ["campaign", "judge__username"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "judge"], name="assignment_unique")
        ]

    def __str__(self) -> str:
        return f"{self.judge} in {self.campaign}"

    def get_absolute_url(self) -> str:
        return reverse("judging:judge_next", args=[self.pk])


class AssignedItem(models.Model):
    """An item at a place of a judge's order. ``screen`` numbers the pages the judge sees
    (several items share a screen in the grouped presentation); a planted repeat is a second
    AssignedItem of the same item with ``is_repeat``."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="items")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assigned")
    screen = models.PositiveIntegerField()
    position = models.PositiveSmallIntegerField(default=0, help_text="Place on its screen.")
    is_repeat = models.BooleanField(default=False)
    completed_at = models.DateTimeField(
        null=True, blank=True, help_text="When every aspect had a judgment."
    )
    comment = models.CharField(
        max_length=COMMENT_MAX_LENGTH,
        blank=True,
        help_text="The judge's optional comment on the item (campaigns with a comment box); "
        "saved with the screen's judgments, exported with each of them.",
    )

    class Meta:
        ordering = ["assignment", "screen", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "item", "is_repeat"], name="assigned_item_once"
            ),
            models.UniqueConstraint(
                fields=["assignment", "screen", "position"], name="assigned_item_place"
            ),
        ]
        indexes = [models.Index(fields=["assignment", "completed_at", "screen"])]

    def __str__(self) -> str:
        return f"{self.assignment} screen {self.screen + 1}.{self.position}"


class Judgment(models.Model):
    """One judge's score of one item on one aspect. Revisions update it and keep the old value
    in JudgmentRevision. ``active_ms`` is visible, non-idle time, summed over revisions."""

    assigned_item = models.ForeignKey(
        AssignedItem, on_delete=models.CASCADE, related_name="judgments"
    )
    aspect = models.ForeignKey(Aspect, on_delete=models.CASCADE, related_name="judgments")
    protocol = models.CharField(
        max_length=32,
        choices=Campaign.Protocol.choices,
        default=Campaign.Protocol.CATEGORICAL,
        help_text="The protocol that produced the score (for ranking, ``score`` is the rank: "
        "1 best; for MQM, the MQM score x100; for ESA, the 0-100 overall score; for "
        "post-editing, 0: the text is a PostEdit).",
    )
    score = models.IntegerField()
    active_ms = models.PositiveIntegerField(default=0)
    revision_count = models.PositiveIntegerField(default=0)
    submission_token = models.CharField(
        max_length=64, blank=True, help_text="Token of the page that sent the last score."
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["assigned_item", "aspect"]
        constraints = [
            models.UniqueConstraint(
                fields=["assigned_item", "aspect"], name="judgment_once_per_aspect"
            )
        ]

    def __str__(self) -> str:
        return f"{self.aspect.name}={self.score} ({self.assigned_item})"


class JudgmentRevision(models.Model):
    """What a judgment said before a revision: its score and time, and its error spans or
    post-edit when those changed."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="revisions")
    score = models.IntegerField()
    active_ms = models.PositiveIntegerField()
    judged_at = models.DateTimeField()
    replaced_at = models.DateTimeField(default=timezone.now)
    superseded = models.JSONField(
        default=dict,
        blank=True,
        help_text="What else the revision replaced: the error spans (MQM, ESA: 'spans', a "
        "list of {start, end, category, severity, note}) or the post-edit ('post_edit': "
        "{text, from_scratch}); empty when only the score changed.",
    )

    class Meta:
        ordering = ["judgment", "replaced_at"]

    def __str__(self) -> str:
        return f"{self.judgment} was {self.score}"


class ErrorSpan(models.Model):
    """An error a judge marked in the judged text (MQM, ESA): characters ``start`` to ``end``
    (exclusive; Unicode code points of ``Item.text``), a category (MQM; empty for ESA), a
    severity and an optional note. A revision of the judgment replaces its spans (the
    superseded ones are kept in ``JudgmentRevision.superseded``)."""

    class Severity(models.TextChoices):
        MINOR = "minor", "Minor"
        MAJOR = "major", "Major"

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="spans")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    category = models.CharField(max_length=100, blank=True)
    severity = models.CharField(max_length=8, choices=Severity.choices)
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["judgment", "start", "end", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start__lt=models.F("end")), name="error_span_not_empty"
            )
        ]

    def __str__(self) -> str:
        return f"{self.severity} {self.category or 'error'} {self.start}-{self.end}"


class PostEdit(models.Model):
    """The text a judge produced on a post-editing screen: the candidate edited into a correct
    translation (a *targeted reference* of every (segment, system) the item stands for), or,
    with ``from_scratch``, a translation made without seeing the candidate (no targeted
    reference; it measures the time of translating from scratch). One line of text
    (``judging.postedit.postedit_clean``). A revision replaces the text (the superseded text,
    score and time go to JudgmentRevision)."""

    judgment = models.OneToOneField(Judgment, on_delete=models.CASCADE, related_name="postedit")
    text = models.TextField()
    from_scratch = models.BooleanField(default=False)

    class Meta:
        ordering = ["judgment"]

    def __str__(self) -> str:
        return f"{'translation' if self.from_scratch else 'post-edit'} of {self.judgment_id}"
