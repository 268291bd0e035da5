"""The judgments import page: admins only, every format lands on the new set's ranking panel,
bad input shows the parser's or the service's message (escaped) and stores nothing."""

from __future__ import annotations

import pytest
from django.contrib.messages import constants as message_levels
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from evaltrans.corpora.forms import TOO_LARGE
from judging.humanscores import services
from judging.humanscores.models import ExternalJudgment, JudgmentSet

from .conftest import DA_HEADER, DA_ROWS, DA_STATS, EVALTRANS_XML, mqm_rows

pytestmark = pytest.mark.django_db

IMPORT_URL = reverse("humanscores:import")
MQM_TEXT = "\n".join(mqm_rows()) + "\n"
DA_TEXT = "\n".join([DA_HEADER, *DA_ROWS]) + "\n"
STATS_TEXT = "\n".join(DA_STATS) + "\n"
XML_TEXT = EVALTRANS_XML.format(value=3)
FILES = {
    "mqm-tsv": ("ratings.tsv", MQM_TEXT),
    "wmt-da-csv": ("ad-good-stnd.csv", DA_TEXT),
    "evaltrans-xml": ("db.xml", XML_TEXT),
}


def upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"))


def post(client, import_format: str, name: str = "web set", **overrides):
    file_name, text = FILES[import_format]
    data = {"format": import_format, "name": name, "file": upload(file_name, text)}
    data.update(overrides)
    return client.post(IMPORT_URL, data, follow=True)


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def flash(response) -> list[tuple[int, str]]:
    return [(message.level, message.message) for message in response.context["messages"]]


# ---------------------------------------------------------------- permissions


def test_anonymous_users_are_sent_to_login(client):
    response = client.get(IMPORT_URL)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_judges_and_viewers_are_forbidden(client, judge_user, viewer_user):
    for user in (judge_user, viewer_user):
        client.force_login(user)
        assert client.get(IMPORT_URL).status_code == 403
        assert client.post(IMPORT_URL, {"format": "mqm-tsv", "name": "x"}).status_code == 403
    assert not JudgmentSet.objects.exists()


def test_admins_see_the_form_with_formats_and_test_sets(admin_client, toy_test_set):
    page = admin_client.get(IMPORT_URL)
    assert page.status_code == 200
    html = page.content.decode()
    for import_format in services.IMPORT_FORMATS:
        assert f'value="{import_format}"' in html
    assert escape("An EvalTrans database: the <eval> elements of each target") in html
    assert f'<option value="{toy_test_set.pk}">toy v1 (de→en, 3 segments)</option>' in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_the_list_page_links_to_the_import_for_admins_only(client, admin_user, viewer_user):
    link = f'href="{IMPORT_URL}"'
    client.force_login(admin_user)
    assert link in client.get(reverse("humanscores:index")).content.decode()
    client.force_login(viewer_user)
    assert link not in client.get(reverse("humanscores:index")).content.decode()


# ---------------------------------------------------------------- imports


@pytest.mark.parametrize(
    ("import_format", "judgments", "judges", "systems", "segments"),
    [
        # 3 systems (ref included) x 3 segments x 2 raters x 3 aspects (mqm and its two halves)
        ("mqm-tsv", 54, 2, 3, 3),
        # one row each; W1 and W2, sysA and sysB, segments 1 and 2
        ("wmt-da-csv", 7, 2, 2, 2),
        # ann and bob: fluency and adequacy of sysA on two segments (isPerfect is no aspect)
        ("evaltrans-xml", 8, 2, 1, 2),
    ],
)
def test_each_format_lands_on_the_new_sets_ranking(
    admin_client, import_format, judgments, judges, systems, segments
):
    response = post(admin_client, import_format)
    judgment_set = JudgmentSet.objects.get(name="web set")
    ranking_url = reverse("humanscores:ranking", args=["set", judgment_set.pk])
    assert response.redirect_chain == [(ranking_url, 302)]
    assert response.status_code == 200
    assert judgment_set.source_format == import_format
    assert judgment_set.judgments.count() == judgments
    assert len(response.context["source"].records) == judgments
    [(level, text)] = flash(response)
    assert level == message_levels.SUCCESS
    assert text.startswith(
        f"Imported judgment set 'web set': {judgments} judgments by {judges} judges of "
        f"{systems} systems on {segments} segments"
    )
    assert escape(text) in response.content.decode()


def test_da_with_judge_stats_has_raw_scores(admin_client):
    response = post(
        admin_client, "wmt-da-csv", judge_stats=upload("ad-trk-mean-sd.txt", STATS_TEXT)
    )
    judgment_set = JudgmentSet.objects.get(name="web set")
    # W1: mean 50, sd 20; W2: mean 70, sd 10 (raw = z * sd + mean)
    raw = list(judgment_set.judgments.order_by("pk").values_list("raw", flat=True))
    assert raw == [60.0, 40.0, 60.0, 30.0, 80.0, 60.0, 70.0]
    assert judgment_set.file_name == "ad-good-stnd.csv + ad-trk-mean-sd.txt"
    # sysB's only SYSTEM segment: W1 gave 40, W2 60 (its BAD_REF row is quality control)
    rows = {row["system"]: row for row in response.context["views"]["raw"]["rows"]}
    assert rows["sysB"]["score"] == pytest.approx(50.0)


def test_da_without_judge_stats_has_only_the_given_z(admin_client):
    response = post(admin_client, "wmt-da-csv")
    judgment_set = JudgmentSet.objects.get(name="web set")
    assert set(judgment_set.judgments.values_list("raw", flat=True)) == {None}
    assert "raw" not in response.context["views"]
    assert response.context["view"] == "normalized"


def test_mqm_attached_to_the_chosen_test_set(admin_client, toy_test_set):
    response = post(admin_client, "mqm-tsv", test_set=toy_test_set.pk)
    assert JudgmentSet.objects.get(name="web set").test_set == toy_test_set
    [(level, text)] = flash(response)
    assert level == message_levels.SUCCESS and text.endswith("attached to test set toy v1.")


def test_a_refused_attachment_is_a_warning_with_the_note(admin_client, toy_test_set):
    response = post(admin_client, "wmt-da-csv", test_set=toy_test_set.pk)
    judgment_set = JudgmentSet.objects.get(name="web set")
    assert judgment_set.test_set is None
    note = "not attached to test set toy v1: " + services.DA_NOT_ATTACHABLE.format(
        file="ad-good-stnd.csv"
    )
    assert judgment_set.attachment_note == note
    [(level, text)] = flash(response)
    assert level == message_levels.WARNING and text.endswith(f"; {note}.")


# ---------------------------------------------------------------- bad input


def refused(client, import_format: str, **overrides) -> str:
    """Posts a bad import; checks that the form comes back and nothing was stored; returns the
    page."""
    sets, judgments = JudgmentSet.objects.count(), ExternalJudgment.objects.count()
    response = post(client, import_format, **overrides)
    assert response.redirect_chain == []
    assert response.status_code == 200
    assert (JudgmentSet.objects.count(), ExternalJudgment.objects.count()) == (sets, judgments)
    return response.content.decode()


@pytest.mark.parametrize(
    ("import_format", "file_name", "text", "message"),
    [
        ("wmt-da-csv", "ad.csv", f"{DA_HEADER}\nH1 W1 de en ad 1 sysA.1 10 SYSTEM 1 high 1.0\n",
         "ad.csv, line 2: score is not a number: 'high'"),
        ("wmt-da-csv", "ad.csv", f"{DA_HEADER}\n{DA_ROWS[0]}\nH1 W1 de en ad 1 sysA.1 10 SYSTEM 2\n",
         "ad.csv, line 3: 10 fields, the header has 12"),
        ("mqm-tsv", "ratings.tsv", "\n".join(mqm_rows()[:3] + ["sysA\td\t1\t1\tr\ts\tt\tX\tCritical\t"]),
         "ratings.tsv, line 4: unknown severity 'Critical'"),
        ("mqm-tsv", "ratings.tsv", "", "ratings.tsv: the file is empty"),
        ("evaltrans-xml", "db.xml", EVALTRANS_XML.format(value=7),
         "adequacy value 7 is above the last level 5"),
    ],
)  # fmt: skip
def test_malformed_files_show_the_message_and_store_nothing(
    admin_client, import_format, file_name, text, message
):
    html = refused(admin_client, import_format, file=upload(file_name, text))
    assert escape(message) in html
    assert 'class="error-box"' in html


def test_a_taken_name_is_refused(admin_client):
    post(admin_client, "mqm-tsv", name="once")
    html = refused(admin_client, "evaltrans-xml", name="once")
    assert escape(services.NAME_TAKEN.format(name="once")) in html


def test_judge_stats_with_another_format_are_refused(admin_client):
    stats = upload("ad-trk-mean-sd.txt", STATS_TEXT)
    html = refused(admin_client, "mqm-tsv", judge_stats=stats)
    assert escape(services.JUDGE_STATS_ONLY_DA) in html


def test_a_file_above_the_size_limit_is_refused(admin_client, settings):
    settings.CORPUS_UPLOAD_MAX_BYTES = 100
    html = refused(admin_client, "mqm-tsv")
    size = len(MQM_TEXT.encode("utf-8"))
    assert escape(TOO_LARGE.format(name="ratings.tsv", size=size, limit=100)) in html


def test_a_missing_file_is_a_field_error(admin_client):
    html = refused(admin_client, "mqm-tsv", file="")
    assert 'class="field-error"' in html


# ---------------------------------------------------------------- escaping and CSRF


def test_html_in_the_name_is_escaped(admin_client):
    name = "<script>alert(1)</script>"
    response = post(admin_client, "mqm-tsv", name=name)
    html = response.content.decode()
    assert JudgmentSet.objects.filter(name=name).exists()
    assert name not in html
    assert escape(name) in html


def test_html_in_the_file_is_escaped_in_the_message(admin_client):
    text = f"{DA_HEADER}\nH1 W1 de en ad 1 sysA.1 10 SYSTEM 1 <b>bad</b> 1.0\n"
    html = refused(admin_client, "wmt-da-csv", file=upload("ad.csv", text))
    assert "<b>bad</b>" not in html
    assert escape("ad.csv, line 2: score is not a number: '<b>bad</b>'") in html


def test_posting_requires_the_csrf_token(admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    data = {"format": "mqm-tsv", "name": "x", "file": upload("ratings.tsv", MQM_TEXT)}
    assert client.post(IMPORT_URL, data).status_code == 403
    assert not JudgmentSet.objects.exists()
