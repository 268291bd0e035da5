"""HTER as a measure of a run: the references of each (segment, system) are the post-edits of a
post-editing campaign. Scores equal sacreBLEU's TER against the post-edits, segment by segment
and per system; segments not post-edited are left out (NaN); results are keyed by the
post-edits' fingerprint, reused while they stay, recomputed when they change; bad choices are
refused with a message; the run form offers the campaign."""

from __future__ import annotations

import json
import math
from io import StringIO

import pytest
from django.core.management import call_command
from sacrebleu.metrics import TER as SacreTER

from evaltrans.corpora.services import testset_import
from judging.models import Assignment, Campaign
from metrics.forms import NO_POSTEDIT_CAMPAIGN, RunForm, option_field_name
from metrics.measure_choices import MeasureChoice, RunError
from metrics.models import MetricRun, RunMeasure, SystemScore
from metrics.selectors.hter import campaign_hter, campaign_targeted
from metrics.selectors.runs import segment_arrays
from metrics.services import computation, runs
from tests.judging.conftest import (  # noqa: F401 - fixtures
    judges,
    make_campaign,
    test_set,
    toy_corpus,
)
from tests.judging.test_postedit import submit_postedit

pytestmark = pytest.mark.django_db

Status = MetricRun.Status


def hter_choice(campaign_name: str, **options) -> list[MeasureChoice]:
    return [MeasureChoice("hter", {"post-edits": campaign_name, **options})]


def post_edit_all(campaign: Campaign, *, skip_last: int = 0) -> None:
    """Every judge post-edits every screen (but the last ``skip_last`` of one judge): the first
    word becomes "Well"."""
    for number, assignment in enumerate(Assignment.objects.filter(campaign=campaign)):
        rows = list(assignment.items.select_related("item").order_by("screen"))
        if number == 0 and skip_last:
            rows = rows[:-skip_last]
        for row in rows:
            words = row.item.text.split()
            text = " ".join(["Well", *words[1:]]) if len(words) > 1 else "Well done ."
            submit_postedit(assignment, row.screen, text)


def start(test_set, measures, capture, systems=None):  # noqa: F811
    with capture(execute=True):
        run = runs.metric_run_start(
            test_set=test_set,
            systems=systems if systems is not None else test_set.systems.all(),
            measures=measures,
            chunk_size=3,
        )
    run.refresh_from_db()
    return run


@pytest.fixture(autouse=True)
def _fresh_caches():
    computation.caches_clear()


def test_an_hter_run_equals_sacrebleu_ter_against_the_postedits(
    make_campaign,  # noqa: F811
    test_set,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    campaign = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    post_edit_all(campaign, skip_last=1)
    targeted = campaign_targeted(campaign=campaign)
    run = start(test_set, hter_choice(campaign.name), django_capture_on_commit_callbacks)
    assert run.status == Status.DONE, run.error
    (measure,) = RunMeasure.objects.filter(run=run)
    assert measure.signature.startswith(f"hter|nrefs:1|pe:{campaign.name}|pev:")
    assert f"pev:{targeted.fingerprint}|" in measure.signature
    assert "post-edits-version" not in run.command_line and campaign.name in run.command_line

    systems = {system.pk: system.name for system in test_set.systems.all()}
    arrays = segment_arrays(test_set=test_set, signature=measure.signature, system_ids=systems)
    left_out = 0
    for system_id, name in systems.items():
        candidates = list(
            test_set.systems.get(pk=system_id)
            .candidates.order_by("segment__index")
            .values_list("text", flat=True)
        )
        edits = targeted.references(system=name, start=0, stop=len(candidates))
        for index, (candidate, refs) in enumerate(zip(candidates, edits, strict=True)):
            stored = arrays[system_id].sentence_scores[index]
            if not refs:
                left_out += 1
                assert math.isnan(stored)
                continue
            expected = SacreTER().sentence_score(candidate, refs).score
            assert stored == pytest.approx(expected, abs=1e-9), (name, index)
        kept = [(c, r[0]) for c, r in zip(candidates, edits, strict=True) if r]
        expected = SacreTER().corpus_score([c for c, _ in kept], [[r for _, r in kept]]).score
        score = SystemScore.objects.get(
            test_set=test_set, system_id=system_id, signature=measure.signature
        )
        assert score.score == pytest.approx(expected, abs=1e-9), name
        assert score.details["post_edited"] == len(kept)
    assert left_out >= 1  # the screen left undone is no segment of any HTER

    # The campaign page's HTER (over post-edited segments only) signs alike and agrees.
    for system in campaign_hter(campaign=campaign):
        assert str(system.result.signature) == measure.signature
        stored = SystemScore.objects.get(
            test_set=test_set, system__name=system.system, signature=measure.signature
        )
        assert stored.score == pytest.approx(system.result.score, abs=1e-9)


def test_results_are_reused_while_the_postedits_stay_and_recomputed_when_they_change(
    make_campaign,  # noqa: F811
    test_set,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    campaign = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    post_edit_all(campaign, skip_last=1)
    first = start(test_set, hter_choice(campaign.name), django_capture_on_commit_callbacks)
    again = start(test_set, hter_choice(campaign.name), django_capture_on_commit_callbacks)
    assert again.status == Status.DONE and again.planned_tasks == 0
    assert again.measures.get().signature == first.measures.get().signature

    assignment = Assignment.objects.filter(campaign=campaign).first()
    last = assignment.items.order_by("screen").last()
    submit_postedit(assignment, last.screen, "A brand new post-edit .")
    changed = start(test_set, hter_choice(campaign.name), django_capture_on_commit_callbacks)
    assert changed.status == Status.DONE and changed.planned_tasks > 0
    assert changed.measures.get().signature != first.measures.get().signature


def test_a_run_whose_postedits_change_before_it_computes_fails_with_a_message(
    make_campaign,  # noqa: F811
    test_set,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    campaign = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    post_edit_all(campaign, skip_last=1)
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=hter_choice(campaign.name)
    )
    assignment = Assignment.objects.filter(campaign=campaign).first()
    last = assignment.items.order_by("screen").last()
    submit_postedit(assignment, last.screen, "Edited while the run waited .")
    with pytest.raises(RunError):  # eager tasks raise what failed the run
        with django_capture_on_commit_callbacks(execute=True):
            runs.metric_run_dispatch(run=run)
    run.refresh_from_db()
    assert run.status == Status.FAILED
    assert run.error == computation.POSTEDITS_CHANGED.format(name=campaign.name)
    assert not SystemScore.objects.filter(signature=run.measures.get().signature).exists()


def test_a_run_whose_campaign_was_renamed_before_it_computes_fails_with_a_message(
    make_campaign,  # noqa: F811
    test_set,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    campaign = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    post_edit_all(campaign)
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=hter_choice(campaign.name)
    )
    Campaign.objects.filter(pk=campaign.pk).update(name="renamed")
    with pytest.raises(RunError):
        with django_capture_on_commit_callbacks(execute=True):
            runs.metric_run_dispatch(run=run)
    run.refresh_from_db()
    assert run.status == Status.FAILED and run.error == f"no campaign named {campaign.name!r}"


def test_bad_hter_choices_are_refused_with_a_message(make_campaign, test_set):  # noqa: F811
    def refused(name: str) -> str:
        with pytest.raises(RunError) as caught:
            runs.metric_run_create(
                test_set=test_set, systems=test_set.systems.all(), measures=hter_choice(name)
            )
        return str(caught.value)

    assert "give its name (option post-edits)" in refused("")
    assert refused("nowhere") == "no campaign named 'nowhere'"
    da = make_campaign(protocol=Campaign.Protocol.DIRECT_ASSESSMENT)
    assert "not a post-editing one" in refused(da.name)
    empty = make_campaign(protocol=Campaign.Protocol.POST_EDIT)
    assert refused(empty.name) == f"campaign {empty.name!r} has no post-edits yet"
    other = testset_import(
        corpus=toy_corpus("other", extra=" !"), name="other", import_format="text"
    )
    elsewhere = make_campaign(
        protocol=Campaign.Protocol.POST_EDIT,
        test_set=other.test_set,
        systems=list(other.test_set.systems.all()),
    )
    assert "judges test set" in refused(elsewhere.name)
    assert not MetricRun.objects.exists()


def test_the_run_form_offers_the_postedit_campaigns_of_the_test_set(make_campaign, test_set):  # noqa: F811
    form = RunForm(test_set=test_set)
    hter = next(group for group in form.measure_groups() if group["name"] == "hter")
    assert hter["unavailable"] == NO_POSTEDIT_CAMPAIGN
    assert option_field_name("hter", "post-edits-version") not in form.fields

    campaign = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    make_campaign(protocol=Campaign.Protocol.DIRECT_ASSESSMENT)
    form = RunForm(test_set=test_set)
    field = form.fields[option_field_name("hter", "post-edits")]
    assert [value for value, _ in field.choices] == [campaign.name]
    hter = next(group for group in form.measure_groups() if group["name"] == "hter")
    assert hter["unavailable"] is None

    post_edit_all(campaign)
    data = {
        "systems": [system.pk for system in test_set.systems.all()],
        "measures": ["hter"],
        option_field_name("hter", "post-edits"): campaign.name,
        option_field_name("hter", "post-edits-version"): "forged",
    }
    form = RunForm(data, test_set=test_set)
    assert form.is_valid(), form.errors
    (choice,) = form.cleaned_data["choices"]
    assert "post-edits-version" not in choice.options  # the run fills it in, never the user


@pytest.mark.django_db(transaction=True)
def test_evaluate_computes_hter_as_the_campaign_page_does(make_campaign, test_set):  # noqa: F811
    campaign = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    post_edit_all(campaign)
    out = StringIO()
    call_command(
        "evaluate",
        *("--test-set", test_set.name, "--measures", "hter", "--eager", "--json"),
        *("--option", f"hter.post-edits={campaign.name}"),
        stdout=out,
        stderr=StringIO(),
    )
    payload = json.loads(out.getvalue())
    got = {system["name"]: system["scores"]["hter"] for system in payload["systems"]}
    expected = {system.system: system.result.score for system in campaign_hter(campaign=campaign)}
    assert got == pytest.approx(expected, abs=1e-12)
    command_line = MetricRun.objects.get().command_line
    assert f"post-edits={campaign.name}" in command_line
    assert "post-edits-version" not in command_line
