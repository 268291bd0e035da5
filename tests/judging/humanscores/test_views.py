"""The human-score pages: login required, admins and viewers only (judges 403), unknown sets 404,
names escaped everywhere (tables and figures), few queries."""

from __future__ import annotations

import gc
import json
import weakref
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape

from judging.humanscores import analysis
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from judging.humanscores.selectors import SetJudgments, human_source_by_name, judge_judgments

pytestmark = pytest.mark.django_db

PANELS = ("humanscores:ranking", "humanscores:judge_bias", "humanscores:agreement")


@pytest.fixture
def toy_set(files, toy_test_set) -> JudgmentSet:
    call_command("import_judgments", "mqm-tsv", str(files["mqm"]), "--name", "toy mqm",
                 "--test-set", "toy", stdout=StringIO())  # fmt: skip
    return JudgmentSet.objects.get(name="toy mqm")


def urls(judgment_set: JudgmentSet) -> list[str]:
    pages = [reverse(name, args=["set", judgment_set.pk]) for name in PANELS]
    detail = reverse("humanscores:judge_detail", args=["set", judgment_set.pk])
    return [reverse("humanscores:index"), *pages, f"{detail}?judge=rater1"]


def test_admin_and_viewer_see_every_page(client, toy_set, admin_user, viewer_user):
    for user in (admin_user, viewer_user):
        client.force_login(user)
        for url in urls(toy_set):
            response = client.get(url)
            assert response.status_code == 200, url


def test_judges_are_forbidden_and_anonymous_users_sent_to_login(client, toy_set, judge_user):
    for url in urls(toy_set):
        assert client.get(url).status_code == 302
    client.force_login(judge_user)
    for url in urls(toy_set):
        assert client.get(url).status_code == 403


def test_unknown_sources_and_judges_are_404(client, toy_set, admin_user):
    client.force_login(admin_user)
    assert client.get(reverse("humanscores:ranking", args=["set", 999])).status_code == 404
    assert client.get(reverse("humanscores:ranking", args=["campaign", 999])).status_code == 404
    assert client.get(reverse("humanscores:ranking", args=["other", toy_set.pk])).status_code == 404
    detail = reverse("humanscores:judge_detail", args=["set", toy_set.pk])
    assert client.get(f"{detail}?judge=nobody").status_code == 404


def _figures(response) -> dict[str, dict]:
    from html.parser import HTMLParser

    found: dict[str, dict] = {}

    class Scripts(HTMLParser):
        current = None

        def handle_starttag(self, tag, attrs):
            attributes = dict(attrs)
            if tag == "script" and attributes.get("type") == "application/json":
                self.current = attributes["id"]

        def handle_data(self, data):
            if self.current:
                found[self.current] = json.loads(data)
                self.current = None

    Scripts().feed(response.content.decode())
    return found


def test_judge_names_are_escaped_in_tables_and_figures(client, toy_set, admin_user):
    client.force_login(admin_user)
    bias = client.get(reverse("humanscores:judge_bias", args=["set", toy_set.pk]))
    html = bias.content.decode()
    assert "<b>rater2</b>" not in html
    assert "&lt;b&gt;rater2&lt;/b&gt;" in html
    figures = _figures(bias)
    names = figures["fig-levels"]["data"][0]["x"]
    assert "&lt;b&gt;rater2&lt;/b&gt;" in names and "<b>rater2</b>" not in json.dumps(figures)
    links = figures["judge-links"]
    assert any("judge=%3Cb%3Erater2%3C%2Fb%3E" in link for link in links)
    agreement = _figures(client.get(reverse("humanscores:agreement", args=["set", toy_set.pk])))
    assert "<b>rater2</b>" not in json.dumps(agreement)


def test_bias_panel_shows_levels_and_both_views(client, toy_set, admin_user):
    client.force_login(admin_user)
    response = client.get(reverse("humanscores:judge_bias", args=["set", toy_set.pk]))
    figures = _figures(response)
    levels = [trace["name"] for trace in figures["fig-levels"]["data"]]
    assert levels[-1] == "0 (no error)" and levels[0] == "−25 or less"
    assert {trace["type"] for trace in figures["fig-z"]["data"]} == {"box"}
    assert figures["fig-levels"]["layout"]["title"]["text"].startswith("Distribution of mqm")
    content = response.content.decode()
    assert 'data-view="raw"' in content and 'data-view="normalized"' in content


def test_agreement_panel_on_shared_candidates(client, toy_set, admin_user):
    client.force_login(admin_user)
    response = client.get(reverse("humanscores:agreement", args=["set", toy_set.pk]))
    result = response.context["result"]
    assert result.unit == "candidate" and result.shared_items == 9
    assert result.judges == ["<b>rater2</b>", "rater1"]
    assert result.n_common[0][1] == 9
    assert "fig-agreement-normalized" in _figures(response)


def test_agreement_of_a_crowd_shows_no_judge_matrix(client, toy_set, admin_user, monkeypatch):
    from django.core.cache import cache

    from judging.humanscores import analysis

    monkeypatch.setattr(analysis, "MAX_MATRIX_JUDGES", 1)
    cache.clear()  # another test may have cached this set's panel with its matrix
    client.force_login(admin_user)
    response = client.get(reverse("humanscores:agreement", args=["set", toy_set.pk]))
    page = response.content.decode()
    assert response.status_code == 200 and "fig-agreement" not in page
    assert "The judge × judge matrix is drawn for at most 1 judges" in page
    cache.clear()  # the panel cached without its matrix must not reach later tests


def test_agreement_falls_back_to_system_means_without_shared_candidates(
    client, toy_set, admin_user
):
    toy_set.judgments.filter(judge="rater1", segment_key__in=["1", "2"]).delete()
    toy_set.judgments.filter(judge="<b>rater2</b>", segment_key="3").delete()
    client.force_login(admin_user)
    response = client.get(reverse("humanscores:agreement", args=["set", toy_set.pk]))
    assert response.context["panel"]["fallback"] and response.context["unit"] == "system"
    assert b"No two judges scored the same candidate" in response.content


def test_ranking_panel_orders_systems_and_tests_differences(client, toy_set, admin_user):
    client.force_login(admin_user)
    url = reverse("humanscores:ranking", args=["set", toy_set.pk])
    response = client.get(url, {"aspect": "mqm", "weighting": "none"})
    rows = response.context["views"]["raw"]["rows"]
    assert [row["system"] for row in rows][0] == "ref"
    assert rows[0]["rank"] == 1 and rows[0]["score"] == 0.0
    figures = _figures(response)
    assert {"fig-ranking-raw", "fig-ranking-normalized", "fig-significance-raw"} <= set(figures)
    colors = {t["name"]: t["marker"]["color"] for t in figures["fig-ranking-raw"]["data"]}
    again = {t["name"]: t["marker"]["color"] for t in figures["fig-ranking-normalized"]["data"]}
    assert colors == again


def test_judge_detail_lists_judgments_with_links_to_segments(client, toy_set, admin_user):
    client.force_login(admin_user)
    detail = reverse("humanscores:judge_detail", args=["set", toy_set.pk])
    response = client.get(detail, {"judge": "rater1", "aspect": "mqm"})
    rows = list(response.context["page"].object_list)
    assert len(rows) == 9 and {row["aspect"] for row in rows} == {"mqm"}
    assert rows[0]["url"].endswith("?page=1#seg-1")


def test_pages_use_few_queries(client, toy_set, admin_user, django_assert_max_num_queries):
    client.force_login(admin_user)
    for url in urls(toy_set)[1:]:
        with django_assert_max_num_queries(15):
            client.get(url)


def test_test_set_page_links_to_its_judgment_sets(client, toy_set, admin_user):
    client.force_login(admin_user)
    response = client.get(toy_set.test_set.get_absolute_url())
    assert reverse("humanscores:ranking", args=["set", toy_set.pk]).encode() in response.content


def test_the_nav_shows_human_scores_to_browsers_only(client, admin_user, judge_user):
    client.force_login(admin_user)
    assert (
        reverse("humanscores:index").encode()
        in client.get(reverse("corpora:test_set_list")).content
    )
    client.force_login(judge_user)
    assert reverse("humanscores:index").encode() not in client.get("/judging/").content


def test_campaign_panels_render(client, campaign, admin_user):
    client.force_login(admin_user)
    for name in PANELS:
        response = client.get(reverse(name, args=["campaign", campaign.pk]), {"aspect": "adequacy"})
        assert response.status_code == 200
    bias = client.get(reverse("humanscores:judge_bias", args=["campaign", campaign.pk]))
    assert [row["judge"] for row in bias.context["panel"]["judges"]] == [
        "judge1",
        "judge2",
        "judge3",
    ]
    assert bias.context["panel"]["levels"] == ["1", "2", "3", "4", "5"]
    assert all(row["seconds"] for row in bias.context["panel"]["judges"])


def test_a_set_kept_unattached_says_why_on_its_pages(client, files, toy_test_set, admin_user):
    call_command("import_judgments", "wmt-da-csv", str(files["da"]), "--name", "da",
                 "--test-set", "toy", stdout=StringIO())  # fmt: skip
    judgment_set = JudgmentSet.objects.get(name="da")
    client.force_login(admin_user)
    for name in PANELS:
        content = client.get(reverse(name, args=["set", judgment_set.pk])).content.decode()
        assert 'id="attachment-note"' in content
        assert "Not attached to test set toy v1: ad-good-stnd.csv: WMT DA rows carry" in content


def test_agreement_without_raw_scores_shows_alpha_on_z(client, files, admin_user):
    call_command("import_judgments", "wmt-da-csv", str(files["da"]), "--name", "da",
                 stdout=StringIO())  # fmt: skip
    client.force_login(admin_user)
    response = client.get(
        reverse("humanscores:agreement", args=["set", JudgmentSet.objects.get(name="da").pk])
    )
    result = response.context["result"]
    assert result.alpha_scale == "z" and result.alpha_interval.value is not None
    content = response.content.decode()
    assert "interval (on z-scores)" in content
    assert escape(analysis.ALPHA_ON_Z) in content


def test_agreement_of_mqm_scores_says_why_there_is_no_kappa(client, toy_set, admin_user):
    client.force_login(admin_user)
    response = client.get(reverse("humanscores:agreement", args=["set", toy_set.pk]))
    assert response.context["result"].kappa.value is None
    note = analysis.KAPPA_CONTINUOUS.format(scale=analysis.SCALE_NAMES["mqm"])
    assert escape(note) in response.content.decode()


def test_a_cached_panel_is_served_without_reading_the_judgments(client, toy_set, admin_user):
    """An imported set's id, creation time and revision key its panels: a warm page reads the
    set's row, not its judgments (500,000 rows take seconds)."""
    from django.contrib.admin.sites import site
    from django.test import RequestFactory

    from judging.humanscores.models import ExternalJudgment
    from judging.humanscores.selectors import human_source_get, ranking_panel

    client.force_login(admin_user)
    assert client.get(reverse("humanscores:ranking", args=["set", toy_set.pk])).status_code == 200
    source = human_source_get(kind="set", pk=toy_set.pk)
    panel = ranking_panel(source=source, aspect=source.score_aspects[0], weighting="reference")
    assert source.records._records is None  # served from the cache, judgments never read
    assert panel["scores"].systems and panel["scores"].segments == []

    tokens = [source.fingerprint]
    judgment = ExternalJudgment.objects.filter(judgment_set=toy_set).first()
    judgment.raw = (judgment.raw or 0.0) - 1.0
    judgment.save()  # the admin's change form
    tokens.append(human_source_get(kind="set", pk=toy_set.pk).fingerprint)
    judgment.delete()
    tokens.append(human_source_get(kind="set", pk=toy_set.pk).fingerprint)
    admin = site._registry[ExternalJudgment]
    admin.delete_queryset(
        RequestFactory().post("/"), ExternalJudgment.objects.filter(judge="rater1")
    )
    tokens.append(human_source_get(kind="set", pk=toy_set.pk).fingerprint)
    toy_set.refresh_from_db()
    toy_set.metadata = {**toy_set.metadata, "scales": {}}
    toy_set.save()
    tokens.append(human_source_get(kind="set", pk=toy_set.pk).fingerprint)
    assert len(set(tokens)) == len(tokens)
    fresh = human_source_get(kind="set", pk=toy_set.pk)
    again = ranking_panel(source=fresh, aspect=fresh.score_aspects[0], weighting="reference")
    assert fresh.records._records is not None  # recomputed from the changed judgments
    assert again["scores"].systems != panel["scores"].systems


def test_a_big_bias_panel_draws_boxes_from_summaries_and_pages_its_table(
    client, toy_set, admin_user, monkeypatch
):
    import numpy as np
    from django.core.cache import cache

    from judging.humanscores import selectors, views

    client.force_login(admin_user)
    url = reverse("humanscores:judge_bias", args=["set", toy_set.pk])
    small = _figures(client.get(url))["fig-z"]["data"]
    cache.clear()
    monkeypatch.setattr(selectors, "JUDGE_BOX_POINTS_MAX", 1)
    monkeypatch.setattr(views, "JUDGES_PER_PAGE", 1)
    response = client.get(url, {"aspect": "mqm", "page": 2})
    [boxes] = _figures(response)["fig-z"]["data"]  # one trace of boxes (no outlier judge)
    assert "y" not in boxes and boxes["x"] == [trace["name"] for trace in small]
    assert boxes["customdata"] == list(range(len(small)))  # each box's judge link
    for k, points in enumerate(small):
        z = np.asarray(points["y"])
        q1, median, q3 = np.quantile(z, [0.25, 0.5, 0.75])
        assert (boxes["q1"][k], boxes["median"][k], boxes["q3"][k]) == (q1, median, q3)
        assert boxes["lowerfence"][k] == z[z >= q1 - 1.5 * (q3 - q1)].min()
        assert boxes["upperfence"][k] == z[z <= q3 + 1.5 * (q3 - q1)].max()
    rows = response.context["page"].object_list
    assert len(rows) == 1 and rows[0][0]["judge"] == response.context["panel"]["judges"][1]["judge"]
    assert "Page 2 of 2" in response.content.decode()


@pytest.mark.parametrize("given_z", [False, True])
def test_a_judges_page_reads_that_judge_alone_with_the_same_results(toy_set, given_z):
    """A judge's page reads that judge's rows from the database, not the whole set: the same
    rows, z and segment links as computed from all of the set's judgments, with z computed
    from the raw scores or, once one judgment of the aspect lacks its raw score, given."""
    rows = ExternalJudgment.objects.filter(judgment_set=toy_set)
    if given_z:
        for row in rows:
            ExternalJudgment.objects.filter(pk=row.pk).update(z_given=row.raw / 7 - row.pk)
        for aspect in set(rows.values_list("aspect", flat=True)):
            rows.filter(pk=rows.filter(aspect=aspect).first().pk).update(raw=None)

    def from_all_judgments(source, judge):
        found = []
        for aspect in source.aspects:
            data = analysis.aspect_data(list(source.records), aspect)
            assert data.z_source == ("given" if given_z else "computed")
            for k, name in enumerate(data.judges):
                if name == judge:
                    segment = data.segments[k]
                    link = source.segment_links.get(segment)
                    found.append((data.systems[k], segment, aspect, data.z[k], link))
        return sorted(found)

    judges = sorted(set(rows.values_list("judge", flat=True)))
    assert len(judges) > 1
    for judge in judges:
        source = human_source_by_name(name="toy mqm")
        got = judge_judgments(source=source, judge=judge)
        assert not source.records._records  # the set's judgments were not all read
        assert got
        assert all(row["segment_pk"] for row in got)
        found = [
            (row["system"], row["segment"], row["aspect"], row["z"], row["segment_pk"])
            for row in got
        ]
        assert sorted(found) == from_all_judgments(source, judge)
    assert judge_judgments(source=source, judge="nobody") == []


def test_a_sets_judgments_go_without_the_cycle_collector(toy_set):
    """Nothing of a loaded set refers back to itself: its rows (500,000 in a WMT year) are
    freed when a request drops them, not whenever the cyclic collector next runs."""
    gc.disable()
    try:
        judgments = SetJudgments(toy_set)
        assert len(judgments.loaded()[0]) > 0 and dict(judgments.links)
        gone = weakref.ref(judgments)
        del judgments
        assert gone() is None
    finally:
        gc.enable()
