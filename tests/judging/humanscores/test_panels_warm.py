"""After an import, a worker computes the set's panels as its pages first show them, so that
the first viewer is served from the cache (4-19 s each at WMT size); without a broker the
import is kept and the first viewer computes them."""

from __future__ import annotations

import logging
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from kombu.exceptions import OperationalError as KombuOperationalError

from evaltrans.corpora import dispatch
from judging.humanscores import selectors
from judging.humanscores.models import JudgmentSet
from judging.humanscores.services import judgmentset_panels_warm

pytestmark = pytest.mark.django_db

PANELS = ("humanscores:judge_bias", "humanscores:agreement", "humanscores:ranking")
COMPUTES = ("_judge_bias_panel", "_agreement_panel", "_ranking_panel")


def _import(files, name: str) -> JudgmentSet:
    call_command("import_judgments", "mqm-tsv", str(files["mqm"]), "--name", name,
                 "--test-set", "toy", stdout=StringIO())  # fmt: skip
    return JudgmentSet.objects.get(name=name)


def _computing_refused(monkeypatch) -> None:
    def refuse(**_: object) -> None:
        raise AssertionError("a panel was computed for the page")

    for name in COMPUTES:
        monkeypatch.setattr(selectors, name, refuse)


def test_the_pages_first_shown_after_an_import_are_served_from_the_cache(
    client, files, toy_test_set, admin_user, monkeypatch, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # the task runs eagerly in tests
        judgment_set = _import(files, "warmed")
    _computing_refused(monkeypatch)
    client.force_login(admin_user)
    for page in PANELS:
        assert client.get(reverse(page, args=["set", judgment_set.pk])).status_code == 200
    # Only the first aspect was computed: another one is computed when asked for.
    other = selectors.human_source_get(kind="set", pk=judgment_set.pk).aspects[1]
    url = reverse("humanscores:judge_bias", args=["set", judgment_set.pk])
    with pytest.raises(AssertionError, match="computed for the page"):
        client.get(url, {"aspect": other})


def test_without_the_task_the_first_page_computes_its_panel(
    client, files, toy_test_set, admin_user, monkeypatch
):
    judgment_set = _import(files, "cold")  # on_commit callbacks do not run here
    _computing_refused(monkeypatch)
    client.force_login(admin_user)
    with pytest.raises(AssertionError, match="computed for the page"):
        client.get(reverse("humanscores:ranking", args=["set", judgment_set.pk]))


def test_the_service_warms_the_three_panels_and_passes_over_a_deleted_set(files, toy_test_set):
    judgment_set = _import(files, "service")
    assert judgmentset_panels_warm(judgment_set_id=judgment_set.pk) == [
        "judges",
        "agreement",
        "ranking",
    ]
    judgment_set.delete()
    assert judgmentset_panels_warm(judgment_set_id=judgment_set.pk) == []


def test_an_import_without_a_broker_is_kept(
    files, toy_test_set, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    class Unreachable:
        def apply_async(self, *args: object, **kwargs: object) -> None:
            raise KombuOperationalError("connection refused")

    monkeypatch.setattr(dispatch, "task", lambda name: Unreachable())  # what both apps send with
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        judgment_set = _import(files, "no broker")
    assert judgment_set.judgments.count() > 0
    assert "the first look at each computes it" in caplog.text
