"""Correlation dashboards: who sees them, what the matrix and scatter pages show, downloads,
live state, escaping of names from data."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.cache import cache
from django.urls import reverse

from metrics.models import SystemScore
from tests.metrics.test_correlation import SET_NAME, correlate, stored  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _set_pk() -> int:
    from judging.humanscores.models import JudgmentSet

    return JudgmentSet.objects.get(name=SET_NAME).pk


def test_judges_and_anonymous_users_see_no_dashboard(client, stored, judge_user):  # noqa: F811
    pk = _set_pk()
    urls = [
        reverse("correlation:index"),
        reverse("correlation:matrix", args=["set", pk]),
        reverse("correlation:scatter", args=["set", pk]),
        reverse("correlation:matrix_download", args=["set", pk, "csv"]),
        reverse("correlation:state", args=["set", pk]),
    ]
    for url in urls:
        assert client.get(url).status_code == 302  # to the login page
    client.force_login(judge_user)
    for url in urls:
        assert client.get(url).status_code == 403


def test_the_matrix_shows_every_stored_setting_against_every_human_column(
    client,
    stored,  # noqa: F811
    viewer_user,
):
    client.force_login(viewer_user)
    index = client.get(reverse("correlation:index"))
    assert SET_NAME in index.content.decode()
    assert [row["stored_settings"] for row in index.context["sources"]] == [3]
    response = client.get(reverse("correlation:matrix", args=["set", _set_pk()]))
    assert response.status_code == 200
    matrix = response.context["matrix"]
    assert [row.measure for row in matrix.rows] == ["wer", "bleu", "chrf"]
    assert [(c.aspect, c.view, c.level) for c in matrix.columns] == [
        ("adequacy", "raw", "system"),
        ("adequacy", "raw", "segment"),
        ("adequacy", "normalized", "system"),
        ("adequacy", "normalized", "segment"),
    ]
    # Each column's best is marked once, and Pearson's top cluster includes the best.
    for column in range(len(matrix.columns)):
        cells = [row[column] for row in matrix.cells]
        assert sum(cell.best for cell in cells) >= 1
        assert all(cell.cluster == 1 for cell in cells if cell.best)
    assert 'id="matrix-figure"' in response.content.decode()


def test_a_coefficient_of_one_level_leaves_the_other_level_empty(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    url = reverse("correlation:matrix", args=["set", _set_pk()])
    matrix = client.get(url, {"coefficient": "accuracy"}).context["matrix"]
    levels = [column.level for column in matrix.columns]
    for row in matrix.cells:
        for level, cell in zip(levels, row, strict=True):
            assert (cell is None) == (level == "segment")
    assert matrix.notes


def test_matrix_downloads_carry_the_same_numbers(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    pk = _set_pk()
    page = client.get(reverse("correlation:matrix", args=["set", pk])).context["matrix"]
    data = json.loads(
        client.get(reverse("correlation:matrix_download", args=["set", pk, "json"])).content
    )
    assert data["rows"][0]["cells"][0]["value"] == page.cells[0][0].value
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(
                    reverse("correlation:matrix_download", args=["set", pk, "csv"])
                ).content.decode()
            )
        )
    )
    assert len(rows) == 3 * 4
    assert float(rows[0]["value"]) == page.cells[0][0].value
    latex = client.get(reverse("correlation:matrix_download", args=["set", pk, "tex"]))
    text = latex.content.decode()
    assert text.count(r"\\") >= 4 and r"\begin{tabular}" in text and r"\textbf{" in text
    assert (
        client.get(reverse("correlation:matrix_download", args=["set", pk, "xls"])).status_code
        == 404
    )


def test_the_scatter_pages_show_points_rankings_and_disagreements(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    pk = _set_pk()
    signature = SystemScore.objects.filter(measure="chrf").values_list("signature", flat=True)[0]
    url = reverse("correlation:scatter", args=["set", pk])
    system = client.get(url, {"signature": signature, "level": "system"})
    assert system.status_code == 200
    page = system.context["page"]
    assert [p["system"] for p in page["scatter"]["points"]] == [
        "<b>sys-d</b>", "sys-a", "sys-b", "sys-c",
    ]  # fmt: skip
    assert page["rankings"]["pairs"] == 6
    html = system.content.decode()
    assert "&lt;b&gt;sys-d&lt;/b&gt;" in html and "<b>sys-d</b>" not in html
    segment = client.get(url, {"signature": signature, "level": "segment"})
    page = segment.context["page"]
    assert page["scatter"]["count"] == 31
    urls = [u for points in page["scatter"]["by_system"].values() for u in points["url"]]
    test_set = stored.pk
    assert all(u.startswith(f"/segments/{test_set}/") for u in urls)
    first = page["disagreements"][0]
    assert first["url"] == f"/segments/{test_set}/{first['segment']}/"
    one = client.get(url, {"signature": signature, "level": "segment", "system": "sys-a"})
    assert {row["system"] for row in one.context["page"]["disagreements"]} == {"sys-a"}
    points = json.loads(
        client.get(
            reverse("correlation:scatter_download", args=["set", pk, "json"]),
            {"signature": signature, "level": "segment"},
        ).content
    )["points"]
    assert len(points) == 31


def test_an_unknown_signature_is_a_clear_message(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    response = client.get(
        reverse("correlation:scatter", args=["set", _set_pk()]), {"signature": "wer|nope"}
    )
    assert response.status_code == 200
    assert "no stored result with signature" in response.context["error"]


def test_the_live_state_changes_when_a_judgment_arrives(client, stored, viewer_user):  # noqa: F811
    from judging.humanscores.models import ExternalJudgment

    client.force_login(viewer_user)
    url = reverse("correlation:state", args=["set", _set_pk()])
    before = client.get(url).json()
    judgment = ExternalJudgment.objects.filter(system="sys-a").first()
    judgment.raw = 1.0
    judgment.save()
    after = client.get(url).json()
    assert after["fingerprint"] != before["fingerprint"]
    assert after["judgments"] == before["judgments"]
    partial = client.get(reverse("correlation:matrix", args=["set", _set_pk()]), {"partial": "1"})
    assert b"<html" not in partial.content and b"matrix-table" in partial.content


def test_a_sweep_shows_stored_values_and_an_admin_computes_the_missing_ones(
    client,
    stored,  # noqa: F811
    viewer_user,
    admin_user,
):
    pk = _set_pk()
    url = reverse("correlation:sweep", args=["set", pk])
    query = {"measure": "chrf", "option": "char-order", "values": "6,4", "level": "system"}
    client.force_login(viewer_user)
    page = client.get(url, query)
    values = {row.value: row for row in page.context["data"]["values"]}
    assert values["6"].stored and values["6"].correlation is not None and values["6"].is_default
    assert not values["4"].stored and page.context["data"]["missing"] == ["4"]
    assert b"Compute 1 missing setting" not in page.content  # viewers cannot start runs
    assert client.post(url + "?level=system", query).status_code == 403

    client.force_login(admin_user)
    response = client.post(url + "?level=system", query)
    assert response.status_code == 302 and "run=" in response["Location"]
    after = client.get(response["Location"])
    values = {row.value: row for row in after.context["data"]["values"]}
    assert values["4"].stored and values["4"].correlation is not None
    # The sweep's new setting is a row of the matrix too, and equals the command's value.
    out = correlate("--test-set", "tiny", "--level", "system", "--measures", "chrf")
    by_signature = {
        row["signature"]: row["value"]
        for row in out["correlations"]
        if row["coefficient"] == "pearson"
    }
    assert by_signature[values["4"].signature] == pytest.approx(values["4"].correlation, abs=1e-12)
    again = client.post(url + "?level=system", query, follow=True)
    assert "already computed" in again.content.decode()


def test_a_free_option_needs_its_values_and_bad_values_are_named(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    url = reverse("correlation:sweep", args=["set", _set_pk()])
    page = client.get(url, {"measure": "chrf", "option": "beta"})
    assert "give the values to try for 'beta'" in page.context["error"]
    page = client.get(url, {"measure": "chrf", "option": "char-order", "values": "x"})
    assert "char-order" in page.context["error"]


def test_the_combination_page_scores_the_combination_out_of_sample(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    signatures = list(
        SystemScore.objects.filter(measure__in=["wer", "chrf"])
        .order_by("signature")
        .values_list("signature", flat=True)
        .distinct()
    )
    url = reverse("correlation:combination", args=["set", _set_pk()])
    page = client.get(url, {"signature": signatures, "level": "segment"})
    assert "error" not in page.context, page.context.get("error")
    data = page.context["data"]
    assert len(data["weights"]) == 2 and sum(abs(w) for w in data["weights"]) == pytest.approx(1)
    assert data["r_max"] >= max(data["singles"]) - 1e-12  # the optimum is at least each measure
    assert 0 <= data["p_value"] <= 1 and data["curve"] is not None
    assert page.context["figure"]["data"][0]["x"][0] == 0
    one = client.get(url, {"signature": signatures[:1]})
    assert "between 2 and 8" in one.context["error"]


def test_system_points_carry_the_measures_own_bootstrap_interval(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    url = reverse("correlation:scatter", args=["set", _set_pk()])
    for measure, negative in (("wer", True), ("chrf", False)):
        signature = SystemScore.objects.filter(measure=measure).values_list("signature", flat=True)[
            0
        ]
        for aggregation in ("corpus", "sentence-mean"):
            page = client.get(
                url, {"signature": signature, "level": "system", "aggregation": aggregation}
            ).context["page"]
            for point in page["scatter"]["points"]:
                low, high = point["measure_ci"]
                assert low < high
                assert low - 1e-9 <= point["x"] <= high + 1e-9  # the estimate lies inside
                assert (high <= 0) is negative  # oriented like the point (WER negated)
            figure = client.get(
                url, {"signature": signature, "level": "system", "aggregation": aggregation}
            ).context["figure"]
            assert all(
                "error_x" in trace
                for trace in figure["data"]
                if trace.get("mode") == "markers+text"
            )


def test_sweep_and_combination_numbers_download_as_json(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    pk = _set_pk()
    sweep = client.get(
        reverse("correlation:sweep", args=["set", pk]),
        {"measure": "chrf", "option": "char-order", "values": "6,4", "format": "json"},
    )
    data = json.loads(sweep.content)
    assert [row["value"] for row in data["values"]] == ["6", "4"]
    assert data["values"][0]["stored"] and not data["values"][1]["stored"]
    signatures = list(
        SystemScore.objects.filter(measure__in=["wer", "chrf"])
        .order_by("signature")
        .values_list("signature", flat=True)
        .distinct()
    )
    combination = client.get(
        reverse("correlation:combination", args=["set", pk]),
        {"signature": signatures, "format": "json"},
    )
    assert combination["Content-Disposition"].startswith("attachment")
    assert len(json.loads(combination.content)["weights"]) == 2


def test_the_matrix_says_whether_significance_was_tested(client, stored, viewer_user):  # noqa: F811
    client.force_login(viewer_user)
    url = reverse("correlation:matrix", args=["set", _set_pk()])
    pearson = client.get(url).content.decode()
    assert "top significance cluster" in pearson and "Williams" in pearson
    kendall = client.get(url, {"coefficient": "kendall-b"})
    assert "significance not tested" in kendall.content.decode()
    assert all(
        cell is None or cell.cluster is None
        for row in kendall.context["matrix"].cells
        for cell in row
    )
    tested = client.get(url, {"coefficient": "kendall-b", "significance": "on"})
    assert "permutation test" in tested.content.decode()
    assert any(
        cell is not None and cell.cluster for row in tested.context["matrix"].cells for cell in row
    )
