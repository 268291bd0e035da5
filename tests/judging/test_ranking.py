"""Relative ranking: Expected Wins (WMT 2013) and the ratio of wins (WMT 2012) on a hand-worked
example, the win table, ties, WMT 2013's kappa on pairs; the ranking campaign (screens of 2-5
anonymous candidates), its submissions, pages, exports and form."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.test import Client

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.services import testset_import
from judging.exports import WMT_RANKING_HEADER
from judging.forms import CampaignForm
from judging.humanscores.selectors import campaign_records, human_source_get
from judging.models import AssignedItem, Assignment, Campaign, Judgment
from judging.ranking import (
    BETTER,
    TIE,
    WORSE,
    Comparison,
    RankedCandidate,
    comparisons_from_ranking,
    expected_wins,
    pairwise_kappa,
    system_wins,
    win_table,
    wins_ratio,
)
from judging.selectors import (
    campaign_judgment_rows,
    campaign_ranking_comparisons,
    campaign_ranking_pairs,
    ranking_wins_panel,
    screen_detail,
    screen_next,
)
from judging.services import CampaignError, JudgingError, campaign_create, screen_submit

from .test_services import rendered_token

SYSTEMS = ["alphamt", "bravomt", "charliemt", "deltamt", "echomt", "foxtrotmt"]
"""Six systems whose names appear nowhere else in a page (anonymity is checked by name)."""


def wins(segment, better, worse, judge="j1", tie=False, is_repeat=False):
    if tie:
        better, worse = sorted((better, worse))
    return Comparison(
        segment_id=str(segment),
        judge=judge,
        better=better,
        worse=worse,
        tie=tie,
        is_repeat=is_repeat,
    )


# ---------------------------------------------------------------- pure scoring (no database)


def hand_worked() -> list[Comparison]:
    """Three systems; the counts of the docs' worked example.

    A vs B: A wins 3, B wins 1, 1 tie.  A vs C: 1 win each, 2 ties.  B vs C: 2 wins each.
    """
    rows = []
    rows += [wins(n, "A", "B") for n in range(3)] + [wins(3, "B", "A"), wins(4, "A", "B", tie=True)]
    rows += [wins(5, "A", "C"), wins(6, "C", "A")]
    rows += [wins(n, "A", "C", tie=True) for n in (7, 8)]
    rows += [wins(n, "B", "C") for n in (9, 10)] + [wins(n, "C", "B") for n in (11, 12)]
    return rows


def test_expected_wins_and_the_ratio_of_wins_on_a_hand_worked_example():
    # Expected Wins (WMT 2013), the mean over opponents of wins / (wins + losses):
    #   A: (3/4 + 1/2) / 2 = 0.625   B: (1/4 + 2/4) / 2 = 0.375   C: (1/2 + 2/4) / 2 = 0.5
    # Ratio of wins (WMT 2012), pooled over opponents, ties excluded:
    #   A: (3+1) / (4+2) = 4/6       B: (1+2) / (4+4) = 3/8       C: (1+2) / (2+4) = 3/6
    table = win_table(hand_worked())
    assert expected_wins(table, "A") == pytest.approx(0.625)
    assert expected_wins(table, "B") == pytest.approx(0.375)
    assert expected_wins(table, "C") == pytest.approx(0.5)
    assert wins_ratio(table, "A") == pytest.approx(4 / 6)
    assert wins_ratio(table, "B") == pytest.approx(3 / 8)
    assert wins_ratio(table, "C") == pytest.approx(0.5)
    rows = system_wins(table)
    assert [row.system for row in rows] == ["A", "C", "B"]
    a = rows[0]
    assert (a.wins, a.losses, a.ties, a.opponents, a.comparisons) == (4, 2, 3, 2, 9)


def test_the_win_table_counts_both_directions_and_ties_on_both_sides():
    table = win_table(hand_worked(), systems=["D"])
    assert table.systems == ["A", "B", "C", "D"]
    ab, ba = table.cell("A", "B"), table.cell("B", "A")
    assert (ab.wins, ab.losses, ab.ties) == (3, 1, 1)
    assert (ba.wins, ba.losses, ba.ties) == (1, 3, 1)
    assert (table.cell("A", "C").ties, table.cell("C", "A").ties) == (2, 2)
    # D was never compared: no score, listed last; the diagonal is empty in rows().
    assert table.cell("A", "D").ratio is None
    assert system_wins(table)[-1].system == "D" and system_wins(table)[-1].expected_wins is None
    assert table.rows()[0][1][0] is None


def test_ties_are_ignored_and_an_opponent_met_only_in_ties_is_left_out():
    # A and B tie twice, A beats C once: Expected Wins of A averages over C alone (1/1 = 1),
    # not over (B, C) with B counted as 0 (1/2); B has no non-tie comparison: no score.
    table = win_table([wins(1, "A", "B", tie=True), wins(2, "A", "B", tie=True), wins(3, "A", "C")])
    assert expected_wins(table, "A") == 1.0 and wins_ratio(table, "A") == 1.0
    assert expected_wins(table, "B") is None and wins_ratio(table, "B") is None
    assert expected_wins(table, "C") == 0.0


def test_a_ranking_gives_every_pair_of_systems_of_different_candidates():
    # Candidate 1 stands for a and b (identical outputs) with rank 1, c has rank 1, d rank 3:
    # a=c, b=c (ties), a>d, b>d, c>d; a and b are not compared (the judge made no choice).
    candidates = [
        RankedCandidate(systems=("a", "b"), rank=1),
        RankedCandidate(systems=("c",), rank=1),
        RankedCandidate(systems=("d",), rank=3),
    ]
    comparisons = comparisons_from_ranking(candidates, segment_id="7", judge="j")
    found = {(c.better, c.worse, c.tie) for c in comparisons}
    assert found == {
        ("a", "c", True),
        ("b", "c", True),
        ("a", "d", False),
        ("b", "d", False),
        ("c", "d", False),
    }
    worse_first = comparisons_from_ranking(
        [RankedCandidate(("z",), 4), RankedCandidate(("y",), 2)], segment_id="1", judge="j"
    )
    assert [(c.better, c.worse, c.pair, c.outcome) for c in worse_first] == [
        ("y", "z", ("y", "z"), BETTER)
    ]
    assert wins(1, "b", "a").outcome == WORSE and wins(1, "b", "a", tie=True).outcome == TIE


def test_wmt13_kappa_on_a_hand_worked_example():
    # Two judges, segment 1, three pairs. j1: a>b, a=c, c>b.  j2: a>b, a>c, c>b.
    # P(=) = 1 tie / 6 comparisons; P(<) = P(>) = (1 - 1/6) / 2 = 5/12.
    # P(E) = (1/6)^2 + 2 (5/12)^2 = 4/144 + 50/144 = 54/144 = 0.375.
    # P(A) = 2 agreeing judgment pairs of 3 = 2/3.  kappa = (2/3 - 3/8) / (1 - 3/8) = 7/15.
    rows = [
        wins(1, "a", "b", "j1"),
        wins(1, "a", "c", "j1", tie=True),
        wins(1, "c", "b", "j1"),
        wins(1, "a", "b", "j2"),
        wins(1, "a", "c", "j2"),
        wins(1, "c", "b", "j2"),
    ]
    result = pairwise_kappa(rows)
    assert result.pairs == 3 and result.comparisons == 6
    assert result.tie_share == pytest.approx(1 / 6)
    assert result.p_chance == pytest.approx(0.375)
    assert result.p_agree == pytest.approx(2 / 3)
    assert result.kappa == pytest.approx(7 / 15)


def test_kappa_between_judges_ignores_repeats_and_intra_kappa_uses_them():
    rows = [
        wins(1, "a", "b", "j1"),
        wins(1, "a", "b", "j1", is_repeat=True),
        wins(2, "a", "b", "j1"),
        wins(2, "b", "a", "j1", is_repeat=True),
    ]
    assert pairwise_kappa(rows).pairs == 0 and pairwise_kappa(rows).kappa is None
    intra = pairwise_kappa(rows, intra=True)
    # No ties: P(E) = 2 (1/2)^2 = 1/2; one agreement of two: P(A) = 1/2, kappa 0.
    assert (intra.pairs, intra.p_agree, intra.p_chance, intra.kappa) == (2, 0.5, 0.5, 0.0)
    assert pairwise_kappa([]).kappa is None


# ---------------------------------------------------------------- campaigns (database)

pytestmark_db = pytest.mark.django_db


def ranking_corpus(segments: int = 4) -> CorpusData:
    rows = []
    for number in range(segments):
        candidates = {name: f"Output {k} of sentence {number} ." for k, name in enumerate(SYSTEMS)}
        if number == 0:
            candidates["bravomt"] = candidates["alphamt"]  # identical outputs: one candidate
        rows.append(
            SegmentData(
                source=f"Quelle {number} .",
                doc_id="d1",
                seg_id=str(number + 1),
                references={"A": f"Reference {number} ."},
                candidates=candidates,
            )
        )
    return CorpusData(source_lang="de", target_lang="en", segments=rows, name="rank")


@pytest.fixture
def rank_set(db):
    return testset_import(corpus=ranking_corpus(), name="rank", import_format="text").test_set


def ranking_campaign(test_set, judges, **options) -> Campaign:
    settings = {
        "name": f"rank-{Campaign.objects.count() + 1}",
        "test_set": test_set,
        "systems": list(test_set.systems.all()),
        "judges": judges,
        "judges_per_item": 2,
        "protocol": Campaign.Protocol.RANKING,
        "repeat_share": 0.0,
        "seed": 3,
    }
    settings.update(options)
    return campaign_create(**settings)


def system_of(assigned: AssignedItem) -> list[str]:
    return sorted(assigned.item.candidates.values_list("system__name", flat=True))


def preference(assigned: AssignedItem) -> int:
    """A judge who ranks by the system order of SYSTEMS (alphamt best), foxtrotmt tied with
    echomt."""
    best = min(SYSTEMS.index(name) for name in system_of(assigned))
    return min(best + 1, 5)


def rank_all(assignment: Assignment, ranker=preference) -> None:
    while (number := screen_next(assignment=assignment)) is not None:
        view = screen_detail(assignment=assignment, screen=number)
        scores = {(e.assigned.pk, "rank"): ranker(e.assigned) for e in view.entries}
        screen_submit(
            assignment=assignment,
            screen=number,
            scores=scores,
            active_ms=9000,
            token=rendered_token(assignment, number),
        )


@pytestmark_db
def test_a_ranking_campaign_groups_distinct_outputs_of_one_source_into_screens(rank_set, judges):
    campaign = ranking_campaign(rank_set, judges)
    assert campaign.protocol == Campaign.Protocol.RANKING
    assert campaign.presentation == Campaign.Presentation.GROUPED
    assert campaign.candidates_per_screen == 5
    (aspect,) = campaign.aspects.all()
    assert (aspect.name, aspect.values, aspect.perfect, aspect.needs_reference) == (
        "rank",
        [1, 2, 3, 4, 5],
        1,
        True,
    )
    for assignment in Assignment.objects.filter(campaign=campaign):
        screens: dict[int, list[AssignedItem]] = {}
        for row in assignment.items.select_related("item"):
            screens.setdefault(row.screen, []).append(row)
        for rows in screens.values():
            assert 2 <= len(rows) <= 5
            assert len({row.item.segment_id for row in rows}) == 1
    # Segment 1: 5 distinct outputs (alphamt = bravomt), one screen; segments 2-4: six
    # outputs each, two screens of 3. Every screen goes to 2 of the 3 judges.
    placed = AssignedItem.objects.filter(assignment__campaign=campaign)
    assert placed.count() == 2 * (5 + 3 * 6)
    assert len({(row.assignment_id, row.screen) for row in placed}) == 2 * (1 + 3 * 2)


@pytestmark_db
def test_the_candidate_order_is_shuffled_with_the_seed(rank_set, judges):
    orders = []
    for seed in (3, 3, 4):
        campaign = ranking_campaign(rank_set, judges[:1], judges_per_item=1, seed=seed)
        assignment = Assignment.objects.get(campaign=campaign)
        orders.append(
            [
                system_of(row)
                for row in assignment.items.order_by("screen", "position").select_related("item")
            ]
        )
    assert orders[0] == orders[1] and orders[0] != orders[2]
    natural = sorted(orders[0], key=lambda names: SYSTEMS.index(names[0]))
    assert orders[0] != natural


@pytestmark_db
def test_two_per_screen_leaves_out_the_odd_output_and_refuses_what_ranking_cannot_do(
    rank_set, judges
):
    campaign = ranking_campaign(rank_set, judges[:2], candidates_per_screen=2)
    sizes = {}
    for row in AssignedItem.objects.filter(assignment__campaign=campaign):
        sizes.setdefault((row.assignment_id, row.screen), 0)
        sizes[(row.assignment_id, row.screen)] += 1
    assert set(sizes.values()) == {2}
    # Segment 1 has 5 distinct outputs: two screens of 2, one output left out.
    assert campaign.items.filter(segment__index=0).count() == 4
    with pytest.raises(CampaignError, match="2 to 5 candidates"):
        ranking_campaign(rank_set, judges, candidates_per_screen=6)
    with pytest.raises(CampaignError, match="do not reuse"):
        ranking_campaign(rank_set, judges, reuse_judgments=True)
    with pytest.raises(CampaignError, match="ranks 1"):
        ranking_campaign(rank_set, judges, scales=[{"name": "x", "levels": [1, 2]}])
    with pytest.raises(CampaignError, match="Nothing to rank"):
        ranking_campaign(rank_set, judges, systems=list(rank_set.systems.filter(name="alphamt")))
    assert not Campaign.objects.filter(name__startswith="rank-").exclude(pk=campaign.pk).exists()


@pytestmark_db
def test_a_ranking_is_stored_as_judgments_that_know_their_protocol(rank_set, judges):
    campaign = ranking_campaign(rank_set, judges[:2])
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    rank_all(assignment)
    stored = Judgment.objects.filter(assigned_item__assignment=assignment)
    assert stored.count() == assignment.items.count()
    assert set(stored.values_list("protocol", flat=True)) == {Campaign.Protocol.RANKING}
    assert all(ms > 0 for ms in stored.values_list("active_ms", flat=True))
    row = stored.select_related("assigned_item__item").first()
    assert row.score == preference(row.assigned_item)
    assert screen_next(assignment=assignment) is None


@pytestmark_db
def test_a_rank_outside_1_to_5_or_a_missing_candidate_changes_nothing(rank_set, judges):
    campaign = ranking_campaign(rank_set, judges[:2])
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    view = screen_detail(assignment=assignment, screen=0)
    keys = [(entry.assigned.pk, "rank") for entry in view.entries]
    token = rendered_token(assignment, 0)
    with pytest.raises(JudgingError, match="7 is not a rank"):
        screen_submit(
            assignment=assignment,
            screen=0,
            scores=dict.fromkeys(keys, 7),
            active_ms=1,
            token=token,
        )
    with pytest.raises(JudgingError, match=r"Rank every translation .*1 of"):
        screen_submit(
            assignment=assignment,
            screen=0,
            scores=dict.fromkeys(keys[1:], 2),
            active_ms=1,
            token=token,
        )
    assert not Judgment.objects.exists()


@pytestmark_db
def test_expected_wins_of_a_judged_campaign_follow_the_judges_preference(rank_set, judges):
    campaign = ranking_campaign(rank_set, judges, repeat_share=0.5)
    for assignment in Assignment.objects.filter(campaign=campaign):
        rank_all(assignment)
    panel = ranking_wins_panel(campaign=campaign)
    order = [row.system for row in panel.systems]
    # echomt and foxtrotmt both get rank 5: tied, so their order is by name.
    assert order == SYSTEMS
    assert panel.systems[0].expected_wins == 1.0 and panel.systems[-1].expected_wins == 0.0
    ef = panel.table.cell("echomt", "foxtrotmt")
    assert ef.wins == ef.losses == 0 and ef.ties > 0
    # alphamt and bravomt share an output on segment 1: never compared there.
    compared = {(c.segment_id, c.pair) for c in campaign_ranking_comparisons(campaign=campaign)}
    assert ("1", ("alphamt", "bravomt")) not in compared
    assert ("1", ("alphamt", "charliemt")) in compared
    # The same preference for everybody: every judgment pair agrees; repeats too.
    assert panel.inter.pairs > 0 and panel.inter.p_agree == 1.0 and panel.inter.kappa == 1.0
    assert panel.intra.pairs > 0 and panel.intra.kappa == 1.0
    assert sum(row.repeats for row in panel.judges) > 0
    pairs = campaign_ranking_pairs(campaign=campaign)
    assert pairs and not any(pair.tie or pair.is_repeat for pair in pairs)
    assert all(SYSTEMS.index(p.better) < SYSTEMS.index(p.worse) for p in pairs)
    with_ties = campaign_ranking_pairs(campaign=campaign, ties=True)
    assert len(with_ties) == len(pairs) + panel.ties
    assert len(campaign_ranking_comparisons(campaign=campaign)) > len(with_ties)
    # Ranks are no absolute scores: the human-score records of the campaign stay empty.
    assert campaign_records(campaign=campaign) == []
    source = human_source_get(kind="campaign", pk=campaign.pk)
    assert source.is_ranking and source.records == [] and source.segment_links


# ---------------------------------------------------------------- pages


def screen_url(assignment: Assignment, number: int) -> str:
    return f"/judging/assignments/{assignment.pk}/screens/{number}/"


@pytestmark_db
def test_the_ranking_screen_shows_anonymous_candidates_side_by_side(client, rank_set, judges):
    campaign = ranking_campaign(rank_set, judges[:2])
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    client.force_login(judges[0])
    page = client.get(screen_url(assignment, 1)).content.decode()
    assert 'data-protocol="ranking"' in page and "rank-grid" in page
    assert "Translation A" in page and "Translation B" in page and "How to rank" in page
    assert page.count('type="radio"') == 5 * len(
        screen_detail(assignment=assignment, screen=0).entries
    )
    assert "Reference" in page and "Quelle" in page
    lowered = page.lower()
    for name in SYSTEMS:
        assert name not in lowered
    # Another judge's assignment does not exist for this judge.
    other = Assignment.objects.get(campaign=campaign, judge=judges[1])
    assert client.get(screen_url(other, 1)).status_code == 404
    assert client.post(screen_url(other, 1), {"token": "x"}).status_code == 404


@pytestmark_db
def test_posting_a_ranking_needs_the_csrf_token_and_bad_ranks_get_a_clear_error(
    client, rank_set, judges
):
    campaign = ranking_campaign(rank_set, judges[:2])
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    view = screen_detail(assignment=assignment, screen=0)
    fields = {f"score-{entry.assigned.pk}-rank": "2" for entry in view.entries}
    fields |= {"token": rendered_token(assignment, 0), "active_ms": "3000"}
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(judges[0])
    assert guarded.post(screen_url(assignment, 1), fields).status_code == 403

    client.force_login(judges[0])
    json_accept = {"HTTP_ACCEPT": "application/json"}
    first = f"score-{view.entries[0].assigned.pk}-rank"
    bad = client.post(screen_url(assignment, 1), {**fields, first: "9"}, **json_accept)
    assert bad.status_code == 400
    page = client.get(screen_url(assignment, 1)).content.decode()
    assert "9 is not a rank" in page
    missing = {key: value for key, value in fields.items() if key != first}
    assert client.post(screen_url(assignment, 1), missing, **json_accept).status_code == 400
    assert "Rank every translation" in client.get(screen_url(assignment, 1)).content.decode()
    assert not Judgment.objects.exists()

    good = client.post(screen_url(assignment, 1), fields, **json_accept)
    assert good.status_code == 200 and "location" in good.json()
    assert Judgment.objects.filter(score=2).count() == len(view.entries)


@pytestmark_db
def test_the_campaign_and_human_score_pages_show_expected_wins(
    client, admin_user, rank_set, judges
):
    campaign = ranking_campaign(rank_set, judges)
    for assignment in Assignment.objects.filter(campaign=campaign):
        rank_all(assignment)
    client.force_login(admin_user)
    detail = client.get(f"/judging/campaigns/{campaign.pk}/").content.decode()
    assert "Expected Wins" in detail and 'id="win-table"' in detail and "κ" in detail
    assert "WMT ranking CSV" in detail
    table = detail[detail.index('id="expected-wins-table"') :]
    assert table.index("alphamt") < table.index("charliemt") < table.index("foxtrotmt")
    scores = client.get(f"/human/campaign/{campaign.pk}/").content.decode()
    assert "Expected Wins" in scores and "relative ranking" in scores
    assert (
        "Agreement on pairs"
        in client.get(f"/human/campaign/{campaign.pk}/agreement/").content.decode()
    )
    assert "Comparisons" in client.get(f"/human/campaign/{campaign.pk}/judges/").content.decode()


@pytestmark_db
def test_exports_carry_ranks_and_the_wmt_ranking_csv(client, admin_user, rank_set, judges):
    campaign = ranking_campaign(rank_set, judges[:2], judges_per_item=1)
    for assignment in Assignment.objects.filter(campaign=campaign):
        rank_all(assignment)
    client.force_login(admin_user)
    base = f"/judging/campaigns/{campaign.pk}/export/"
    rows = list(csv.DictReader(io.StringIO(client.get(base + "csv/").content.decode())))
    assert rows and {row["protocol"] for row in rows} == {"ranking"}
    assert {row["aspect"] for row in rows} == {"rank"} and rows[0]["screen"]
    document = json.loads(client.get(base + "json/").content)
    assert document["campaign"]["protocol"] == "ranking"
    assert document["campaign"]["candidates_per_screen"] == 5
    assert len(document["judgments"]) == len(campaign_judgment_rows(campaign=campaign))

    response = client.get(base + "wmt-ranking/")
    assert response.status_code == 200 and "wmt-rnk-de-en" in response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    assert tuple(lines[0]) == WMT_RANKING_HEADER
    screens = {
        (row.assignment_id, row.screen)
        for row in AssignedItem.objects.filter(assignment__campaign=campaign)
    }
    assert len(lines) - 1 == len(screens)
    by_name = dict(zip(WMT_RANKING_HEADER, lines[1], strict=True))
    assert by_name["srclang"] == "de" and by_name["srcIndex"] == "1" and by_name["segmentId"] == "1"
    shown = [by_name[f"system{k}Id"] for k in range(1, 6)]
    ranks = [int(by_name[f"system{k}rank"]) for k in range(1, 6)]
    # Segment 1: alphamt and bravomt share one output, written as one slot "alphamt+bravomt".
    assert "alphamt+bravomt" in shown and all(1 <= rank <= 5 for rank in ranks)
    for name, rank in zip(shown, ranks, strict=True):
        assert rank == min(SYSTEMS.index(name.split("+")[0]) + 1, 5)
    assert re.fullmatch(r"\d+\+\d+", by_name[f"system{shown.index('alphamt+bravomt') + 1}Number"])
    assert client.get(base + "wmt-da/").status_code == 404


@pytestmark_db
def test_a_two_candidate_ranking_fills_the_other_wmt_slots_as_blank(
    client, admin_user, rank_set, judges
):
    campaign = ranking_campaign(rank_set, judges[:1], judges_per_item=1, candidates_per_screen=2)
    rank_all(Assignment.objects.get(campaign=campaign))
    client.force_login(admin_user)
    body = client.get(f"/judging/campaigns/{campaign.pk}/export/wmt-ranking/").content.decode()
    row = dict(zip(WMT_RANKING_HEADER, list(csv.reader(io.StringIO(body)))[1], strict=True))
    assert [row[f"system{k}rank"] for k in (3, 4, 5)] == ["-1", "-1", "-1"]
    assert row["system3Id"] == row["system5Number"] == ""


@pytestmark_db
def test_the_campaign_form_builds_a_ranking_campaign(rank_set, judges):
    data = {
        "name": "form ranking",
        "protocol": "ranking",
        "systems": [system.pk for system in rank_set.systems.all()],
        "reference_label": "A",
        "judges": [judge.pk for judge in judges],
        "judges_per_item": 2,
        "presentation": "single",
        "aspect_order": "sequential",
        "repeat_share": 0.0,
        "candidates_per_screen": 3,
        "scales": "",
    }
    form = CampaignForm(data, test_set=rank_set)
    assert form.is_valid(), form.errors
    cleaned = form.cleaned_data
    assert cleaned["candidates_per_screen"] == 3 and cleaned["bad_reference_share"] is None
    assert cleaned["scales"][0]["name"] == "rank"
    assert cleaned["scales"][0]["needs_reference"] is False  # the box was left unticked
    campaign = campaign_create(test_set=rank_set, **cleaned)
    assert campaign.candidates_per_screen == 3 and not campaign.aspects.get().needs_reference
    assert CampaignForm(test_set=rank_set).fields["candidates_per_screen"].initial == 5
    other = CampaignForm({**data, "protocol": "categorical"}, test_set=rank_set)
    assert not other.is_valid() and "scales" in other.errors
    too_many = CampaignForm({**data, "candidates_per_screen": 6}, test_set=rank_set)
    assert not too_many.is_valid() and "candidates_per_screen" in too_many.errors


@pytestmark_db
def test_the_campaign_form_page_offers_relative_ranking(client, admin_user, rank_set):
    client.force_login(admin_user)
    page = client.get(f"/judging/campaigns/new/{rank_set.pk}/").content.decode()
    assert 'value="ranking"' in page and "Relative ranking" in page
    assert 'id="ranking-options"' in page and 'name="candidates_per_screen"' in page
    assert 'data-protocol-hide="ranking"' in page
