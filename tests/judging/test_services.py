"""Campaign creation, submission, revision, reuse and QC: services and selectors on the ORM."""

from __future__ import annotations

import secrets
import time

import pytest
from django.core import signing
from django.core.exceptions import ValidationError

from evaltrans.corpora.services import testset_import
from judging.models import AssignedItem, Assignment, Campaign, Item, Judgment, JudgmentRevision
from judging.qc import FLAG_INCONSISTENT, FLAG_SAME_LEVEL, FLAG_TOO_FAST
from judging.scales import ADEQUACY, FLUENCY, MAX_NAME_LENGTH
from judging.selectors import (
    DEFAULT_SECONDS_PER_ITEM,
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

from .conftest import XSS, toy_corpus

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


@pytest.mark.parametrize(
    ("field", "limit"), [("name", MAX_NAME_LENGTH), ("label", 100), ("question", 300)]
)
def test_scale_texts_longer_than_their_columns_are_refused(make_campaign, field, limit):
    scale = dict(FLUENCY)
    scale[field] = "f" * limit
    assert make_campaign(scales=[scale]).aspects.get().name == scale["name"]
    scale[field] = "f" * (limit + 1)
    message = f"The {field} of scale .* is {limit + 1} characters long; the limit is {limit}."
    with pytest.raises(CampaignError, match=message):
        make_campaign(scales=[scale])
    assert Campaign.objects.count() == 1


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


def assigned_screen(assignment, segment_index):
    """The first screen where the judge meets one of a segment's items."""
    rows = assignment.items.filter(item__segment__index=segment_index, is_repeat=False)
    return rows.order_by("screen").values_list("screen", flat=True).first()


def test_hidden_source_context_waits_for_the_reference(make_campaign, judges):
    """Without the source, context is the shown reference's neighbouring sentences: none of
    them may appear while fluency is judged without the reference."""
    campaign = make_campaign(show_source=False, show_context=True, judges_per_item=3)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    screen = assigned_screen(assignment, 1)
    blind = screen_detail(assignment=assignment, screen=screen)
    assert blind.stage == "blind" and blind.source == "" and blind.reference == ""
    assert (blind.context_before, blind.context_after) == ([], [])
    submit_screen(assignment, screen, 4)
    revealed = screen_detail(assignment=assignment, screen=screen)
    assert revealed.stage == "reference" and revealed.reference == "How are you?"
    assert revealed.context_before == ["Good morning."]  # reference A of segment 0
    assert revealed.context_after == []  # segment 2 is another document


def test_hidden_source_context_comes_with_the_reference_when_aspects_are_asked_together(
    make_campaign, judges
):
    campaign = make_campaign(
        show_source=False,
        show_context=True,
        judges_per_item=3,
        aspect_order=Campaign.AspectOrder.TOGETHER,
    )
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    view = screen_detail(assignment=assignment, screen=assigned_screen(assignment, 0))
    assert view.stage == "all" and (view.context_before, view.context_after) == (
        [],
        ["How are you?"],
    )


def test_a_fluency_only_campaign_without_source_shows_no_reference_context(make_campaign, judges):
    campaign = make_campaign(
        show_source=False, show_context=True, judges_per_item=3, scales=[FLUENCY]
    )
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    for screen in range(assignment.items.count()):
        view = screen_detail(assignment=assignment, screen=screen)
        assert (view.reference, view.context_before, view.context_after) == ("", [], [])


def test_shown_source_and_context_give_the_neighbouring_sources(make_campaign, judges):
    campaign = make_campaign(show_source=True, show_context=True, judges_per_item=3)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    expected = {
        0: ("Guten Morgen.", [], ["Wie geht es dir?"]),
        1: ("Wie geht es dir?", ["Guten Morgen."], []),
        2: ("Das ist gut.", [], ["Danke schön."]),
        3: ("Danke schön.", ["Das ist gut."], []),
    }
    for index, (source, before, after) in expected.items():
        view = screen_detail(assignment=assignment, screen=assigned_screen(assignment, index))
        # Sources say nothing about the reference: shown from the first, blind stage on.
        assert view.stage == "blind" and view.reference == ""
        assert (view.source, view.context_before, view.context_after) == (source, before, after)


def test_context_hidden_shows_no_neighbours(make_campaign, judges):
    campaign = make_campaign(show_source=True, show_context=False, judges_per_item=3)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    view = screen_detail(assignment=assignment, screen=assigned_screen(assignment, 1))
    assert view.source == "Wie geht es dir?"
    assert (view.context_before, view.context_after) == ([], [])


def grouped_orders(campaign):
    """judge -> [(segment index, texts in the order shown on its screen)] in screen order."""
    orders = {}
    for assignment in campaign.assignments.select_related("judge"):
        screens = []
        for number in range(assignment.items.count()):
            view = screen_detail(assignment=assignment, screen=number)
            if view is None:
                break
            segment = view.entries[0].assigned.item.segment.index
            screens.append((segment, [entry.text for entry in view.entries]))
        orders[assignment.judge.username] = screens
    return orders


def test_grouped_screens_show_the_candidates_in_a_random_order_kept_by_the_seed(make_campaign):
    options = {"presentation": Campaign.Presentation.GROUPED, "judges_per_item": 3}
    first = grouped_orders(make_campaign(seed=5, **options))
    again = grouped_orders(make_campaign(seed=5, **options))
    assert first == again
    orders = set()
    for seed in range(8):
        for screens in grouped_orders(make_campaign(seed=seed, **options)).values():
            assert sorted(segment for segment, _ in screens) == [0, 1, 2, 3]
            orders.update(tuple(texts) for segment, texts in screens if segment == 2)
    # Segment 2 has three distinct outputs (x, y, z): several of their 6 orders occur.
    assert all(sorted(order) == sorted([XSS, "That good.", "It is good."]) for order in orders)
    assert len(orders) > 1


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


def test_reuse_of_adequacy_needs_the_same_reference(make_campaign):
    """Adequacy is judged against the reference shown: against another one it is another
    question, so the earlier judge counts for nothing and is not asked again either."""
    first = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    for assignment in first.assignments.all():
        finish(assignment, level=5)
    other = make_campaign(judges_per_item=1, reuse_judgments=True, reference_label="B")
    for item in other.items.all():
        assert item.judges_needed == 1 and not item.reused_judgments.exists()
        earlier = Item.objects.get(campaign=first, key=item.key, segment=item.segment)
        before = set(earlier.assigned.values_list("assignment__judge", flat=True))
        now = set(item.assigned.values_list("assignment__judge", flat=True))
        assert len(now) == 1 and not before & now
    same = make_campaign(judges_per_item=1, reuse_judgments=True, reference_label="A")
    assert {item.judges_needed for item in same.items.all()} == {0}


def test_reuse_compares_the_reference_texts_segment_by_segment(make_campaign, judges):
    first = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    for assignment in first.assignments.all():
        finish(assignment, level=5)
    # A second test set with the same sources and outputs, and reference A reworded on
    # segment 0 only (surrounding spaces do not count as a change).
    corpus = toy_corpus(name="toy2")
    corpus.segments[0].references["A"] = "Good morning to you."
    corpus.segments[1].references["A"] = "  How are you? "
    other_set = testset_import(corpus=corpus, name="toy2", import_format="text").test_set
    second = make_campaign(
        test_set=other_set,
        systems=list(other_set.systems.all()),
        judges_per_item=1,
        reuse_judgments=True,
    )
    needed = {}
    for item in second.items.select_related("segment"):
        needed.setdefault(item.segment.index, set()).add(item.judges_needed)
        assert item.reused_judgments.count() == 2 * (1 - item.judges_needed)
    assert needed == {0: {1}, 1: {0}, 2: {0}, 3: {0}}


def test_reuse_on_scales_without_the_reference_ignores_which_reference_is_shown(make_campaign):
    first = make_campaign(judges_per_item=1, scales=[FLUENCY])
    for assignment in first.assignments.all():
        finish(assignment, level=2)
    second = make_campaign(
        judges_per_item=1, scales=[FLUENCY], reuse_judgments=True, reference_label="B"
    )
    assert {item.judges_needed for item in second.items.all()} == {0}
    assert {row["score"] for row in campaign_judgment_rows(campaign=second)} == {2}


def test_reuse_needs_the_aspect_judged_the_same_way(make_campaign):
    """An "adequacy" judged without the reference is not an adequacy judged with it."""
    blind_adequacy = dict(ADEQUACY, needs_reference=False)
    first = make_campaign(judges_per_item=1, scales=[FLUENCY, blind_adequacy])
    for assignment in first.assignments.all():
        finish(assignment)
    second = make_campaign(judges_per_item=1, reuse_judgments=True)
    assert {item.judges_needed for item in second.items.all()} == {1}


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


def test_time_to_completion_follows_each_judges_own_pace(make_campaign, judges):
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    steady, quick, fresh = (
        Assignment.objects.get(campaign=campaign, judge=judge) for judge in judges
    )
    submit_screen(steady, 0, 4, active_ms=4000)
    submit_screen(steady, 1, 4, active_ms=8000)  # 12 s over 2 items: 6 s per item
    submit_screen(quick, 0, 4, active_ms=3000)  # 3 s per item
    totals = [assignment.items.count() for assignment in (steady, quick, fresh)]
    assert sum(totals) == 11 and min(totals) >= 3
    remaining = [
        (totals[0] - 2) * 6000,
        (totals[1] - 1) * 3000,
        totals[2] * DEFAULT_SECONDS_PER_ITEM * 1000,  # nobody knows this judge's pace yet
    ]
    progress = campaign_progress(campaign=campaign)
    assert (progress.done, progress.total) == (3, 11)
    assert progress.remaining_ms_total == sum(remaining)
    assert progress.remaining_ms_parallel == max(remaining)
    rows = {row.username: row for row in progress.judges}
    assert rows[judges[0].username].seconds_per_item == 6.0
    assert rows[judges[1].username].items_per_hour == 1200.0
    assert rows[judges[2].username].seconds_per_item is None
