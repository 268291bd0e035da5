"""load_demo brings the demo corpus's MQM ratings as a judgment set attached to the demo test set,
once; its scores are the published ones and its panels render for an admin."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from evaltrans.corpora.management.commands.load_demo_corpus import DEMO_NAME
from evaltrans.corpora.models import TestSet
from judging.humanscores.models import JudgmentSet
from judging.humanscores.services import DEMO_RATINGS_NAME

pytestmark = pytest.mark.django_db

# README of google/wmt-mqm-human-evaluation, TED en-de (MQM = minus our score); "ref" is ref-A.
README = {"ref": 0.91, "Facebook-AI": 1.06, "Online-W": 1.12, "UEdin": 1.77, "Nemo": 2.14}


@pytest.fixture
def demo(db) -> JudgmentSet:
    call_command("load_demo", "--force", stdout=StringIO())
    return JudgmentSet.objects.get(name=DEMO_RATINGS_NAME)


def test_demo_ratings_are_attached_and_loaded_once(demo):
    assert demo.test_set == TestSet.objects.get(name=DEMO_NAME)
    assert demo.source_format == "mqm-tsv"
    # 7,406 rated (system, segment) pairs, one rater each, three aspects.
    assert demo.judgments.count() == 3 * 7406
    assert not demo.judgments.filter(segment__isnull=True).exists()
    out = StringIO()
    call_command("load_demo", "--force", stdout=out)
    assert JudgmentSet.objects.count() == 1
    assert "Imported judgment set" not in out.getvalue()


def test_demo_system_scores_are_the_published_ones(demo):
    out = StringIO()
    call_command("human_scores", "--name", DEMO_RATINGS_NAME, "--weighting", "none",
                 "--bootstrap", "0", "--json", stdout=out)  # fmt: skip
    systems = {row["system"]: row for row in json.loads(out.getvalue())["systems"]}
    assert len(systems) == 14
    for system, published in README.items():
        assert -systems[system]["raw"] == pytest.approx(published, abs=0.006)


def test_demo_panels_render_for_an_admin(client, demo, admin_user):
    client.force_login(admin_user)
    for name in ("humanscores:ranking", "humanscores:judge_bias", "humanscores:agreement"):
        response = client.get(reverse(name, args=["set", demo.pk]))
        assert response.status_code == 200
        assert b"WMT21 TED MQM en-de ratings" in response.content
    agreement = client.get(reverse("humanscores:agreement", args=["set", demo.pk]))
    assert agreement.context["panel"]["fallback"]
