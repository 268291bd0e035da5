"""Direct assessment: a campaign protocol with 0-100 sliders, WMT's bad references planted in
each judge's order, the Wilcoxon flag of judges who do not score them lower, and DA scores
flowing into exports, normalization, rankings and agreement."""

from __future__ import annotations

import json
import statistics

import pytest
from scipy import stats

from evaltrans.corpora.formats.base import CorpusData, InputFile, SegmentData
from evaltrans.corpora.services import testset_import
from judging.exports import HEADER, campaign_wmt_da_export
from judging.formats.wmt_da import parse_wmt_da_csv
from judging.forms import CampaignForm
from judging.humanscores.selectors import (
    SOURCE_CAMPAIGN,
    agreement_panel,
    human_source_get,
    source_human_scores,
)
from judging.models import Assignment, Campaign, Item, Judgment
from judging.qc import (
    BAD_REF_ALPHA,
    FLAG_BAD_REF_NOT_DETECTED,
    judge_quality,
    judge_z,
)
from judging.selectors import campaign_judgment_rows, campaign_progress, screen_detail, screen_next
from judging.services import CampaignError, JudgingError, campaign_create, screen_submit
from judging.services.campaigns import DA_BAD_REFERENCE_SHARE

from .test_services import rendered_token

pytestmark = pytest.mark.django_db

WORDS = "the quick brown fox jumps over a lazy dog near old river bank at dawn".split()


def da_corpus(segments: int = 24) -> CorpusData:
    """``segments`` sentences of 6 to 14 words, reference A, systems good and poor."""
    rows = []
    for number in range(segments):
        length = 6 + number % 9
        words = [WORDS[(number * 3 + k) % len(WORDS)] for k in range(length)]
        reference = " ".join(words) + " ."
        rows.append(
            SegmentData(
                source=f"Quelle {number} .",
                doc_id=f"d{number // 6}",
                seg_id=str(number + 1),
                references={"A": reference},
                candidates={
                    "good": " ".join(words[:-1]) + " .",
                    "poor": " ".join(reversed(words)) + " .",
                },
            )
        )
    return CorpusData(source_lang="de", target_lang="en", segments=rows, name="da")


@pytest.fixture
def da_test_set(db):
    return testset_import(corpus=da_corpus(), name="da", import_format="text").test_set


def da_campaign(test_set, judges, **options):
    settings = {
        "name": f"da-{Campaign.objects.count() + 1}",
        "test_set": test_set,
        "systems": list(test_set.systems.all()),
        "judges": judges,
        "judges_per_item": 1,
        "protocol": Campaign.Protocol.DIRECT_ASSESSMENT,
        "seed": 11,
    }
    settings.update(options)
    return campaign_create(**settings)


def score_all(assignment, scorer) -> None:
    """Judge every screen: ``scorer(assigned item)`` gives the 0-100 score of each aspect."""
    while (number := screen_next(assignment=assignment)) is not None:
        view = screen_detail(assignment=assignment, screen=number)
        scores = {
            (entry.assigned.pk, cell.aspect.name): scorer(entry.assigned)
            for entry in view.entries
            for cell in entry.cells
        }
        screen_submit(
            assignment=assignment,
            screen=number,
            scores=scores,
            active_ms=5000,
            token=rendered_token(assignment, number),
        )


def careful(assigned) -> int:
    """Good outputs high, poor ones low, bad references lowest, with some spread."""
    spread = assigned.item.segment.index % 7
    if assigned.item.kind == Item.Kind.BAD_REFERENCE:
        return 10 + spread
    return (80 if "good" in owners(assigned.item) else 45) + spread


def careless(assigned) -> int:
    """Scores that do not depend on the text (bad references included)."""
    return 40 + (assigned.item.segment.index * 37 + assigned.screen * 11) % 55


def owners(item) -> set[str]:
    return set(item.candidates.values_list("system__name", flat=True))


# ---------------------------------------------------------------- campaign and items


def test_a_da_campaign_stores_its_protocol_sliders_and_wmt_defaults(da_test_set, judges):
    campaign = da_campaign(da_test_set, judges[:1])
    assert campaign.protocol == Campaign.Protocol.DIRECT_ASSESSMENT
    (aspect,) = campaign.aspects.all()
    assert (aspect.name, aspect.kind, aspect.minimum, aspect.maximum) == (
        "adequacy",
        "slider",
        0,
        100,
    )
    assert not aspect.needs_reference  # source-based, WMT since 2019
    assert campaign.bad_reference_share == DA_BAD_REFERENCE_SHARE == 0.14
    assert campaign.repeat_share == 0.14
    # A categorical campaign keeps today's behaviour.
    plain = da_campaign(da_test_set, judges[:1], protocol=Campaign.Protocol.CATEGORICAL)
    assert plain.protocol == "categorical" and plain.bad_reference_share == 0.0
    assert {a.kind for a in plain.aspects.all()} == {"levels"}


def test_bad_references_follow_their_original_in_the_same_judges_order(da_test_set, judges):
    campaign = da_campaign(da_test_set, judges[:2], bad_reference_share=0.25, repeat_share=0)
    bad_items = Item.objects.filter(campaign=campaign, kind=Item.Kind.BAD_REFERENCE)
    assert bad_items.exists()
    for assignment in Assignment.objects.filter(campaign=campaign):
        originals = assignment.items.filter(item__kind=Item.Kind.CANDIDATE)
        bad = assignment.items.filter(item__kind=Item.Kind.BAD_REFERENCE)
        assert bad.count() == round(0.25 * originals.count())
        for row in bad.select_related("item"):
            first = assignment.items.get(item=row.item.degraded_from)
            assert first.screen < row.screen  # the judge scores the candidate itself first
            assert row.item.text != first.item.text
            assert row.item.segment_id == first.item.segment_id
            assert owners(row.item) == owners(first.item)
            assert row.item.judges_needed == 0
    # Coverage counts the systems' own items only.
    progress = campaign_progress(campaign=campaign)
    assert progress.items == Item.objects.filter(campaign=campaign, kind="candidate").count()
    assert sum(row.candidates for row in progress.systems) == progress.items


def test_bad_references_are_the_same_for_the_same_seed(da_test_set, judges):
    def texts(campaign):
        rows = Item.objects.filter(campaign=campaign, kind=Item.Kind.BAD_REFERENCE)
        return sorted(rows.values_list("segment__index", "degraded_from__text", "text"))

    first = da_campaign(da_test_set, judges[:1], seed=3)
    again = da_campaign(da_test_set, judges[:1], seed=3)
    other = da_campaign(da_test_set, judges[:1], seed=4)
    assert texts(first) and texts(first) == texts(again)
    assert texts(first) != texts(other)


def test_da_refuses_grouped_screens_and_level_scales(da_test_set, judges):
    with pytest.raises(CampaignError, match="one candidate per screen"):
        da_campaign(da_test_set, judges[:1], presentation=Campaign.Presentation.GROUPED)
    with pytest.raises(CampaignError, match="slider scales"):
        da_campaign(
            da_test_set,
            judges[:1],
            scales=[
                {"name": "x", "levels": [{"value": 1, "text": "bad"}, {"value": 2, "text": "good"}]}
            ],
        )


# ---------------------------------------------------------------- scoring


def test_da_scores_are_stored_on_the_0_to_100_scale(da_test_set, judges):
    campaign = da_campaign(da_test_set, judges[:1], bad_reference_share=0, repeat_share=0)
    assignment = Assignment.objects.get(campaign=campaign)
    view = screen_detail(assignment=assignment, screen=0)
    (cell,) = view.entries[0].cells
    assert cell.aspect.is_slider and cell.value is None and cell.slider_start == 50
    key = (view.entries[0].assigned.pk, "adequacy")
    for refused in (101, -1):
        with pytest.raises(JudgingError, match=r"not a score of Adequacy \(0–100\)"):
            screen_submit(
                assignment=assignment,
                screen=0,
                scores={key: refused},
                active_ms=1000,
                token=rendered_token(assignment, 0),
            )
    screen_submit(
        assignment=assignment,
        screen=0,
        scores={key: 73},
        active_ms=1000,
        token=rendered_token(assignment, 0),
    )
    assert Judgment.objects.get().score == 73
    assert screen_detail(assignment=assignment, screen=0).entries[0].cells[0].slider_start == 73


# ---------------------------------------------------------------- the Wilcoxon flag


def qc_rows(pairs: list[tuple[int, int]], others: list[int]) -> list[dict]:
    """A judge's judgments: (original score, bad-reference score) pairs, other candidates."""
    rows = []

    def row(item, kind, score, source=None):
        rows.append(
            {
                "assigned_item__item_id": item,
                "assigned_item__is_repeat": False,
                "assigned_item__item__kind": kind,
                "assigned_item__item__degraded_from_id": source,
                "aspect__name": "adequacy",
                "score": score,
                "active_ms": 5000,
            }
        )

    for number, (original, bad) in enumerate(pairs):
        row(number, "candidate", original)
        row(1000 + number, "bad_reference", bad, source=number)
    for number, score in enumerate(others):
        row(2000 + number, "candidate", score)
    return rows


def test_a_judge_who_scores_bad_references_high_is_flagged_as_scipy_says(judges):
    campaign = Campaign(protocol=Campaign.Protocol.DIRECT_ASSESSMENT)
    pairs = [(70, 72), (55, 60), (90, 85), (40, 52), (65, 66), (80, 90), (30, 35)]
    rows = qc_rows(pairs, [50, 75, 20, 95])
    quality = judge_quality(campaign=campaign, judgments=rows)
    z = judge_z([row["score"] for row in rows])
    expected = stats.mannwhitneyu(
        z[0 : 2 * len(pairs) : 2], z[1 : 2 * len(pairs) : 2], alternative="greater"
    ).pvalue
    assert quality.bad_ref_pairs == len(pairs)
    assert quality.bad_ref_p == pytest.approx(expected, abs=1e-12)
    # Ranks do not change under the judge's z: the same p on the raw scores.
    raw = stats.mannwhitneyu(*zip(*pairs, strict=True), alternative="greater").pvalue
    assert quality.bad_ref_p == pytest.approx(raw, abs=1e-12)
    assert quality.bad_ref_p >= BAD_REF_ALPHA
    assert FLAG_BAD_REF_NOT_DETECTED in quality.flags


def test_a_careful_judge_is_not_flagged_and_few_pairs_flag_nobody():
    campaign = Campaign(protocol=Campaign.Protocol.DIRECT_ASSESSMENT)
    pairs = [(70, 20), (55, 30), (90, 35), (40, 12), (65, 25), (80, 33)]
    quality = judge_quality(campaign=campaign, judgments=qc_rows(pairs, [50, 75, 20]))
    assert quality.bad_ref_p < BAD_REF_ALPHA
    assert FLAG_BAD_REF_NOT_DETECTED not in quality.flags
    assert quality.original_mean_z > quality.bad_ref_mean_z
    few = judge_quality(campaign=campaign, judgments=qc_rows([(70, 90)] * 4, []))
    assert few.bad_ref_p is None and FLAG_BAD_REF_NOT_DETECTED not in few.flags


def test_the_careless_judge_of_a_campaign_is_flagged_and_the_careful_one_not(da_test_set, judges):
    campaign = da_campaign(
        da_test_set, judges[:2], judges_per_item=2, bad_reference_share=0.3, repeat_share=0.1
    )
    first, second = Assignment.objects.filter(campaign=campaign).order_by("judge__username")
    score_all(first, careful)
    score_all(second, careless)
    quality = {row.username: row.quality for row in campaign_progress(campaign=campaign).judges}
    assert quality[first.judge.username].bad_ref_pairs >= 10
    assert FLAG_BAD_REF_NOT_DETECTED not in quality[first.judge.username].flags
    assert FLAG_BAD_REF_NOT_DETECTED in quality[second.judge.username].flags
    # Repeats of a DA campaign are compared on the judge's z, not in 1-point steps.
    assert "inconsistent repeats" not in quality[first.judge.username].flags
    # The human-score pages see the same flag.
    source = human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk)
    assert FLAG_BAD_REF_NOT_DETECTED in source.judge_flags[second.judge.username]


# ---------------------------------------------------------------- human scores and exports


def test_da_scores_flow_into_normalization_rankings_and_agreement(da_test_set, judges):
    campaign = da_campaign(
        da_test_set, judges[:2], judges_per_item=2, bad_reference_share=0.25, repeat_share=0
    )
    for assignment in Assignment.objects.filter(campaign=campaign):
        score_all(assignment, careful)
    source = human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk)
    assert source.scales == {"adequacy": {"kind": "da"}}
    kinds = {record.kind for record in source.records}
    assert kinds == {"SYSTEM", "BAD_REF"}
    scores = source_human_scores(source=source, aspect="adequacy", weighting="none")
    by_system = {score.system: score for score in scores.systems}
    assert by_system["good"].raw > by_system["poor"].raw
    assert by_system["good"].normalized > by_system["poor"].normalized
    # z per judge over every judgment of the judge, bad references included (WMT).
    judge = judges[0].username
    own = [r for r in source.records if r.judge == judge]
    mean, sd = statistics.fmean(r.raw for r in own), statistics.stdev(r.raw for r in own)
    segment = next(s for s in scores.segments if s.system == "good")
    mine = [r for r in own if r.system == "good" and r.segment_id == segment.segment_id]
    theirs = [
        r
        for r in source.records
        if r.judge != judge and r.system == "good" and r.segment_id == segment.segment_id
    ]
    others = [r2 for r2 in source.records if r2.judge != judge]
    mean2, sd2 = statistics.fmean(r.raw for r in others), statistics.stdev(r.raw for r in others)
    expected = ((mine[0].raw - mean) / sd + (theirs[0].raw - mean2) / sd2) / 2
    assert segment.normalized == pytest.approx(expected)
    agreement = agreement_panel(source=source, aspect="adequacy", unit="candidate")["agreement"]
    assert agreement.alpha_interval.value is not None and agreement.alpha_interval.value > 0.5
    assert agreement.kappa.value is None
    assert any("DA scores (0–100)" in note for note in agreement.notes)


def test_exports_carry_the_protocol_and_wmt_da_files_read_back(da_test_set, judges):
    campaign = da_campaign(da_test_set, judges[:2], judges_per_item=2, bad_reference_share=0.3)
    for assignment in Assignment.objects.filter(campaign=campaign):
        score_all(assignment, careful)
    rows = campaign_judgment_rows(campaign=campaign)
    assert {row["protocol"] for row in rows} == {"direct-assessment"}
    bad = [row for row in rows if row["kind"] == "bad_reference"]
    assert bad and all(row["original_item"] for row in bad)
    export = campaign_wmt_da_export(campaign=campaign, aspect="adequacy")
    records = parse_wmt_da_csv(
        InputFile("rows.csv", export.rows.encode()),
        judge_stats=InputFile("stats.txt", export.judge_stats.encode()),
    )
    assert len(records) == len(rows)
    back = sorted((r.judge, r.system, r.segment_id, r.kind, r.raw) for r in records)
    kinds = {"bad_reference": "BAD_REF", "candidate": "SYSTEM", "reference": "REF"}
    sent = sorted(
        (
            row["judge"],
            row["system"],
            row["seg_id"],
            "REPEAT" if row["is_repeat"] else kinds[row["kind"]],
            float(row["score"]),
        )
        for row in rows
    )
    assert back == sent
    assert {r.aspect for r in records} == {"adequacy"}


def test_the_campaign_form_builds_da_sliders_with_wmt_defaults(da_test_set, judges):
    form = CampaignForm(test_set=da_test_set)
    assert form.fields["bad_reference_share"].initial == 0.14
    data = {
        "name": "form-da",
        "protocol": "direct-assessment",
        "systems": [s.pk for s in da_test_set.systems.all()],
        "judges": [judges[0].pk],
        "judges_per_item": 1,
        "presentation": "single",
        "aspect_order": "sequential",
        "repeat_share": 0.14,
        "reference_label": "A",
        "da_aspects": ["adequacy", "fluency"],
        "da_basis": "reference",
        "bad_reference_share": 0.14,
        "scales": "",
    }
    form = CampaignForm(data, test_set=da_test_set)
    assert form.is_valid(), form.errors
    assert [s["name"] for s in form.cleaned_data["scales"]] == ["fluency", "adequacy"]
    assert form.cleaned_data["scales"][1]["needs_reference"] is True
    assert "da_aspects" not in form.cleaned_data
    campaign = campaign_create(test_set=da_test_set, **form.cleaned_data)
    assert [a.kind for a in campaign.aspects.all()] == ["slider", "slider"]
    # Categorical: the DA options are dropped, the scales JSON is required.
    data.update(protocol="categorical", name="form-plain")
    assert not CampaignForm(data, test_set=da_test_set).is_valid()
    data["scales"] = json.dumps(
        [{"name": "q", "levels": [{"value": 1, "text": "no"}, {"value": 2, "text": "yes"}]}]
    )
    form = CampaignForm(data, test_set=da_test_set)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["bad_reference_share"] is None


def test_the_da_screen_is_an_accessible_range_input(client, da_test_set, judges):
    campaign = da_campaign(da_test_set, judges[:1])
    assignment = Assignment.objects.get(campaign=campaign)
    client.force_login(judges[0])
    page = client.get(f"/judging/assignments/{assignment.pk}/screens/1/").content.decode()
    assert 'type="range"' in page and 'min="0"' in page and 'max="100"' in page
    assert "aria-labelledby" in page and "data-unset" in page
    assert "PgUp" in page and "How to judge" in page


def test_the_wmt_da_files_are_exported_per_aspect(client, admin_user, da_test_set, judges):
    campaign = da_campaign(da_test_set, judges[:1], bad_reference_share=0.3)
    score_all(Assignment.objects.get(campaign=campaign), careful)
    client.force_login(admin_user)
    base = f"/judging/campaigns/{campaign.pk}/export/"
    rows = client.get(base + "wmt-da/?aspect=adequacy")
    assert rows.status_code == 200
    assert f'filename="ad-deen-good-stnd-{campaign.pk}-adequacy.csv"' in rows["Content-Disposition"]
    lines = rows.content.decode().splitlines()
    assert lines[0].split() == list(HEADER)
    assert {line.split()[8] for line in lines[1:]} == {"SYSTEM", "BAD_REF", "REPEAT"}
    stats_file = client.get(base + "wmt-da-stats/").content.decode().splitlines()
    assert stats_file[0] == f'[1] "{judges[0].username}"'
    assert client.get(base + "wmt-da/?aspect=fluency").status_code == 404
    detail = client.get(f"/judging/campaigns/{campaign.pk}/").content.decode()
    assert "WMT DA rows, adequacy" in detail and "Bad refs" in detail
    assert "fluency first" not in detail.lower()  # one aspect: no order to state
