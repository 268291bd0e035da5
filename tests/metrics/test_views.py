"""Run pages: permissions, starting a run, progress JSON, results, sentences, downloads."""

from __future__ import annotations

import csv
import io
import json
import shlex
import xml.etree.ElementTree as ET
from unittest import mock

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.urls import reverse
from kombu.exceptions import OperationalError as KombuOperationalError

from evaltrans.roles import JUDGES_GROUP, VIEWERS_GROUP
from metrics.models import MetricRun
from metrics.services import runs
from tests.metrics.run_helpers import choices, make_test_set

pytestmark = pytest.mark.django_db(transaction=True)


def user(name: str, staff: bool = False, group: str | None = None) -> User:
    account = User.objects.create_user(name, password="pw", is_staff=staff)
    if group:
        account.groups.add(Group.objects.get_or_create(name=group)[0])
    return account


@pytest.fixture
def admin_client(client):
    client.force_login(user("boss", staff=True))
    return client


@pytest.fixture
def viewer_client(client):
    client.force_login(user("reader", group=VIEWERS_GROUP))
    return client


def finished_run(test_set, *names):
    return runs.metric_run_start(
        test_set=test_set, systems=test_set.systems.all(), measures=choices(*names)
    )


def test_pages_require_login(client):
    test_set = make_test_set()
    run = finished_run(test_set, "wer")
    for url in (
        reverse("metrics:run_list"),
        reverse("metrics:run_detail", args=[run.pk]),
        reverse("metrics:run_progress", args=[run.pk]),
        reverse("metrics:run_download", args=[run.pk, "csv"]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response["Location"]


def test_judges_see_no_runs_and_viewers_cannot_start(client):
    test_set = make_test_set()
    client.force_login(user("judge", group=JUDGES_GROUP))
    assert client.get(reverse("metrics:run_list")).status_code == 403
    client.force_login(user("reader", group=VIEWERS_GROUP))
    assert client.get(reverse("metrics:run_list")).status_code == 200
    url = reverse("metrics:run_create") + f"?test_set={test_set.pk}"
    assert client.get(url).status_code == 403
    assert client.post(url, {"test_set": test_set.pk}).status_code == 403
    assert MetricRun.objects.count() == 0


def test_admin_starts_a_run_from_the_form(admin_client):
    test_set = make_test_set()
    page = admin_client.get(reverse("metrics:run_create") + f"?test_set={test_set.pk}")
    assert page.status_code == 200
    assert b'name="opt__cder__pad-rule"' in page.content
    systems = [str(pk) for pk in test_set.systems.values_list("pk", flat=True)]
    response = admin_client.post(
        reverse("metrics:run_create"),
        {
            "test_set": test_set.pk,
            "systems": systems,
            "measures": ["wer", "cder"],
            "opt__wer__ref-length-rule": "average",
            "opt__wer__tokenize": "mteval-contractions",
            "opt__cder__pad-rule": "none",
            "comment": "first try",
        },
    )
    run = MetricRun.objects.get()
    assert response.status_code == 302 and response["Location"] == run.get_absolute_url()
    assert run.status == MetricRun.Status.DONE and run.comment == "first try"
    signatures = list(run.measures.values_list("signature", flat=True))
    assert "reflen:average" in signatures[0] and "pad:none" in signatures[1]


def test_form_errors_are_shown_and_nothing_is_stored(admin_client):
    test_set = make_test_set()
    response = admin_client.post(
        reverse("metrics:run_create"), {"test_set": test_set.pk, "systems": [], "measures": []}
    )
    assert response.status_code == 200
    assert b"choose at least one measure" in response.content
    assert MetricRun.objects.count() == 0


def test_a_measure_missing_its_parser_is_marked_and_a_run_of_it_is_refused(
    admin_client, monkeypatch
):
    from metrics.core.edpm import parsing

    reason = "EDPM needs spaCy, which is not installed; install it with: pip install spacy==x"
    monkeypatch.setattr(
        parsing, "unavailable_reason", lambda model, version="": reason if model else None
    )
    test_set = make_test_set()
    page = admin_client.get(reverse("metrics:run_create") + f"?test_set={test_set.pk}")
    text = page.content.decode()
    assert 'data-unavailable="edpm"' in text and "pip install spacy==x" in text
    assert 'data-unavailable="bleu"' not in text
    systems = list(test_set.systems.values_list("pk", flat=True))
    response = admin_client.post(
        reverse("metrics:run_create"),
        {"test_set": test_set.pk, "systems": systems, "measures": ["edpm"]},
    )
    assert response.status_code == 200 and "pip install spacy==x" in response.content.decode()
    assert MetricRun.objects.count() == 0


def test_broker_down_message_on_start(admin_client):
    test_set = make_test_set()
    refused = KombuOperationalError("Connection refused")
    with mock.patch("metrics.tasks.metric_run_plan_task.apply_async", side_effect=refused):
        response = admin_client.post(
            reverse("metrics:run_create"),
            {
                "test_set": test_set.pk,
                "systems": list(test_set.systems.values_list("pk", flat=True)),
                "measures": ["per"],
            },
            follow=True,
        )
    assert b"cannot be reached" in response.content
    assert b"waits, and starts as soon as the broker is back" in response.content
    assert MetricRun.objects.get().status == MetricRun.Status.QUEUED
    # Browsing keeps working.
    assert admin_client.get(reverse("metrics:run_list")).status_code == 200
    assert admin_client.get(test_set.get_absolute_url()).status_code == 200


def test_detail_shows_results_with_best_marked_and_names_escaped(viewer_client):
    test_set = make_test_set(outputs={"<b>evil</b>": ["x"] * 8, "good": ["the cat"] * 8})
    run = finished_run(test_set, "wer", "per")
    response = viewer_client.get(run.get_absolute_url())
    content = response.content.decode()
    assert response.status_code == 200
    assert "&lt;b&gt;evil&lt;/b&gt;" in content and "<b>evil</b>" not in content
    assert 'id="results-table"' in content and content.count("best-mark") == 2
    assert 'title="wer|nrefs:1|' in content
    assert 'id="progress-data"' in content


def test_progress_json(viewer_client):
    test_set = make_test_set()
    run = finished_run(test_set, "wer")
    data = viewer_client.get(reverse("metrics:run_progress", args=[run.pk])).json()
    assert data["status"] == "done" and data["percent"] == 100.0
    assert data["measures"][0]["done"] == data["measures"][0]["total"] == 16


def test_cancel_is_post_only_and_admin_only(client):
    test_set = make_test_set()
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
    )
    url = reverse("metrics:run_cancel", args=[run.pk])
    client.force_login(user("reader", group=VIEWERS_GROUP))
    assert client.post(url).status_code == 403
    client.force_login(user("boss", staff=True))
    assert client.get(url).status_code == 405
    assert client.post(url).status_code == 302
    run.refresh_from_db()
    assert run.status == MetricRun.Status.CANCELLED


def test_sentence_scores_page_sorts_by_score(viewer_client):
    test_set = make_test_set()
    run = finished_run(test_set, "wer")
    system = test_set.systems.get(name="sys-a")
    url = reverse("metrics:run_sentences", args=[run.pk])
    response = viewer_client.get(url, {"system": system.pk, "measure": 0, "order": "-score"})
    assert response.status_code == 200
    rows = response.context["page"].object_list
    scores = [row.score for row in rows]
    assert len(rows) == 8 and scores == sorted(scores, reverse=True)


def test_downloads_csv_json_xml(viewer_client):
    test_set = make_test_set(outputs={"=cmd()": ["a"] * 8, "b": ["the cat"] * 8})
    run = finished_run(test_set, "wer")
    csv_response = viewer_client.get(reverse("metrics:run_download", args=[run.pk, "csv"]))
    rows = list(csv.DictReader(io.StringIO(csv_response.content.decode())))
    assert {row["system"] for row in rows} == {"'=cmd()", "b"}
    assert "attachment" in csv_response["Content-Disposition"]
    data = json.loads(
        viewer_client.get(reverse("metrics:run_download", args=[run.pk, "json"])).content
    )
    assert len(data["results"]) == 2 and data["test_set"]["content_hash"] == test_set.content_hash
    xml = viewer_client.get(reverse("metrics:run_download", args=[run.pk, "xml"]) + "?sentences=1")
    root = ET.fromstring(xml.content.decode().split("\n", 2)[2])
    assert len(root.findall("evaluation")) == 2
    assert len(root.findall("candidate-evaluation/candidate")) == 16
    assert (
        viewer_client.get(reverse("metrics:run_download", args=[run.pk, "pdf"])).status_code == 404
    )


def test_results_page_queries_do_not_grow_with_systems(
    viewer_client, django_assert_max_num_queries
):
    outputs = {f"system-{n}": ["the cat sat"] * 8 for n in range(12)}
    run = finished_run(make_test_set(outputs=outputs), "wer", "per")
    with django_assert_max_num_queries(20):
        assert viewer_client.get(run.get_absolute_url()).status_code == 200


def test_web_run_stores_the_evaluate_command_that_reproduces_it(admin_client):
    """The stored command line, run through ``evaluate``, asks for the same signatures."""
    test_set = make_test_set()
    system = test_set.systems.get(name="sys-b")
    admin_client.post(
        reverse("metrics:run_create"),
        {
            "test_set": test_set.pk,
            "systems": [system.pk],
            "measures": ["wer", "cder", "bleu"],
            "opt__wer__ref-length-rule": "average",
            "opt__wer__tokenize": "mteval-contractions",
            "opt__cder__pad-rule": "none",
            "opt__bleu__smoothing": "bleu-s",
            "comment": "from the web",
        },
    )
    web = MetricRun.objects.get()
    words = shlex.split(web.command_line)
    assert words[:2] == ["manage.py", "evaluate"]
    assert "--comment" in words and "from the web" in words
    out = io.StringIO()
    call_command(*words[1:], "--eager", "--json", stdout=out, stderr=io.StringIO())
    payload = json.loads(out.getvalue())
    assert [m["signature"] for m in payload["measures"]] == list(
        web.measures.values_list("signature", flat=True)
    )
    assert [s["name"] for s in payload["systems"]] == ["sys-b"]
    again = MetricRun.objects.exclude(pk=web.pk).get()
    assert again.planned_tasks == 0  # every signature was stored by the web run


def test_preset_runs_store_the_preset_in_their_command_line(admin_client):
    test_set = make_test_set()
    admin_client.post(
        reverse("metrics:run_create"),
        {
            "test_set": test_set.pk,
            "systems": list(test_set.systems.values_list("pk", flat=True)),
            "preset": "wmt",
        },
    )
    words = shlex.split(MetricRun.objects.get().command_line)
    assert words[words.index("--preset") + 1] == "wmt"
    assert set(words[words.index("--measures") + 1].split(",")) == {"bleu", "chrf", "ter"}
    assert "--option" not in words
