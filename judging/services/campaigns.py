"""Writes on campaigns: create a campaign with its items and every judge's assignment.

The protocol decides the scales' kind (categorical levels, 0-100 sliders for direct
assessment, the 1-5 rank for relative ranking, error spans scored by the MQM weights for MQM,
error spans and a 0-100 slider for ESA) and its defaults (:data:`PROTOCOL_DEFAULTS`);
everything else (items, assignment, repeats, QC, timing, exports) is the same machinery for
every protocol.

Relative ranking groups the distinct outputs (items) of one source into screens of at most
``candidates_per_screen``: the items, shuffled with the campaign's seed and the segment, are
cut into the fewest screens that hold them, as even as possible (7 outputs, 5 per screen: 4 and
3). Each screen is a unit of the assignment: all its judges rank all its candidates, so every
pair on it is compared by ``judges_per_item`` judges. A source with a single distinct output has
nothing to rank and is left out; so is, with 2 per screen and an odd number of outputs, the one
output that would be alone on a screen (the seed decides which; WMT sampled 5 of all systems
per screen, so it never covered every pair either).
"""

from __future__ import annotations

import random
import secrets
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q

from evaltrans.corpora.models import Candidate, Reference, System, TestSet

from ..assignment import Plan, PlanError, PlanItem, PlannedScreen, plan_assignments
from ..badrefs import bad_reference, is_character_based
from ..models import Aspect, AssignedItem, Assignment, Campaign, Item, Judgment, text_key
from ..practice import DEFAULT_SCREENS as DEFAULT_PRACTICE_SCREENS
from ..scales import (
    KIND_LEVELS,
    KIND_POSTEDIT,
    KIND_SLIDER,
    KIND_SPANS,
    da_scales,
    default_scales,
    esa_scales,
    is_rank_scale,
    mqm_scales,
    postedit_scales,
    ranking_scales,
    scale_validate,
)
from ..spans import SpanError, categories_validate, default_categories

ERROR_NO_SYSTEMS = "Choose at least one system (or the reference as a system) to judge."
ERROR_NO_JUDGES = "Choose at least one judge."
ERROR_FOREIGN_SYSTEM = "System {name!r} is not part of test set {test_set}."
ERROR_NO_REFERENCE = "Test set {test_set} has no reference labelled {label!r}."
ERROR_REFERENCE_NAME_CLASH = (
    "The reference {label!r} cannot be judged as a system: a system has that name."
)
ERROR_NO_ASPECTS = "A campaign needs at least one aspect."
ERROR_DUPLICATE_ASPECT = "Aspect {name!r} is defined twice."
ERROR_NOTHING_TO_JUDGE = "The chosen systems have no candidates in this test set."
ERROR_UNKNOWN_PROTOCOL = "Unknown protocol {protocol!r}."
ERROR_PROTOCOL_SCALES = "A {protocol} campaign judges on {kind} scales; scale {name!r} is not one."
ERROR_RANKING_SCALES = "A ranking campaign ranks 1 (best) to 5 (worst); it takes no other scale."
ERROR_RANKING_REUSE = (
    "A rank holds only among the candidates it was given with: ranking campaigns do not reuse "
    "judgments."
)
ERROR_RANKING_BAD_REFERENCES = "Bad references are a direct-assessment check; ranking has none."
ERROR_RANKING_PER_SCREEN = "Rank 2 to 5 candidates per screen, not {value}."
ERROR_NOTHING_TO_RANK = (
    "Nothing to rank: no source has two different outputs among the chosen systems "
    "(identical outputs are one candidate)."
)
RANKING_PER_SCREEN = 5
"""WMT 2012-2016 showed 5 outputs per screen."""
ERROR_DA_GROUPED = (
    "Direct assessment shows one candidate per screen (its bad references degrade one "
    "candidate); choose that presentation."
)
ERROR_SPANS_GROUPED = (
    "Error spans are marked in one candidate per screen; choose that presentation."
)
ERROR_SPANS_SCALES = "A {protocol} campaign has its own single aspect; it takes no other scale."
ERROR_POSTEDIT_SCALES = (
    "A post-editing campaign has its own single aspect; it takes no other scale."
)
ERROR_POSTEDIT_GROUPED = "Post-editing shows one candidate per screen; choose that presentation."
ERROR_POSTEDIT_REUSE = (
    "Post-edits are not reused across campaigns: each campaign's post-editors edit afresh."
)
ERROR_POSTEDIT_BAD_REFERENCES = (
    "Bad references are a direct-assessment check; post-editing has none."
)
ERROR_SCRATCH_SHARE = (
    "Translation from scratch is an option of post-editing only, with a share from 0 to 0.5."
)
ERROR_CONTEXT_RANGE = "Show 0 to {maximum} segments of document context, not {count}."
MAX_CONTEXT = 5
SPANS_SAME_LEVEL_SHARE = 1.0
"""MQM/ESA: "no errors" on most segments is normal (4404 of 8889 TED MQM ratings); the
same-level flag is raised only for a judge who gives every item the same score."""
POSTEDIT_SAME_LEVEL_SHARE = 2.0
"""Post-editing: every judgment's score is 0 (the text is what counts), so the same-level
flag can never apply: a share above 1 is never reached."""

DA_BAD_REFERENCE_SHARE = round(10 / 70, 2)
"""WMT's DA HITs of 100 items held 70 system outputs, 10 bad references of them, 10 repeats
and 10 references (Graham et al. 2017; WMT17-WMT22 findings): 10 per 70 candidates."""
DA_REPEAT_SHARE = DA_BAD_REFERENCE_SHARE
PROTOCOL_DEFAULTS: dict[str, dict[str, Any]] = {
    Campaign.Protocol.CATEGORICAL: {
        "scale_kind": KIND_LEVELS,
        "scales": default_scales,
        "bad_reference_share": 0.0,
        "repeat_share": 0.05,
    },
    Campaign.Protocol.DIRECT_ASSESSMENT: {
        "scale_kind": KIND_SLIDER,
        "scales": da_scales,
        "bad_reference_share": DA_BAD_REFERENCE_SHARE,
        "repeat_share": DA_REPEAT_SHARE,
    },
    Campaign.Protocol.RANKING: {
        "scale_kind": KIND_LEVELS,
        "scales": ranking_scales,
        "bad_reference_share": 0.0,
        "repeat_share": 0.05,
    },
    Campaign.Protocol.MQM: {
        "scale_kind": KIND_SPANS,
        "scales": mqm_scales,
        "bad_reference_share": 0.0,
        "repeat_share": 0.05,
    },
    Campaign.Protocol.ESA: {
        "scale_kind": KIND_SLIDER,
        "scales": esa_scales,
        "bad_reference_share": 0.0,
        "repeat_share": 0.05,
    },
    Campaign.Protocol.POST_EDIT: {
        "scale_kind": KIND_POSTEDIT,
        "scales": postedit_scales,
        "bad_reference_share": 0.0,
        "repeat_share": 0.0,
    },
}
"""Per protocol: the kind its scales must have, and what an option left out (None) means."""

# Rows per INSERT: keeps SQLite under its bound-parameter limit and PostgreSQL round trips few.
BATCH = 500


class CampaignError(ValueError):
    """A campaign cannot be created as asked; the message is for users."""


@dataclass
class _ItemDraft:
    """An item before it is stored: its texts' owners and reused judgments."""

    segment_id: int
    text: str
    key: str
    candidate_ids: list[int] = field(default_factory=list)
    reference_id: int | None = None
    reused: list[Judgment] = field(default_factory=list)
    reused_judges: int = 0
    excluded: set[int] = field(default_factory=set)


@transaction.atomic
def campaign_create(
    *,
    name: str,
    test_set: TestSet,
    systems: Sequence[System],
    judges: Sequence[AbstractBaseUser],
    scales: Sequence[dict[str, Any]] | None = None,
    judges_per_item: int = 2,
    presentation: str = Campaign.Presentation.SINGLE,
    aspect_order: str = Campaign.AspectOrder.SEQUENTIAL,
    show_source: bool = True,
    show_context: bool = False,
    context_before: int = 2,
    context_after: int = 1,
    comment_box: bool = False,
    reference_label: str = "",
    reference_as_system: str = "",
    protocol: str = Campaign.Protocol.CATEGORICAL,
    candidates_per_screen: int | None = None,
    error_categories: Sequence[str] | None = None,
    scratch_share: float | None = None,
    repeat_share: float | None = None,
    bad_reference_share: float | None = None,
    reuse_judgments: bool = False,
    segment_sample: int | None = None,
    practice: str = Campaign.Practice.OFF,
    practice_screens: int = DEFAULT_PRACTICE_SCREENS,
    seed: int | None = None,
    created_by: AbstractBaseUser | None = None,
) -> Campaign:
    """Create a campaign, its aspects and items, and assign every item to its judges.

    Identical texts of one segment (two systems with the same output, or an output equal to the
    reference judged as a system) become one item, judged once for all of them. With
    ``reuse_judgments``, judges who scored the same (source, text) in another campaign on the
    same scales (and, for aspects judged with the reference, against the same reference text)
    count towards ``judges_per_item``; nobody is asked again about a text they scored. With
    ``segment_sample``, only that many segments, drawn with the seed, are judged.

    ``protocol`` is categorical (levels) or direct assessment (0-100 sliders, one candidate
    per screen). Left out (None), ``scales``, ``repeat_share`` and ``bad_reference_share``
    take the protocol's defaults (:data:`PROTOCOL_DEFAULTS`: for DA, WMT's adequacy slider
    and 10 repeats and 10 bad references per 70 candidates). A bad reference is a degraded copy
    of a candidate (``judging.badrefs``) planted later in the order of a judge who scores the
    candidate itself.

    ``protocol`` ranking (WMT relative ranking) shows at most ``candidates_per_screen`` (2-5,
    default 5) distinct outputs of one source per screen, ranked 1-5 with ties (module
    docstring); its one scale is the rank (``scales`` None or :func:`~judging.scales.
    ranking_scales`, with or without the reference shown), and it takes no reused judgments
    and no bad references.

    ``protocol`` mqm (error spans with category and severity) and esa (error spans with
    severity, then a 0-100 overall score) show one candidate per screen; their one aspect is
    built in (``mqm`` scored from the spans, ``esa`` the slider). ``error_categories`` is the
    MQM typology judges choose from (default :data:`judging.spans.MQM_TYPOLOGY`, the WMT one);
    ESA has none. The aspect's ``needs_reference`` decides whether the reference is shown with
    the candidate (pass ``mqm_scales(reference=True)``/``esa_scales(reference=True)``).

    ``protocol`` post-edit shows one candidate per screen in a text box to edit into a correct
    translation (``judging.postedit``); its one aspect is built in
    (:func:`~judging.scales.postedit_scales`, with or without the reference shown); no reuse,
    no bad references, no repeats by default. ``scratch_share`` (0-0.5, post-editing only) is
    the share of items translated from scratch instead (the candidate not shown).

    Evaluation settings, for every protocol: ``show_source`` (bilingual judges); the reference
    is shown for the aspects that need it (monolingual judges); neither: the target only.
    ``show_context`` shows ``context_before`` and ``context_after`` (0-5 each) segments of the
    same document around the judged one (``judging.selectors``). ``comment_box`` offers an
    optional comment (at most 1,000 characters) under each item.

    Raises:
        CampaignError: the systems, references, scales, judges or settings do not allow the
            campaign.
    """
    for count in (context_before, context_after):
        if not 0 <= count <= MAX_CONTEXT:
            raise CampaignError(ERROR_CONTEXT_RANGE.format(count=count, maximum=MAX_CONTEXT))
    systems = list(systems)
    judges = list(judges)
    if not systems and not reference_as_system:
        raise CampaignError(ERROR_NO_SYSTEMS)
    if not judges:
        raise CampaignError(ERROR_NO_JUDGES)
    for system in systems:
        if system.test_set_id != test_set.pk:
            raise CampaignError(ERROR_FOREIGN_SYSTEM.format(name=system.name, test_set=test_set))
    if protocol not in PROTOCOL_DEFAULTS:
        raise CampaignError(ERROR_UNKNOWN_PROTOCOL.format(protocol=protocol))
    defaults = PROTOCOL_DEFAULTS[protocol]
    if protocol == Campaign.Protocol.DIRECT_ASSESSMENT and presentation != (
        Campaign.Presentation.SINGLE
    ):
        raise CampaignError(ERROR_DA_GROUPED)
    if protocol == Campaign.Protocol.RANKING:
        candidates_per_screen = _check_ranking(
            scales, reuse_judgments, bad_reference_share, candidates_per_screen
        )
        presentation = Campaign.Presentation.GROUPED
    categories: list[str] = []
    if protocol in (Campaign.Protocol.MQM, Campaign.Protocol.ESA):
        categories, scales = _check_spans(protocol, presentation, scales, error_categories)
    if protocol == Campaign.Protocol.POST_EDIT:
        scales = _check_postedit(
            presentation, scales, reuse_judgments, bad_reference_share, scratch_share
        )
    elif scratch_share:
        raise CampaignError(ERROR_SCRATCH_SHARE)
    cleaned_scales = _clean_scales(scales or defaults["scales"]())
    for scale in cleaned_scales:
        if scale["kind"] != defaults["scale_kind"]:
            raise CampaignError(
                ERROR_PROTOCOL_SCALES.format(
                    protocol=Campaign.Protocol(protocol).label.split(" (")[0].lower(),
                    kind=defaults["scale_kind"],
                    name=scale["name"],
                )
            )
    reference_label = reference_label or _first_reference_label(test_set)
    for label in {reference_label, reference_as_system} - {""}:
        if not Reference.objects.filter(segment__test_set=test_set, label=label).exists():
            raise CampaignError(ERROR_NO_REFERENCE.format(test_set=test_set, label=label))
    if reference_as_system and any(system.name == reference_as_system for system in systems):
        raise CampaignError(ERROR_REFERENCE_NAME_CLASH.format(label=reference_as_system))

    campaign = Campaign(
        name=name,
        test_set=test_set,
        reference_label=reference_label,
        reference_as_system=reference_as_system,
        judges_per_item=judges_per_item,
        presentation=presentation,
        candidates_per_screen=candidates_per_screen or RANKING_PER_SCREEN,
        aspect_order=aspect_order,
        show_source=show_source,
        show_context=show_context,
        context_before=context_before,
        context_after=context_after,
        comment_box=comment_box,
        seed=secrets.randbits(48) if seed is None else seed,
        protocol=protocol,
        repeat_share=defaults["repeat_share"] if repeat_share is None else repeat_share,
        bad_reference_share=(
            defaults["bad_reference_share"] if bad_reference_share is None else bad_reference_share
        ),
        reuse_judgments=reuse_judgments,
        segment_sample=segment_sample,
        created_by=created_by,
        error_categories=categories,
        scratch_share=scratch_share or 0.0,
        practice=practice,
        practice_screens=practice_screens,
    )
    if categories or protocol == Campaign.Protocol.ESA:
        campaign.same_level_share = SPANS_SAME_LEVEL_SHARE
    if protocol == Campaign.Protocol.POST_EDIT:
        campaign.same_level_share = POSTEDIT_SAME_LEVEL_SHARE
    campaign.full_clean()
    campaign.save()
    campaign.systems.set(systems)
    campaign.judges.set(judges)
    aspects = [
        Aspect.objects.create(campaign=campaign, position=position, **scale)
        for position, scale in enumerate(cleaned_scales)
    ]
    drafts = _item_drafts(campaign, systems)
    if not drafts:
        raise CampaignError(ERROR_NOTHING_TO_JUDGE)
    screens = None
    if protocol == Campaign.Protocol.RANKING:
        screens = _ranking_screens(drafts, campaign)
        if not screens:
            raise CampaignError(ERROR_NOTHING_TO_RANK)
        drafts = [draft for screen in screens for draft in screen]
    if reuse_judgments:
        _attach_reusable_judgments(drafts, aspects, campaign)
    items = _store_items(campaign, drafts)
    _store_assignments(campaign, items, drafts, judges, screens)
    return campaign


def _check_spans(
    protocol: str,
    presentation: str,
    scales: Sequence[dict[str, Any]] | None,
    error_categories: Sequence[str] | None,
) -> tuple[list[str], list[dict[str, Any]]]:
    """Refuse what an MQM/ESA campaign cannot do; its categories (none for ESA) and scales."""
    if presentation != Campaign.Presentation.SINGLE:
        raise CampaignError(ERROR_SPANS_GROUPED)
    own = mqm_scales() if protocol == Campaign.Protocol.MQM else esa_scales()
    if scales is not None:
        try:
            cleaned = [scale_validate(scale) for scale in scales]
        except ValueError as error:
            raise CampaignError(ERROR_SPANS_SCALES.format(protocol=protocol.upper())) from error
        if len(cleaned) != 1 or {**cleaned[0], "needs_reference": False} != {
            **scale_validate(own[0]),
            "needs_reference": False,
        }:
            raise CampaignError(ERROR_SPANS_SCALES.format(protocol=protocol.upper()))
        own = cleaned
    if protocol == Campaign.Protocol.ESA:
        return [], own
    try:
        categories = categories_validate(
            default_categories() if error_categories is None else error_categories
        )
    except SpanError as error:
        raise CampaignError(str(error)) from error
    return categories, own


def _check_postedit(
    presentation: str,
    scales: Sequence[dict[str, Any]] | None,
    reuse_judgments: bool,
    bad_reference_share: float | None,
    scratch_share: float | None,
) -> list[dict[str, Any]]:
    """Refuse what a post-editing campaign cannot do; its scales."""
    if presentation != Campaign.Presentation.SINGLE:
        raise CampaignError(ERROR_POSTEDIT_GROUPED)
    if reuse_judgments:
        raise CampaignError(ERROR_POSTEDIT_REUSE)
    if bad_reference_share:
        raise CampaignError(ERROR_POSTEDIT_BAD_REFERENCES)
    if scratch_share is not None and not 0.0 <= scratch_share <= 0.5:
        raise CampaignError(ERROR_SCRATCH_SHARE)
    if scales is None:
        return postedit_scales()
    try:
        cleaned = [scale_validate(scale) for scale in scales]
    except ValueError as error:
        raise CampaignError(ERROR_POSTEDIT_SCALES) from error
    if len(cleaned) != 1 or cleaned[0]["kind"] != KIND_POSTEDIT:
        raise CampaignError(ERROR_POSTEDIT_SCALES)
    return cleaned


def _check_ranking(
    scales: Sequence[dict[str, Any]] | None,
    reuse_judgments: bool,
    bad_reference_share: float | None,
    candidates_per_screen: int | None,
) -> int:
    """Refuse what a ranking campaign cannot do; the candidates per screen to use."""
    if scales is not None:
        try:
            cleaned = [scale_validate(scale) for scale in scales]
        except ValueError as error:
            raise CampaignError(ERROR_RANKING_SCALES) from error
        if len(cleaned) != 1 or not is_rank_scale(cleaned[0]):
            raise CampaignError(ERROR_RANKING_SCALES)
    if reuse_judgments:
        raise CampaignError(ERROR_RANKING_REUSE)
    if bad_reference_share:
        raise CampaignError(ERROR_RANKING_BAD_REFERENCES)
    per_screen = RANKING_PER_SCREEN if candidates_per_screen is None else candidates_per_screen
    if not 2 <= per_screen <= RANKING_PER_SCREEN:
        raise CampaignError(ERROR_RANKING_PER_SCREEN.format(value=per_screen))
    return per_screen


def _ranking_screens(drafts: list[_ItemDraft], campaign: Campaign) -> list[list[_ItemDraft]]:
    """The distinct outputs of each source cut into ranking screens (module docstring), in
    segment order. The shuffle is seeded by the campaign's seed and the segment, so a screen's
    make-up does not depend on the other segments."""
    by_segment: dict[int, list[_ItemDraft]] = defaultdict(list)
    for draft in drafts:
        by_segment[draft.segment_id].append(draft)
    per_screen = campaign.candidates_per_screen
    screens = []
    for segment_id in sorted(by_segment):
        outputs = sorted(by_segment[segment_id], key=lambda draft: draft.key)
        random.Random(f"{campaign.seed}:{segment_id}").shuffle(outputs)
        count = -(-len(outputs) // per_screen)
        size, extra = divmod(len(outputs), count)
        start = 0
        for number in range(count):
            end = start + size + (1 if number < extra else 0)
            if end - start >= 2:
                screens.append(outputs[start:end])
            start = end
    return screens


def _clean_scales(scales: Sequence[dict[str, Any]] | None) -> list[dict[str, Any]]:
    try:
        cleaned = [scale_validate(scale) for scale in (scales or default_scales())]
    except ValueError as error:
        raise CampaignError(str(error)) from error
    if not cleaned:
        raise CampaignError(ERROR_NO_ASPECTS)
    names = [scale["name"] for scale in cleaned]
    for name in names:
        if names.count(name) > 1:
            raise CampaignError(ERROR_DUPLICATE_ASPECT.format(name=name))
    return cleaned


def _first_reference_label(test_set: TestSet) -> str:
    labels = Reference.objects.filter(segment__test_set=test_set).values_list("label", flat=True)
    return labels.order_by("label").first() or ""


def _item_drafts(campaign: Campaign, systems: list[System]) -> list[_ItemDraft]:
    """One draft per distinct (segment, stripped text) among the chosen outputs."""
    drafts: dict[tuple[int, str], _ItemDraft] = {}
    segments = _segment_filter(campaign)

    def draft_for(segment_id: int, source: str, text: str) -> _ItemDraft:
        key = text_key(source, text)
        if (segment_id, key) not in drafts:
            drafts[(segment_id, key)] = _ItemDraft(segment_id=segment_id, text=text, key=key)
        return drafts[(segment_id, key)]

    candidates = Candidate.objects.filter(segments, system__in=systems)
    candidates = candidates.order_by("segment__index", "pk")
    for pk, segment_id, source, text in candidates.values_list(
        "pk", "segment_id", "segment__source", "text"
    ):
        draft_for(segment_id, source, text).candidate_ids.append(pk)
    if campaign.reference_as_system:
        references = Reference.objects.filter(
            segments, label=campaign.reference_as_system
        ).order_by("segment__index")
        for pk, segment_id, source, text in references.values_list(
            "pk", "segment_id", "segment__source", "text"
        ):
            draft_for(segment_id, source, text).reference_id = pk
    return list(drafts.values())


def _segment_filter(campaign: Campaign) -> Q:
    """The judged segments (of a candidate or reference): all, or a sample drawn with the seed."""
    if campaign.segment_sample is None:
        return Q(segment__test_set=campaign.test_set)
    ids = list(campaign.test_set.segments.order_by("index").values_list("pk", flat=True))
    count = min(campaign.segment_sample, len(ids))
    return Q(segment_id__in=sorted(random.Random(campaign.seed).sample(ids, count)))


def _attach_reusable_judgments(
    drafts: list[_ItemDraft], aspects: list[Aspect], campaign: Campaign
) -> None:
    """EvalTrans' sentence database: earlier judgments of the same (source, text) on the same
    scales. A judgment of an aspect judged with the reference (adequacy) is reusable only if the
    reference shown then has the text this campaign shows for the draft's segment: adequacy
    against another reference is another question. A judge whose reusable judgments cover every
    aspect counts as one of the item's judges (their latest reusable scores are reused); anyone
    who scored the text before is not asked to score it again."""
    wanted = {aspect.name: aspect for aspect in aspects}
    by_key: dict[str, list[_ItemDraft]] = defaultdict(list)
    for draft in drafts:
        by_key[draft.key].append(draft)
    earlier = _earlier_judgments(list(by_key), wanted, campaign.protocol)
    shown = _reference_texts(campaign)
    for key, per_judge in earlier.items():
        for draft in by_key[key]:
            reference = shown.get(draft.segment_id, "")
            complete = []
            for judge_id in sorted(per_judge):
                chosen = [
                    _latest_reusable(per_judge[judge_id].get(name, []), wanted[name], reference)
                    for name in wanted
                ]
                if all(chosen):
                    complete.append(chosen)
            complete = complete[: campaign.judges_per_item]
            draft.excluded = set(per_judge)
            draft.reused_judges = len(complete)
            draft.reused = [judgment for chosen in complete for judgment in chosen]


@dataclass(frozen=True)
class _Earlier:
    """A judgment of another campaign and the reference text shown with it ("" if none)."""

    judgment: Judgment
    reference: str


def _earlier_judgments(
    keys: list[str], wanted: dict[str, Aspect], protocol: str
) -> dict[str, dict[int, dict[str, list[_Earlier]]]]:
    """key -> judge -> aspect name -> that judge's judgments on an identical scale under the
    same protocol, oldest first (planted repeats left out)."""
    found: dict[str, dict[int, dict[str, list[_Earlier]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for chunk in _chunks(keys, BATCH):
        judgments = [
            judgment
            for judgment in Judgment.objects.filter(
                assigned_item__item__key__in=chunk,
                assigned_item__is_repeat=False,
                aspect__name__in=list(wanted),
                protocol=protocol,
            )
            .select_related("aspect", "assigned_item__item__campaign", "assigned_item__assignment")
            .order_by("updated_at", "pk")
            if _same_scale(judgment.aspect, wanted[judgment.aspect.name])
        ]
        shown = _shown_references(judgments)
        for judgment in judgments:
            item = judgment.assigned_item.item
            reference = shown.get((item.segment_id, item.campaign.reference_label), "")
            found[item.key][judgment.assigned_item.assignment.judge_id][
                judgment.aspect.name
            ].append(_Earlier(judgment, reference))
    return found


def _same_scale(earlier: Aspect, aspect: Aspect) -> bool:
    return (
        earlier.kind == aspect.kind
        and earlier.levels == aspect.levels
        and earlier.needs_reference == aspect.needs_reference
    )


def _shown_references(judgments: list[Judgment]) -> dict[tuple[int, str], str]:
    """(segment id, label) -> stripped text of the references shown with these judgments."""
    pairs = {
        (
            judgment.assigned_item.item.segment_id,
            judgment.assigned_item.item.campaign.reference_label,
        )
        for judgment in judgments
        if judgment.aspect.needs_reference
    }
    if not pairs:
        return {}
    rows = Reference.objects.filter(
        segment_id__in={segment_id for segment_id, _ in pairs},
        label__in={label for _, label in pairs},
    ).values_list("segment_id", "label", "text")
    return {(segment_id, label): text.strip() for segment_id, label, text in rows}


def _reference_texts(campaign: Campaign) -> dict[int, str]:
    """Segment id -> stripped text of the reference the campaign shows."""
    rows = Reference.objects.filter(
        segment__test_set=campaign.test_set, label=campaign.reference_label
    ).values_list("segment_id", "text")
    return {segment_id: text.strip() for segment_id, text in rows}


def _latest_reusable(earlier: list[_Earlier], aspect: Aspect, reference: str) -> Judgment | None:
    """The judge's latest judgment of ``aspect`` that holds for this item, if any."""
    for candidate in reversed(earlier):
        if not aspect.needs_reference or candidate.reference == reference:
            return candidate.judgment
    return None


def _store_items(campaign: Campaign, drafts: list[_ItemDraft]) -> list[Item]:
    items = [
        Item(
            campaign=campaign,
            segment_id=draft.segment_id,
            text=draft.text,
            key=draft.key,
            kind=Item.Kind.REFERENCE if draft.reference_id else Item.Kind.CANDIDATE,
            reference_id=draft.reference_id,
            judges_needed=max(0, campaign.judges_per_item - draft.reused_judges),
        )
        for draft in drafts
    ]
    # bulk_create sets primary keys on PostgreSQL and on SQLite >= 3.35.
    Item.objects.bulk_create(items, batch_size=BATCH)
    links = [
        Item.candidates.through(item_id=item.pk, candidate_id=candidate_id)
        for item, draft in zip(items, drafts, strict=True)
        for candidate_id in draft.candidate_ids
    ]
    Item.candidates.through.objects.bulk_create(links, batch_size=BATCH)
    reused = [
        Item.reused_judgments.through(item_id=item.pk, judgment_id=judgment.pk)
        for item, draft in zip(items, drafts, strict=True)
        for judgment in draft.reused
    ]
    Item.reused_judgments.through.objects.bulk_create(reused, batch_size=BATCH)
    return items


def _store_assignments(
    campaign: Campaign,
    items: list[Item],
    drafts: list[_ItemDraft],
    judges: list[Any],
    screens: list[list[_ItemDraft]] | None = None,
) -> Plan:
    """Plan and store every judge's screens; ``screens`` (ranking) fixes which drafts share a
    screen, else the presentation does (one item, or all items of a source)."""
    plan_items = {
        item.pk: PlanItem(item.pk, item.judges_needed, frozenset(draft.excluded))
        for item, draft in zip(items, drafts, strict=True)
    }
    if screens is not None:
        item_of = {id(draft): item for item, draft in zip(items, drafts, strict=True)}
        units = [[plan_items[item_of[id(draft)].pk] for draft in screen] for screen in screens]
    elif campaign.presentation == Campaign.Presentation.GROUPED:
        by_segment: dict[int, list[PlanItem]] = defaultdict(list)
        for item in items:
            by_segment[item.segment_id].append(plan_items[item.pk])
        units = list(by_segment.values())
    else:
        units = [[plan_item] for plan_item in plan_items.values()]
    try:
        plan = plan_assignments(
            units=units,
            judges=[judge.pk for judge in judges],
            seed=campaign.seed,
            repeat_share=campaign.repeat_share,
            bad_reference_share=campaign.bad_reference_share,
            degradable=frozenset(item.pk for item in items if item.kind == Item.Kind.CANDIDATE),
        )
    except PlanError as error:
        raise CampaignError(str(error)) from error
    bad = _store_bad_references(campaign, [i for i in items if i.pk in plan.degraded()], items)
    assignments = Assignment.objects.bulk_create(
        [Assignment(campaign=campaign, judge=judge) for judge in judges]
    )
    by_judge = {assignment.judge_id: assignment for assignment in assignments}
    rows = [
        AssignedItem(
            assignment=by_judge[judge_id],
            item_id=bad[item_id] if screen.is_bad_reference else item_id,
            screen=number,
            position=position,
            is_repeat=screen.is_repeat,
        )
        for judge_id, screens in plan.screens.items()
        for number, screen in enumerate(_kept(screens, bad))
        for position, item_id in enumerate(screen.item_ids)
    ]
    AssignedItem.objects.bulk_create(rows, batch_size=BATCH)
    return plan


def _kept(screens: list[PlannedScreen], bad: dict[int, int]) -> list[PlannedScreen]:
    """The screens stored: a bad reference that could not be made is left out."""
    return [s for s in screens if not s.is_bad_reference or s.item_ids[0] in bad]


def _store_bad_references(
    campaign: Campaign, originals: list[Item], items: list[Item]
) -> dict[int, int]:
    """Create the bad-reference item of each of ``originals`` (``judging.badrefs``: a phrase
    replaced by one of another segment's reference, or of another segment's candidate when the
    campaign shows no reference); it stands for the original's systems. Returns original item
    id -> bad-reference item id; an original whose degraded text would equal its own or another
    item's text of the segment gets none."""
    if not originals:
        return {}
    donors = _donors(campaign)
    sources = dict(
        campaign.test_set.segments.filter(pk__in={i.segment_id for i in originals}).values_list(
            "pk", "source"
        )
    )
    taken = {(item.segment_id, item.key) for item in items}
    character_based = is_character_based(campaign.test_set.target_lang)
    made: list[tuple[Item, Item]] = []
    for original in originals:
        text = bad_reference(
            text=original.text,
            segment=original.segment_id,
            donors=donors,
            seed=campaign.seed,
            key=original.key,
            character_based=character_based,
        )
        key = text_key(sources[original.segment_id], text) if text is not None else ""
        if text is None or (original.segment_id, key) in taken:
            continue
        taken.add((original.segment_id, key))
        degraded = Item(
            campaign=campaign,
            segment_id=original.segment_id,
            text=text,
            key=key,
            kind=Item.Kind.BAD_REFERENCE,
            degraded_from=original,
            judges_needed=0,
        )
        made.append((original, degraded))
    Item.objects.bulk_create([degraded for _, degraded in made], batch_size=BATCH)
    owners: dict[int, list[int]] = defaultdict(list)
    for item_id, candidate_id in Item.candidates.through.objects.filter(
        item_id__in=[original.pk for original, _ in made]
    ).values_list("item_id", "candidate_id"):
        owners[item_id].append(candidate_id)
    links = [
        Item.candidates.through(item_id=degraded.pk, candidate_id=candidate_id)
        for original, degraded in made
        for candidate_id in owners[original.pk]
    ]
    Item.candidates.through.objects.bulk_create(links, batch_size=BATCH)
    return {original.pk: degraded.pk for original, degraded in made}


def _donors(campaign: Campaign) -> list[tuple[int, str]]:
    """(segment id, text) of every text a bad reference may take a phrase from, in segment
    order: the shown reference's sentences, else the chosen systems' candidates."""
    if campaign.reference_label:
        rows = Reference.objects.filter(
            segment__test_set=campaign.test_set, label=campaign.reference_label
        )
    else:
        rows = Candidate.objects.filter(
            segment__test_set=campaign.test_set, system__in=campaign.systems.all()
        )
    return list(rows.order_by("segment__index", "pk").values_list("segment_id", "text"))


def _chunks(values: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]
