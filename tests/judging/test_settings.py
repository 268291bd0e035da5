"""Evaluation settings of every protocol: what is shown (source, reference, or the target only),
document context before/after the judged segment, and the per-item comment box."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.models import System
from evaltrans.corpora.services import testset_import
from judging.models import COMMENT_MAX_LENGTH, AssignedItem, Assignment, Campaign, Judgment
from judging.scales import FLUENCY, default_scales
from judging.selectors import screen_detail
from judging.services import campaign_create
from judging.services.campaigns import CampaignError
from judging.services.judgments import JudgingError, screen_submit

from .conftest import XSS
from .test_services import rendered_token

# Two documents interleaved (A and B), then a segment without a document.
DOCS = ["A", "A", "B", "A", "A", "A", "B", "A", ""]


def context_corpus() -> CorpusData:
    rows = []
    numbers: dict[str, int] = {}
    for index, doc in enumerate(DOCS):
        numbers[doc] = numbers.get(doc, 0) + 1
        name = f"{doc or 'none'}{numbers[doc]}"
        rows.append(
            SegmentData(
                source=f"src {name}",
                doc_id=doc,
                seg_id=str(index + 1),
                references={"R": f"ref {name}"},
                candidates={"x": f"x {name}", "y": f"y {name}"},
            )
        )
    return CorpusData(source_lang="de", target_lang="en", segments=rows, name="docs")


@pytest.fixture
def docs_set(db):
    return testset_import(corpus=context_corpus(), name="docs", import_format="text").test_set


def campaign_of(test_set, judges, **options) -> Campaign:
    settings = {
        "name": f"settings-{Campaign.objects.count() + 1}",
        "test_set": test_set,
        "systems": list(test_set.systems.all()),
        "judges": judges[:1],
        "judges_per_item": 1,
        "protocol": Campaign.Protocol.DIRECT_ASSESSMENT,
        "repeat_share": 0.0,
        "bad_reference_share": 0.0,
        "seed": 5,
    }
    settings.update(options)
    return campaign_create(**settings)


def name_of(text: str) -> str:
    return text.split(" ", 1)[1]


def expected_context(index: int, before: int, after: int) -> tuple[list[str], list[str]]:
    """Names of the same document's segments before/after ``index``, in document order."""
    doc = DOCS[index]
    if not doc:
        return [], []
    same = [i for i, d in enumerate(DOCS) if d == doc]
    place = same.index(index)
    names = [f"{doc}{number}" for number in range(1, len(same) + 1)]
    return names[max(0, place - before) : place], names[place + 1 : place + 1 + after]


# ---------------------------------------------------------------- document context


@pytest.mark.parametrize(("before", "after"), [(2, 2), (5, 0), (0, 1)])
def test_context_comes_from_the_same_document_only_in_order(docs_set, judges, before, after):
    campaign = campaign_of(
        docs_set, judges, show_context=True, context_before=before, context_after=after
    )
    assignment = Assignment.objects.get(campaign=campaign)
    screens = assignment.items.values_list("screen", flat=True).distinct()
    assert len(screens) == 2 * len(DOCS)
    for number in screens:
        view = screen_detail(assignment=assignment, screen=number)
        (entry,) = view.entries
        index = entry.assigned.item.segment.index
        system = entry.text.split(" ", 1)[0]
        want_before, want_after = expected_context(index, before, after)
        # Source side: the neighbours' sources; target side: the same system's translations.
        assert [name_of(text) for text in view.context_before] == want_before
        assert [name_of(text) for text in view.context_after] == want_after
        assert entry.context_before == [f"{system} {name}" for name in want_before]
        assert entry.context_after == [f"{system} {name}" for name in want_after]
        shown = view.context_before + view.context_after
        shown += entry.context_before + entry.context_after
        # Never a sentence of another document, never the judged one itself.
        assert all(name_of(text).rstrip("0123456789") == DOCS[index] for text in shown)
        assert view.source not in shown and entry.text not in shown


def test_without_context_no_neighbours_are_shown(docs_set, judges):
    campaign = campaign_of(docs_set, judges, show_context=False)
    assignment = Assignment.objects.get(campaign=campaign)
    view = screen_detail(assignment=assignment, screen=0)
    assert (view.context_before, view.context_after) == ([], [])
    assert (view.entries[0].context_before, view.entries[0].context_after) == ([], [])


def test_context_counts_are_0_to_5(docs_set, judges):
    with pytest.raises(CampaignError, match="0 to 5"):
        campaign_of(docs_set, judges, show_context=True, context_before=6)
    assert not Campaign.objects.exists()


def test_ranking_screens_show_source_context_only(docs_set, judges):
    campaign = campaign_of(
        docs_set,
        judges,
        protocol=Campaign.Protocol.RANKING,
        show_context=True,
        context_before=1,
        context_after=1,
    )
    assignment = Assignment.objects.get(campaign=campaign)
    for number in assignment.items.values_list("screen", flat=True).distinct():
        view = screen_detail(assignment=assignment, screen=number)
        index = view.entries[0].assigned.item.segment.index
        assert [name_of(t) for t in view.context_before] == expected_context(index, 1, 1)[0]
        assert all(not entry.context_before and not entry.context_after for entry in view.entries)


def login_screen(client, assignment, number: int = 1) -> str:
    client.force_login(assignment.judge)
    url = reverse("judging:judge_screen", args=[assignment.pk, number])
    return client.get(url).content.decode()


def test_context_is_rendered_subdued_and_mt_text_escaped(make_campaign, judges, client):
    """Toy set: system x wrote HTML on segment 3 (d2); it is the target context of x's
    segment 4, shown as text."""
    system = System.objects.get(name="x")
    campaign = make_campaign(
        systems=[system],
        judges=judges[:1],
        judges_per_item=1,
        show_context=True,
        context_before=2,
        aspect_order=Campaign.AspectOrder.TOGETHER,
    )
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    row = assignment.items.get(item__segment__index=3)
    html = login_screen(client, assignment, row.screen + 1)
    assert 'data-context="target-before"' in html and "context-current" in html
    assert XSS not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


# ---------------------------------------------------------------- what is shown


def test_target_only_hides_source_and_reference_in_the_html(make_campaign, judges, client):
    campaign = make_campaign(show_source=False, scales=[FLUENCY], judges_per_item=3)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    sources = ["Guten Morgen.", "Wie geht es dir?", "Das ist gut.", "Danke schön."]
    references = ["Good morning.", "How are you?", "That is good.", "Thank you.", "Morning!"]
    for number in range(1, assignment.items.values("screen").distinct().count() + 1):
        html = login_screen(client, assignment, number)
        candidate = re.search(r'class="candidate-text"[^>]*>([^<]*)<', html).group(1)
        for text in sources:
            assert text not in html
        for text in references:
            # A reference's words show only where a system wrote exactly the same text.
            assert text not in html.replace(candidate, "")
        assert 'class="text-block source' not in html and 'class="text-block reference' not in html


def test_source_based_shows_the_source_and_no_reference(make_campaign, judges, client):
    campaign = make_campaign(show_source=True, scales=[FLUENCY], judges_per_item=3)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    html = login_screen(client, assignment)
    assert 'class="text-block source' in html and 'class="text-block reference' not in html


# ---------------------------------------------------------------- comments


def one_screen(campaign) -> tuple[Assignment, int, AssignedItem]:
    assignment = campaign.assignments.first()
    view = screen_detail(assignment=assignment, screen=0)
    return assignment, 0, view.entries[0].assigned


def submit(assignment, number, comments, score=70):
    view = screen_detail(assignment=assignment, screen=number)
    scores = {(e.assigned.pk, c.aspect.name): score for e in view.entries for c in e.cells}
    return screen_submit(
        assignment=assignment,
        screen=number,
        scores=scores,
        active_ms=4000,
        token=rendered_token(assignment, number),
        comments=comments,
    )


def test_a_comment_is_stored_with_the_judgment_and_replaced_by_a_revision(docs_set, judges):
    campaign = campaign_of(docs_set, judges, comment_box=True)
    assignment, number, row = one_screen(campaign)
    submit(assignment, number, {row.pk: "  Missing 2 words; score 45?\r\nsee 3  "})
    row.refresh_from_db()
    assert row.comment == "Missing 2 words; score 45?\nsee 3"
    assert Judgment.objects.get(assigned_item=row).score == 70
    submit(assignment, number, {row.pk: ""}, score=60)
    row.refresh_from_db()
    assert row.comment == ""


def test_a_too_long_comment_is_refused_and_nothing_is_stored(docs_set, judges):
    campaign = campaign_of(docs_set, judges, comment_box=True)
    assignment, number, row = one_screen(campaign)
    with pytest.raises(JudgingError, match="at most 1,000 characters.*has 1,001"):
        submit(assignment, number, {row.pk: "é" * (COMMENT_MAX_LENGTH + 1)})
    row.refresh_from_db()
    assert row.comment == "" and row.completed_at is None
    assert not Judgment.objects.filter(assigned_item__assignment=assignment).exists()
    submit(assignment, number, {row.pk: "é" * COMMENT_MAX_LENGTH})
    row.refresh_from_db()
    assert len(row.comment) == COMMENT_MAX_LENGTH


def test_a_campaign_without_the_box_ignores_comments_and_shows_none(docs_set, judges, client):
    campaign = campaign_of(docs_set, judges)
    assignment, number, row = one_screen(campaign)
    assert "data-comment" not in login_screen(client, assignment)
    submit(assignment, number, {row.pk: "sneaked in"})
    row.refresh_from_db()
    assert row.comment == ""


def test_a_comment_for_an_item_of_another_screen_is_refused(docs_set, judges):
    campaign = campaign_of(docs_set, judges, comment_box=True)
    assignment, number, row = one_screen(campaign)
    other = assignment.items.exclude(screen=number).first()
    with pytest.raises(JudgingError):
        submit(assignment, number, {other.pk: "elsewhere"})
    assert not Judgment.objects.exists()


def test_the_comment_box_posts_escapes_and_exports(docs_set, judges, client, admin_user):
    campaign = campaign_of(docs_set, judges, comment_box=True)
    assignment, number, row = one_screen(campaign)
    html = login_screen(client, assignment)
    assert f'name="comment-{row.pk}"' in html and 'maxlength="1000"' in html
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    url = reverse("judging:judge_screen", args=[assignment.pk, 1])
    data = {"token": token, "active_ms": "3000", f"comment-{row.pk}": XSS}
    for name in set(re.findall(r'name="(score-\d+-[\w-]+)"', html)):
        data[name] = "55"
    too_long = {**data, f"comment-{row.pk}": "x" * 1001}
    refused = client.post(url, too_long, HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and refused.json()["location"] == url
    messages = [str(m) for m in get_messages(refused.wsgi_request)]
    assert any("at most 1,000 characters" in m for m in messages)
    assert not Judgment.objects.exists()
    assert client.post(url, data).status_code == 302
    row.refresh_from_db()
    assert row.comment == XSS
    revisit = login_screen(client, assignment)
    assert XSS not in revisit and "&lt;script&gt;alert(1)&lt;/script&gt;" in revisit

    client.force_login(admin_user)
    export = reverse("judging:campaign_export", args=[campaign.pk, "csv"])
    rows = list(csv.DictReader(io.StringIO(client.get(export).content.decode())))
    commented = [r for r in rows if r["comment"]]
    assert commented and all(r["comment"] == XSS for r in commented)
    body = client.get(reverse("judging:campaign_export", args=[campaign.pk, "json"]))
    document = json.loads(body.content)
    assert document["campaign"]["comment_box"] is True
    assert {r["comment"] for r in document["judgments"]} == {XSS}


def test_the_span_list_shows_comments_escaped(docs_set, judges, client, admin_user):
    campaign = campaign_of(docs_set, judges, protocol=Campaign.Protocol.ESA, comment_box=True)
    assignment, number, row = one_screen(campaign)
    view = screen_detail(assignment=assignment, screen=number)
    screen_submit(
        assignment=assignment,
        screen=number,
        scores={(row.pk, cell.aspect.name): 40 for cell in view.entries[0].cells},
        spans={row.pk: []},
        active_ms=3000,
        token=rendered_token(assignment, number),
        comments={row.pk: XSS},
    )
    client.force_login(admin_user)
    html = client.get(reverse("judging:campaign_spans", args=[campaign.pk])).content.decode()
    assert "judge-comment" in html and XSS not in html


# ---------------------------------------------------------------- campaign form


def test_the_form_offers_the_settings_with_wmt_defaults(client, admin_user, test_set, judges):
    client.force_login(admin_user)
    url = reverse("judging:campaign_new", args=[test_set.pk])
    page = client.get(url).content.decode()
    assert re.search(r'name="show_source"[^>]*checked', page)
    assert not re.search(r'name="show_context"[^>]*checked', page)
    assert not re.search(r'name="comment_box"[^>]*checked', page)
    assert re.search(r'name="context_before"[^>]*value="2"', page)
    data = {
        "name": "Doc-level",
        "systems": [system.pk for system in test_set.systems.all()],
        "reference_label": "A",
        "judges": [judge.pk for judge in judges],
        "judges_per_item": "2",
        "presentation": "single",
        "aspect_order": "sequential",
        "show_source": "on",
        "show_context": "on",
        "context_before": "3",
        "context_after": "1",
        "comment_box": "on",
        "repeat_share": "0",
        "scales": json.dumps(default_scales()),
    }
    client.post(url, data)
    campaign = Campaign.objects.get(name="Doc-level")
    assert (campaign.context_before, campaign.context_after, campaign.comment_box) == (3, 1, True)
    detail = client.get(campaign.get_absolute_url()).content.decode()
    assert "document context: 3 before, 1 after" in detail and "comment box" in detail
    data.update(name="Too much", context_before="6")
    assert "less than or equal to 5" in client.post(url, data).content.decode()
    assert not Campaign.objects.filter(name="Too much").exists()
