"""Error spans (MQM and ESA): span checks, MQM scores equal to the MQM importer's, scores
flowing into the human-score machinery, character-level F1 agreement, exports (CSV, JSON,
WMT's MQM TSV re-imported by the existing importer), the admin's highlighted list and the
judge's pages."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from evaltrans.corpora.formats.base import InputFile
from judging.exports import campaign_mqm_tsv_export
from judging.formats.mqm import DEFAULT_WEIGHTS, parse_mqm_tsv
from judging.forms import CampaignForm
from judging.humanscores.selectors import (
    SOURCE_CAMPAIGN,
    agreement_panel,
    human_source_get,
    source_human_scores,
)
from judging.humanscores.services import judgmentset_import_file
from judging.models import Assignment, Campaign, ErrorSpan, Judgment, JudgmentRevision
from judging.scales import ESA_NAME, MQM_NAME
from judging.selectors import (
    campaign_judgment_rows,
    campaign_span_agreement,
    screen_detail,
)
from judging.services import CampaignError, JudgingError, screen_submit
from judging.spans import (
    MQM_TYPOLOGY,
    Span,
    SpanError,
    mqm_score,
    mqm_stored,
    span_agreement,
    span_f1,
    spans_validate,
)

from .conftest import XSS
from .test_services import rendered_token

pytestmark = pytest.mark.django_db

TEXT = "The cat sat on the mat."


# ---------------------------------------------------------------- pure: checks, score, F1


def test_spans_are_checked_against_the_text_and_the_typology():
    good = spans_validate(
        [
            {"start": 4, "end": 7, "category": "Accuracy/Mistranslation", "severity": "Major"},
            {
                "start": 0,
                "end": 3,
                "category": "Fluency/Grammar",
                "severity": "minor",
                "note": " x ",
            },
        ],
        text=TEXT,
        categories=MQM_TYPOLOGY,
    )
    assert good == [
        Span(0, 3, "minor", "Fluency/Grammar", "x"),
        Span(4, 7, "major", "Accuracy/Mistranslation", ""),
    ]
    bad = [
        ({"start": 5, "end": 5, "severity": "minor", "category": "Other"}, "not inside"),
        ({"start": 20, "end": 24, "severity": "minor", "category": "Other"}, "not inside"),
        ({"start": -1, "end": 2, "severity": "minor", "category": "Other"}, "not inside"),
        ({"start": 0, "end": 2, "severity": "critical", "category": "Other"}, "not minor or major"),
        ({"start": 0, "end": 2, "severity": "minor", "category": "Poetry"}, "not a category"),
        ({"start": "0", "end": 2, "severity": "minor", "category": "Other"}, "give start, end"),
        ({"start": True, "end": 2, "severity": "minor", "category": "Other"}, "give start, end"),
    ]
    for span, message in bad:
        with pytest.raises(SpanError, match=message):
            spans_validate([span], text=TEXT, categories=MQM_TYPOLOGY)
    with pytest.raises(SpanError, match="must be a list"):
        spans_validate({"start": 0}, text=TEXT, categories=MQM_TYPOLOGY)
    with pytest.raises(SpanError, match="ESA spans have a severity only"):
        spans_validate(
            [{"start": 0, "end": 2, "severity": "minor", "category": "Other"}],
            text=TEXT,
            categories=None,
        )


def test_offsets_count_characters_not_bytes_nor_utf16_units():
    text = "Grüße 😀 ok"  # the emoji is one character (two UTF-16 units)
    (span,) = spans_validate(
        [{"start": 8, "end": 10, "severity": "minor", "category": ""}], text=text, categories=None
    )
    assert text[span.start : span.end] == "ok"


def test_the_mqm_score_uses_the_importers_weights():
    spans = [
        Span(0, 3, "major", "Accuracy/Mistranslation"),  # 5
        Span(4, 5, "minor", "Fluency/Punctuation"),  # 0.1
        Span(6, 8, "minor", "Style/Awkward"),  # 1
    ]
    assert mqm_score(spans) == pytest.approx(-6.1)
    assert mqm_stored(spans) == -610
    assert mqm_score([Span(0, 3, "major", "Non-translation!")]) == -25.0
    assert mqm_score([]) == 0.0
    # The very same table as the importer (not a copy).
    for span in spans:
        assert DEFAULT_WEIGHTS.penalty(span.category, span.severity) in (5.0, 0.1, 1.0)


def test_character_f1_worked_example():
    # "The cat sat on the mat."
    # Judge A marks 0-7 "The cat" (7 characters), judge B marks 4-10 "cat sat" (6 characters).
    # Shared: 4-7 "cat" = 3 characters. F1 = 2 * 3 / (7 + 6) = 6 / 13 = 0.4615...
    a = [Span(0, 7, "minor", "Other")]
    b = [Span(4, 10, "major", "Other")]
    assert span_f1(a, b) == pytest.approx(6 / 13)
    assert span_f1(b, a) == span_f1(a, b)
    # Categories and severities do not matter; overlapping spans of one judge count once.
    assert span_f1(a, [Span(0, 4, "major", "X"), Span(2, 7, "minor", "Y")]) == 1.0
    assert span_f1([], []) == 1.0  # both found no error: full agreement
    assert span_f1(a, []) == 0.0
    # Mean over items and judge pairs: item 1 has judges A, B, C (pairs AB = 6/13, AC = 1,
    # BC = 6/13); item 2 has judges A and B, both without errors (1). Mean of the 4 pairs:
    # (6/13 + 1 + 6/13 + 1) / 4 = (12/13 + 2) / 4 = 38/52 = 0.7307...
    result = span_agreement({1: {"A": a, "B": b, "C": a}, 2: {"A": [], "B": []}, 3: {"A": a}})
    assert result.f1 == pytest.approx(38 / 52)
    assert (result.pairs, result.items) == (4, 2)


# ---------------------------------------------------------------- campaigns and submission


def mqm_campaign(make_campaign, **options):
    settings = {"protocol": Campaign.Protocol.MQM, "judges_per_item": 2}
    settings.update(options)
    return make_campaign(**settings)


def submit_spans(assignment, screen, spans, *, score=None, token=None):
    view = screen_detail(assignment=assignment, screen=screen)
    (entry,) = view.entries
    scores = {} if score is None else {(entry.assigned.pk, ESA_NAME): score}
    return screen_submit(
        assignment=assignment,
        screen=screen,
        scores=scores,
        active_ms=3000,
        token=token or rendered_token(assignment, screen),
        spans={entry.assigned.pk: spans},
    )


def screen_of(assignment, text):
    """The screen where ``assignment`` judges ``text``."""
    return assignment.items.get(item__text=text, is_repeat=False).screen


def test_an_mqm_campaign_has_one_span_aspect_and_the_wmt_typology(make_campaign):
    campaign = mqm_campaign(make_campaign)
    assert [a.name for a in campaign.aspects.all()] == [MQM_NAME]
    assert campaign.error_categories == list(MQM_TYPOLOGY)
    assert campaign.presentation == Campaign.Presentation.SINGLE
    esa = make_campaign(protocol=Campaign.Protocol.ESA)
    (aspect,) = esa.aspects.all()
    assert (aspect.name, aspect.is_slider, aspect.minimum, aspect.maximum) == ("esa", True, 0, 100)
    assert esa.error_categories == []
    with pytest.raises(CampaignError, match="one candidate per screen"):
        mqm_campaign(make_campaign, presentation=Campaign.Presentation.GROUPED)
    with pytest.raises(CampaignError, match="categories"):
        mqm_campaign(make_campaign, error_categories=["Other", "Other"])
    custom = mqm_campaign(make_campaign, error_categories=["Accuracy", "Fluency", "Other"])
    assert custom.error_categories == ["Accuracy", "Fluency", "Other"]


def test_spans_are_stored_and_scored_as_the_importer_scores(make_campaign, judges):
    campaign = mqm_campaign(make_campaign)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    screen = assignment.items.filter(is_repeat=False).first().screen
    text = screen_detail(assignment=assignment, screen=screen).entries[0].text
    spans = [
        {"start": 0, "end": 2, "category": "Accuracy/Mistranslation", "severity": "major"},
        {"start": len(text) - 1, "end": len(text), "category": "Fluency/Punctuation",
         "severity": "minor", "note": "full stop"},
    ]  # fmt: skip
    result = submit_spans(assignment, screen, spans)
    assert result.created == 1
    judgment = Judgment.objects.get(assigned_item__assignment=assignment)
    assert (judgment.protocol, judgment.score) == ("mqm", -510)
    stored = list(judgment.spans.values_list("start", "end", "category", "severity", "note"))
    assert stored == [
        (0, 2, "Accuracy/Mistranslation", "major", ""),
        (len(text) - 1, len(text), "Fluency/Punctuation", "minor", "full stop"),
    ]
    rows = [row for row in campaign_judgment_rows(campaign=campaign) if row["judge"] == "judge1"]
    assert rows and all(row["score"] == pytest.approx(-5.1) for row in rows)
    assert rows[0]["spans"][0]["category"] == "Accuracy/Mistranslation"


def test_bad_spans_store_nothing(make_campaign, judges):
    campaign = mqm_campaign(make_campaign)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    screen = assignment.items.filter(is_repeat=False).first().screen
    good = {"start": 0, "end": 1, "category": "Other", "severity": "minor"}
    for bad, message in (
        ({"start": 0, "end": 999, "category": "Other", "severity": "minor"}, "not inside"),
        ({"start": 0, "end": 1, "category": "Nonsense", "severity": "minor"}, "not a category"),
        ({"start": 0, "end": 1, "category": "Other", "severity": "fatal"}, "not minor or major"),
    ):
        with pytest.raises(JudgingError, match=message):
            submit_spans(assignment, screen, [good, bad])
    with pytest.raises(JudgingError, match="must be a list"):
        submit_spans(assignment, screen, None)
    with pytest.raises(JudgingError, match="no error spans"):
        screen_submit(
            assignment=assignment,
            screen=screen,
            scores={},
            active_ms=10,
            token=rendered_token(assignment, screen),
            spans={},
        )
    assert not Judgment.objects.exists()
    assert not ErrorSpan.objects.exists()


def test_no_errors_submits_an_empty_list_and_a_revision_keeps_the_spans_it_replaces(
    make_campaign, judges
):
    campaign = mqm_campaign(make_campaign)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    screen = assignment.items.filter(is_repeat=False).first().screen
    token = rendered_token(assignment, screen)
    submit_spans(assignment, screen, [], token=token)
    judgment = Judgment.objects.get()
    assert judgment.score == 0 and not judgment.spans.exists()
    assert submit_spans(assignment, screen, [], token=token).unchanged == 1  # a retry
    revised = submit_spans(
        assignment, screen, [{"start": 0, "end": 1, "category": "Other", "severity": "major"}]
    )
    assert revised.revised == 1
    judgment.refresh_from_db()
    assert judgment.score == -500 and judgment.spans.count() == 1
    first = JudgmentRevision.objects.get()
    assert first.score == 0 and first.superseded == {"spans": []}
    # The page shows the judge's spans again when revising.
    entry = screen_detail(assignment=assignment, screen=screen).entries[0]
    assert json.loads(entry.spans_json)[0]["severity"] == "major"
    # A second revision keeps the span it replaces, with its category and note.
    submit_spans(
        assignment, screen, [{"start": 0, "end": 2, "category": "Other", "severity": "minor"}]
    )
    second = JudgmentRevision.objects.order_by("replaced_at", "pk").last()
    assert second.score == -500
    assert second.superseded == {
        "spans": [{"start": 0, "end": 1, "category": "Other", "severity": "major", "note": ""}]
    }


def test_an_esa_judgment_is_the_slider_score_with_its_spans(make_campaign, judges):
    campaign = make_campaign(protocol=Campaign.Protocol.ESA, judges_per_item=1)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    screen = assignment.items.filter(is_repeat=False).first().screen
    span = {"start": 0, "end": 2, "severity": "minor"}
    with pytest.raises(JudgingError):
        submit_spans(assignment, screen, [span])  # the overall score is missing
    with pytest.raises(JudgingError, match="no category"):
        submit_spans(assignment, screen, [{**span, "category": "Other"}], score=70)
    submit_spans(assignment, screen, [span], score=70)
    judgment = Judgment.objects.get()
    assert (judgment.protocol, judgment.score, judgment.spans.count()) == ("esa", 70, 1)
    source = human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk)
    assert source.scales == {"esa": {"kind": "da"}}
    assert {record.raw for record in source.records} == {70.0}


# ---------------------------------------------------------------- equal to an imported TSV

# Errors per candidate text of the toy test set (start, end, category, severity).
ERRORS = {
    "Good morning.": [(0, 4, "Accuracy/Mistranslation", "major"), (12, 13, "Fluency/Punctuation", "minor")],
    "Hello morning.": [(0, 5, "Style/Awkward", "minor")],
    "How goes it?": [(4, 8, "Fluency/Grammar", "major"), (0, 12, "Non-translation!", "major")],
    "That good.": [(5, 9, "Accuracy/Omission", "minor"), (9, 10, "Fluency/Punctuation", "minor")],
}  # fmt: skip


def judge_everything(campaign):
    """Every judge marks ERRORS on every screen (nothing on texts without an entry)."""
    for assignment in campaign.assignments.all():
        for screen in sorted(set(assignment.items.values_list("screen", flat=True))):
            text = screen_detail(assignment=assignment, screen=screen).entries[0].text
            spans = [
                {"start": s, "end": e, "category": c, "severity": v}
                for s, e, c, v in ERRORS.get(text, [])
            ]
            submit_spans(assignment, screen, spans)


def hand_written_tsv(campaign) -> bytes:
    """The same errors as google/wmt-mqm-human-evaluation writes them, by hand."""
    lines = ["system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"]
    for row in campaign_judgment_rows(campaign=campaign):
        if row["is_repeat"]:
            continue
        text = row["text"]
        errors = ERRORS.get(text, [])
        head = f"{row['system']}\t{row['doc_id']}\t1\t{row['seg_id']}\t{row['judge']}\tsrc"
        if not errors:
            lines.append(f"{head}\t{text}\tNo-error\tNo-error")
        for start, end, category, severity in errors:
            marked = f"{text[:start]}<v>{text[start:end]}</v>{text[end:]}"
            lines.append(f"{head}\t{marked}\t{category}\t{severity.capitalize()}")
    return ("\n".join(lines) + "\n").encode()


def mqm_records_by_key(records):
    return {
        (r.system, r.segment_id, r.judge): r.raw
        for r in records
        if r.aspect == MQM_NAME and r.kind == "SYSTEM"
    }


def test_a_campaigns_spans_score_as_the_same_errors_imported_from_a_tsv(make_campaign):
    campaign = mqm_campaign(make_campaign, repeat_share=0.2)
    judge_everything(campaign)
    source = human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk)
    assert source.scales == {MQM_NAME: {"kind": "mqm"}}
    ours = mqm_records_by_key(source.records)
    imported = mqm_records_by_key(parse_mqm_tsv(InputFile("hand.tsv", hand_written_tsv(campaign))))
    assert ours.keys() == imported.keys() and ours
    for key, raw in imported.items():
        assert ours[key] == pytest.approx(raw, abs=1e-12), key
    assert min(ours.values()) == pytest.approx(-30.0)  # Non-translation! major + major
    # The scores flow on: per-judge normalization, system ranking, agreement.
    scores = source_human_scores(source=source, aspect=MQM_NAME, weighting="none")
    by_system = {score.system: score for score in scores.systems}
    assert by_system["z"].raw > by_system["y"].raw
    agreement = agreement_panel(source=source, aspect=MQM_NAME, unit="candidate")["agreement"]
    assert agreement.shared_items > 0
    # Two judges marked the same errors everywhere: full span agreement.
    f1 = campaign_span_agreement(campaign=campaign)
    assert f1.f1 == 1.0 and f1.pairs > 0


def test_the_mqm_tsv_export_reimports_with_the_existing_importer(make_campaign):
    campaign = mqm_campaign(make_campaign)
    judge_everything(campaign)
    body = campaign_mqm_tsv_export(campaign=campaign)
    assert body.splitlines()[0].split("\t")[:9] == [
        "system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity",
    ]  # fmt: skip
    assert "<v>Good</v> morning." in body and "\tNo-error\tNo-error\t" in body
    reread = mqm_records_by_key(parse_mqm_tsv(InputFile("export.tsv", body.encode())))
    ours = mqm_records_by_key(human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk).records)
    assert reread.keys() == ours.keys()
    for key, raw in reread.items():
        assert ours[key] == pytest.approx(raw, abs=1e-12)
    # Through the import service too: attached to the same test set, the same scores.
    result = judgmentset_import_file(
        import_format="mqm-tsv",
        file=InputFile("export.tsv", body.encode()),
        name="re-imported",
        test_set=campaign.test_set,
    )
    imported = human_source_get(kind="set", pk=result.judgment_set.pk)
    assert imported.test_set == campaign.test_set
    assert mqm_records_by_key(imported.records) == pytest.approx(ours)


# ---------------------------------------------------------------- pages


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_judge_screen_offers_spans_and_only_to_its_judge(make_campaign, judges):
    campaign = mqm_campaign(make_campaign)
    mine = Assignment.objects.get(campaign=campaign, judge=judges[0])
    url = reverse("judging:judge_screen", args=[mine.pk, 1])
    page = login(judges[0]).get(url).content.decode()
    assert "data-span-text" in page and 'name="spans-' in page
    assert "Accuracy/Mistranslation" in page and "judging_spans.js" in page
    assert "<script>alert" not in page
    other = login(judges[2])
    assert other.get(url).status_code == 404
    assert other.post(url, {"token": "x", "spans-1": "[]"}).status_code == 404


def test_a_screen_post_stores_spans_and_refuses_bad_ones(make_campaign, judges):
    campaign = mqm_campaign(make_campaign)
    mine = Assignment.objects.get(campaign=campaign, judge=judges[0])
    client = login(judges[0])
    view = screen_detail(assignment=mine, screen=0)
    assigned = view.entries[0].assigned.pk
    url = reverse("judging:judge_screen", args=[mine.pk, 1])
    data = {"token": rendered_token(mine, 0), "active_ms": "2000"}
    bad = [{"start": 0, "end": 500, "category": "Other", "severity": "minor"}]
    response = client.post(url, {**data, f"spans-{assigned}": json.dumps(bad)}, follow=True)
    assert "not inside the translation" in response.content.decode()
    assert not Judgment.objects.exists()
    response = client.post(url, {**data, f"spans-{assigned}": "not json"}, follow=True)
    assert "must be a list" in response.content.decode()
    good = [{"start": 0, "end": 1, "category": "Other", "severity": "minor"}]
    response = client.post(url, {**data, f"spans-{assigned}": json.dumps(good)})
    assert response.status_code == 302
    assert Judgment.objects.get().score == -100


def test_a_screen_post_without_the_csrf_token_is_refused(make_campaign, judges):
    campaign = mqm_campaign(make_campaign)
    mine = Assignment.objects.get(campaign=campaign, judge=judges[0])
    client = Client(enforce_csrf_checks=True)
    client.force_login(judges[0])
    url = reverse("judging:judge_screen", args=[mine.pk, 1])
    response = client.post(url, {"token": rendered_token(mine, 0), "spans-1": "[]"})
    assert response.status_code == 403
    assert not Judgment.objects.exists()


def test_the_admin_list_highlights_spans_and_escapes_the_text(make_campaign, judges, admin_user):
    campaign = mqm_campaign(make_campaign)
    for assignment in campaign.assignments.all():
        for assigned in assignment.items.filter(is_repeat=False):
            spans = []
            if assigned.item.text == XSS:
                # "script" of "<script>" and the closing tag's "</script>" (escaped pieces).
                spans = [
                    {"start": 1, "end": 7, "category": "Other", "severity": "major",
                     "note": '<img src=x onerror="alert(2)">'},
                    {"start": 16, "end": 25, "category": "Fluency/Grammar", "severity": "minor"},
                ]  # fmt: skip
            submit_spans(assignment, assigned.screen, spans)
    client = login(admin_user)
    page = client.get(reverse("judging:campaign_spans", args=[campaign.pk])).content.decode()
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert '&lt;<mark class="err err-major" title="Major · Other · &lt;img src=x' in page
    assert (
        '<mark class="err err-minor" title="Minor · Fluency/Grammar">&lt;/script&gt;</mark>' in page
    )
    assert 'id="span-f1"' in page
    detail = client.get(reverse("judging:campaign_detail", args=[campaign.pk])).content.decode()
    assert 'id="span-agreement"' in detail and "wmt-mqm" in detail
    # Another protocol's campaign has no spans page: its campaign page instead.
    other = make_campaign()
    response = client.get(reverse("judging:campaign_spans", args=[other.pk]))
    assert response.status_code == 302 and response["Location"] == other.get_absolute_url()


def test_exports_carry_the_spans(make_campaign, judges, admin_user):
    campaign = mqm_campaign(make_campaign)
    judge_everything(campaign)
    client = login(admin_user)
    export = reverse("judging:campaign_export", args=[campaign.pk, "json"])
    document = json.loads(client.get(export).content)
    assert document["campaign"]["error_categories"] == list(MQM_TYPOLOGY)
    marked = [row for row in document["judgments"] if row["text"] == "Hello morning."]
    assert marked and all(row["spans"][0]["category"] == "Style/Awkward" for row in marked)
    assert all(row["score"] == -1.0 for row in marked)
    csv_body = client.get(
        reverse("judging:campaign_export", args=[campaign.pk, "csv"])
    ).content.decode()
    assert csv_body.splitlines()[0].endswith(",spans")
    assert "Style/Awkward" in csv_body
    tsv = client.get(reverse("judging:campaign_export", args=[campaign.pk, "wmt-mqm"]))
    assert tsv.status_code == 200 and b"<v>Hello</v> morning." in tsv.content
    # MQM penalties are no DA score.
    da = reverse("judging:campaign_export", args=[campaign.pk, "wmt-da"])
    assert client.get(da).status_code == 404


def test_the_campaign_form_offers_mqm_with_the_typology_prefilled(test_set, judges):
    form = CampaignForm(test_set=test_set)
    choices = dict(form.fields["protocol"].choices)
    assert choices["mqm"].startswith("MQM error spans") and choices["esa"].startswith("ESA")
    assert form.fields["error_categories"].initial.splitlines() == list(MQM_TYPOLOGY)
    data = {
        "name": "form mqm",
        "protocol": "mqm",
        "systems": [s.pk for s in test_set.systems.all()],
        "judges": [j.pk for j in judges],
        "judges_per_item": 2,
        "presentation": "grouped",
        "aspect_order": "sequential",
        "repeat_share": 0.05,
        "reference_label": "A",
        "error_categories": "Accuracy\n\nFluency\nOther\n",
        "show_reference": "on",
    }
    form = CampaignForm(data, test_set=test_set)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["error_categories"] == ["Accuracy", "Fluency", "Other"]
    assert form.cleaned_data["presentation"] == "single"
    assert form.cleaned_data["scales"][0]["needs_reference"] is True


def test_every_export_of_an_mqm_campaign_answers(make_campaign, admin_user):
    campaign = mqm_campaign(make_campaign)
    judge_everything(campaign)
    client = login(admin_user)
    for export_format in ("csv", "json", "evaltrans-xml", "wmt-mqm"):
        url = reverse("judging:campaign_export", args=[campaign.pk, export_format])
        assert client.get(url).status_code == 200, export_format
    source = human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk)
    assert source.judge_flags  # QC ran on every judge
    page = client.get(reverse("humanscores:agreement", args=["campaign", campaign.pk]))
    assert page.status_code == 200
