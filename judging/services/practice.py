"""The practice phase of an assignment: its screens (built from the campaign's data by
``judging.practice``), the judge's graded answers, skipping it.

Practice answers never become judgments: the grade and the feedback of each practice screen go
to ``Assignment.practice_answers``, the count of matched answers to ``practice_matched``, the
end of the phase to ``practice_done_at``. Progress, quality control, time estimates, human
scores and exports read judgments only, so practice counts in none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from evaltrans.corpora.models import Candidate, Reference

from ..badrefs import is_character_based
from ..models import Aspect, AssignedItem, Assignment, Campaign, Item
from ..postedit import PostEditError, postedit_clean
from ..practice import (
    Answer,
    Feedback,
    PracticeError,
    PracticeScreen,
    SegmentTexts,
    grade,
    practice_plan,
    practice_pool,
)
from ..selectors import Cell, Entry, Progress, Screen
from ..spans import SpanError, spans_validate
from ..tokens import screen_token_new

POOL_SIZE = 60
"""Segments whose texts are read for the practice plan, besides one per practice screen."""
ERROR_NO_SUCH_SCREEN = "There is no such practice screen."
ERROR_EARLIER_FIRST = "Answer the earlier practice screens first."
ERROR_NOT_A_SCORE = "{value} is not a score of {label}."
ERROR_NOT_SKIPPABLE = "This campaign asks every judge to do the practice screens."


@dataclass(frozen=True)
class PracticeInfo:
    """What a practice screen adds to a judging screen."""

    number: int
    """0-based."""
    count: int
    skippable: bool

    @property
    def position(self) -> int:
        return self.number + 1


def practice_pending(assignment: Assignment) -> bool:
    """Whether the judge has practice to do before the real items (no query)."""
    return (
        assignment.campaign.practice != Campaign.Practice.OFF
        and assignment.practice_done_at is None
    )


def _shows_reference(aspects: list[Aspect]) -> bool:
    return any(aspect.needs_reference for aspect in aspects)


def practice_plan_for(campaign: Campaign) -> list[PracticeScreen]:
    """The campaign's practice screens (the same for every judge of the campaign). Only the
    texts of a seeded pool of segments are read (``judging.practice.practice_pool``), however
    large the test set."""
    test_set = campaign.test_set
    aspects = list(campaign.aspects.all())
    shown = _shows_reference(aspects)
    judged = set(
        Item.objects.filter(campaign=campaign).values_list("segment_id", flat=True).distinct()
    )
    rows = list(test_set.segments.order_by("index").values_list("pk", "index"))
    pool = set(
        practice_pool(
            [(index, pk in judged) for pk, index in rows],
            seed=campaign.seed,
            size=POOL_SIZE + campaign.practice_screens,
        )
    )
    ids = [pk for pk, index in rows if index in pool]
    labels: dict[int, dict[str, str]] = {}
    for segment_id, label, text in (
        Reference.objects.filter(segment_id__in=ids)
        .order_by("label", "pk")
        .values_list("segment_id", "label", "text")
    ):
        labels.setdefault(segment_id, {}).setdefault(label, text)
    candidates: dict[int, list[str]] = {}
    for segment_id, text in (
        Candidate.objects.filter(segment_id__in=ids, system__in=campaign.systems.all())
        .order_by("segment__index", "system__name")
        .values_list("segment_id", "text")
    ):
        candidates.setdefault(segment_id, []).append(text)
    # Segments are named by their place in the test set, not their database id: the same
    # test set, seed and settings give the same practice wherever the campaign is created.
    chosen = campaign.reference_label or next(
        (label for by_label in labels.values() for label in sorted(by_label)), ""
    )
    segments = []
    for segment_id, index, source in (
        test_set.segments.filter(pk__in=ids).order_by("index").values_list("pk", "index", "source")
    ):
        by_label = labels.get(segment_id, {})
        reference = by_label.get(chosen, "")
        # Next to the shown reference, a known-good text is a second reference when there is
        # one (the same sentence twice on one screen teaches little).
        others = [text for label, text in sorted(by_label.items()) if label != chosen]
        good = others[0] if shown and others else reference
        segments.append(
            SegmentTexts(
                segment=index,
                source=source,
                reference=reference if shown else "",
                good=good,
                candidates=tuple(candidates.get(segment_id, ())),
                judged=segment_id in judged,
            )
        )
    donors = [
        (row.segment, row.reference or row.good or (row.candidates[0] if row.candidates else ""))
        for row in segments
    ]
    return practice_plan(
        protocol=campaign.protocol,
        segments=segments,
        donors=donors,
        seed=campaign.seed,
        count=campaign.practice_screens,
        per_screen=campaign.candidates_per_screen,
        character_based=is_character_based(test_set.target_lang),
    )


def practice_screen_detail(
    *, assignment: Assignment, number: int, plan: list[PracticeScreen]
) -> Screen:
    """The judging screen of practice screen ``number`` (0-based): the real screen's template
    and scripts, every aspect asked at once, no document context."""
    campaign = assignment.campaign
    practice = plan[number]
    aspects = list(campaign.aspects.all())
    entries = []
    for place, text in enumerate(practice.texts, start=1):
        cells = [
            Cell(name=f"score-{place}-{aspect.name}", aspect=aspect, value=None)
            for aspect in aspects
            if not aspect.is_spans and aspect.kind != Aspect.Kind.POSTEDIT
        ]
        label = chr(ord("A") + place - 1) if len(practice.texts) > 1 else str(place)
        entries.append(
            Entry(
                assigned=AssignedItem(pk=place, assignment=assignment),
                label=label,
                text=text.text,
                cells=cells,
                postedit=text.text,
            )
        )
    shown = _shows_reference(aspects)
    answered = len(assignment.practice_answers or [])
    return Screen(
        campaign=campaign,
        assignment=assignment,
        number=number,
        progress=Progress(done=answered, total=len(plan), screens=len(plan), active_ms=0),
        stage="all" if shown else "blind",
        revisit=False,
        source=practice.source if campaign.show_source else "",
        reference=practice.reference if shown else "",
        context_before=[],
        context_after=[],
        entries=entries,
        aspects=aspects,
        all_aspects=aspects,
        token=screen_token_new(assignment_id=assignment.pk, screen=-1 - number),
        practice=PracticeInfo(
            number=number,
            count=len(plan),
            skippable=campaign.practice == Campaign.Practice.OFFERED,
        ),
    )


def scale_of(aspect: Aspect) -> dict[str, Any]:
    return {
        "name": aspect.name,
        "label": aspect.label,
        "kind": aspect.kind,
        "levels": aspect.levels,
        "perfect": aspect.perfect,
    }


def _checked(campaign: Campaign, screen: PracticeScreen, answer: Answer) -> Answer:
    """The answer with its spans and post-edits checked as a real screen's are."""
    aspects = {aspect.name: aspect for aspect in campaign.aspects.all()}
    for (_, name), value in answer.scores.items():
        aspect = aspects.get(name)
        if aspect is None or not aspect.accepts(value) or aspect.is_spans:
            label = aspect.label if aspect else name
            raise PracticeError(ERROR_NOT_A_SCORE.format(value=value, label=label))
    spans = {}
    if campaign.has_spans:
        categories = (
            campaign.error_categories if campaign.protocol == Campaign.Protocol.MQM else None
        )
        for place, raw in answer.spans.items():
            if not 1 <= place <= len(screen.texts):
                raise PracticeError(ERROR_NO_SUCH_SCREEN)
            try:
                checked = spans_validate(
                    raw, text=screen.texts[place - 1].text, categories=categories
                )
            except SpanError as error:
                raise PracticeError(str(error)) from error
            spans[place] = [span.as_dict() for span in checked]
    postedits = {}
    if campaign.is_postedit:
        for place, raw in answer.postedits.items():
            try:
                postedits[place] = postedit_clean(raw)
            except PostEditError as error:
                raise PracticeError(str(error)) from error
    return Answer(scores=dict(answer.scores), spans=spans, postedits=postedits)


@transaction.atomic
def practice_answer_record(
    *, assignment: Assignment, number: int, answer: Answer, plan: list[PracticeScreen]
) -> Feedback:
    """Grade the answer of practice screen ``number`` (0-based) and keep the grade and
    feedback on the assignment (answering a screen again replaces its grade: a double submit
    changes nothing). After the last screen the phase is done.

    Raises:
        PracticeError: no such screen, an earlier one unanswered, or an answer that is
            incomplete or invalid (nothing is stored).
    """
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    campaign = assignment.campaign
    if not 0 <= number < len(plan):
        raise PracticeError(ERROR_NO_SUCH_SCREEN)
    answers = list(locked.practice_answers or [])
    if number > len(answers):
        raise PracticeError(ERROR_EARLIER_FIRST)
    screen = plan[number]
    feedback = grade(
        protocol=campaign.protocol,
        screen=screen,
        scales=[scale_of(aspect) for aspect in campaign.aspects.all()],
        answer=_checked(campaign, screen, answer),
    )
    record = feedback.as_dict()
    if number < len(answers):
        answers[number] = record
    else:
        answers.append(record)
    locked.practice_answers = answers
    locked.practice_matched = sum(1 for row in answers if row.get("matched"))
    fields = ["practice_answers", "practice_matched"]
    if len(answers) >= len(plan) and locked.practice_done_at is None:
        locked.practice_done_at = timezone.now()
        fields.append("practice_done_at")
    locked.save(update_fields=fields)
    assignment.practice_answers = locked.practice_answers
    assignment.practice_matched = locked.practice_matched
    assignment.practice_done_at = locked.practice_done_at
    return feedback


def practice_finish(*, assignment: Assignment, skipped: bool = False) -> None:
    """End the practice phase: after its last screen, when the campaign's data gives no
    practice screen, or skipped by the judge (a campaign offering it).

    Raises:
        PracticeError: skipping a required practice phase.
    """
    if skipped and assignment.campaign.practice != Campaign.Practice.OFFERED:
        raise PracticeError(ERROR_NOT_SKIPPABLE)
    if assignment.practice_done_at is not None:
        return
    assignment.practice_done_at = timezone.now()
    assignment.practice_skipped = skipped
    Assignment.objects.filter(pk=assignment.pk, practice_done_at__isnull=True).update(
        practice_done_at=assignment.practice_done_at, practice_skipped=skipped
    )
