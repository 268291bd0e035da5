"""Post-editing: the campaign, storing a post-edit (validation, one line, revisions, from
scratch), targeted references, the campaign page's figures (HTER, time per word, relative
efficiency by hand), exports, and the judge's pages (own assignments only, CSRF, escaping)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from judging.forms import CampaignForm
from judging.humanscores.selectors import campaign_records
from judging.models import Assignment, Campaign, Judgment, JudgmentRevision, PostEdit
from judging.postedit import (
    MAX_POSTEDIT_LENGTH,
    Timing,
    is_from_scratch,
    postedit_clean,
    relative_efficiency,
    timing,
)
from judging.scales import KIND_POSTEDIT
from judging.selectors import campaign_targeted_references, postedit_panel, screen_detail
from judging.services import CampaignError, JudgingError, screen_submit

from .conftest import XSS
from .test_services import rendered_token

pytestmark = pytest.mark.django_db

POST_EDIT = Campaign.Protocol.POST_EDIT


def postedit_campaign(make_campaign, **options) -> Campaign:
    return make_campaign(protocol=POST_EDIT, **options)


def submit_postedit(assignment: Assignment, screen: int, text: object, *, active_ms: int = 4000):
    view = screen_detail(assignment=assignment, screen=screen)
    return screen_submit(
        assignment=assignment,
        screen=screen,
        scores={},
        active_ms=active_ms,
        token=rendered_token(assignment, screen),
        postedits={entry.assigned.pk: text for entry in view.entries},
    )


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# ---------------------------------------------------------------- campaign


def test_a_postedit_campaign_has_its_one_aspect_and_refuses_what_it_cannot_do(make_campaign):
    campaign = postedit_campaign(make_campaign)
    (aspect,) = campaign.aspects.all()
    assert (aspect.name, aspect.kind, aspect.needs_reference) == ("post-edit", KIND_POSTEDIT, False)
    assert campaign.presentation == Campaign.Presentation.SINGLE
    assert campaign.repeat_share == 0.0 and campaign.scratch_share == 0.0
    assert campaign.same_level_share > 1  # every score is 0: never "same level"
    for options, message in (
        ({"presentation": Campaign.Presentation.GROUPED}, "one candidate per screen"),
        ({"reuse_judgments": True}, "not reused"),
        ({"bad_reference_share": 0.1}, "Bad references"),
        ({"scratch_share": 0.9}, "from scratch"),
    ):
        with pytest.raises(CampaignError, match=message):
            postedit_campaign(make_campaign, **options)
    with pytest.raises(CampaignError, match="post-editing only"):
        make_campaign(scratch_share=0.2)


def test_the_campaign_form_offers_post_editing(test_set, judges):
    form = CampaignForm(test_set=test_set)
    assert dict(form.fields["protocol"].choices)["post-edit"].startswith("Post-editing")
    data = {
        "name": "form pe",
        "protocol": "post-edit",
        "systems": [s.pk for s in test_set.systems.all()],
        "judges": [j.pk for j in judges],
        "judges_per_item": 1,
        "presentation": "grouped",
        "aspect_order": "sequential",
        "repeat_share": 0.0,
        "reference_label": "A",
        "show_reference": "on",
        "scratch_share": 0.25,
        "reuse_judgments": "on",
    }
    form = CampaignForm(data, test_set=test_set)
    assert form.is_valid(), form.errors
    cleaned = form.cleaned_data
    assert cleaned["presentation"] == "single" and cleaned["reuse_judgments"] is False
    assert cleaned["scales"][0]["needs_reference"] is True and cleaned["scratch_share"] == 0.25


# ---------------------------------------------------------------- storing post-edits


def test_a_postedit_is_stored_on_one_line_with_its_active_time(make_campaign, judges):
    campaign = postedit_campaign(make_campaign)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    result = submit_postedit(assignment, 0, "  Good\r\n morning\t to you!  ", active_ms=5000)
    assert result.created == 1
    judgment = Judgment.objects.get(assigned_item__assignment=assignment)
    assert (judgment.protocol, judgment.score, judgment.active_ms) == ("post-edit", 0, 5000)
    assert judgment.postedit.text == "Good morning to you!"
    assert judgment.postedit.from_scratch is False
    assert judgment.assigned_item.completed_at is not None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "post-edit is empty"),
        (" \n\t ", "post-edit is empty"),
        ("x" * (MAX_POSTEDIT_LENGTH + 1), "at most 5000"),
        (None, "no post-edit"),
    ],
)
def test_a_bad_postedit_is_refused_and_stores_nothing(make_campaign, judges, text, message):
    campaign = postedit_campaign(make_campaign)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    with pytest.raises(JudgingError, match=message):
        submit_postedit(assignment, 0, text)
    assert not Judgment.objects.exists() and not PostEdit.objects.exists()
    assert not assignment.items.filter(completed_at__isnull=False).exists()


def test_a_postedit_of_another_screen_is_refused(make_campaign, judges):
    campaign = postedit_campaign(make_campaign)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    other = assignment.items.get(screen=1)
    mine = assignment.items.get(screen=0)
    with pytest.raises(JudgingError, match="not on this screen"):
        screen_submit(
            assignment=assignment,
            screen=0,
            scores={},
            active_ms=1000,
            token=rendered_token(assignment, 0),
            postedits={mine.pk: "a", other.pk: "b"},
        )
    assert not PostEdit.objects.exists()


def test_a_revision_replaces_the_text_and_keeps_the_old_one_and_the_time(make_campaign, judges):
    campaign = postedit_campaign(make_campaign)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    submit_postedit(assignment, 0, "First try.", active_ms=3000)
    view = screen_detail(assignment=assignment, screen=0)
    assert view.revisit and view.entries[0].postedit == "First try."
    result = submit_postedit(assignment, 0, "Second try.", active_ms=2000)
    assert result.revised == 1
    judgment = Judgment.objects.get()
    assert judgment.postedit.text == "Second try." and judgment.active_ms == 5000
    (revision,) = JudgmentRevision.objects.filter(judgment=judgment)
    assert revision.superseded == {"post_edit": {"text": "First try.", "from_scratch": False}}
    # The same text again with a new page: nothing to revise, the time still counts.
    assert submit_postedit(assignment, 0, "Second try.", active_ms=1000).unchanged == 1
    assert Judgment.objects.get().active_ms == 6000


def test_items_from_scratch_show_no_candidate_and_make_no_targeted_reference(make_campaign, judges):
    campaign = postedit_campaign(make_campaign, scratch_share=0.5, judges_per_item=1)
    placed = [
        row
        for assignment in campaign.assignments.all()
        for row in assignment.items.select_related("assignment")
    ]
    scratch = [
        row
        for row in placed
        if is_from_scratch(seed=campaign.seed, assigned_item_id=row.pk, share=0.5)
    ]
    assert 0 < len(scratch) < len(placed)
    for row in placed:
        view = screen_detail(assignment=row.assignment, screen=row.screen)
        entry = view.entries[0]
        if row in scratch:
            assert entry.from_scratch and entry.text == "" and entry.postedit == ""
        else:
            assert not entry.from_scratch and entry.postedit == row.item.text != ""
        submit_postedit(row.assignment, row.screen, f"My text {row.pk}.")
    stored = dict(PostEdit.objects.values_list("judgment__assigned_item_id", "from_scratch"))
    assert {pk for pk, flag in stored.items() if flag} == {row.pk for row in scratch}
    targeted = campaign_targeted_references(campaign=campaign)
    texts = {text for segment in targeted for text in segment.post_edits}
    assert texts == {f"My text {row.pk}." for row in placed if row not in scratch}


def test_targeted_references_are_per_segment_and_system(make_campaign, judges):
    campaign = postedit_campaign(make_campaign, judges_per_item=2)
    for assignment in campaign.assignments.all():
        for row in assignment.items.all():
            submit_postedit(assignment, row.screen, f"{assignment.judge.username}: {row.item.text}")
    targeted = campaign_targeted_references(campaign=campaign)
    by_key = {(segment.system, segment.segment_index): segment for segment in targeted}
    # 4 segments x 3 systems; x and y wrote the same text on segment 1: the same post-edits.
    assert len(by_key) == 12
    first_x, first_y = by_key[("x", 0)], by_key[("y", 0)]
    assert first_x.candidate == first_y.candidate == "Good morning."
    assert first_x.post_edits == first_y.post_edits and len(first_x.post_edits) == 2
    assert all(
        text.endswith(segment.candidate) for segment in targeted for text in segment.post_edits
    )
    assert campaign_records(campaign=campaign) == []  # no human scores: a post-edit has none


# ---------------------------------------------------------------- efficiency, by hand


def test_relative_efficiency_by_hand():
    # From scratch: 12 s for 4 words and 8 s for 2 words: 20 000 ms / 6 words.
    scratch = timing([(12_000, "a b c d"), (8_000, "e  f")])
    assert scratch == Timing(ms=20_000, words=6, texts=2)
    # Post-editing one system: 3 s for 3 words and 2 s for 2 words: 1000 ms per word.
    edited = timing([(3_000, "a b c"), (2_000, "d e")])
    assert edited.ms_per_word == 1000 and edited.seconds_per_word == 1.0
    assert relative_efficiency(scratch, edited) == pytest.approx((20_000 / 6) / 1000)
    assert relative_efficiency(Timing(), edited) is None
    assert relative_efficiency(scratch, Timing()) is None


def test_the_campaign_panel_computes_efficiency_per_system(make_campaign, judges):
    campaign = postedit_campaign(make_campaign, scratch_share=0.5, judges_per_item=1)
    scratch_ms = scratch_words = 0
    edit = {"x": [0, 0], "y": [0, 0], "z": [0, 0]}
    owners = {}
    for assignment in campaign.assignments.all():
        for row in assignment.items.prefetch_related("item__candidates__system"):
            owners[row.pk] = [c.system.name for c in row.item.candidates.all()]
            words = 2 + row.screen  # texts of 2, 3, … words
            text = " ".join(["w"] * words)
            active = 1000 * (row.screen + 1)
            submit_postedit(assignment, row.screen, text, active_ms=active)
            if is_from_scratch(seed=campaign.seed, assigned_item_id=row.pk, share=0.5):
                scratch_ms, scratch_words = scratch_ms + active, scratch_words + words
            else:
                for system in owners[row.pk]:
                    edit[system][0] += active
                    edit[system][1] += words
    panel = postedit_panel(campaign=campaign)
    assert panel.scratch.ms == scratch_ms and panel.scratch.words == scratch_words
    for row in panel.systems:
        ms, words = edit[row.name]
        assert (row.timing.ms, row.timing.words) == (ms, words)
        if words and scratch_words:
            assert row.efficiency == pytest.approx((scratch_ms / scratch_words) / (ms / words))


def test_postedit_clean_makes_one_line():
    assert postedit_clean("a\nb\r\n  c ") == "a b c"


# ---------------------------------------------------------------- pages and exports


def test_the_judge_screen_offers_the_box_and_only_to_its_judge(make_campaign, judges):
    campaign = postedit_campaign(make_campaign)
    mine = Assignment.objects.get(campaign=campaign, judge=judges[0])
    client = login(judges[0])
    for row in mine.items.select_related("item"):
        url = reverse("judging:judge_screen", args=[mine.pk, row.screen + 1])
        page = client.get(url).content.decode()
        assert f'name="postedit-{row.pk}"' in page and "judging_postedit.js" in page
        assert "<script>alert" not in page
        if row.item.text == XSS:
            # Escaped in the text, the box and the Esc attribute alike.
            assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 3
    url = reverse("judging:judge_screen", args=[mine.pk, 1])
    other = login(judges[2])  # a judge of the campaign, but not of this assignment
    assert other.get(url).status_code == 404
    assert other.post(url, {"token": "x", "postedit-1": "hi"}).status_code == 404
    assert not PostEdit.objects.exists()


def test_a_screen_post_stores_the_postedit_and_refuses_an_empty_one(make_campaign, judges):
    campaign = postedit_campaign(make_campaign)
    mine = Assignment.objects.get(campaign=campaign, judge=judges[0])
    client = login(judges[0])
    assigned = screen_detail(assignment=mine, screen=0).entries[0].assigned.pk
    url = reverse("judging:judge_screen", args=[mine.pk, 1])
    data = {"token": rendered_token(mine, 0), "active_ms": "2500"}
    response = client.post(url, {**data, f"postedit-{assigned}": "   "}, follow=True)
    assert "post-edit is empty" in response.content.decode()
    assert not PostEdit.objects.exists()
    response = client.post(url, {**data, f"postedit-{assigned}": "Fixed <b>text</b>."})
    assert response.status_code == 302
    stored = PostEdit.objects.get()
    assert stored.text == "Fixed <b>text</b>." and stored.judgment.active_ms == 2500


def test_a_screen_post_without_the_csrf_token_is_refused(make_campaign, judges):
    campaign = postedit_campaign(make_campaign)
    mine = Assignment.objects.get(campaign=campaign, judge=judges[0])
    client = Client(enforce_csrf_checks=True)
    client.force_login(judges[0])
    assigned = screen_detail(assignment=mine, screen=0).entries[0].assigned.pk
    url = reverse("judging:judge_screen", args=[mine.pk, 1])
    response = client.post(url, {"token": rendered_token(mine, 0), f"postedit-{assigned}": "a"})
    assert response.status_code == 403
    assert not PostEdit.objects.exists()


def judge_everything(campaign: Campaign) -> None:
    for assignment in campaign.assignments.all():
        for row in assignment.items.all():
            submit_postedit(assignment, row.screen, f"=edited {row.item.text}")


def test_the_campaign_page_and_exports_carry_the_postedits(make_campaign, admin_user):
    campaign = postedit_campaign(make_campaign)
    judge_everything(campaign)
    client = login(admin_user)
    detail = client.get(reverse("judging:campaign_detail", args=[campaign.pk])).content.decode()
    assert 'id="postedit-table"' in detail and "hter|nrefs:" in detail and "|pe:" in detail
    assert "No item was translated from scratch" in detail
    document = json.loads(
        client.get(reverse("judging:campaign_export", args=[campaign.pk, "json"])).content
    )
    assert document["campaign"]["protocol"] == "post-edit"
    rows = document["judgments"]
    assert rows and all(row["postedit"] == f"=edited {row['text']}" for row in rows)
    assert all(row["from_scratch"] is False for row in rows)
    body = client.get(reverse("judging:campaign_export", args=[campaign.pk, "csv"]))
    table = list(csv.DictReader(io.StringIO(body.content.decode())))
    assert table and list(table[0])[-2:] == ["postedit", "from_scratch"]
    # Spreadsheet-safe: a text starting with "=" is not a formula.
    assert all(row["postedit"].startswith("'=edited ") for row in table)
    da = reverse("judging:campaign_export", args=[campaign.pk, "wmt-da"])
    assert client.get(da).status_code == 404
