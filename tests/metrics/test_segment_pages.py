"""The segment page and its grid view (issue 18): who may see them, every candidate with the
stored sentence scores of ``segment_arrays``, every judgment (raw and per-judge z, equal to
``human_scores``), the neighbours, the alignments (path costs add up to the distance), escaping
of MT text, anonymous campaign judges, and the time a 60-word segment with 14 systems takes."""

from __future__ import annotations

import json
import math
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evaltrans.corpora.models import Segment
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from judging.humanscores.selectors import human_source_get, source_human_scores
from metrics.core import get_metric
from metrics.models import SystemScore
from metrics.selectors.runs import segment_arrays
from metrics.selectors.segments.explanations import _number_text
from metrics.selectors.segments.grid_page import variant_key
from metrics.selectors.segments.measures import GRID_MEASURES
from metrics.selectors.segments.segment_page import score_columns
from tests.conftest import make_user
from tests.metrics.run_helpers import make_test_set
from tests.test_plotting import plotly_shows

pytestmark = pytest.mark.django_db(transaction=True)

XSS = "the <script>alert(1)</script> cat &amp; mat"
REFERENCES = [
    "the cat sat on the mat",
    "there is a dog in the garden",
    "we have been there before",
    "he reads a long book every evening",
]
OUTPUTS = {
    "sys-a": [XSS, "there is dog in the garden", "we were there before", "he reads a book"],
    "sys-b": [
        "on the mat the cat sat",
        "a dog is in the garden",
        "before we have been there",
        "every evening he reads a long book",
    ],
    "sys-c": ["cat mat cat mat", "dog garden", "there before we", "book evening reads"],
}
MEASURES = "wer,per,cder,ter,bleu,nist,chrf"
# Two judges (their scores vary, so both can be normalized); sys-c is not judged on segment 2.
HUMAN = {
    ("sys-a", "ann"): [2, 4, 3, 3],
    ("sys-b", "ann"): [4, 4, 5, 4],
    ("sys-c", "ann"): [1, None, 1, 2],
    ("sys-a", "bob"): [3, 5, 2, 2],
    ("sys-b", "bob"): [5, 3, 4, 5],
}


def evaluate(name: str, measures: str = MEASURES) -> None:
    call_command(
        "evaluate", "--test-set", name, "--measures", measures, "--eager",
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip


def judgment_set(test_set, human=HUMAN, name="tiny judgments", aspect="adequacy"):
    segments = {s.index: s for s in Segment.objects.filter(test_set=test_set)}
    result = JudgmentSet.objects.create(name=name, source_format="evaltrans-xml", test_set=test_set)
    ExternalJudgment.objects.bulk_create(
        ExternalJudgment(
            judgment_set=result,
            system=system,
            segment_key=str(k + 1),
            segment=segments[k],
            judge=judge,
            aspect=aspect,
            raw=float(value),
        )
        for (system, judge), values in human.items()
        for k, value in enumerate(values)
        if value is not None
    )
    return result


@pytest.fixture
def stored():
    test_set = make_test_set("tiny", references=REFERENCES, outputs=OUTPUTS)
    evaluate("tiny")
    judgment_set(test_set)
    return test_set


def url(test_set, number: int, grid: bool = False, **query: str) -> str:
    path = f"/segments/{test_set.pk}/{number}/" + ("grid/" if grid else "")
    if query:
        path += "?" + "&".join(f"{key}={value}" for key, value in query.items())
    return path


def grid_data(response) -> dict:
    match = re.search(
        r'<script id="grid-data" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert match, "the grid view embeds its figures"
    return json.loads(match.group(1))


# --------------------------------------------------------------------------- access


def test_anonymous_users_go_to_login_judges_are_forbidden_viewers_see_both_pages(
    client, stored, judge_user, viewer_user, admin_user
):
    pages = [url(stored, 1), url(stored, 1, grid=True)]
    for path in pages:
        response = client.get(path)
        assert response.status_code == 302 and "/login/" in response["Location"]
    client.force_login(judge_user)
    for path in pages:
        assert client.get(path).status_code == 403
    for user in (viewer_user, admin_user):
        client.force_login(user)
        for path in pages:
            assert client.get(path).status_code == 200


def test_unknown_segments_and_test_sets_are_not_found(client, stored, viewer_user):
    client.force_login(viewer_user)
    for path in (url(stored, 0), url(stored, 5), f"/segments/{stored.pk + 99}/1/"):
        assert client.get(path).status_code == 404


# --------------------------------------------------------------------------- the segment page


def test_every_candidate_shows_every_stored_sentence_score_of_segment_arrays(
    client, stored, viewer_user
):
    client.force_login(viewer_user)
    signatures = sorted(
        set(SystemScore.objects.filter(test_set=stored).values_list("signature", flat=True))
    )
    assert len(signatures) == len(MEASURES.split(","))
    for number in (1, 2, 4):
        response = client.get(url(stored, number))
        page = response.context["page"]
        assert [column.signature for column in page.columns] == [
            column.signature for column in score_columns(test_set=stored)
        ]
        assert sorted(column.signature for column in page.columns) == signatures
        assert [row.system.name for row in page.rows] == sorted(OUTPUTS)
        for position, column in enumerate(page.columns):
            arrays = segment_arrays(test_set=stored, signature=column.signature)
            for row in page.rows:
                expected = float(arrays[row.system.pk].sentence_scores[number - 1])
                shown = row.scores[position].value
                if math.isnan(expected):
                    assert shown is None
                else:
                    assert shown == expected
        for name, texts in OUTPUTS.items():
            assert row_text(page, name) == texts[number - 1]


def row_text(page, name: str) -> str:
    return next(row.text for row in page.rows if row.system.name == name)


def test_the_best_score_of_each_column_is_marked_in_the_measures_direction(
    client, stored, viewer_user
):
    client.force_login(viewer_user)
    page = client.get(url(stored, 4)).context["page"]
    for position, column in enumerate(page.columns):
        values = {row.system.name: row.scores[position].value for row in page.rows}
        known = [v for v in values.values() if v is not None]
        best = {
            name for name, row in zip(values, page.rows, strict=True) if row.scores[position].best
        }
        if len(set(known)) > 1:
            target = max(known) if column.higher_is_better else min(known)
            assert best == {name for name, value in values.items() if value == target}


def test_source_context_references_and_neighbour_links(client, viewer_user):
    test_set = make_test_set("docs", references=REFERENCES, outputs=OUTPUTS)
    Segment.objects.filter(test_set=test_set, index__in=(0, 1)).update(doc_id="d1")
    Segment.objects.filter(test_set=test_set, index__in=(2, 3)).update(doc_id="d2")
    client.force_login(viewer_user)

    first = client.get(url(test_set, 1))
    page = first.context["page"]
    assert page.previous is None and page.next.number == 2
    assert page.context_before is None and page.context_after.number == 2
    html = first.content.decode()
    assert 'id="seg-prev"' not in html
    assert f'id="seg-next" rel="next" href="/segments/{test_set.pk}/2/"' in html
    assert "source 0" in html and "source 1" in html  # the segment and the next of its document
    assert [ref.label for ref in page.references] == ["A"]
    assert "the cat sat on the mat" in html

    second = client.get(url(test_set, 2)).context["page"]
    assert second.context_before.number == 1
    assert second.next.number == 3 and second.context_after is None  # another document

    last = client.get(url(test_set, 4))
    assert last.context["page"].next is None
    assert f'id="seg-prev" rel="prev" href="/segments/{test_set.pk}/3/"' in last.content.decode()
    assert 'id="seg-next"' not in last.content.decode()


def test_judgments_raw_and_normalized_per_judge_with_the_sentence_scores_of_human_scores(
    client, stored, viewer_user
):
    client.force_login(viewer_user)
    source = human_source_get(kind="set", pk=JudgmentSet.objects.get().pk)
    scores = source_human_scores(
        source=source, aspect="adequacy", weighting="none", bootstrap_samples=0
    )
    by_cell = {(s.system, s.segment_id): s for s in scores.segments}
    for number in (1, 2):
        response = client.get(url(stored, number))
        (table,) = response.context["page"].human
        assert (table.name, table.aspect, table.judges) == (
            "tiny judgments",
            "adequacy",
            ["ann", "bob"],
        )
        judged = {name for (name, _), values in HUMAN.items() if values[number - 1] is not None}
        assert {row.system for row in table.rows} == judged
        for row in table.rows:
            expected = by_cell[(row.system, str(number))]
            assert row.raw == pytest.approx(expected.raw)
            assert row.normalized == pytest.approx(expected.normalized)
            for judge, cell in zip(table.judges, row.cells, strict=True):
                raw = HUMAN.get((row.system, judge), [None] * 4)[number - 1]
                assert [value["raw"] for value in cell.values] == ([] if raw is None else [raw])
        assert "ann" in response.content.decode() and "bob" in response.content.decode()


def test_mt_text_is_escaped_on_the_segment_page(client, stored, viewer_user):
    client.force_login(viewer_user)
    html = client.get(url(stored, 1)).content.decode()
    assert "<script>alert(1)" not in html
    assert "the &lt;script&gt;alert(1)&lt;/script&gt; cat &amp;amp; mat" in html


def test_the_segment_page_reads_a_fixed_number_of_queries(client, stored, viewer_user):
    client.force_login(viewer_user)
    client.get(url(stored, 2))
    with CaptureQueriesContext(connection) as few:
        client.get(url(stored, 2))
    make_test_set(
        "more", references=REFERENCES, outputs={f"s{k}": OUTPUTS["sys-b"] for k in range(12)}
    )
    evaluate("more")
    more = Segment.objects.get(test_set__name="more", index=1).test_set
    client.get(url(more, 2))
    with CaptureQueriesContext(connection) as many:
        client.get(url(more, 2))
    assert len(many) <= len(few)


# --------------------------------------------------------------------------- the grid view


def test_every_precomputed_alignment_adds_up_to_its_distance(client, stored, viewer_user):
    client.force_login(viewer_user)
    response = client.get(url(stored, 3, grid=True, system="sys-b"))
    page = response.context["page"]
    keys = {(v["measure"], v["direction"], v["pad"]) for v in page.variants}
    assert {key[0] for key in keys} == set(GRID_MEASURES)
    assert {(d, p) for m, d, p in keys if m == "cder"} == {
        (d, p) for d in ("forward", "backward") for p in ("both", "none")
    }
    candidate, reference = OUTPUTS["sys-b"][2], REFERENCES[2]
    for variant in page.variants:
        view = page.views[variant["key"]]
        assert view["path_cost"] == pytest.approx(view["distance"]), variant["key"]
        options = (
            {"direction": variant["direction"], "pad-rule": variant["pad"]}
            if variant["direction"]
            else {}
        )
        expected = get_metric(variant["measure"])(**options).align(candidate, reference).distance
        assert view["distance"] == pytest.approx(expected)
    wer = page.views[variant_key("wer", "A")]
    steps = wer["steps"]
    assert steps[0]["source"] == [0, 0] and steps[-1]["target"] == [
        len(wer["hyp"]),
        len(wer["ref"]),
    ]
    assert math.fsum(step["cost"] for step in steps) == wer["distance"]
    assert wer["grid"][-1][-1] == wer["distance"]  # the DP grid ends in the distance
    # The sentence WER stored by the run is this distance over the reference length.
    column = next(c for c in score_columns(test_set=stored) if c.measure == "wer")
    system = stored.systems.get(name="sys-b")
    stored_score = segment_arrays(test_set=stored, signature=column.signature)[system.pk]
    assert stored_score.sentence_scores[2] == pytest.approx(100 * wer["distance"] / len(wer["ref"]))


def test_ter_shifts_and_cder_coverage_are_drawn(client, stored, viewer_user):
    client.force_login(viewer_user)
    data = grid_data(client.get(url(stored, 1, grid=True, system="sys-b", measure="ter")))
    assert data["initial"] == "ter|A||"
    ter = data["panels"]["ter|A||"]
    assert ter["shifts"] is not None  # "on the mat the cat sat": a block moves
    assert "SHIFT 1:" in ter["text"] and "REF:" in ter["text"] and "EVAL:" in ter["text"]
    cder = data["panels"]["cder|A|forward|both"]
    strip = [trace for trace in cder["figure"]["data"] if trace.get("yaxis") == "y2"]
    assert strip and strip[0]["name"] == "coverage"
    assert "long jump" in {trace.get("name") for trace in cder["figure"]["data"]}


def test_the_grid_view_starts_with_the_asked_measure_reference_and_cder_options(
    client, viewer_user
):
    test_set = make_test_set(
        "two refs", references=REFERENCES, outputs=OUTPUTS, second_references=REFERENCES[::-1]
    )
    client.force_login(viewer_user)
    response = client.get(
        url(
            test_set,
            2,
            grid=True,
            system="sys-c",
            measure="cder",
            reference="B",
            **{"option.direction": "backward", "option.pad-rule": "left"},
        )
    )
    data = grid_data(response)
    assert data["initial"] == "cder|B|backward|left"
    assert {v["reference"] for v in data["variants"]} == {"A", "B"}
    view = response.context["page"].views["cder|B|backward|left"]
    assert view["x_side"] == "reference" and view["y_side"] == "candidate"
    # With two references, each view says which one the sentence score is taken from.
    if hasattr(get_metric("wer")(), "choose_reference"):
        page = response.context["page"]
        notes = page.views["wer|A||"]["notes"] + page.views["wer|B||"]["notes"]
        assert sum("takes its distance from reference" in note for note in notes) == 2
    bad = client.get(
        url(test_set, 2, grid=True, measure="cder", **{"option.direction": "sideways"})
    )
    assert bad.status_code == 200 and "sideways" in bad.context["page"].error


def test_mt_text_is_escaped_in_the_figures_and_the_text(client, stored, viewer_user):
    client.force_login(viewer_user)
    response = client.get(url(stored, 1, grid=True, system="sys-a"))
    html = response.content.decode()
    assert "<script>alert(1)" not in html
    data = grid_data(response)
    figures = json.dumps([[p["figure"], p["shifts"]] for p in data["panels"].values()])
    assert "<script" not in figures and "&lt;script&gt;" in figures and "&amp;amp;" in figures
    # The text rendering is plain text (the page sets it with textContent): words as tokenized.
    assert "<script>alert(1)</script>" in data["panels"]["ter|A||"]["text"]
    for panel in data["panels"].values():
        for text in _figure_strings(panel["figure"]) + _figure_strings(panel["shifts"] or {}):
            # Only our own markup reaches plotly: <br>, <b>, <span …>, <extra> and their ends.
            assert not re.search(r"<(?!/?(br|b|span|extra)\b)", text), text
    wer = response.context["page"].views[variant_key("wer", "A")]
    assert "<" in wer["hyp"] and "script" in wer["hyp"]  # tokens as the measure sees them
    # What plotly draws for each word label is the word itself (TER keeps "<script>…" whole).
    for key in ("wer|A||", "ter|A||", "per|A||"):
        view = response.context["page"].views[key]
        figure = data["panels"][key]["figure"]
        for ticks in figure["layout"]["meta"]["ticks"]:
            shown = [plotly_shows(label) for label in ticks["labels"]]
            words = shown[1:] if shown and shown[0] == "ε" else shown
            assert words in (view["x_words"], view["y_words"], view["hyp"], view["ref"]), key
    ter = response.context["page"].views["ter|A||"]
    assert "<script>alert(1)</script>" in ter["hyp"] and "&amp;" in ter["hyp"]


def _figure_strings(figure: dict) -> list[str]:
    found: list[str] = []

    def walk(value):
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(figure)
    return found


def test_n_gram_measures_explain_the_stored_sentence_score_where_they_can(
    client, stored, viewer_user
):
    client.force_login(viewer_user)
    page = client.get(url(stored, 2, grid=True, system="sys-a")).context["page"]
    assert [entry["measure"] for entry in page.explanations] == ["bleu", "nist", "chrf"]
    system = stored.systems.get(name="sys-a")
    for entry in page.explanations:
        has_explain = callable(getattr(get_metric(entry["measure"])(), "explain", None))
        assert entry["available"] == has_explain and not entry["error"]
        if entry["explanation"] is None:
            continue
        # The breakdown's score is the one the run stored (NIST with the test set's weights).
        column = next(c for c in page_columns(stored) if c.measure == entry["measure"])
        stored_score = segment_arrays(test_set=stored, signature=column.signature)[system.pk]
        facts = dict(entry["explanation"]["facts"])
        assert facts["sentence score"] == _number_text(stored_score.sentence_scores[1])
        assert entry["explanation"]["rows"][0]["label"] in ("1-gram", "1-char")


def page_columns(test_set):
    return score_columns(test_set=test_set)


def test_a_missing_output_is_said_not_drawn(client, stored, viewer_user):
    from evaltrans.corpora.models import Candidate

    Candidate.objects.filter(system__name="sys-c", segment__index=0).delete()
    client.force_login(viewer_user)
    response = client.get(url(stored, 1, grid=True, system="sys-c"))
    assert response.status_code == 200
    assert "has no output for this segment" in response.content.decode()


# --------------------------------------------------------------------------- campaigns


@pytest.fixture
def campaign(db):
    """A finished campaign on the judging app's toy test set, judged by alice, bob and carol."""
    from judging.selectors import screen_next
    from judging.services import campaign_create
    from tests.judging.conftest import toy_corpus
    from tests.judging.test_services import submit_screen

    test_set = testset_import(corpus=toy_corpus(), name="jtoy", import_format="text").test_set
    judges = [make_user(name, group=JUDGES_GROUP) for name in ("alice", "bob", "carol")]
    campaign = campaign_create(
        name="Spring",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=judges,
        seed=7,
        repeat_share=0.0,
        judges_per_item=2,
    )
    for offset, assignment in enumerate(campaign.assignments.order_by("pk")):
        while (screen := screen_next(assignment=assignment)) is not None:
            submit_screen(assignment, screen, 1 + (screen + offset) % 5)
    return campaign


def _judge_headers(response) -> list[str]:
    return [judge for table in response.context["page"].human for judge in table.judges]


def test_campaign_judgments_show_their_judges(client, campaign, viewer_user):
    client.force_login(viewer_user)
    response = client.get(url(campaign.test_set, 1))
    headers = _judge_headers(response)
    assert headers and set(headers) <= {"alice", "bob", "carol"}
    assert {table.kind for table in response.context["page"].human} == {"campaign"}


def test_an_anonymous_campaign_hides_judge_names_from_viewers_not_from_admins(
    client, campaign, viewer_user, admin_user
):
    campaign.anonymous_judges = True
    campaign.save(update_fields=["anonymous_judges"])
    client.force_login(viewer_user)
    response = client.get(url(campaign.test_set, 1))
    headers = _judge_headers(response)
    assert headers and all(re.fullmatch(r"judge \d", name) for name in headers)
    html = response.content.decode()
    for name in ("alice", "carol"):
        assert name not in html
    client.force_login(admin_user)
    assert set(_judge_headers(client.get(url(campaign.test_set, 1)))) <= {"alice", "bob", "carol"}
