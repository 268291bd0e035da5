"""HTER: TER of the candidate against its post-edits equals sacreBLEU's TER with the post-edits
as references (hand-made pairs; several post-edits = several references), through the pure
core, the campaign selector and the ``hter`` command."""

from __future__ import annotations

import json
import math
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from sacrebleu.metrics import TER as SacreTER

from judging.models import Assignment, Campaign
from metrics.core import MeasureError
from metrics.core.hter import hter
from metrics.selectors.hter import campaign_hter
from tests.judging.conftest import judges, make_campaign, test_set  # noqa: F401 - fixtures
from tests.judging.test_postedit import submit_postedit

PAIRS = [
    ("the cat sat on mat .", ["the cat sat on the mat ."]),
    ("He go to school yesterday", ["He went to school yesterday"]),
    ("blue house the big", ["the big blue house"]),  # shifts
    ("It is good", ["It is good"]),  # untouched
    ("A quick test", ["A fast test .", "A quick test !"]),  # two post-edits
    ("Ein Satz", ["A sentence in English now"]),  # rewritten from scratch-like
]


def test_hter_equals_sacrebleu_ter_sentence_by_sentence():
    for candidate, edits in PAIRS:
        result = hter([candidate], [edits])
        expected = SacreTER().sentence_score(candidate, edits).score
        assert result.sentences[0] == pytest.approx(expected, abs=1e-9), (candidate, edits)


@pytest.mark.parametrize("options", [{}, {"case_sensitive": True}, {"normalized": True}])
def test_hter_corpus_equals_sacrebleu_ter_corpus(options):
    single = [(c, e) for c, e in PAIRS if len(e) == 1]
    candidates = [c for c, _ in single]
    result = hter(candidates, [e for _, e in single], source="pe", **options)
    expected = SacreTER(**options).corpus_score(candidates, [[e[0] for _, e in single]])
    assert result.score == pytest.approx(expected.score, abs=1e-9)
    assert str(result.signature).startswith("hter|nrefs:1|pe:pe|pev:-|")


def test_hter_refuses_a_segment_without_postedit():
    with pytest.raises(MeasureError, match="no post-edit"):
        hter(["a"], [[]])


@pytest.mark.django_db
def test_campaign_hter_equals_sacrebleu_and_the_command_prints_it(make_campaign, judges):  # noqa: F811
    campaign = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    edits = {}
    for assignment in Assignment.objects.filter(campaign=campaign):
        for row in assignment.items.select_related("item"):
            words = row.item.text.split()
            text = " ".join(["Well", *words[1:]]) if len(words) > 1 else "Well done ."
            submit_postedit(assignment, row.screen, text)
            edits[row.item_id] = text
    results = {system.system: system for system in campaign_hter(campaign=campaign)}
    assert set(results) == {"x", "y", "z"}
    for name, system in results.items():
        candidates = [segment.candidate for segment in system.segments]
        references = [segment.post_edits[0] for segment in system.segments]
        assert all(len(segment.post_edits) == 1 for segment in system.segments)
        expected = SacreTER().corpus_score(candidates, [references]).score
        assert system.result.score == pytest.approx(expected, abs=1e-9), name
        for segment, score in zip(system.segments, system.result.sentences, strict=True):
            one = SacreTER().sentence_score(segment.candidate, list(segment.post_edits)).score
            assert score == pytest.approx(one, abs=1e-9)
    out = StringIO()
    call_command("hter", campaign=campaign.name, json=True, stdout=out)
    document = json.loads(out.getvalue())
    printed = {row["system"]: row for row in document["systems"]}
    for name, system in results.items():
        assert math.isclose(printed[name]["hter"], system.result.score)
        assert len(printed[name]["segments"]) == 4
        assert printed[name]["signature"].startswith(f"hter|nrefs:1|pe:{campaign.name}|pev:")
    table = StringIO()
    call_command("hter", campaign=campaign.name, segments=True, stdout=table)
    assert "signature" in table.getvalue() and "d1:1" in table.getvalue()
    other = make_campaign()
    with pytest.raises(CommandError, match="not a post-editing one"):
        call_command("hter", campaign=other.name)
    with pytest.raises(CommandError, match="no campaign named"):
        call_command("hter", campaign="nope")
