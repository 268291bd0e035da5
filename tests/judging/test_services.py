"""Campaign creation, submission, revision, reuse and QC: services and selectors on the ORM."""

from __future__ import annotations

import secrets
import time

import pytest
from django.core import signing
from django.core.exceptions import ValidationError

from judging.models import AssignedItem, Assignment, Campaign, Item, Judgment, JudgmentRevision
from judging.qc import FLAG_INCONSISTENT, FLAG_SAME_LEVEL, FLAG_TOO_FAST
from judging.selectors import (
    assignment_progress,
    campaign_judgment_rows,
    campaign_progress,
    screen_detail,
    screen_next,
)
from judging.services import CampaignError, JudgingError, screen_submit
from judging.services.campaigns import (
    ERROR_NO_JUDGES,
    ERROR_NO_REFERENCE,
    ERROR_REFERENCE_NAME_CLASH,
)
from judging.services.judgments import (
    ERROR_BAD_SCORE,
    ERROR_BAD_TOKEN,
    ERROR_REFERENCE_TOO_EARLY,
)
from judging.tokens import TOKEN_SALT, screen_token_new

pytestmark = pytest.mark.django_db


def rendered_token(assignment, screen, age_ms=60_000):
    """A screen token as if the page had been rendered ``age_ms`` ago."""
    issued = int(time.time() * 1000) - age_ms
    payload = {"a": assignment.pk, "s": screen, "t": issued, "n": secrets.token_hex(12)}
    return signing.dumps(payload, salt=TOKEN_SALT, compress=False)


def submit_screen(assignment, screen, values, *, active_ms=4000, token=None, aspects=None):
    """Score every asked cell of a screen with ``values`` (one level or a list per entry),
    as sent by a page rendered a minute ago."""
    view = screen_detail(assignment=assignment, screen=screen)
    scores = {}
    for number, entry in enumerate(view.entries):
        level = values[number] if isinstance(values, list) else values
        for cell in entry.cells:
            if aspects is None or cell.aspect.name in aspects:
                scores[(entry.assigned.pk, cell.aspect.name)] = level
    return screen_submit(
        assignment=assignment,
        screen=screen,
        scores=scores,
        active_ms=active_ms,
        token=token or rendered_token(assignment, screen),
    )


def finish(assignment, level=4):
    """Judge every screen of an assignment, aspect stage by aspect stage."""
    while (screen := screen_next(assignment=assignment)) is not None:
        submit_screen(assignment, screen, level)


def test_identical_outputs_of_one_segment_become_one_item_for_both_systems(make_campaign):
    campaign = make_campaign()
    shared = Item.objects.get(campaign=campaign, segment__index=0, text="Good morning.")
    assert sorted(shared.candidates.values_list("system__name", flat=True)) == ["x", "y"]
    # 4 segments x 3 systems = 12 candidates, one pair merged.
    assert campaign.items.count() == 11


def test_reference_as_system_merges_with_an_identical_output(make_campaign):
    campaign = make_campaign(reference_as_system="A")
    merged = Item.objects.get(campaign=campaign, segment__index=1, text="How are you?")
    assert merged.kind == Item.Kind.REFERENCE
    assert merged.reference.label == "A"
    assert list(merged.candidates.values_list("system__name", flat=True)) == ["z"]
    assert campaign.items.filter(kind=Item.Kind.REFERENCE).count() == 4


def test_every_item_gets_the_requested_number_of_distinct_judges(make_campaign):
    campaign = make_campaign(judges_per_item=2)
    for item in campaign.items.all():
        judges = item.assigned.filter(is_repeat=False).values_list("assignment__judge", flat=True)
        assert len(judges) == 2 and len(set(judges)) == 2


def test_campaign_defaults_are_the_ldc_scales_and_two_judges(make_campaign):
    campaign = make_campaign()
    aspects = list(campaign.aspects.all())
    assert [aspect.name for aspect in aspects] == ["fluency", "adequacy"]
    assert [level["text"] for level in aspects[0].levels][0] == "Flawless"
    assert aspects[1].needs_reference and not aspects[0].needs_reference
    assert campaign.judges_per_item == 2
    assert campaign.reference_label == "A"


def test_a_custom_scale_is_stored_as_data(make_campaign):
    nespole = {
        "name": "quality",
        "label": "Quality",
        "levels": [
            {"value": 4, "text": "Very good"},
            {"value": 3, "text": "Good"},
            {"value": 2, "text": "Bad"},
            {"value": 1, "text": "Very bad"},
        ],
    }
    campaign = make_campaign(scales=[nespole])
    aspect = campaign.aspects.get()
    assert aspect.values == [4, 3, 2, 1] and aspect.perfect == 4


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"judges": []}, ERROR_NO_JUDGES),
        ({"reference_as_system": "Q"}, ERROR_NO_REFERENCE.format(test_set="toy v1", label="Q")),
    ],
)
def test_invalid_campaigns_are_refused_with_a_message(make_campaign, overrides, message):
    with pytest.raises(CampaignError, match=message.replace("?", r"\?")):
        make_campaign(**overrides)
    assert not Campaign.objects.exists()


def test_the_reference_cannot_be_judged_under_a_system_name(make_campaign, test_set):
    test_set.systems.filter(name="z").update(name="A")
    with pytest.raises(CampaignError, match=ERROR_REFERENCE_NAME_CLASH.format(label="A")):
        make_campaign(reference_as_system="A")


def test_more_judges_per_item_than_judges_is_refused(make_campaign):
    with pytest.raises(CampaignError, match="needs 4 judges"):
        make_campaign(judges_per_item=4)


def test_repeat_share_is_validated(make_campaign):
    with pytest.raises(ValidationError):
        make_campaign(repeat_share=0.9)


def test_sequential_order_asks_fluency_before_revealing_the_reference(make_campaign, judges):
    campaign = make_campaign()
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    first = screen_detail(assignment=assignment, screen=0)
    assert first.stage == "blind" and first.reference == ""
    assert [aspect.name for aspect in first.aspects] == ["fluency"]
    submit_screen(assignment, 0, 4)
    second = screen_detail(assignment=assignment, screen=0)
    assert second.stage == "reference" and second.reference
    assert [aspect.name for aspect in second.aspects] == ["adequacy"]
    assert second.entries[0].locked[0][1:] == (4, "Good")


def test_adequacy_before_fluency_is_refused_in_the_sequential_order(make_campaign, judges):
    assignment = Assignment.objects.get(campaign=make_campaign(), judge=judges[0])
    row = AssignedItem.objects.filter(assignment=assignment, screen=0).get()
    token = screen_token_new(assignment_id=assignment.pk, screen=0)
    with pytest.raises(JudgingError, match=ERROR_REFERENCE_TOO_EARLY.format(aspect="Adequacy")):
        screen_submit(
            assignment=assignment,
            screen=0,
            scores={(row.pk, "adequacy"): 3},
            active_ms=10,
            token=token,
        )


def test_together_order_asks_every_aspect_with_the_reference(make_campaign, judges):
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    view = screen_detail(assignment=assignment, screen=0)
    assert view.stage == "all" and view.reference
    assert [cell.aspect.name for cell in view.entries[0].cells] == ["fluency", "adequacy"]


def test_grouped_presentation_puts_all_outputs_of_a_source_on_one_screen(make_campaign, judges):
    campaign = make_campaign(presentation=Campaign.Presentation.GROUPED, judges_per_item=3)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    screens = {}
    for row in assignment.items.select_related("item"):
        screens.setdefault(row.screen, set()).add(row.item.segment_id)
    assert len(screens) == 4 and all(len(segments) == 1 for segments in screens.values())
    view = screen_detail(assignment=assignment, screen=0)
    assert [entry.label for entry in view.entries][:2] == ["A", "B"]


def test_source_and_context_follow_the_campaign_options(make_campaign, judges):
    campaign = make_campaign(show_source=False, show_context=True)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    for screen in range(assignment.items.count()):
        view = screen_detail(assignment=assignment, screen=screen)
        assert view.source == ""
        segment = view.entries[0].assigned.item.segment
        if segment.index == 1:
            assert view.context_before == ["Good morning."]  # reference A of segment 0
            assert view.context_after == []  # segment 2 is another document


def test_a_submission_sent_twice_is_stored_once(make_campaign, judges):
    assignment = Assignment.objects.get(campaign=make_campaign(), judge=judges[0])
    view = screen_detail(assignment=assignment, screen=0)
    key = (view.entries[0].assigned.pk, "fluency")
    sent = {"assignment": assignment, "screen": 0, "active_ms": 900, "token": view.token}
    first = screen_submit(scores={key: 4}, **sent)
    again = screen_submit(scores={key: 2}, **sent)
    assert (first.created, again.created, again.unchanged) == (1, 0, 1)
    judgment = Judgment.objects.get(assigned_item__assignment=assignment)
    assert judgment.score == 4 and not JudgmentRevision.objects.exists()


def test_a_revision_keeps_the_history(make_campaign, judges):
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    submit_screen(assignment, 0, 4, active_ms=3000)
    revisit = screen_detail(assignment=assignment, screen=0)
    assert revisit.revisit and revisit.entries[0].cells[0].value == 4
    result = submit_screen(assignment, 0, [2], active_ms=1000)
    assert result.revised == 2
    fluency = Judgment.objects.get(assigned_item__assignment=assignment, aspect__name="fluency")
    assert fluency.score == 2 and fluency.revision_count == 1
    assert fluency.active_ms == 1500 + 500
    assert list(fluency.revisions.values_list("score", flat=True)) == [4]


def test_active_time_is_capped_at_the_time_since_the_page_was_rendered(make_campaign, judges):
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    submit_screen(
        assignment, 0, 4, active_ms=10 * 60 * 1000, token=rendered_token(assignment, 0, 4000)
    )
    total = sum(Judgment.objects.values_list("active_ms", flat=True))
    assert 4000 <= total <= 6000


def test_forged_token_and_bad_levels_are_refused(make_campaign, judges):
    assignment = Assignment.objects.get(campaign=make_campaign(), judge=judges[0])
    with pytest.raises(JudgingError, match=ERROR_BAD_TOKEN):
        submit_screen(assignment, 0, 4, token="forged")
    other = screen_token_new(assignment_id=assignment.pk, screen=1)
    with pytest.raises(JudgingError, match=ERROR_BAD_TOKEN):
        submit_screen(assignment, 0, 4, token=other)
    with pytest.raises(JudgingError, match=ERROR_BAD_SCORE.format(value=7, aspect="Fluency")):
        submit_screen(assignment, 0, 7)
    assert not Judgment.objects.exists()


def test_progress_and_resume_follow_the_judges_order(make_campaign, judges):
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    assert screen_next(assignment=assignment) == 0
    submit_screen(assignment, 0, 4)
    submit_screen(assignment, 1, 4)
    progress = assignment_progress(assignment=assignment)
    assert progress.done == 2 and progress.total == assignment.items.count()
    assert progress.active_ms == 8000
    assert screen_next(assignment=assignment) == 2
    finish(assignment)
    assert screen_next(assignment=assignment) is None


def test_planted_repeats_come_after_their_original(make_campaign, judges):
    campaign = make_campaign(repeat_share=0.5, judges_per_item=3)
    for assignment in campaign.assignments.all():
        repeats = assignment.items.filter(is_repeat=True)
        assert repeats.count() == round(0.5 * 11)
        for repeat in repeats:
            original = assignment.items.get(item=repeat.item, is_repeat=False)
            assert original.screen < repeat.screen


def test_judgment_rows_give_one_row_per_system_of_a_shared_item(make_campaign, judges):
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    for assignment in campaign.assignments.all():
        finish(assignment, level=3)
    rows = campaign_judgment_rows(campaign=campaign)
    # 12 candidates x 2 aspects, one judge each.
    assert len(rows) == 24
    shared = [row for row in rows if row["segment_index"] == 0 and row["text"] == "Good morning."]
    assert sorted({row["system"] for row in shared}) == ["x", "y"]
    assert len({row["judge"] for row in shared}) == 1
    keys = {
        "system",
        "segment_index",
        "seg_id",
        "judge",
        "aspect",
        "score",
        "active_ms",
        "is_repeat",
        "created_at",
        "revised",
    }
    assert keys <= set(rows[0])


def test_reused_judgments_count_towards_the_judges_per_item(make_campaign, judges, test_set):
    first = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    for assignment in first.assignments.all():
        finish(assignment, level=5)
    second = make_campaign(judges_per_item=2, reuse_judgments=True)
    for item in second.items.all():
        assert item.judges_needed == 1
        assert item.reused_judgments.count() == 2  # fluency and adequacy of one judge
        earlier = set(
            item.reused_judgments.values_list("assigned_item__assignment__judge", flat=True)
        )
        now = set(item.assigned.values_list("assignment__judge", flat=True))
        assert not earlier & now  # nobody judges the same text twice
    rows = campaign_judgment_rows(campaign=second)
    assert rows and all(row["reused"] for row in rows) and {row["score"] for row in rows} == {5}


def test_reuse_ignores_judgments_on_another_scale(make_campaign):
    first = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    for assignment in first.assignments.all():
        finish(assignment)
    other_scale = [
        {
            "name": "fluency",
            "label": "Fluency",
            "levels": [{"value": 1, "text": "good"}, {"value": 0, "text": "bad"}],
        },
    ]
    second = make_campaign(scales=other_scale, reuse_judgments=True)
    assert all(item.judges_needed == 2 for item in second.items.all())


def test_progress_reports_coverage_per_system_and_qc_flags(make_campaign, judges):
    campaign = make_campaign(
        aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=3, repeat_share=0.5
    )
    campaign.qc_min_judgments = 5
    campaign.save()
    hasty = Assignment.objects.get(campaign=campaign, judge=judges[0])
    screen = 0
    while (screen := screen_next(assignment=hasty)) is not None:
        # Straight-lining, fast, and repeats far from their originals.
        repeat = hasty.items.filter(screen=screen, is_repeat=True).exists()
        submit_screen(hasty, screen, 1 if repeat else 5, active_ms=200)
    progress = campaign_progress(campaign=campaign)
    row = next(judge for judge in progress.judges if judge.username == judges[0].username)
    assert row.done == row.total
    assert {FLAG_TOO_FAST, FLAG_SAME_LEVEL, FLAG_INCONSISTENT} <= set(row.quality.flags)
    systems = {system.name: system for system in progress.systems}
    assert set(systems) == {"x", "y", "z"}
    assert systems["x"].candidates == 4 and systems["x"].complete == 0
    assert systems["x"].judgments_done == 4 and systems["x"].judgments_needed == 12
    assert progress.remaining_ms_parallel > 0
