"""The two-system comparison page: who may see it, the segment table against
``segment_arrays``, the seeded paired bootstrap, the confirmed n-grams (checked by hand),
escaping of system names and messages for bad parameters."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse

from evaltrans.corpora.models import System
from metrics.compare_ngrams import confirmed, confirmed_differences
from metrics.models import SystemScore
from metrics.selectors.compare import compare_page
from metrics.selectors.runs import segment_arrays
from tests.metrics.run_helpers import OUTPUTS, REFERENCES, make_test_set

pytestmark = pytest.mark.django_db(transaction=True)


def evaluate(name: str = "tiny") -> None:
    call_command(
        "evaluate", "--test-set", name, "--measures", "wer,bleu", "--eager",
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip


@pytest.fixture
def stored(db):
    test_set = make_test_set()
    evaluate()
    return test_set


def signature_of(test_set, measure: str) -> str:
    return SystemScore.objects.filter(test_set=test_set, measure=measure).values_list(
        "signature", flat=True
    )[0]


def url(test_set, **query: str) -> str:
    base = reverse("segments:compare", args=[test_set.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_admins_and_viewers_only(client, stored, judge_user, viewer_user, admin_user):
    assert client.get(url(stored)).status_code in (302, 403)
    client.force_login(judge_user)
    assert client.get(url(stored)).status_code == 403
    for user in (viewer_user, admin_user):
        client.force_login(user)
        response = client.get(url(stored))
        assert response.status_code == 200
        assert response.context["page"].a == "sys-a"
        assert response.context["page"].b == "sys-b"
    assert client.get(reverse("segments:compare", args=[999999])).status_code == 404


def test_segment_detail_links_here(client, stored, viewer_user):
    client.force_login(viewer_user)
    page = client.get(reverse("segments:detail", args=[stored.pk, 1])).content.decode()
    assert reverse("segments:compare", args=[stored.pk]) in page


@pytest.mark.parametrize(("measure", "sign"), [("wer", -1.0), ("bleu", 1.0)])
def test_table_differences_are_the_stored_sentence_scores(
    client, stored, viewer_user, measure, sign
):
    signature = signature_of(stored, measure)
    systems = {s.name: s.pk for s in System.objects.filter(test_set=stored)}
    arrays = segment_arrays(test_set=stored, signature=signature)
    a = arrays[systems["sys-a"]].sentence_scores
    b = arrays[systems["sys-b"]].sentence_scores
    expected = sign * (b - a)
    client.force_login(viewer_user)
    response = client.get(url(stored, signature=signature))
    page = response.context["page"]
    assert page.setting.signature == signature
    rows = page.b_better + page.a_better
    assert {row.number for row in rows} == {k + 1 for k in range(len(expected)) if expected[k] != 0}
    for row in rows:
        assert row.difference == pytest.approx(expected[row.number - 1])
        assert row.score_a == pytest.approx(a[row.number - 1])
        assert row.text_a == OUTPUTS["sys-a"][row.number - 1]
        assert row.text_b == OUTPUTS["sys-b"][row.number - 1]
    assert [row.difference for row in page.b_better] == sorted(
        (row.difference for row in page.b_better), reverse=True
    )
    assert [row.difference for row in page.a_better] == sorted(
        row.difference for row in page.a_better
    )
    assert all(row.difference > 0 for row in page.b_better)
    assert all(row.difference < 0 for row in page.a_better)
    # The bootstrap difference is the oriented mean of the same numbers.
    assert page.difference == pytest.approx(float(np.mean(expected)))
    html = response.content.decode()
    assert reverse("segments:detail", args=[stored.pk, page.b_better[0].number]) in html


def test_bootstrap_p_is_a_probability_and_seeded(stored):
    signature = signature_of(stored, "bleu")
    first = compare_page(test_set=stored, query={"signature": signature})
    second = compare_page(test_set=stored, query={"signature": signature})
    assert not first.error
    assert 0.0 <= first.p <= 1.0
    assert first.n == len(REFERENCES)
    assert (first.p, first.difference) == (second.p, second.difference)
    # Swapping the systems flips the difference, not the p-value.
    swapped = compare_page(
        test_set=stored, query={"a": "sys-b", "b": "sys-a"} | {"signature": signature}
    )
    assert swapped.difference == pytest.approx(-first.difference)
    assert swapped.p == pytest.approx(first.p)
    if first.better is not None:
        assert first.significant == (first.p < 0.05)


def test_confirmed_unigrams_by_hand(stored):
    # Segment by segment (candidate words also in the reference, in one system only):
    # 1 a: sat; 2 a: there, b: a; 3 a: before, b: have been; 4 b: long; 5 b: the;
    # 6 b: will meet the; 7 a: all were playing, b: the; 8 b: a.
    page = compare_page(test_set=stored, query={})
    unigrams = next(item for item in page.ngrams if item.order == 1)
    assert unigrams.only_a == [
        ("all", 1), ("before", 1), ("playing", 1), ("sat", 1), ("there", 1), ("were", 1)
    ]  # fmt: skip
    assert unigrams.only_b == [
        ("the", 3), ("a", 2), ("been", 1), ("have", 1), ("long", 1), ("meet", 1), ("will", 1)
    ]  # fmt: skip
    assert [item.order for item in page.ngrams] == [1, 2, 3, 4]


def test_confirmed_is_clipped_lowercased_and_pooled():
    assert confirmed("The the cat", ["the mat"], 1) == {("the",)}
    assert confirmed("the cat", ["a dog", "The Cat"], 2) == {("the", "cat")}
    assert confirmed_differences([("x y", "y", [])], orders=[1]) == {1: ([], [])}
    assert confirmed_differences([("x y", "y", ["x y"])], orders=[1]) == {1: ([("x", 1)], [])}


def test_html_looking_system_name_is_escaped(client, viewer_user):
    evil = "<b>evil</b>"
    test_set = make_test_set(outputs={"sys-a": OUTPUTS["sys-a"], evil: OUTPUTS["sys-b"]})
    evaluate()
    client.force_login(viewer_user)
    response = client.get(
        reverse("segments:compare", args=[test_set.pk]), {"a": "sys-a", "b": evil}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert evil not in html
    assert "&lt;b&gt;evil&lt;/b&gt;" in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"a": "nobody"}, "unknown system &#x27;nobody&#x27;"),
        ({"b": "sys-a"}, "choose two different systems"),
        ({"signature": "bleu|nope"}, "unknown measure setting &#x27;bleu|nope&#x27;"),
    ],
)
def test_bad_parameters_give_a_message(client, stored, viewer_user, query, message):
    client.force_login(viewer_user)
    response = client.get(reverse("segments:compare", args=[stored.pk]), query)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="compare-error"' in html
    assert message in html


def test_nothing_stored_says_so(client, viewer_user):
    test_set = make_test_set()
    client.force_login(viewer_user)
    response = client.get(reverse("segments:compare", args=[test_set.pk]))
    assert response.status_code == 400
    assert "no stored measure results" in response.content.decode()
