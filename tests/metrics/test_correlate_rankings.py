"""``manage.py correlate`` with a relative-ranking campaign as the human side (WMT 2013-2016):
segment level = WMT's Kendall's τ-like over the judges' pairwise preferences (metric ties
Discordant, error measures negated), system level = the campaign's Expected Wins; every other
segment-level request refused with one line. The campaign is judged through the services."""

from __future__ import annotations

import json
import re
from io import StringIO

import numpy as np
import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.urls import reverse
from scipy import stats

from evaltrans.roles import JUDGES_GROUP
from judging.humanscores.selectors import human_source_by_name
from judging.models import Assignment, Campaign, Judgment
from judging.selectors import campaign_ranking_pairs, ranking_wins_panel, screen_detail, screen_next
from judging.services import campaign_create, screen_submit
from metrics.core import get_metric
from metrics.selectors.correlation import cached_correlation_matrix, correlation_matrix
from tests.conftest import make_user
from tests.judging.test_services import rendered_token
from tests.metrics.run_helpers import REFERENCES, make_test_set

pytestmark = pytest.mark.django_db(transaction=True)

OUTPUTS = {
    "sys-a": [
        "the cat sat on mat", "there is dog in the garden", "we were there before",
        "he reads a book every evening", "weather is nice today",
        "she meets us at noon in lobby", "all children were playing outside",
        "this is short sentence",
    ],
    "sys-b": [
        "a cat is sitting on the mat", "a dog is in the garden", "we have been there",
        "every evening he reads a long book", "the weather today is nice",
        "she will meet us in the lobby at noon", "the children played outside",
        "this is a short sentence",
    ],
    "sys-c": [
        "the cat sat on the big mat", "dog garden", "there before we", "book evening reads",
        "today weather", "noon lobby meet", "children outside", "short",
    ],
    "sys-d": [
        "the cat sat on the mat", "there is a dog in garden", "we have been there before",
        "he reads a long book every evening", "the weather is nice", "she will meet us at noon",
        "all the children were playing", "this is a short sentence",
    ],
}  # fmt: skip
# On segment 1, sys-c inserts a word and sys-a drops one: the same WER (1/6), but the judges
# (who count matching words) prefer sys-c, a metric tie on a human preference.
MT_SYSTEMS = sorted(OUTPUTS)
CAMPAIGN = "tiny ranking"


def matches(text: str, reference: str) -> int:
    """The judges' taste: words of the candidate found in the reference (ties happen)."""
    words = reference.split()
    return sum(1 for word in text.split() if word in words)


def rank_everything(campaign: Campaign) -> None:
    """Every judge ranks every screen: rank = 1 + candidates with strictly more matches."""
    for assignment in Assignment.objects.filter(campaign=campaign):
        while (number := screen_next(assignment=assignment)) is not None:
            view = screen_detail(assignment=assignment, screen=number)
            found = {}
            for entry in view.entries:
                item = entry.assigned.item
                found[entry.assigned.pk] = matches(item.text, REFERENCES[item.segment.index])
            scores = {
                (pk, "rank"): min(5, 1 + sum(other > mine for other in found.values()))
                for pk, mine in found.items()
            }
            screen_submit(
                assignment=assignment,
                screen=number,
                scores=scores,
                active_ms=5000,
                token=rendered_token(assignment, number),
            )


@pytest.fixture
def ranked():
    test_set = make_test_set("tiny", outputs=OUTPUTS)
    call_command(
        "evaluate", "--test-set", "tiny", "--measures", "wer,bleu,chrf", "--eager",
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    judges = [make_user(f"ranker{k}", group=JUDGES_GROUP) for k in range(3)]
    campaign = campaign_create(
        name=CAMPAIGN,
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=judges,
        judges_per_item=2,
        protocol=Campaign.Protocol.RANKING,
        reference_as_system="A",  # a human translation: ranked, then left out of correlations
        repeat_share=0.2,
        seed=5,
    )
    rank_everything(campaign)
    return campaign


def correlate(*args: str, human: str = CAMPAIGN) -> dict:
    out = StringIO()
    call_command("correlate", "--human", human, "--test-set", "tiny", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def row(payload: dict, measure: str, coefficient: str) -> dict:
    for found in payload["correlations"]:
        if found["measure"] == measure and found["coefficient"] == coefficient:
            return found
    raise KeyError((measure, coefficient))


def sentence_scores(name: str) -> dict[str, np.ndarray]:
    """Sentence scores straight from metrics.core, per MT system."""
    measure = get_metric(name)()
    refs = [[text] for text in REFERENCES]
    result = {}
    for system in MT_SYSTEMS:
        statistics = measure.statistics(OUTPUTS[system], refs, measure.context(refs))
        result[system] = np.asarray(measure.sentence_scores(statistics), dtype=np.float64)
    return result


def naive_tau(campaign: Campaign, name: str, lower_is_better: bool) -> tuple[float, int, int]:
    """WMT 2014-2016's τ by its definition, over the judging side's preferences between MT
    systems: Concordant when the measure prefers the judges' winner, else Discordant (ties
    too); and the number of metric ties."""
    scores = sentence_scores(name)
    concordant = discordant = ties = 0
    for pair in campaign_ranking_pairs(campaign=campaign):
        if pair.better not in scores or pair.worse not in scores:
            continue  # the reference judged as a system
        k = int(pair.segment_id) - 1
        a, b = scores[pair.better][k], scores[pair.worse][k]
        prefers_better = a < b if lower_is_better else a > b
        ties += a == b
        if a != b and prefers_better:
            concordant += 1
        else:
            discordant += 1
    total = concordant + discordant
    return (concordant - discordant) / total, total, ties


def test_segment_level_is_wmt_kendall_tau_over_the_judges_preferences(ranked):
    payload = correlate("--level", "segment")
    # No --coefficients: a ranking campaign's one segment-level coefficient.
    assert {found["coefficient"] for found in payload["correlations"]} == {"kendall-like"}
    assert payload["systems"] == MT_SYSTEMS
    assert payload["excluded_reasons"] == {"A": "human translation"}
    assert payload["human"]["aspect"] == "rank" and payload["human"]["negated"] is False
    assert payload["segments"] == len(REFERENCES)
    for name, lower_is_better in (("wer", True), ("bleu", False), ("chrf", False)):
        found = row(payload, name, "kendall-like")
        tau, pairs, ties = naive_tau(ranked, name, lower_is_better)
        if name == "wer":
            assert ties > 0  # the metric tie above, counted Discordant (not left out)
        assert found["negated"] is lower_is_better
        assert found["value"] == pytest.approx(tau)
        assert found["n"] == pairs and found["ci"] is None
    # The judges count matching words, which WER (negated) and chrF follow more often than not.
    assert row(payload, "wer", "kendall-like")["value"] > 0.2
    assert row(payload, "chrf", "kendall-like")["value"] > 0.2


def test_the_reference_as_a_system_enters_the_pairs_only_when_asked(ranked):
    without = row(correlate("--level", "segment"), "bleu", "kendall-like")["n"]
    with_reference = correlate("--level", "segment", "--include-human-systems")
    assert "A" not in with_reference["systems"]  # it has no stored measure scores
    assert row(with_reference, "bleu", "kendall-like")["n"] == without
    every = campaign_ranking_pairs(campaign=ranked)
    assert len(every) > without  # the reference's preferences were left out
    assert without == sum(1 for p in every if "A" not in (p.better, p.worse))


def test_system_level_correlates_with_expected_wins(ranked):
    payload = correlate("--level", "system", "--coefficients", "pearson,spearman,kendall-b")
    panel = ranking_wins_panel(campaign=ranked)
    wins = {row.system: row.expected_wins for row in panel.systems}
    human = np.array([wins[name] for name in MT_SYSTEMS])
    for name, sign in (("wer", -1.0), ("bleu", 1.0), ("chrf", 1.0)):
        measure = get_metric(name)()
        refs = [[text] for text in REFERENCES]
        corpus = np.array(
            [
                measure.aggregate(
                    measure.statistics(OUTPUTS[s], refs, measure.context(refs)), n_refs=1
                ).score
                for s in MT_SYSTEMS
            ]
        )
        assert row(payload, name, "pearson")["value"] == pytest.approx(
            stats.pearsonr(sign * corpus, human)[0]
        )
        assert row(payload, name, "spearman")["value"] == pytest.approx(
            stats.spearmanr(sign * corpus, human)[0]
        )
        assert row(payload, name, "kendall-b")["n"] == 6  # 4 systems: 6 pairs
    # Without --coefficients at system level: the usual defaults.
    defaults = correlate("--level", "system")
    assert {r["coefficient"] for r in defaults["correlations"]} == {
        "pearson",
        "spearman",
        "kendall-b",
    }


def test_a_bootstrap_interval_over_segments_is_seeded(ranked):
    args = ("--level", "segment", "--bootstrap", "200", "--seed", "3")
    first, again = correlate(*args), correlate(*args)
    found = row(first, "chrf", "kendall-like")
    assert found["ci_method"] == "bootstrap-200"
    low, high = found["ci"]
    assert low <= found["value"] <= high and low < high
    assert row(again, "chrf", "kendall-like")["ci"] == found["ci"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--level", "segment", "--coefficients", "kendall-like,pearson"), "pairwise preferences only"),
        (("--level", "segment", "--coefficients", "kendall-b"), "not kendall-b"),
        (("--level", "segment", "--grouping", "item"), "grouping 'none' only"),
        (("--level", "system", "--coefficients", "pce"), "needs human segment scores"),
        (("--level", "system", "--normalized"), "Expected Wins, which have no normalized"),
        (("--level", "system", "--aspect", "adequacy"), "no aspect 'adequacy'"),
    ],
)  # fmt: skip
def test_what_a_ranking_campaign_cannot_answer_gets_one_line(ranked, args, message):
    with pytest.raises(CommandError, match=re.escape(message)) as caught:
        correlate(*args)
    assert "\n" not in str(caught.value)


def test_the_table_says_where_the_numbers_come_from(ranked):
    out = StringIO()
    call_command(
        "correlate", "--human", CAMPAIGN, "--test-set", "tiny", "--level", "segment", stdout=out
    )
    text = out.getvalue()
    assert re.search(r"^wer \(negated\)\s+-?\d\.\d{3}", text, re.MULTILINE)
    assert "Expected Wins (WMT 2013)" in text and "metric ties discordant" in text


def test_an_unranked_campaign_and_the_delta_command_are_refused_clearly(ranked):
    judge = make_user("late", group=JUDGES_GROUP)
    campaign_create(
        name="not yet ranked",
        test_set=ranked.test_set,
        systems=list(ranked.test_set.systems.all()),
        judges=[judge],
        judges_per_item=1,
        protocol=Campaign.Protocol.RANKING,
        repeat_share=0.0,
        seed=1,
    )
    with pytest.raises(CommandError, match="has no rankings yet"):
        correlate("--level", "system", human="not yet ranked")
    with pytest.raises(CommandError, match="pairwise preferences, not scores"):
        call_command(
            "delta_correlate",
            "--human",
            CAMPAIGN,
            "--test-set",
            "tiny",
            "--unit",
            "sentence",
            stdout=StringIO(),
        )


def test_the_matrix_shows_the_ranking_campaigns_columns(ranked):
    source = human_source_by_name(name=CAMPAIGN)
    command = {
        level: correlate("--level", level, "--coefficients", "kendall-like")
        for level in ("segment", "system")
    }
    matrix = correlation_matrix(source=source, coefficient="kendall-like", grouping="item")
    assert [column.key for column in matrix.columns] == ["rank|raw|system", "rank|raw|segment"]
    assert [column.grouping for column in matrix.columns] == ["none", "none"]  # pooled τ
    assert matrix.systems == MT_SYSTEMS and not matrix.notes
    for m, measure in enumerate(matrix.rows):
        system_cell, segment_cell = matrix.cells[m]
        segment = row(command["segment"], measure.measure, "kendall-like")
        assert segment_cell.value == pytest.approx(segment["value"])
        assert segment_cell.n == segment["n"]
        assert system_cell.value == pytest.approx(
            row(command["system"], measure.measure, "kendall-like")["value"]
        )
    pearson = correlation_matrix(source=source, coefficient="pearson")
    system_level = correlate("--level", "system", "--coefficients", "pearson")
    for m, measure in enumerate(pearson.rows):
        assert pearson.cells[m][1] is None  # no segment-level Pearson from preferences
        assert pearson.cells[m][0].value == pytest.approx(
            row(system_level, measure.measure, "pearson")["value"]
        )
    assert any("pairwise preferences only" in note for note in pearson.notes)


def test_the_matrix_page_renders_and_a_revised_rank_refreshes_the_cache(
    client, ranked, viewer_user
):
    cache.clear()
    client.force_login(viewer_user)
    url = reverse("correlation:matrix", args=["campaign", ranked.pk])
    response = client.get(url, {"coefficient": "kendall-like"})
    assert response.status_code == 200 and "error" not in response.context
    before = response.context["matrix"]
    assert before.columns[1].key == "rank|raw|segment"
    source = human_source_by_name(name=CAMPAIGN)
    assert cached_correlation_matrix(source=source, coefficient="kendall-like") == before
    # Every judge turns round: rank 1 becomes the worst. The preferences flip, and the
    # cached matrix must not be served again.
    for judgment in Judgment.objects.filter(assigned_item__assignment__campaign=ranked):
        judgment.score = 6 - judgment.score
        judgment.save(update_fields=["score"])
    after = cached_correlation_matrix(source=source, coefficient="kendall-like")
    m = [row.measure for row in after.rows].index("chrf")
    assert after.cells[m][1].value < 0 < before.cells[m][1].value
    cache.clear()


def test_the_scatter_pages_of_a_ranking_campaign_draw(client, ranked, viewer_user):
    """The matrix links its cells to the scatter: Expected Wins at system level (no human
    intervals: they have no bootstrap), the preferences' measure at segment level."""
    cache.clear()
    client.force_login(viewer_user)
    url = reverse("correlation:scatter", args=["campaign", ranked.pk])
    for level in ("system", "segment"):
        response = client.get(url, {"level": level, "aspect": "rank"})
        assert response.status_code == 200
        assert "error" not in response.context or not response.context["error"], level
    cache.clear()


def test_a_ranking_campaigns_matrix_and_sweep_open_on_kendall_like(client, ranked, viewer_user):
    cache.clear()
    client.force_login(viewer_user)
    for name in ("matrix", "sweep"):
        response = client.get(reverse(f"correlation:{name}", args=["campaign", ranked.pk]))
        assert response.status_code == 200 and not response.context.get("error"), name
        assert (
            response.context.get(
                "coefficient", response.context.get("options", {}).get("coefficient")
            )
            == "kendall-like"
        )
    cache.clear()
