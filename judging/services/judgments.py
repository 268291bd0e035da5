"""Writes on judgments: a judge submits the scores of one screen (first time or revision).

Submitting is idempotent: every rendered screen carries a signed token, and scores that
arrive again with the token that last wrote them (a double click, a retry after a network
error) change nothing. A new token on a judged item is a revision: the old score goes to
JudgmentRevision. Rows of the screen are locked (SELECT … FOR UPDATE) so concurrent
submissions of one screen are applied one after the other; the unique constraint on
(assigned item, aspect) is the last line of defence.

Error spans (MQM, ESA) come with the screen as ``spans``: each is checked against the judged
text and the campaign's categories (``judging.spans``) before anything is written, so a bad
span stores nothing. An MQM judgment's score is computed here from its spans (the MQM score
x100, ``judging.spans.mqm_stored``), whatever the page sent; an ESA judgment's score is the
slider's. A revision replaces the spans; the superseded score is kept in JudgmentRevision, as
for every protocol, and the superseded spans with it (``JudgmentRevision.superseded``).

Post-editing: the screen sends ``postedits`` (assigned item id -> the edited text) for every
item of the screen; each is cleaned and checked (``judging.postedit.postedit_clean``: one line,
not empty, not too long) before anything is written, so an empty post-edit stores nothing.
The judgment's score is 0; the text goes to ``PostEdit`` with ``from_scratch`` as the screen
showed it (``judging.postedit.is_from_scratch``). A revision replaces the text, and keeps the
superseded one in ``JudgmentRevision.superseded``.

Comments (campaigns with a comment box, every protocol): the screen sends ``comments``
(assigned item id -> the judge's optional text). Each is checked (at most
:data:`~judging.models.COMMENT_MAX_LENGTH` characters after trimming) before anything is
written, so a too long comment stores nothing, neither the comment nor the scores. The comment
belongs to the item on the judge's screen (``AssignedItem.comment``); a later submission of the
screen replaces it (empty: no comment). A campaign without a comment box ignores comments.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from ..models import (
    COMMENT_MAX_LENGTH,
    Aspect,
    AssignedItem,
    Assignment,
    Campaign,
    ErrorSpan,
    Judgment,
    JudgmentRevision,
    PostEdit,
)
from ..postedit import PostEditError, is_from_scratch, postedit_clean
from ..spans import Span, SpanError, mqm_stored, spans_validate
from ..tokens import BadToken, screen_token_read

ERROR_BAD_TOKEN = "This page is out of date; reload it and score again."
ERROR_NO_SCREEN = "There is no such screen in this assignment."
ERROR_FOREIGN_ITEM = "A score names an item that is not on this screen."
ERROR_UNKNOWN_ASPECT = "A score names an aspect that this campaign does not judge."
ERROR_BAD_SCORE = "{value!r} is not a level of {aspect}."
ERROR_BAD_SLIDER_SCORE = "{value!r} is not a score of {aspect} ({low}–{high})."
ERROR_NO_SCORES = "Choose a level for every question before submitting."
ERROR_REFERENCE_TOO_EARLY = "{aspect} is judged after the aspects judged without the reference."
ERROR_CAMPAIGN_CLOSED = "This campaign is closed; judgments can no longer change."
ERROR_BAD_RANK = "{value!r} is not a rank: rank each translation from 1 (best) to 5 (worst)."
ERROR_UNRANKED = "Rank every translation on the screen ({missing} of {total} not ranked)."
ERROR_COMMENT_TOO_LONG = (
    "A comment is at most {maximum:,} characters; {which} has {length:,}. "
    "Shorten it and submit again: nothing was saved."
)
ERROR_COMMENT_NOT_TEXT = "A comment must be text."
ERROR_NO_SPANS = "The page sent no error spans; mark the errors (or none) and submit again."

# A screen's active time can never exceed the wall time since it was rendered; this slack
# absorbs clock granularity between the page's timer and the server.
ACTIVE_MS_SLACK = 1000


class JudgingError(ValueError):
    """A submission that cannot be stored; the message is for the judge."""


@dataclass(frozen=True)
class SubmitResult:
    created: int
    revised: int
    unchanged: int


def _token_read(token: str, assignment: Assignment, screen: int) -> tuple[str, int]:
    try:
        return screen_token_read(token, assignment_id=assignment.pk, screen=screen)
    except BadToken as error:
        raise JudgingError(ERROR_BAD_TOKEN) from error


@transaction.atomic
def screen_submit(
    *,
    assignment: Assignment,
    screen: int,
    scores: dict[tuple[int, str], int],
    active_ms: int,
    token: str,
    spans: dict[int, object] | None = None,
    postedits: dict[int, object] | None = None,
    comments: dict[int, object] | None = None,
) -> SubmitResult:
    """Store the scores of one screen of an assignment.

    Args:
        assignment: the judge's assignment (the caller has checked it is theirs).
        screen: the screen number the scores belong to.
        scores: ``(assigned item id, aspect name) -> level`` (for a slider, any integer
            between its ends, e.g. 0-100).
        active_ms: visible, non-idle time the judge spent on this rendering of the screen;
            capped at the wall time since rendering, and split evenly over the scores.
        token: the screen token the page was rendered with.
        spans: MQM/ESA: ``assigned item id -> its error spans as sent`` (a list of dicts,
            ``judging.spans``; an empty list: no errors), for every item of the screen.
        postedits: post-editing: ``assigned item id -> the post-edited text`` for every item
            of the screen.
        comments: campaigns with a comment box: ``assigned item id -> the judge's comment``
            (optional; empty removes it); ignored by a campaign without the box.

    Raises:
        JudgingError: unknown screen, item, aspect or level, an out-of-date token, adequacy
            before fluency in the sequential order, a closed campaign, or (MQM/ESA) missing or
            invalid spans, (post-editing) a missing, empty or too long post-edit, or a comment
            longer than 1,000 characters.
    """
    nonce, elapsed_ms = _token_read(token, assignment, screen)
    campaign = assignment.campaign
    if campaign.status == Campaign.Status.CLOSED:
        raise JudgingError(ERROR_CAMPAIGN_CLOSED)
    if campaign.protocol == Campaign.Protocol.MQM or campaign.is_postedit:
        scores = {}  # MQM scores come from the spans; a post-edit has none.
    elif not scores and not campaign.has_spans:
        raise JudgingError(ERROR_NO_SCORES)
    # Lock the screen's rows first: a second request for the same screen waits here.
    placed = {
        row.pk: row
        for row in AssignedItem.objects.select_for_update().filter(
            assignment=assignment, screen=screen
        )
    }
    if not placed:
        raise JudgingError(ERROR_NO_SCREEN)
    aspects = {aspect.name: aspect for aspect in campaign.aspects.all()}
    marked: dict[int, list[Span]] = {}
    if campaign.has_spans:
        marked = _validate_spans(campaign, spans or {}, placed)
        scores = _span_scores(campaign, scores, marked, aspects)
        if not scores:
            raise JudgingError(ERROR_NO_SCORES)
    edited: dict[int, tuple[str, bool]] = {}
    if campaign.is_postedit:
        edited = _validate_postedits(campaign, postedits or {}, placed)
        name = next(iter(aspects))
        scores = {(assigned_id, name): 0 for assigned_id in edited}
    if campaign.protocol == Campaign.Protocol.RANKING:
        _validate_ranking(scores, placed, aspects)
    _validate(scores, placed, aspects)
    noted = _validate_comments(comments or {}, placed) if campaign.comment_box else {}
    existing = {
        (judgment.assigned_item_id, judgment.aspect.name): judgment
        for judgment in Judgment.objects.filter(assigned_item__in=placed.values()).select_related(
            "aspect"
        )
    }
    if campaign.aspect_order == Campaign.AspectOrder.SEQUENTIAL:
        _check_order(scores, aspects, existing)
    shares = _split(min(max(0, active_ms), elapsed_ms + ACTIVE_MS_SLACK), len(scores))
    now = timezone.now()
    counts = {"created": 0, "revised": 0, "unchanged": 0}
    for (key, score), share in zip(sorted(scores.items()), shares, strict=True):
        judgment = existing.get(key)
        item_spans = marked.get(key[0])
        item_edit = edited.get(key[0])
        if judgment is None:
            judgment = Judgment.objects.create(
                assigned_item=placed[key[0]],
                aspect=aspects[key[1]],
                protocol=campaign.protocol,
                score=score,
                active_ms=share,
                submission_token=nonce,
                created_at=now,
                updated_at=now,
            )
            if item_spans:
                _store_spans(judgment, item_spans)
            if item_edit:
                PostEdit.objects.create(
                    judgment=judgment, text=item_edit[0], from_scratch=item_edit[1]
                )
            counts["created"] += 1
        elif judgment.submission_token == nonce:
            counts["unchanged"] += 1
        else:
            counts[_revise(judgment, score, share, nonce, now, item_spans, item_edit)] += 1
    for assigned_id, comment in noted.items():
        if placed[assigned_id].comment != comment:
            AssignedItem.objects.filter(pk=assigned_id).update(comment=comment)
    _mark_completed(list(placed.values()), len(aspects), now)
    return SubmitResult(**counts)


def comment_clean(value: object) -> str:
    """A comment as stored: trimmed, line breaks as ``\n``, no NUL characters.

    Raises:
        JudgingError: not text.
    """
    if value is None:
        return ""
    if not isinstance(value, str):
        raise JudgingError(ERROR_COMMENT_NOT_TEXT)
    return value.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "").strip()


def _validate_comments(
    comments: dict[int, object], placed: dict[int, AssignedItem]
) -> dict[int, str]:
    """The comments sent, cleaned and checked, for items of this screen only."""
    if set(comments) - set(placed):
        raise JudgingError(ERROR_FOREIGN_ITEM)
    cleaned = {}
    ordered = sorted(placed.values(), key=lambda row: row.position)
    for number, row in enumerate(ordered):
        if row.pk not in comments:
            continue
        text = comment_clean(comments[row.pk])
        if len(text) > COMMENT_MAX_LENGTH:
            which = (
                f"the comment on translation {chr(ord('A') + number)}"
                if len(placed) > 1 and number < 26
                else "the comment"
            )
            raise JudgingError(
                ERROR_COMMENT_TOO_LONG.format(
                    maximum=COMMENT_MAX_LENGTH, which=which, length=len(text)
                )
            )
        cleaned[row.pk] = text
    return cleaned


def _validate_spans(
    campaign: Campaign, spans: dict[int, object], placed: dict[int, AssignedItem]
) -> dict[int, list[Span]]:
    """Every item of the screen has its spans, each inside its text with a known category
    (MQM) and severity."""
    if set(spans) - set(placed):
        raise JudgingError(ERROR_FOREIGN_ITEM)
    categories = campaign.error_categories if campaign.protocol == Campaign.Protocol.MQM else None
    marked = {}
    for assigned_id, row in placed.items():
        if assigned_id not in spans:
            raise JudgingError(ERROR_NO_SPANS)
        try:
            marked[assigned_id] = spans_validate(
                spans[assigned_id], text=row.item.text, categories=categories
            )
        except SpanError as error:
            raise JudgingError(str(error)) from error
    return marked


def _validate_postedits(
    campaign: Campaign, postedits: dict[int, object], placed: dict[int, AssignedItem]
) -> dict[int, tuple[str, bool]]:
    """Every item of the screen has its post-edit, cleaned; with whether it was made from
    scratch (as the screen showed it)."""
    if set(postedits) - set(placed):
        raise JudgingError(ERROR_FOREIGN_ITEM)
    edited = {}
    for assigned_id in placed:
        try:
            text = postedit_clean(postedits.get(assigned_id))
        except PostEditError as error:
            raise JudgingError(str(error)) from error
        scratch = is_from_scratch(
            seed=campaign.seed, assigned_item_id=assigned_id, share=campaign.scratch_share
        )
        edited[assigned_id] = (text, scratch)
    return edited


def _span_scores(
    campaign: Campaign,
    scores: dict[tuple[int, str], int],
    marked: dict[int, list[Span]],
    aspects: dict[str, Aspect],
) -> dict[tuple[int, str], int]:
    """MQM: each item's score from its spans; ESA: the sliders as sent."""
    if campaign.protocol != Campaign.Protocol.MQM:
        return scores
    name = next(iter(aspects))
    return {(assigned_id, name): mqm_stored(spans) for assigned_id, spans in marked.items()}


def _store_spans(judgment: Judgment, spans: list[Span]) -> None:
    ErrorSpan.objects.bulk_create(
        ErrorSpan(
            judgment=judgment,
            start=span.start,
            end=span.end,
            category=span.category,
            severity=span.severity,
            note=span.note,
        )
        for span in spans
    )


def _stored_spans(judgment: Judgment) -> list[Span]:
    return [
        Span(row.start, row.end, row.severity, row.category, row.note)
        for row in judgment.spans.all()
    ]


def _validate(
    scores: dict[tuple[int, str], int], placed: dict[int, AssignedItem], aspects: dict[str, Aspect]
) -> None:
    for (assigned_id, aspect_name), value in scores.items():
        if assigned_id not in placed:
            raise JudgingError(ERROR_FOREIGN_ITEM)
        if aspect_name not in aspects:
            raise JudgingError(ERROR_UNKNOWN_ASPECT)
        aspect = aspects[aspect_name]
        if aspect.accepts(value):
            continue
        if aspect.is_slider:
            raise JudgingError(
                ERROR_BAD_SLIDER_SCORE.format(
                    value=value, aspect=aspect, low=aspect.minimum, high=aspect.maximum
                )
            )
        raise JudgingError(ERROR_BAD_SCORE.format(value=value, aspect=aspect))


def _validate_ranking(
    scores: dict[tuple[int, str], int], placed: dict[int, AssignedItem], aspects: dict[str, Aspect]
) -> None:
    """A ranking is one decision about all the screen's candidates: every one of them gets a
    rank, in the same submission, so a half-ranked screen never reaches the comparisons."""
    for (assigned_id, aspect_name), value in scores.items():
        if assigned_id not in placed:
            raise JudgingError(ERROR_FOREIGN_ITEM)
        if aspect_name not in aspects:
            raise JudgingError(ERROR_UNKNOWN_ASPECT)
        if not aspects[aspect_name].accepts(value):
            raise JudgingError(ERROR_BAD_RANK.format(value=value))
    wanted = {(assigned_id, name) for assigned_id in placed for name in aspects}
    missing = len(wanted - set(scores))
    if missing:
        raise JudgingError(ERROR_UNRANKED.format(missing=missing, total=len(wanted)))


def _check_order(
    scores: dict[tuple[int, str], int],
    aspects: dict[str, Aspect],
    existing: dict[tuple[int, str], Judgment],
) -> None:
    """LDC practice: the reference is revealed only after the aspects judged without it."""
    blind = [name for name, aspect in aspects.items() if not aspect.needs_reference]
    for assigned_id, aspect_name in scores:
        if not aspects[aspect_name].needs_reference:
            continue
        for name in blind:
            if (assigned_id, name) not in existing and (assigned_id, name) not in scores:
                raise JudgingError(ERROR_REFERENCE_TOO_EARLY.format(aspect=aspects[aspect_name]))


def _revise(
    judgment: Judgment,
    score: int,
    share: int,
    nonce: str,
    now: datetime,
    spans: list[Span] | None = None,
    postedit: tuple[str, bool] | None = None,
) -> str:
    """Apply a new submission to a judged item; keep the old score when it changes. With
    ``spans`` (MQM, ESA), the judgment's spans are replaced when they changed; with
    ``postedit`` (text, from scratch), the post-edit's text when it changed."""
    changed = judgment.score != score
    superseded: dict[str, Any] = {}
    if postedit is not None:
        stored, _ = PostEdit.objects.get_or_create(
            judgment=judgment, defaults={"text": postedit[0], "from_scratch": postedit[1]}
        )
        if stored.text != postedit[0]:
            superseded["post_edit"] = {"text": stored.text, "from_scratch": stored.from_scratch}
            stored.text = postedit[0]
            stored.save(update_fields=["text"])
            changed = True
    if spans is not None:
        old = sorted(
            _stored_spans(judgment), key=lambda s: (s.start, s.end, s.category, s.severity)
        )
        if old != spans:
            superseded["spans"] = [span.as_dict() for span in old]
            judgment.spans.all().delete()
            _store_spans(judgment, spans)
            changed = True
    if changed:
        JudgmentRevision.objects.create(
            judgment=judgment,
            score=judgment.score,
            active_ms=judgment.active_ms,
            judged_at=judgment.updated_at,
            replaced_at=now,
            superseded=superseded,
        )
        judgment.revision_count += 1
    judgment.score = score
    judgment.active_ms += share
    judgment.submission_token = nonce
    judgment.updated_at = now
    judgment.save(
        update_fields=["score", "active_ms", "submission_token", "updated_at", "revision_count"]
    )
    return "revised" if changed else "unchanged"


def _mark_completed(rows: list[AssignedItem], aspect_count: int, now: datetime) -> None:
    open_rows = [row.pk for row in rows if row.completed_at is None]
    if not open_rows:
        return
    judged: dict[int, int] = {}
    for assigned_id in Judgment.objects.filter(assigned_item_id__in=open_rows).values_list(
        "assigned_item_id", flat=True
    ):
        judged[assigned_id] = judged.get(assigned_id, 0) + 1
    done = [pk for pk in open_rows if judged.get(pk, 0) >= aspect_count]
    if done:
        AssignedItem.objects.filter(pk__in=done).update(completed_at=now)


def _split(total: int, parts: int) -> list[int]:
    """``total`` in ``parts`` integer shares that add up to it exactly."""
    base, rest = divmod(total, parts)
    return [base + (1 if index < rest else 0) for index in range(parts)]
