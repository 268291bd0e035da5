"""The practice phase: which items (``judging.practice``, no database), the expected answers and
their grading per protocol, and the pages: required, offered (skippable) or off; practice
answers are never judgments; nobody reaches another judge's practice."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.services import testset_import
from judging.forms import CampaignForm
from judging.models import Assignment, Campaign, Judgment
from judging.practice import (
    BAD,
    BAD_AT_MOST,
    GOOD,
    OTHER,
    WHY_BAD,
    WHY_BAD_ESA,
    WHY_GOOD,
    Answer,
    PracticeError,
    PracticeScreen,
    PracticeText,
    SegmentTexts,
    changes_inside,
    grade,
    pasted_span,
    practice_plan,
    practice_pool,
)
from judging.scales import (
    da_scales,
    default_scales,
    esa_scales,
    mqm_scales,
    postedit_scales,
    ranking_scales,
)
from judging.selectors import assignment_progress, campaign_judgment_rows
from judging.services.practice import practice_plan_for

# ---------------------------------------------------------------- pure logic

SENTENCES = [
    "The committee approved the new budget for the coming year .",
    "Heavy rain flooded several streets in the old town overnight .",
    "She has been learning to play the violin since she was six .",
    "The museum will stay closed until the repairs are finished .",
    "Our train was delayed by forty minutes because of a signal fault .",
    "Farmers expect a good harvest after the warm and wet spring .",
]


def segments(judged: set[int] = frozenset()) -> list[SegmentTexts]:
    return [
        SegmentTexts(
            segment=number,
            source=f"source {number}",
            reference="",
            good=text,
            candidates=(text.replace("the", "a", 1), text.lower()),
            judged=number in judged,
        )
        for number, text in enumerate(SENTENCES)
    ]


def plan(protocol: str = "direct-assessment", count: int = 4, seed: int = 11, **options):
    rows = options.pop("rows", None) or segments()
    donors = [(row.segment, row.good) for row in rows]
    return practice_plan(
        protocol=protocol, segments=rows, donors=donors, seed=seed, count=count, **options
    )


def test_the_plan_is_deterministic_balanced_and_on_distinct_segments():
    first = plan(count=4)
    assert first == plan(count=4)
    assert len(first) == 4 and len({screen.segment for screen in first}) == 4
    assert sorted(screen.kind for screen in first) == [BAD, BAD, GOOD, GOOD]
    assert [screen.number for screen in first] == [0, 1, 2, 3]
    # An odd count: one more bad text than good ones.
    assert sorted(screen.kind for screen in plan(count=3)) == [BAD, BAD, GOOD]
    # Another seed draws other segments or another order.
    others = [plan(count=4, seed=seed) for seed in range(20)]
    assert any([s.segment for s in other] != [s.segment for s in first] for other in others)


def test_segments_the_campaign_does_not_judge_come_first():
    rows = segments(judged={0, 1, 2, 3})
    chosen = {screen.segment for screen in plan(count=2, rows=rows)}
    assert chosen == {4, 5}
    # More screens than unjudged segments: judged ones fill up; never more than there are.
    assert len(plan(count=10, rows=rows)) == len(SENTENCES)


def test_a_known_good_text_is_the_reference_and_a_bad_one_a_degraded_candidate():
    rows = {row.segment: row for row in segments()}
    for screen in plan(count=6):
        (text,) = screen.texts
        row = rows[screen.segment]
        if text.kind == GOOD:
            assert text.text == row.good and text.replaced is None
            continue
        start, end = text.replaced
        before, pasted, after = text.pieces
        assert before + pasted + after == text.text and pasted == text.text[start:end]
        original = next(c for c in row.candidates if c.split(" ")[-1] == text.text.split(" ")[-1])
        # Outside the pasted phrase the text is the candidate's own beginning and end.
        assert original.startswith(before) and original.endswith(after)
        assert pasted and pasted not in original


def test_the_pool_read_from_a_large_test_set_is_seeded_and_prefers_unjudged_segments():
    rows = [(index, index % 3 != 0) for index in range(1000)]
    pool = practice_pool(rows, seed=5, size=50)
    assert pool == practice_pool(rows, seed=5, size=50) and pool == sorted(pool)
    assert len(pool) == 50 and all(index % 3 == 0 for index in pool)
    assert pool != practice_pool(rows, seed=6, size=50)
    assert practice_pool(rows[:10], seed=5, size=50) == list(range(10))


def test_pasted_span_marks_the_tokens_that_changed():
    assert pasted_span("a b c d .", "a x y d .") == (2, 5)
    assert pasted_span("a b c d .", "a b y d .") == (4, 5)  # "b" replaced by itself
    assert pasted_span("a b c d .", "a b d .") == (4, 5)  # a shorter donor: the next word
    assert pasted_span("今天天气很好", "今天下雨很好", character_based=True) == (2, 4)


def test_a_ranking_screen_holds_reference_degraded_copy_and_candidate():
    screens = plan("ranking", count=3)
    assert len(screens) == 3
    for screen in screens:
        assert sorted(text.kind for text in screen.texts) == sorted([GOOD, BAD, OTHER])
    two = plan("ranking", count=2, per_screen=2)
    assert all(sorted(t.kind for t in s.texts) == [BAD, GOOD] for s in two)


def screen_of(kind: str, text: str = "The cat sat on the economic growth mat .") -> PracticeScreen:
    replaced = (19, 34) if kind == BAD else None
    return PracticeScreen(0, 1, "src", "", (PracticeText(text, kind, replaced),))


def test_grading_direct_assessment_on_the_scale_range():
    scales = da_scales()
    good, bad = screen_of(GOOD), screen_of(BAD)
    high = grade(protocol="direct-assessment", screen=good, scales=scales,
                 answer=Answer(scores={(1, "adequacy"): 60}))  # fmt: skip
    assert high.matched and high.why == WHY_GOOD
    assert high.lines[0].expected == "60 or more" and high.lines[0].answered == "60 of 100"
    low = grade(protocol="direct-assessment", screen=good, scales=scales,
                answer=Answer(scores={(1, "adequacy"): 59}))  # fmt: skip
    assert not low.matched
    assert grade(protocol="direct-assessment", screen=bad, scales=scales,
                 answer=Answer(scores={(1, "adequacy"): 50})).matched  # fmt: skip
    missed = grade(protocol="direct-assessment", screen=bad, scales=scales,
                   answer=Answer(scores={(1, "adequacy"): 51}))  # fmt: skip
    assert not missed.matched and missed.why == WHY_BAD
    assert missed.lines[0].expected == f"{int(BAD_AT_MOST * 100)} or less"
    with pytest.raises(PracticeError):
        grade(protocol="direct-assessment", screen=bad, scales=scales, answer=Answer())


def test_grading_categorical_levels_and_a_lenient_fluency():
    scales = default_scales()
    good, bad = screen_of(GOOD), screen_of(BAD)

    def answer(fluency, adequacy):
        return Answer(scores={(1, "fluency"): fluency, (1, "adequacy"): adequacy})

    assert grade(protocol="categorical", screen=good, scales=scales, answer=answer(4, 5)).matched
    result = grade(protocol="categorical", screen=good, scales=scales, answer=answer(3, 5))
    assert not result.matched
    assert result.lines[0].expected == "4 (Good) or 5 (Flawless)"
    assert result.lines[0].answered == "3 (Non-native)" and not result.lines[0].matched
    # A pasted phrase breaks the meaning; fluency only needs to be below flawless.
    assert grade(protocol="categorical", screen=bad, scales=scales, answer=answer(4, 2)).matched
    assert not grade(protocol="categorical", screen=bad, scales=scales, answer=answer(5, 2)).matched
    result = grade(protocol="categorical", screen=bad, scales=scales, answer=answer(4, 4))
    assert not result.matched
    assert result.lines[1].expected == "1 (None), 2 (Little meaning) or 3 (Much of the meaning)"


def test_grading_ranking_wants_the_degraded_copy_below_the_others():
    texts = (
        PracticeText("ref", GOOD),
        PracticeText("a b x y .", BAD, (4, 7)),
        PracticeText("mt", OTHER),
    )
    screen = PracticeScreen(0, 1, "src", "", texts)
    scales = ranking_scales()

    def ranks(*values):
        return Answer(scores={(place, "rank"): value for place, value in enumerate(values, 1)})

    result = grade(protocol="ranking", screen=screen, scales=scales, answer=ranks(1, 3, 2))
    assert result.matched and "Translation B" in result.why
    assert [line.expected for line in result.lines] == ["above B", "below A and C", "above B"]
    assert not grade(
        protocol="ranking", screen=screen, scales=scales, answer=ranks(1, 2, 2)
    ).matched
    assert not grade(
        protocol="ranking", screen=screen, scales=scales, answer=ranks(3, 2, 1)
    ).matched
    with pytest.raises(PracticeError, match="Rank every translation"):
        grade(protocol="ranking", screen=screen, scales=scales, answer=ranks(1, 2))


def test_grading_error_spans_mqm_and_esa():
    good, bad = screen_of(GOOD), screen_of(BAD)
    scales = mqm_scales()
    major = {"start": 20, "end": 28, "severity": "major", "category": "Accuracy/Mistranslation"}
    minor = {**major, "severity": "minor"}
    elsewhere = {"start": 0, "end": 3, "severity": "major", "category": "Other"}
    assert grade(
        protocol="mqm", screen=bad, scales=scales, answer=Answer(spans={1: [major]})
    ).matched
    result = grade(protocol="mqm", screen=bad, scales=scales, answer=Answer(spans={1: [minor]}))
    assert not result.matched and "not as major" in result.lines[0].answered
    assert result.lines[0].expected == "a major error on “economic growth”"
    assert not grade(
        protocol="mqm", screen=bad, scales=scales, answer=Answer(spans={1: [elsewhere]})
    ).matched
    none = grade(protocol="mqm", screen=good, scales=scales, answer=Answer(spans={1: []}))
    assert none.matched and none.lines[0].answered == "no errors"
    assert grade(
        protocol="mqm", screen=good, scales=scales, answer=Answer(spans={1: [minor]})
    ).matched
    assert not grade(
        protocol="mqm", screen=good, scales=scales, answer=Answer(spans={1: [major]})
    ).matched
    with pytest.raises(PracticeError):
        grade(protocol="mqm", screen=good, scales=scales, answer=Answer())
    # ESA: the spans and the overall score.
    scales = esa_scales()
    esa_major = {**major, "category": ""}
    assert grade(protocol="esa", screen=bad, scales=scales,
                 answer=Answer(spans={1: [esa_major]}, scores={(1, "esa"): 40})).matched  # fmt: skip
    result = grade(protocol="esa", screen=bad, scales=scales,
                   answer=Answer(spans={1: [esa_major]}, scores={(1, "esa"): 80}))  # fmt: skip
    assert not result.matched and [line.matched for line in result.lines] == [True, False]
    assert result.why == WHY_BAD_ESA and result.lines[1].expected == "50 or less"
    with pytest.raises(PracticeError, match="slider"):
        grade(protocol="esa", screen=bad, scales=scales, answer=Answer(spans={1: []}))


def test_grading_post_edits():
    good, bad = screen_of(GOOD), screen_of(BAD)
    scales = postedit_scales()
    text = good.texts[0].text
    kept = grade(protocol="post-edit", screen=good, scales=scales,
                 answer=Answer(postedits={1: "  " + text + "\n"}))  # fmt: skip
    assert kept.matched and kept.lines[0].answered == "no change"
    assert not grade(protocol="post-edit", screen=good, scales=scales,
                     answer=Answer(postedits={1: text.replace("cat", "dog")})).matched  # fmt: skip
    fixed = "The cat sat on the mat ."
    assert grade(protocol="post-edit", screen=bad, scales=scales,
                 answer=Answer(postedits={1: fixed})).matched  # fmt: skip
    result = grade(protocol="post-edit", screen=bad, scales=scales,
                   answer=Answer(postedits={1: text.replace("cat", "dog")}))  # fmt: skip
    assert not result.matched and "kept as it was" in result.lines[0].answered
    with pytest.raises(PracticeError):
        grade(protocol="post-edit", screen=bad, scales=scales, answer=Answer(postedits={1: " "}))
    assert changes_inside("a b c", "a x c", 2, 3) and not changes_inside("a b c", "z b c", 2, 3)
    assert changes_inside("ab cd", "ab Xcd", 3, 5) is False  # an insertion at the border
    assert changes_inside("ab cd", "ab cXd", 3, 5)


# ---------------------------------------------------------------- pages

pytestmark_db = pytest.mark.django_db


def practice_corpus(mark: str = "") -> CorpusData:
    """Eight segments; HTML in candidates and references must be shown as text. ``mark``
    changes the sources only (another test set with the same translations)."""
    rows = []
    for number, text in enumerate(SENTENCES + ["Bold <b>words</b> are <i>shown</i> as text .",
                                               "The <script>alert(1)</script> tag is text ."]):  # fmt: skip
        rows.append(
            SegmentData(
                source=f"Quelle {number} {mark}.",
                doc_id="d1",
                seg_id=str(number + 1),
                references={"A": text},
                candidates={"x": text.replace(" the ", " a ", 1), "y": text.upper()},
            )
        )
    return CorpusData(source_lang="de", target_lang="en", segments=rows, name="practice")


@pytest.fixture
def practice_set(db):
    return testset_import(corpus=practice_corpus(), name="practice", import_format="text").test_set


@pytest.fixture
def practice_campaign(practice_set, judges):
    from judging.services import campaign_create

    def factory(practice="required", protocol="direct-assessment", **options):
        campaign = campaign_create(
            name=f"practice-{Campaign.objects.count() + 1}",
            test_set=practice_set,
            systems=list(practice_set.systems.all()),
            judges=judges[:2],
            judges_per_item=1,
            protocol=protocol,
            reference_label="A",
            seed=3,
            repeat_share=0.0,
            segment_sample=4,
            practice=practice,
            practice_screens=3,
            **options,
        )
        return campaign

    return factory


def login(client, user):
    client.force_login(user)
    return client


def answer_fields(campaign, screen_text_count=1, *, score=50):
    token = "practice-token"
    fields = {"token": token, "active_ms": "1000"}
    for place in range(1, screen_text_count + 1):
        for aspect in campaign.aspects.all():
            if aspect.kind == "slider":
                fields[f"score-{place}-{aspect.name}"] = str(score)
            elif aspect.kind == "levels":
                fields[f"score-{place}-{aspect.name}"] = str(place if aspect.name == "rank" else 3)
        if campaign.has_spans:
            fields[f"spans-{place}"] = "[]"
        if campaign.is_postedit:
            fields[f"postedit-{place}"] = "A post-edit ."
    return fields


@pytestmark_db
def test_required_practice_comes_first_and_its_answers_are_no_judgments(
    client, practice_campaign, judges, admin_user
):
    campaign = practice_campaign("required")
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    before = assignment_progress(assignment=assignment)
    login(client, judges[0])
    start = reverse("judging:practice", args=[assignment.pk])
    first = reverse("judging:practice_screen", args=[assignment.pk, 1])
    assert client.get(reverse("judging:judge_next", args=[assignment.pk])).url == start
    assert client.get(start).url == first
    # The real screens wait: a page and a submission both go to the practice.
    real = reverse("judging:judge_screen", args=[assignment.pk, 1])
    assert client.get(real).url == start
    posted = client.post(real, {"token": "x", "score-1-adequacy": "50"},
                         HTTP_ACCEPT="application/json")  # fmt: skip
    assert posted.json() == {"location": start}
    # Skipping ahead or skipping a required practice does not work.
    assert client.get(reverse("judging:practice_screen", args=[assignment.pk, 3])).url == start
    assert client.post(reverse("judging:practice_skip", args=[assignment.pk])).url == start
    page = client.get(first).content.decode()
    assert 'id="instructions" open' in page and "Practice 1" in page
    assert 'action="' + first + '"' in page and "Skip practice" not in page
    assert 'id="back-link"' not in page
    plan = practice_plan_for(campaign)
    assert len(plan) == 3
    for number in range(1, 4):
        url = reverse("judging:practice_screen", args=[assignment.pk, number])
        response = client.post(url, answer_fields(campaign), HTTP_ACCEPT="application/json")
        feedback_url = reverse("judging:practice_feedback", args=[assignment.pk, number])
        assert response.json() == {"location": feedback_url}
        feedback = client.get(feedback_url).content.decode()
        assert "You answered" in feedback and "50 of 100" in feedback
        kind = plan[number - 1].kind
        assert (WHY_GOOD if kind == GOOD else "pasted from another sentence") in feedback
        assert ("Start judging" if number == 3 else "Next practice screen") in feedback
        # Answered: the screen shows its feedback again (after the last: the real items).
        assert client.get(url).url == (feedback_url if number < 3 else start)
    assignment.refresh_from_db()
    assert assignment.practice_done_at is not None and not assignment.practice_skipped
    assert len(assignment.practice_answers) == 3
    # 50 is "50 or less" for a bad text, not "60 or more" for a good one.
    expected = sum(1 for screen in plan if screen.kind == BAD)
    assert assignment.practice_matched == expected
    assert Judgment.objects.count() == 0
    assert assignment_progress(assignment=assignment) == before
    assert campaign_judgment_rows(campaign=campaign) == []
    # On to the real items.
    assert client.get(reverse("judging:judge_next", args=[assignment.pk])).url == real
    assert client.get(real).status_code == 200
    assert client.get(start).url == reverse("judging:judge_next", args=[assignment.pk])
    # The admin's JSON export has the practice settings and each judge's result, no rows.
    login(client, admin_user)
    export = client.get(reverse("judging:campaign_export", args=[campaign.pk, "json"])).json()
    assert export["judgments"] == []
    assert export["campaign"]["practice"] == "required"
    results = {row["judge"]: row for row in export["campaign"]["practice_results"]}
    assert results[judges[0].username]["answered"] == 3
    assert results[judges[0].username]["matched"] == expected
    assert results[judges[1].username]["done_at"] is None


@pytestmark_db
def test_an_incomplete_practice_answer_is_refused_with_the_reason(
    client, practice_campaign, judges
):
    campaign = practice_campaign("required")
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    url = reverse("judging:practice_screen", args=[assignment.pk, 1])
    response = client.post(url, {"token": "t"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and response.json() == {"location": url}
    page = client.get(url).content.decode()
    assert "Give a score for adequacy first." in page
    response = client.post(url, {"token": "t", "score-1-adequacy": "101"})
    assert "101 is not a score of Adequacy" in client.get(url).content.decode()
    assignment.refresh_from_db()
    assert assignment.practice_answers == [] and assignment.practice_done_at is None


@pytestmark_db
def test_offered_practice_can_be_skipped(client, practice_campaign, judges):
    campaign = practice_campaign("offered")
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    first = reverse("judging:practice_screen", args=[assignment.pk, 1])
    assert client.get(reverse("judging:judge_next", args=[assignment.pk])).url.endswith(
        "/practice/"
    )
    page = client.get(first).content.decode()
    assert (
        "Skip practice" in page and reverse("judging:practice_skip", args=[assignment.pk]) in page
    )
    listed = client.get(reverse("judging:my_assignments")).content.decode()
    assert "First 3 practice screens with feedback (you may skip them)" in listed
    response = client.post(reverse("judging:practice_skip", args=[assignment.pk]))
    assert response.url == reverse("judging:judge_next", args=[assignment.pk])
    assert "practice screens" not in client.get(reverse("judging:my_assignments")).content.decode()
    assignment.refresh_from_db()
    assert assignment.practice_skipped and assignment.practice_done_at is not None
    assert client.get(response.url).url == reverse("judging:judge_screen", args=[assignment.pk, 1])
    # Done: the practice pages lead to the real items.
    assert client.get(first).url == reverse("judging:practice", args=[assignment.pk])


@pytestmark_db
def test_the_campaign_page_shows_each_judges_practice(
    client, practice_campaign, judges, admin_user
):
    campaign = practice_campaign("offered")
    first, second = (Assignment.objects.get(campaign=campaign, judge=judge) for judge in judges[:2])
    login(client, judges[0])
    client.post(
        reverse("judging:practice_screen", args=[first.pk, 1]),
        answer_fields(campaign, score=50),
    )
    login(client, judges[1])
    client.post(reverse("judging:practice_skip", args=[second.pk]))
    login(client, admin_user)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert 'data-column="practice"' in page
    first.refresh_from_db()
    assert len(first.practice_answers) == 1
    assert f"{first.practice_matched} / 1 (in progress)" in page
    assert ">skipped</td>" in page
    assert "offered (judges may skip it): 3 screens with known answers" in page
    plain = practice_campaign("off")
    page = client.get(plain.get_absolute_url()).content.decode()
    assert 'data-column="practice"' not in page and "<dt>Practice</dt><dd>none</dd>" in page


@pytestmark_db
def test_without_practice_nothing_changes(client, practice_campaign, judges):
    campaign = practice_campaign("off")
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    next_url = reverse("judging:judge_next", args=[assignment.pk])
    assert client.get(next_url).url == reverse("judging:judge_screen", args=[assignment.pk, 1])
    assert client.get(reverse("judging:practice", args=[assignment.pk])).url == next_url
    feedback = reverse("judging:practice_feedback", args=[assignment.pk, 1])
    assert client.get(feedback).url == reverse("judging:practice", args=[assignment.pk])
    assert client.post(reverse("judging:practice_skip", args=[assignment.pk])).url == next_url
    assignment.refresh_from_db()
    assert assignment.practice_done_at is None and not assignment.practice_skipped


@pytestmark_db
def test_a_judge_cannot_reach_another_judges_practice(
    client, practice_campaign, judges, admin_user
):
    campaign = practice_campaign("offered")
    theirs = Assignment.objects.get(campaign=campaign, judge=judges[1])
    for user in (judges[0], judges[2], admin_user):
        login(client, user)
        for name, args in (
            ("judging:practice", [theirs.pk]),
            ("judging:practice_screen", [theirs.pk, 1]),
            ("judging:practice_feedback", [theirs.pk, 1]),
        ):
            assert client.get(reverse(name, args=args)).status_code == 404
        assert client.post(reverse("judging:practice_skip", args=[theirs.pk])).status_code == 404
        screen = reverse("judging:practice_screen", args=[theirs.pk, 1])
        assert client.post(screen, answer_fields(campaign)).status_code == 404
    theirs.refresh_from_db()
    assert theirs.practice_done_at is None and theirs.practice_answers == []


@pytestmark_db
@pytest.mark.parametrize(
    "protocol", ["categorical", "direct-assessment", "ranking", "mqm", "esa", "post-edit"]
)
def test_every_protocol_practises_on_its_own_screen_and_texts_are_escaped(
    client, practice_campaign, judges, protocol
):
    campaign = practice_campaign("required", protocol=protocol)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    plan = practice_plan_for(campaign)
    assert len(plan) == 3
    for number, screen in enumerate(plan, start=1):
        url = reverse("judging:practice_screen", args=[assignment.pk, number])
        page = client.get(url).content.decode()
        assert f'data-protocol="{protocol}"' in page and 'class="practice-banner"' in page
        assert "<script>alert" not in page and "<b>words" not in page
        response = client.post(url, answer_fields(campaign, len(screen.texts)))
        feedback = client.get(response.url).content.decode()
        assert "<script>alert" not in feedback and "<b>words" not in feedback
        assert 'id="verdict"' in feedback
    assignment.refresh_from_db()
    assert assignment.practice_done_at is not None
    assert Judgment.objects.count() == 0


@pytestmark_db
def test_practice_screens_show_every_protocols_instructions(client, practice_campaign, judges):
    expected = {
        "categorical": "How to judge",
        "direct-assessment": "How to judge",
        "ranking": "How to rank",
        "mqm": "How to mark errors",
        "post-edit": "How to post-edit",
    }
    for protocol, summary in expected.items():
        campaign = practice_campaign("required", protocol=protocol)
        assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
        login(client, judges[0])
        page = client.get(reverse("judging:practice_screen", args=[assignment.pk, 1]))
        text = page.content.decode()
        assert 'id="instructions" open' in text and f"<summary>{summary}</summary>" in text


@pytestmark_db
def test_the_campaign_form_sets_the_practice_phase(client, admin_user, practice_set, judges):
    form = CampaignForm(test_set=practice_set)
    assert form.fields["practice"].initial == "offered"
    assert form.fields["practice_screens"].initial == 3
    data = {
        "name": "with practice",
        "protocol": "ranking",
        "systems": [s.pk for s in practice_set.systems.all()],
        "reference_label": "A",
        "judges": [judge.pk for judge in judges],
        "judges_per_item": 1,
        "presentation": "single",
        "aspect_order": "sequential",
        "repeat_share": 0.0,
        "show_reference": "on",
        "practice": "required",
        "practice_screens": 5,
    }
    bound = CampaignForm(data, test_set=practice_set)
    assert bound.is_valid(), bound.errors
    assert "show_reference" not in bound.cleaned_data
    assert bound.cleaned_data["practice"] == "required"
    assert bound.cleaned_data["practice_screens"] == 5
    assert bound.cleaned_data["scales"][0]["needs_reference"] is True
    too_many = CampaignForm({**data, "practice_screens": 11}, test_set=practice_set)
    assert not too_many.is_valid() and "practice_screens" in too_many.errors
    login(client, admin_user)
    page = client.get(reverse("judging:campaign_new", args=[practice_set.pk])).content.decode()
    assert 'name="practice"' in page and 'name="show_reference"' in page
    assert 'data-label-ranking="Show the reference while ranking"' in page
    assert 'data-default-mqm="false"' in page
    for name in ("ranking_reference", "spans_reference", "postedit_reference"):
        assert name not in page
    client.post(reverse("judging:campaign_new", args=[practice_set.pk]), data)
    campaign = Campaign.objects.get(name="with practice")
    assert campaign.practice == "required" and campaign.practice_screens == 5
    assert campaign.aspects.get().needs_reference
    # A form sent without the practice fields (scripts, older pages): no practice.
    plain = {k: v for k, v in data.items() if not k.startswith("practice")}
    client.post(reverse("judging:campaign_new", args=[practice_set.pk]), {**plain, "name": "p"})
    assert Campaign.objects.get(name="p").practice == "off"


@pytestmark_db
def test_a_test_set_without_usable_segments_skips_the_practice(client, judges, db):
    from judging.services import campaign_create

    corpus = CorpusData(
        "de", "en",
        [SegmentData(source="Eins .", seg_id="1", references={}, candidates={"x": "One ."})],
    )  # fmt: skip
    test_set = testset_import(corpus=corpus, name="tiny", import_format="text").test_set
    campaign = campaign_create(
        name="tiny", test_set=test_set, systems=list(test_set.systems.all()),
        judges=[judges[0]], judges_per_item=1, seed=1, repeat_share=0.0,
    )  # fmt: skip
    Campaign.objects.filter(pk=campaign.pk).update(practice="required")
    assignment = Assignment.objects.get(campaign=campaign)
    login(client, judges[0])
    response = client.get(reverse("judging:practice", args=[assignment.pk]))
    assert response.url == reverse("judging:judge_next", args=[assignment.pk])
    assignment.refresh_from_db()
    assert assignment.practice_done_at is not None
    assert json.loads(json.dumps(assignment.practice_answers)) == []


@pytestmark_db
def test_the_practice_depends_on_the_data_and_seed_not_on_database_ids(practice_campaign, judges):
    from judging.services import campaign_create

    first = practice_campaign("required")
    again = testset_import(corpus=practice_corpus("b"), name="again", import_format="text")
    again = again.test_set
    second = campaign_create(
        name="again", test_set=again, systems=list(again.systems.all()), judges=judges[:2],
        judges_per_item=1, protocol="direct-assessment", reference_label="A", seed=3,
        repeat_share=0.0, segment_sample=4,
    )  # fmt: skip
    Campaign.objects.filter(pk=second.pk).update(practice="required", practice_screens=3)
    second.refresh_from_db()
    texts = [[t.text for t in screen.texts] for screen in practice_plan_for(first)]
    assert texts == [[t.text for t in screen.texts] for screen in practice_plan_for(second)]
