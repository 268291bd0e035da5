"""Reads of the judging app: a judge's work and screens, campaign progress, exports."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Max, Q, QuerySet, Sum

from evaltrans.corpora.formats.base import CorpusData, EvaluationData, SegmentData
from evaltrans.corpora.formats.evaltrans_xml import DEFAULT_LEVELS
from evaltrans.corpora.models import Candidate, Reference, Segment

from .models import (
    Aspect,
    AssignedItem,
    Assignment,
    Campaign,
    ErrorSpan,
    Item,
    Judgment,
    PostEdit,
)
from .postedit import Timing, is_from_scratch, relative_efficiency, timing
from .qc import JudgeQuality, judge_quality
from .ranking import (
    Comparison,
    PairKappa,
    RankedCandidate,
    SystemWins,
    WinTable,
    comparisons_from_ranking,
    pairwise_kappa,
    system_wins,
    win_table,
)
from .spans import SEVERITY_LABELS, SpanAgreement, mqm_from_stored, span_agreement
from .tokens import screen_token_new

# Segments before and after the current one shown as document context.


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    screens: int
    active_ms: int

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 100.0


def assignment_progress(*, assignment: Assignment) -> Progress:
    """Items done and assigned (planted repeats count: the judge scores them too), screens,
    and active time so far."""
    counts = AssignedItem.objects.filter(assignment=assignment).aggregate(
        total=Count("pk"),
        done=Count("pk", filter=Q(completed_at__isnull=False)),
        last=Max("screen"),
    )
    active = Judgment.objects.filter(assigned_item__assignment=assignment).aggregate(
        ms=Sum("active_ms")
    )
    return _progress(counts, active["ms"])


def _progress(counts: dict[str, Any], active_ms: int | None) -> Progress:
    return Progress(
        done=counts["done"],
        total=counts["total"],
        screens=(counts["last"] + 1) if counts["last"] is not None else 0,
        active_ms=active_ms or 0,
    )


def assignment_list_for_judge(*, judge: AbstractBaseUser) -> list[tuple[Assignment, Progress]]:
    """The judge's assignments in open campaigns, newest campaign first, with progress (three
    queries however many assignments)."""
    assignments = list(
        Assignment.objects.filter(judge=judge, campaign__status=Campaign.Status.ACTIVE)
        .select_related("campaign__test_set")
        .order_by("-campaign__created_at")
    )
    counts = {
        row["assignment"]: row
        for row in AssignedItem.objects.filter(assignment__in=assignments)
        .values("assignment")
        .annotate(
            total=Count("pk"),
            done=Count("pk", filter=Q(completed_at__isnull=False)),
            last=Max("screen"),
        )
        .order_by()
    }
    active = dict(
        Judgment.objects.filter(assigned_item__assignment__in=assignments)
        .values("assigned_item__assignment")
        .annotate(ms=Sum("active_ms"))
        .order_by()
        .values_list("assigned_item__assignment", "ms")
    )
    empty = {"total": 0, "done": 0, "last": None}
    return [
        (
            assignment,
            _progress(counts.get(assignment.pk, empty), active.get(assignment.pk)),
        )
        for assignment in assignments
    ]


def screen_next(*, assignment: Assignment) -> int | None:
    """The first screen, in the judge's order, with an item not yet fully judged."""
    return (
        AssignedItem.objects.filter(assignment=assignment, completed_at__isnull=True)
        .order_by("screen")
        .values_list("screen", flat=True)
        .first()
    )


@dataclass
class Cell:
    """One question on the screen: an aspect of one entry, with its current value."""

    name: str
    aspect: Aspect
    value: int | None

    @property
    def levels(self) -> list[dict[str, Any]]:
        """Levels by ascending value, so they line up with the digit keys 1, 2, 3 … (a
        slider's anchors, lowest first)."""
        return sorted(self.aspect.levels, key=lambda level: level["value"])

    @property
    def slider_start(self) -> int:
        """Where a slider's thumb stands: the score given, else the middle (not yet set)."""
        if self.value is not None:
            return self.value
        return (self.aspect.minimum + self.aspect.maximum) // 2


@dataclass
class Entry:
    """One text to judge on the screen."""

    assigned: AssignedItem
    label: str
    text: str
    cells: list[Cell]
    locked: list[tuple[Aspect, int, str]] = field(default_factory=list)
    spans: list[dict[str, Any]] = field(default_factory=list)
    """MQM/ESA: the error spans the judge marked (revising), as the page sends them."""
    from_scratch: bool = False
    """Post-editing: translate from scratch (``text`` is then empty: the candidate is not
    shown, not even sent to the browser)."""
    postedit: str = ""
    """Post-editing: what the text box holds at first: the judge's post-edit (revising), else
    the candidate (empty from scratch)."""
    context_before: list[str] = field(default_factory=list)
    context_after: list[str] = field(default_factory=list)
    """Document context, target side: the same system's translations of the neighbouring
    segments of the document (one-entry screens of a campaign showing context)."""

    @property
    def spans_json(self) -> str:
        """The spans as the page's hidden field holds them (JSON; escaped by the template)."""
        return json.dumps(self.spans, ensure_ascii=False)


@dataclass
class Screen:
    campaign: Campaign
    assignment: Assignment
    number: int
    progress: Progress
    stage: str  # "blind" (reference hidden), "reference" or "all"
    revisit: bool
    source: str
    reference: str
    context_before: list[str]
    context_after: list[str]
    entries: list[Entry]
    aspects: list[Aspect]
    all_aspects: list[Aspect]
    token: str
    practice: Any = None
    """A practice screen (``judging.services.practice.PracticeInfo``): known answers, nothing
    stored as a judgment; None on the real screens."""

    @property
    def keys(self) -> str:
        """The digit keys of the asked level scales, e.g. ``1–5`` (sliders have none)."""
        values = [
            value for aspect in self.aspects if not aspect.is_slider for value in aspect.values
        ]
        return f"{min(values)}–{max(values)}" if values else ""

    @property
    def has_slider(self) -> bool:
        return any(aspect.is_slider for aspect in self.aspects)

    @property
    def has_spans(self) -> bool:
        """An error-span screen (MQM, ESA): the judge marks spans of the candidate."""
        return self.campaign.has_spans

    @property
    def is_mqm(self) -> bool:
        return self.campaign.protocol == Campaign.Protocol.MQM

    @property
    def categories(self) -> list[str]:
        """The MQM categories judges choose from (none for ESA)."""
        return list(self.campaign.error_categories) if self.is_mqm else []

    @property
    def is_postedit(self) -> bool:
        """A post-editing screen: the judge edits the candidate in a text box."""
        return self.campaign.is_postedit

    @property
    def is_ranking(self) -> bool:
        """A relative-ranking screen: its candidates side by side, each ranked 1-5."""
        return self.campaign.protocol == Campaign.Protocol.RANKING

    @property
    def next_stage(self) -> str:
        """Label of the aspects asked after this stage with the reference shown, if any."""
        if self.stage != "blind" or self.revisit:
            return ""
        later = [a.label for a in self.all_aspects if a.needs_reference and a not in self.aspects]
        return " and ".join(later)

    @property
    def position(self) -> int:
        """1-based screen number, as in URLs."""
        return self.number + 1

    @property
    def previous_position(self) -> int | None:
        return self.number if self.number > 0 else None


def screen_detail(*, assignment: Assignment, screen: int) -> Screen | None:
    """What the judge sees on one screen, or None when the assignment has no such screen.

    In the sequential order, an unfinished screen first asks the aspects judged without the
    reference (the reference is not even sent to the browser), then the others with the
    reference and the first answers shown locked. A finished screen asks every aspect again,
    with the given answers preselected, for revision.
    """
    campaign = assignment.campaign
    placed = list(
        AssignedItem.objects.filter(assignment=assignment, screen=screen)
        .select_related("item__segment")
        .order_by("position")
    )
    if not placed:
        return None
    aspects = list(campaign.aspects.all())
    values = {
        (judgment.assigned_item_id, judgment.aspect_id): judgment.score
        for judgment in Judgment.objects.filter(assigned_item__in=placed)
    }
    revisit = all(row.completed_at is not None for row in placed)
    stage, asked = _stage(campaign, aspects, placed, values, revisit)
    segment = placed[0].item.segment
    show_reference = stage != "blind" and any(aspect.needs_reference for aspect in asked)
    marked = _marked_spans(placed) if campaign.has_spans else {}
    edited = (
        dict(
            PostEdit.objects.filter(judgment__assigned_item__in=placed).values_list(
                "judgment__assigned_item_id", "text"
            )
        )
        if campaign.is_postedit
        else {}
    )
    entries = []
    for number, row in enumerate(placed):
        # An MQM aspect is scored from the spans: no question of its own.
        cells = [
            Cell(
                name=f"score-{row.pk}-{aspect.name}",
                aspect=aspect,
                value=values.get((row.pk, aspect.pk)),
            )
            for aspect in asked
            if not aspect.is_spans and aspect.kind != Aspect.Kind.POSTEDIT
        ]
        locked = [
            (aspect, values[(row.pk, aspect.pk)], _level_text(aspect, values[(row.pk, aspect.pk)]))
            for aspect in aspects
            if aspect not in asked and (row.pk, aspect.pk) in values
        ]
        label = chr(ord("A") + number) if len(placed) > 1 and number < 26 else str(number + 1)
        scratch = campaign.is_postedit and is_from_scratch(
            seed=campaign.seed, assigned_item_id=row.pk, share=campaign.scratch_share
        )
        text = "" if scratch else row.item.text
        entries.append(
            Entry(
                assigned=row,
                label=label,
                text=text,
                cells=cells,
                locked=locked,
                spans=marked.get(row.pk, []),
                from_scratch=scratch,
                postedit=edited.get(row.pk, text),
            )
        )
    before, after = (
        _context(campaign, segment, show_reference) if campaign.show_context else ([], [])
    )
    # Target side: one translation per screen only; none for a translation from scratch (the
    # judge is to translate without machine output).
    if campaign.show_context and len(entries) == 1 and not entries[0].from_scratch:
        entries[0].context_before, entries[0].context_after = _target_context(
            campaign, placed[0].item
        )
    return Screen(
        campaign=campaign,
        assignment=assignment,
        number=screen,
        progress=assignment_progress(assignment=assignment),
        stage=stage,
        revisit=revisit,
        source=segment.source if campaign.show_source else "",
        reference=_reference_text(campaign, segment) if show_reference else "",
        context_before=before,
        context_after=after,
        entries=entries,
        aspects=asked,
        all_aspects=aspects,
        token=screen_token_new(assignment_id=assignment.pk, screen=screen),
    )


def _marked_spans(placed: list[AssignedItem]) -> dict[int, list[dict[str, Any]]]:
    """Assigned item id -> the spans of its judgment (revising a screen shows them again)."""
    marked: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for span in ErrorSpan.objects.filter(judgment__assigned_item__in=placed).values(
        "judgment__assigned_item_id", "start", "end", "category", "severity", "note"
    ):
        assigned_id = span.pop("judgment__assigned_item_id")
        marked[assigned_id].append(span)
    return marked


def _stage(
    campaign: Campaign,
    aspects: list[Aspect],
    placed: list[AssignedItem],
    values: dict[tuple[int, int], int],
    revisit: bool,
) -> tuple[str, list[Aspect]]:
    blind = [aspect for aspect in aspects if not aspect.needs_reference]
    with_reference = [aspect for aspect in aspects if aspect.needs_reference]
    sequential = campaign.aspect_order == Campaign.AspectOrder.SEQUENTIAL
    if revisit or not sequential or not blind or not with_reference:
        return ("all" if with_reference else "blind"), aspects
    blind_done = all((row.pk, aspect.pk) in values for row in placed for aspect in blind)
    return ("reference", with_reference) if blind_done else ("blind", blind)


def _level_text(aspect: Aspect, value: int) -> str:
    return next((level["text"] for level in aspect.levels if level["value"] == value), "")


def _reference_text(campaign: Campaign, segment: Segment) -> str:
    reference = Reference.objects.filter(segment=segment, label=campaign.reference_label).first()
    return reference.text if reference else ""


def _neighbours(campaign: Campaign, segment: Segment) -> tuple[list[Segment], list[Segment]]:
    """The campaign's ``context_before`` segments of the same document just before ``segment``
    and its ``context_after`` just after, in document order. Only segments of the same test
    set and the same non-empty ``doc_id``: a segment without a document has no context, and a
    neighbouring document never shows (however the test set interleaves its documents)."""
    if not segment.doc_id:
        return [], []
    same_document = Segment.objects.filter(
        test_set_id=segment.test_set_id, doc_id=segment.doc_id
    ).exclude(pk=segment.pk)
    before = (
        list(
            same_document.filter(index__lt=segment.index).order_by("-index")[
                : campaign.context_before
            ]
        )
        if campaign.context_before
        else []
    )
    after = (
        list(
            same_document.filter(index__gt=segment.index).order_by("index")[
                : campaign.context_after
            ]
        )
        if campaign.context_after
        else []
    )
    return before[::-1], after


def _context(
    campaign: Campaign, segment: Segment, show_reference: bool
) -> tuple[list[str], list[str]]:
    """Document context, source side (as WMT's document-level DA shows it): the neighbouring
    segments' sources when the source is shown, else the shown reference's sentences, and those
    only once the reference itself is revealed (a judge scoring fluency without the reference
    sees no reference text at all); target only: none."""
    if not (campaign.show_source or show_reference):
        return [], []
    before, after = _neighbours(campaign, segment)
    if not before and not after:
        return [], []
    if campaign.show_source:
        return [row.source for row in before], [row.source for row in after]
    texts = dict(
        Reference.objects.filter(
            segment__in=before + after, label=campaign.reference_label
        ).values_list("segment_id", "text")
    )
    return (
        [texts[row.pk] for row in before if row.pk in texts],
        [texts[row.pk] for row in after if row.pk in texts],
    )


def _target_context(campaign: Campaign, item: Item) -> tuple[list[str], list[str]]:
    """Document context, target side: what the same system translated for the neighbouring
    segments of the document (WMT's document-level DA: the same system's previous
    translations). An item standing for several systems (identical output) takes the first
    system by name; a bad reference, the systems of the candidate it degrades; the reference
    judged as a system, that reference's sentences. A neighbour the system did not translate is
    left out."""
    before, after = _neighbours(campaign, item.segment)
    if not before and not after:
        return [], []
    if item.kind == Item.Kind.REFERENCE:
        texts = dict(
            Reference.objects.filter(
                segment__in=before + after, label=campaign.reference_as_system
            ).values_list("segment_id", "text")
        )
    else:
        source_item = item.degraded_from if item.degraded_from_id else item
        system_id = (
            source_item.candidates.order_by("system__name")
            .values_list("system_id", flat=True)
            .first()
        )
        if system_id is None:
            return [], []
        texts = dict(
            Candidate.objects.filter(system_id=system_id, segment__in=before + after).values_list(
                "segment_id", "text"
            )
        )
    return (
        [texts[row.pk] for row in before if row.pk in texts],
        [texts[row.pk] for row in after if row.pk in texts],
    )


# ---------------------------------------------------------------- campaign progress (admins)


def campaign_list() -> QuerySet[Campaign]:
    return Campaign.objects.select_related("test_set").annotate(
        judge_count=Count("assignments", distinct=True)
    )


@dataclass
class JudgeRow:
    username: str
    done: int
    total: int
    active_ms: int
    quality: JudgeQuality
    practice: JudgePractice | None = None

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 100.0

    @property
    def items_per_hour(self) -> float | None:
        return self.done / (self.active_ms / 3_600_000) if self.active_ms else None

    @property
    def seconds_per_item(self) -> float | None:
        return self.active_ms / 1000 / self.done if self.done else None


@dataclass(frozen=True)
class JudgePractice:
    """A judge's practice phase: screens answered, answers as expected, skipped, finished."""

    answered: int
    matched: int
    skipped: bool
    done_at: datetime | None

    @property
    def done(self) -> bool:
        return self.done_at is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "answered": self.answered,
            "matched": self.matched,
            "skipped": self.skipped,
            "done_at": self.done_at,
        }


def campaign_practice(*, campaign: Campaign) -> dict[str, JudgePractice]:
    """Per judge's username (sorted), the practice phase; empty when the campaign has none."""
    if campaign.practice == Campaign.Practice.OFF:
        return {}
    rows = (
        Assignment.objects.filter(campaign=campaign)
        .order_by("judge__username")
        .values_list(
            "judge__username",
            "practice_answers",
            "practice_matched",
            "practice_skipped",
            "practice_done_at",
        )
    )
    return {
        name: JudgePractice(len(answers or []), matched, skipped, done_at)
        for name, answers, matched, skipped, done_at in rows
    }


@dataclass
class SystemRow:
    name: str
    candidates: int
    complete: int
    judgments_done: int
    judgments_needed: int

    @property
    def coverage(self) -> float:
        return 100.0 * self.complete / self.candidates if self.candidates else 0.0


@dataclass(frozen=True)
class CampaignPageColumns:
    """What the campaign page shows besides progress and time, by what the campaign can fill.

    * ``repeats``: the judges' planted repeats (same / pairs): when the campaign plants
      repeats and its judgments have a score (a post-edit's is always 0, so "same" would
      always hold);
    * ``reference``: the judges' mean score of the reference judged as a system against the
      MT candidates: only with a reference judged as a system, and on a scale where a higher
      mean is better (not ranks, where 1 is best; not post-edits, which have no score);
    * ``bad_refs``: the Wilcoxon test of bad references: only when the campaign plants them;
    * ``human_scores``: links to the human-score pages and the live correlation with the
      measures: every protocol but post-editing (a post-edit gives no human score);
    * ``practice``: each judge's practice phase (answered, as expected, skipped): when the
      campaign has one.
    """

    repeats: bool
    reference: bool
    bad_refs: bool
    human_scores: bool
    practice: bool = False


SCORELESS_PROTOCOLS = (Campaign.Protocol.POST_EDIT,)
"""Protocols whose judgments carry no score (``Judgment.score`` is 0)."""
HIGHER_IS_BETTER_PROTOCOLS = (
    Campaign.Protocol.CATEGORICAL,
    Campaign.Protocol.DIRECT_ASSESSMENT,
    Campaign.Protocol.MQM,
    Campaign.Protocol.ESA,
)
"""Protocols whose scores are absolute, higher better: a mean per judge compares."""


def campaign_page_columns(*, campaign: Campaign) -> CampaignPageColumns:
    """The judge columns and links the campaign page shows for this campaign (see
    :class:`CampaignPageColumns`)."""
    scored = campaign.protocol not in SCORELESS_PROTOCOLS
    return CampaignPageColumns(
        repeats=scored and campaign.repeat_share > 0,
        reference=bool(campaign.reference_as_system)
        and campaign.protocol in HIGHER_IS_BETTER_PROTOCOLS,
        bad_refs=scored and campaign.bad_reference_share > 0,
        human_scores=scored,
        practice=campaign.practice != Campaign.Practice.OFF,
    )


@dataclass
class CampaignProgress:
    campaign: Campaign
    items: int
    judges: list[JudgeRow]
    systems: list[SystemRow]
    done: int
    total: int
    remaining_ms_total: int
    remaining_ms_parallel: int
    columns: CampaignPageColumns | None = None
    """What the campaign page shows for the campaign's protocol (:func:`campaign_page_columns`)."""

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 100.0


# Seconds per item assumed for a judge with no timing yet (Nießen et al. 2000: ~30 s).
DEFAULT_SECONDS_PER_ITEM = 30.0


def campaign_progress(*, campaign: Campaign) -> CampaignProgress:
    """Per judge (done, rate, active time, QC) and per system (coverage), with the time to
    completion estimated from each judge's own pace (judges work in parallel)."""
    rows = list(
        AssignedItem.objects.filter(assignment__campaign=campaign)
        .values("assignment__judge__username")
        .annotate(
            total=Count("pk"),
            done=Count("pk", filter=Q(completed_at__isnull=False)),
        )
        .order_by("assignment__judge__username")
    )
    judgments = list(
        Judgment.objects.filter(assigned_item__assignment__campaign=campaign).values(
            "assigned_item__assignment__judge__username",
            "assigned_item__item_id",
            "assigned_item__is_repeat",
            "assigned_item__item__kind",
            "assigned_item__item__degraded_from_id",
            "aspect__name",
            "score",
            "active_ms",
        )
    )
    by_judge: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for judgment in judgments:
        by_judge[judgment["assigned_item__assignment__judge__username"]].append(judgment)
    practice = campaign_practice(campaign=campaign)
    judges = []
    for row in rows:
        name = row["assignment__judge__username"]
        own = by_judge.get(name, [])
        judges.append(
            JudgeRow(
                username=name,
                done=row["done"],
                total=row["total"],
                active_ms=sum(judgment["active_ms"] for judgment in own),
                quality=judge_quality(campaign=campaign, judgments=own),
                practice=practice.get(name),
            )
        )
    remaining = [
        (judge.total - judge.done) * 1000 * (judge.seconds_per_item or DEFAULT_SECONDS_PER_ITEM)
        for judge in judges
    ]
    return CampaignProgress(
        campaign=campaign,
        items=Item.objects.filter(campaign=campaign).exclude(kind=Item.Kind.BAD_REFERENCE).count(),
        judges=judges,
        systems=_system_rows(campaign),
        done=sum(judge.done for judge in judges),
        total=sum(judge.total for judge in judges),
        remaining_ms_total=int(sum(remaining)),
        remaining_ms_parallel=int(max(remaining, default=0)),
        columns=campaign_page_columns(campaign=campaign),
    )


def _item_owners(campaign: Campaign) -> dict[int, list[str]]:
    """Item id -> names of the systems it stands for (the reference as a system by its label)."""
    owners: dict[int, list[str]] = defaultdict(list)
    links = Item.candidates.through.objects.filter(item__campaign=campaign).values_list(
        "item_id", "candidate__system__name"
    )
    for item_id, name in links:
        owners[item_id].append(name)
    for item_id in Item.objects.filter(campaign=campaign, reference__isnull=False).values_list(
        "pk", flat=True
    ):
        owners[item_id].append(campaign.reference_as_system)
    return owners


def _system_rows(campaign: Campaign) -> list[SystemRow]:
    """Coverage per system; bad references (quality control) are not the system's work."""
    items = {
        row["pk"]: row
        for row in Item.objects.filter(campaign=campaign)
        .exclude(kind=Item.Kind.BAD_REFERENCE)
        .annotate(
            reused=Count("reused_judgments__assigned_item__assignment__judge", distinct=True),
            done=Count(
                "assigned",
                filter=Q(assigned__is_repeat=False, assigned__completed_at__isnull=False),
                distinct=True,
            ),
        )
        .values("pk", "reused", "done", "judges_needed")
    }
    per_system: dict[str, SystemRow] = {}
    for item_id, names in _item_owners(campaign).items():
        item = items.get(item_id)
        if item is None:
            continue
        for name in names:
            row = per_system.setdefault(name, SystemRow(name, 0, 0, 0, 0))
            row.candidates += 1
            row.judgments_needed += campaign.judges_per_item
            row.judgments_done += min(campaign.judges_per_item, item["done"] + item["reused"])
            row.complete += int(item["done"] >= item["judges_needed"])
    return sorted(per_system.values(), key=lambda row: row.name)


# ---------------------------------------------------------------- exports


def campaign_judgment_rows(*, campaign: Campaign) -> list[dict[str, Any]]:
    """Every judgment that counts for the campaign as plain rows, one per system it applies to
    (an item stands for every system with that output). Judgments reused from earlier campaigns
    come with ``reused`` true; planted repeats with ``is_repeat`` true (drop them for scores,
    keep them for intra-judge consistency); bad references (kind ``bad_reference``) belong to
    the systems of the candidate they degrade, named by ``original_item``. Every row carries
    the ``protocol`` that produced the judgment and the judge's ``screen`` (1-based, as in the
    judging URLs; for ranking, the candidates ranked together share judge and screen). A
    post-editing campaign's rows carry the ``postedit`` text and ``from_scratch``. ``comment``
    is the judge's comment on the item (campaigns with a comment box; else empty), on each of
    the item's rows."""
    owners = _item_owners(campaign)
    fields = {
        "judge": "assigned_item__assignment__judge__username",
        "aspect": "aspect__name",
        "score": "score",
        "active_ms": "active_ms",
        "is_repeat": "assigned_item__is_repeat",
        "created_at": "created_at",
        "updated_at": "updated_at",
        "revision_count": "revision_count",
        "protocol": "protocol",
        "screen": "assigned_item__screen",
        "position": "assigned_item__position",
        "comment": "assigned_item__comment",
        "judgment": "pk",
    }
    own = Judgment.objects.filter(assigned_item__assignment__campaign=campaign).values_list(
        "assigned_item__item_id", *fields.values()
    )
    reused_links = Item.reused_judgments.through.objects.filter(
        item__campaign=campaign
    ).values_list("item_id", *(f"judgment__{path}" for path in fields.values()))
    items = {
        item["pk"]: item
        for item in Item.objects.filter(campaign=campaign).values(
            "pk",
            "kind",
            "text",
            "degraded_from_id",
            "segment__index",
            "segment__seg_id",
            "segment__doc_id",
        )
    }
    own, reused_links = list(own), list(reused_links)
    spans: dict[int, list[dict[str, Any]]] = {}
    if campaign.has_spans:
        ids = [values[-1] for values in own] + [values[-1] for values in reused_links]
        spans = _judgment_spans(ids)
    edits: dict[int, tuple[str, bool]] = {}
    if campaign.is_postedit:
        edits = {
            judgment_id: (text, scratch)
            for judgment_id, text, scratch in PostEdit.objects.filter(
                judgment__assigned_item__assignment__campaign=campaign
            ).values_list("judgment_id", "text", "from_scratch")
        }
    rows = []
    for reused, source in ((False, own), (True, reused_links)):
        for item_id, *values in source:
            judgment = dict(zip(fields, values, strict=True))
            item = items[item_id]
            score = judgment["score"]
            if judgment["protocol"] == Campaign.Protocol.MQM:
                score = mqm_from_stored(score)
            for system in sorted(owners[item_id]):
                rows.append(
                    {
                        "system": system,
                        "segment_index": item["segment__index"],
                        "seg_id": item["segment__seg_id"],
                        "doc_id": item["segment__doc_id"],
                        "item": item_id,
                        "kind": item["kind"],
                        "original_item": item["degraded_from_id"],
                        "protocol": judgment["protocol"],
                        "text": item["text"],
                        "judge": judgment["judge"],
                        "aspect": judgment["aspect"],
                        "score": score,
                        "active_ms": judgment["active_ms"],
                        "is_repeat": judgment["is_repeat"],
                        "reused": reused,
                        "judgment": judgment["judgment"],
                        "created_at": judgment["created_at"],
                        "updated_at": judgment["updated_at"],
                        "revised": judgment["revision_count"] > 0,
                        "screen": judgment["screen"] + 1,
                        "position": judgment["position"],
                        "comment": judgment["comment"],
                    }
                )
                if campaign.has_spans:
                    rows[-1]["spans"] = spans.get(judgment["judgment"], [])
                if campaign.is_postedit:
                    text, scratch = edits.get(judgment["judgment"], ("", False))
                    rows[-1]["postedit"] = text
                    rows[-1]["from_scratch"] = scratch
    rows.sort(key=lambda row: (row["segment_index"], row["system"], row["aspect"], row["judge"]))
    return rows


def _judgment_spans(judgment_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Judgment id -> its error spans as plain dicts (start, end, category, severity, note)."""
    found: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for start in range(0, len(judgment_ids), 500):
        chunk = judgment_ids[start : start + 500]
        for span in ErrorSpan.objects.filter(judgment_id__in=chunk).values(
            "judgment_id", "start", "end", "category", "severity", "note"
        ):
            found[span.pop("judgment_id")].append(span)
    return found


def campaign_corpus(*, campaign: Campaign) -> CorpusData:
    """The campaign as an EvalTrans database (CorpusData): every judged segment with its
    references, the campaign's systems' outputs and one ``<eval>`` per judgment (planted
    repeats and bad references left out), each naming its ``evaluator``. ``levels`` describe the campaign's scales
    and end with the ``isPerfect`` class that marks references."""
    aspects = list(campaign.aspects.all())
    segment_ids = Item.objects.filter(campaign=campaign).values_list("segment_id", flat=True)
    segments = {
        segment.pk: SegmentData(source=segment.source, doc_id=segment.doc_id, seg_id=segment.seg_id)
        for segment in Segment.objects.filter(pk__in=segment_ids).order_by("index")
    }
    for reference in Reference.objects.filter(segment_id__in=segments).order_by("label"):
        segments[reference.segment_id].references[reference.label] = reference.text
    links = Item.candidates.through.objects.filter(item__campaign=campaign).values_list(
        "candidate__segment_id", "candidate__system__name", "candidate__text"
    )
    for segment_id, system, text in links:
        segments[segment_id].candidates[system] = text
    segment_of = dict(Item.objects.filter(campaign=campaign).values_list("pk", "segment_id"))
    for row in campaign_judgment_rows(campaign=campaign):
        # A bad reference's text is not the system's candidate: its scores are QC only.
        if row["is_repeat"] or row["kind"] == Item.Kind.BAD_REFERENCE:
            continue
        is_reference = (
            campaign.reference_as_system and row["system"] == campaign.reference_as_system
        )
        segments[segment_of[row["item"]]].evaluations.append(
            EvaluationData(
                target_kind="reference" if is_reference else "candidate",
                target_name=row["system"],
                aspect=row["aspect"],
                value=float(row["score"]),
                attributes={"evaluator": row["judge"]},
            )
        )
    test_set = campaign.test_set
    return CorpusData(
        source_lang=test_set.source_lang,
        target_lang=test_set.target_lang,
        segments=list(segments.values()),
        name=campaign.name,
        # The format's recommended deciding class marks the references.
        metadata={"levels": [_levels(aspect) for aspect in aspects] + [dict(DEFAULT_LEVELS)]},
    )


def _levels(aspect: Aspect) -> dict[str, Any]:
    values = aspect.values
    return {
        "class": aspect.name,
        "count": max(values) + 1,
        "gray": min(values) + 1,
        "green": aspect.perfect,
        "perfect": aspect.perfect,
        "firstvalid": min(values),
    }


# ---------------------------------------------------------------- relative ranking


def campaign_ranking_comparisons(*, campaign: Campaign) -> list[Comparison]:
    """Every pairwise comparison of a ranking campaign's judgments (``judging.ranking``): per
    judge and screen, each pair of ranked candidates, each system of one against each system
    of the other; planted repeats included and marked ``is_repeat`` (they count for
    intra-judge agreement only). The segment id is the segment's ``seg_id`` (its 1-based
    position without one), as in the human-score records. Empty for another protocol."""
    if campaign.protocol != Campaign.Protocol.RANKING:
        return []
    owners = _item_owners(campaign)
    rows = (
        Judgment.objects.filter(
            assigned_item__assignment__campaign=campaign, protocol=Campaign.Protocol.RANKING
        )
        .values_list(
            "assigned_item__assignment_id",
            "assigned_item__assignment__judge__username",
            "assigned_item__screen",
            "assigned_item__is_repeat",
            "assigned_item__item_id",
            "assigned_item__item__segment__seg_id",
            "assigned_item__item__segment__index",
            "score",
        )
        .order_by(
            "assigned_item__assignment_id", "assigned_item__screen", "assigned_item__position"
        )
    )
    screens: dict[tuple[int, int], list[Any]] = defaultdict(list)
    for row in rows:
        screens[(row[0], row[2])].append(row)
    comparisons: list[Comparison] = []
    for (assignment_id, screen), ranked in screens.items():
        _, judge, _, is_repeat, _, seg_id, index, _ = ranked[0]
        candidates = [
            RankedCandidate(systems=tuple(sorted(owners[row[4]])), rank=row[7]) for row in ranked
        ]
        comparisons += comparisons_from_ranking(
            candidates,
            segment_id=seg_id or str(index + 1),
            judge=judge,
            is_repeat=is_repeat,
            screen_key=f"{assignment_id}:{screen + 1}",
        )
    return comparisons


def campaign_ranking_pairs(
    *, campaign: Campaign, ties: bool = False, comparisons: list[Comparison] | None = None
) -> list[Comparison]:
    """The human pairwise preferences of a ranking campaign, for Kendall-style measures.

    One record per judge's comparison of two systems on a segment: ``segment_id`` (the
    segment's ``seg_id``, or its 1-based position), ``better`` and ``worse`` (system names;
    the reference judged as a system under its label), ``judge`` and ``screen_key`` (which
    ranking it comes from). Planted repeats are left out (a judge's second look at the same
    screen is not a second preference). Ties are left out unless ``ties`` is true; a tie has
    ``tie`` true and its two systems in name order as ``better``/``worse``.

    WMT's segment-level Kendall's tau (WMT 2012-2016 metrics tasks) counts, over these
    records, a metric concordant when it scores ``better`` above ``worse`` and discordant
    when below; human ties are excluded there (``ties=False``, the default), and the metric's
    own ties are the caller's choice. A pair judged by several judges appears once per judge,
    as in WMT. Empty for a campaign of another protocol. ``comparisons``: the campaign's
    comparisons when the caller has read them already.
    """
    if comparisons is None:
        comparisons = campaign_ranking_comparisons(campaign=campaign)
    return [
        comparison
        for comparison in comparisons
        if not comparison.is_repeat and (ties or not comparison.tie)
    ]


@dataclass
class RankingJudge:
    """A judge's share of a ranking campaign."""

    judge: str
    rankings: int
    comparisons: int
    ties: int
    repeats: int

    @property
    def tie_share(self) -> float | None:
        return self.ties / self.comparisons if self.comparisons else None


@dataclass
class RankingWins:
    """What the ranking campaign's panels show: Expected Wins per system (WMT 2013), the ratio
    of wins (WMT 2012), the win table and the agreement of judges on pairs (WMT 2013 kappa)."""

    systems: list[SystemWins]
    table: WinTable
    inter: PairKappa
    intra: PairKappa
    judges: list[RankingJudge]
    comparisons: int
    ties: int
    rankings: int


def ranking_wins_panel(
    *, campaign: Campaign, comparisons: list[Comparison] | None = None
) -> RankingWins:
    """Expected Wins, win table and pairwise agreement of a ranking campaign (``judging.ranking``
    has the formulas). Scores and the table use every judge's comparisons, planted repeats left
    out; intra-judge agreement compares a repeat with its original. ``comparisons``: the
    campaign's comparisons when the caller has read them already."""
    every = (
        comparisons if comparisons is not None else campaign_ranking_comparisons(campaign=campaign)
    )
    first_looks = [comparison for comparison in every if not comparison.is_repeat]
    systems = set(campaign.systems.values_list("name", flat=True))
    if campaign.reference_as_system:
        systems.add(campaign.reference_as_system)
    table = win_table(first_looks, systems)
    per_judge: dict[str, RankingJudge] = {}
    screens: dict[str, set[str]] = defaultdict(set)
    repeats: dict[str, set[str]] = defaultdict(set)
    for comparison in every:
        row = per_judge.setdefault(comparison.judge, RankingJudge(comparison.judge, 0, 0, 0, 0))
        if comparison.is_repeat:
            repeats[comparison.judge].add(comparison.screen_key)
            continue
        screens[comparison.judge].add(comparison.screen_key)
        row.comparisons += 1
        row.ties += comparison.tie
    for judge, row in per_judge.items():
        row.rankings = len(screens[judge])
        row.repeats = len(repeats[judge])
    return RankingWins(
        systems=system_wins(table),
        table=table,
        inter=pairwise_kappa(first_looks),
        intra=pairwise_kappa(every, intra=True),
        judges=sorted(per_judge.values(), key=lambda row: row.judge),
        comparisons=len(first_looks),
        ties=sum(1 for comparison in first_looks if comparison.tie),
        rankings=sum(len(keys) for keys in screens.values()),
    )


# ---------------------------------------------------------------- error spans (MQM, ESA)


def campaign_span_agreement(
    *, campaign: Campaign, rows: list[dict[str, Any]] | None = None
) -> SpanAgreement | None:
    """Agreement of judges on error spans: character-level F1 between two judges of the same
    item (``judging.spans.span_f1``), averaged over items and judge pairs; planted repeats and
    bad references left out. None for a campaign without spans. ``rows``: the campaign's
    :func:`campaign_judgment_rows`, when the caller has them already."""
    if not campaign.has_spans:
        return None
    by_item: dict[int, dict[str, list[dict[str, Any]]]] = defaultdict(dict)
    if rows is None:
        rows = campaign_judgment_rows(campaign=campaign)
    for row in rows:
        if row["is_repeat"] or row["kind"] == Item.Kind.BAD_REFERENCE:
            continue
        by_item[row["item"]][row["judge"]] = row["spans"]
    return span_agreement(by_item)


@dataclass
class SpanJudgmentRow:
    """One judge's spans of one item, for the admins' judgment list."""

    item: int
    systems: list[str]
    seg_id: str
    judge: str
    score: float | int
    text: str
    spans: list[dict[str, Any]]
    screen: int
    reused: bool
    comment: str = ""

    @property
    def counts(self) -> str:
        """``2 major, 1 minor`` (or ``no errors``)."""
        major = sum(1 for span in self.spans if span["severity"] == "major")
        minor = len(self.spans) - major
        parts = [f"{major} major"] * bool(major) + [f"{minor} minor"] * bool(minor)
        return ", ".join(parts) or "no errors"


@dataclass
class SpanJudgmentPage:
    rows: list[SpanJudgmentRow]
    total: int
    page: int
    pages: int
    agreement: SpanAgreement | None
    severity_labels: dict[str, str] = field(default_factory=lambda: dict(SEVERITY_LABELS))


SPAN_ROWS_PER_PAGE = 100


def campaign_span_judgments(*, campaign: Campaign, page: int = 1) -> SpanJudgmentPage:
    """The MQM/ESA judgments of a campaign, one row per (item, judge), in segment order, with
    their spans; ``page`` (1-based, clamped) of :data:`SPAN_ROWS_PER_PAGE` rows."""
    grouped: dict[tuple[int, str, bool], SpanJudgmentRow] = {}
    every = campaign_judgment_rows(campaign=campaign)
    for row in every:
        key = (row["item"], row["judge"], row["is_repeat"])
        if key in grouped:
            grouped[key].systems.append(row["system"])
            continue
        grouped[key] = SpanJudgmentRow(
            item=row["item"],
            systems=[row["system"]],
            seg_id=row["seg_id"] or str(row["segment_index"] + 1),
            judge=row["judge"],
            score=row["score"],
            text=row["text"],
            spans=row.get("spans", []),
            screen=row["screen"],
            reused=row["reused"],
            comment=row["comment"],
        )
    rows = list(grouped.values())
    pages = max(1, -(-len(rows) // SPAN_ROWS_PER_PAGE))
    page = min(max(1, page), pages)
    start = (page - 1) * SPAN_ROWS_PER_PAGE
    return SpanJudgmentPage(
        rows=rows[start : start + SPAN_ROWS_PER_PAGE],
        total=len(rows),
        page=page,
        pages=pages,
        agreement=campaign_span_agreement(campaign=campaign, rows=every),
    )


# ---------------------------------------------------------------- post-editing


@dataclass(frozen=True)
class TargetedSegment:
    """One (segment, system) of a post-editing campaign: the system's candidate and its
    post-edits (targeted references), one per judge who post-edited it."""

    system: str
    segment_index: int
    seg_id: str
    doc_id: str
    candidate: str
    post_edits: tuple[str, ...]
    judges: tuple[str, ...]


def campaign_targeted_references(*, campaign: Campaign) -> list[TargetedSegment]:
    """Per (segment, system), the post-edits of a post-editing campaign: the targeted
    references HTER is computed against. An item shared by several systems (the same output)
    gives each of them the same post-edits. Translations from scratch, planted repeats and
    bad references are left out (they are not edits of the system's candidate); a (segment,
    system) without a post-edit is absent. Sorted by system, then segment index."""
    if not campaign.is_postedit:
        return []
    owners = _item_owners(campaign)
    found: dict[tuple[str, int], dict[str, Any]] = {}
    rows = (
        PostEdit.objects.filter(
            judgment__assigned_item__assignment__campaign=campaign,
            from_scratch=False,
            judgment__assigned_item__is_repeat=False,
            judgment__assigned_item__item__kind=Item.Kind.CANDIDATE,
        )
        .order_by("judgment__assigned_item__assignment__judge__username")
        .values_list(
            "text",
            "judgment__assigned_item__item_id",
            "judgment__assigned_item__item__text",
            "judgment__assigned_item__item__segment__index",
            "judgment__assigned_item__item__segment__seg_id",
            "judgment__assigned_item__item__segment__doc_id",
            "judgment__assigned_item__assignment__judge__username",
        )
    )
    for text, item_id, candidate, index, seg_id, doc_id, judge in rows:
        for system in owners.get(item_id, []):
            entry = found.setdefault(
                (system, index),
                {
                    "system": system,
                    "segment_index": index,
                    "seg_id": seg_id,
                    "doc_id": doc_id,
                    "candidate": candidate,
                    "post_edits": [],
                    "judges": [],
                },
            )
            entry["post_edits"].append(text)
            entry["judges"].append(judge)
    return [
        TargetedSegment(
            **{**entry, "post_edits": tuple(entry["post_edits"]), "judges": tuple(entry["judges"])}
        )
        for _, entry in sorted(found.items())
    ]


def targeted_fingerprint(targeted: Iterable[TargetedSegment]) -> str:
    """The fingerprint of a campaign's targeted references (``pev:`` of HTER signatures)."""
    from metrics.core.hter import postedits_fingerprint

    return postedits_fingerprint(
        (segment.system, segment.segment_index, segment.post_edits) for segment in targeted
    )


@dataclass(frozen=True)
class PostEditSystemRow:
    """Per system: its post-edits, HTER, post-editing time per word, relative efficiency."""

    name: str
    post_edits: int
    segments: int
    hter: float | None
    """Corpus HTER in percent: summed edits over summed (average) post-edit lengths."""
    mean_sentence_hter: float | None
    timing: Timing
    efficiency: float | None


@dataclass(frozen=True)
class PostEditPanel:
    systems: list[PostEditSystemRow]
    scratch: Timing
    signature: str


def postedit_panel(*, campaign: Campaign) -> PostEditPanel | None:
    """The campaign page's post-editing figures (``judging.postedit``): per system the number
    of post-edits, HTER against them (``metrics.core.hter``, TER with tercom's defaults), the
    active time per word post-editing, and the relative efficiency when items were translated
    from scratch. None for another protocol."""
    if not campaign.is_postedit:
        return None
    from metrics.core.hter import hter  # the pure measure library; loaded on this page only

    targeted = campaign_targeted_references(campaign=campaign)
    version = targeted_fingerprint(targeted)
    by_system: dict[str, list[TargetedSegment]] = defaultdict(list)
    for segment in targeted:
        by_system[segment.system].append(segment)
    owners = _item_owners(campaign)
    work: dict[str, list[tuple[int, str]]] = defaultdict(list)
    scratch_rows: list[tuple[int, str]] = []
    for item_id, active_ms, text, scratch in PostEdit.objects.filter(
        judgment__assigned_item__assignment__campaign=campaign,
        judgment__assigned_item__is_repeat=False,
        judgment__assigned_item__item__kind=Item.Kind.CANDIDATE,
    ).values_list(
        "judgment__assigned_item__item_id", "judgment__active_ms", "text", "from_scratch"
    ):
        if scratch:
            scratch_rows.append((active_ms, text))
            continue
        for system in owners.get(item_id, []):
            work[system].append((active_ms, text))
    scratch = timing(scratch_rows)
    names = sorted(set(campaign.systems.values_list("name", flat=True)) | set(by_system))
    rows = []
    signature = ""
    for name in names:
        segments = by_system.get(name, [])
        spent = timing(work.get(name, []))
        score = mean = None
        if segments:
            result = hter(
                [segment.candidate for segment in segments],
                [list(segment.post_edits) for segment in segments],
                source=campaign.name,
                version=version,
            )
            score = result.score
            mean = sum(result.sentences) / len(result.sentences)
            signature = signature or str(result.signature)
        rows.append(
            PostEditSystemRow(
                name=name,
                post_edits=sum(len(segment.post_edits) for segment in segments),
                segments=len(segments),
                hter=score,
                mean_sentence_hter=mean,
                timing=spent,
                efficiency=relative_efficiency(scratch, spent),
            )
        )
    return PostEditPanel(systems=rows, scratch=scratch, signature=signature)
