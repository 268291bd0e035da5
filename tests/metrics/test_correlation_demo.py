"""Real data: the demo corpus (WMT21 TED MQM en-de, 13 systems × 529 segments) with its demo run.
Every correlation equals scipy on scores from the oracles: sacreBLEU's chrF and BLEU per system
and per sentence, and the human scores that ``human_scores`` prints (tested against the
published ones in tests/judging/humanscores/test_demo_ratings.py)."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from scipy import stats

from evaltrans.corpora.management.commands.load_demo_corpus import DEMO_NAME
from evaltrans.corpora.models import Candidate, Reference, Segment
from judging.humanscores.services import DEMO_RATINGS_NAME
from metrics.models import SystemScore

pytestmark = pytest.mark.django_db(transaction=True)

sacrebleu = pytest.importorskip("sacrebleu")


@pytest.fixture
def demo():
    call_command("load_demo", "--force", stdout=StringIO())
    call_command("load_demo_runs", stdout=StringIO())
    out = StringIO()
    call_command("load_demo_runs", stdout=out)
    assert "already computed" in out.getvalue()


def _json(command: str, *args: str) -> dict:
    out = StringIO()
    call_command(command, *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def _texts() -> tuple[dict[str, list[str]], list[str]]:
    references = [
        text
        for text in Reference.objects.filter(segment__test_set__name=DEMO_NAME)
        .order_by("segment__index")
        .values_list("text", flat=True)
    ]
    outputs: dict[str, list[str]] = {}
    for name, text in (
        Candidate.objects.filter(system__test_set__name=DEMO_NAME)
        .order_by("system__name", "segment__index")
        .values_list("system__name", "text")
    ):
        outputs.setdefault(name, []).append(text)
    return outputs, references


def test_demo_system_level_equals_scipy_on_sacrebleu_and_the_human_scores(demo):
    assert set(SystemScore.objects.values_list("measure", flat=True)) == {
        "wer", "per", "cder", "ter", "bleu", "nist", "chrf",
    }  # fmt: skip
    payload = _json(
        "correlate", "--human", DEMO_RATINGS_NAME, "--test-set", DEMO_NAME, "--level", "system",
        "--coefficients", "pearson,spearman,kendall-b,accuracy",
    )  # fmt: skip
    systems = payload["systems"]
    assert len(systems) == 13 and payload["excluded"] == ["ref"]
    humans = _json("human_scores", "--name", DEMO_RATINGS_NAME, "--bootstrap", "0")
    human = {row["system"]: row["raw"] for row in humans["systems"]}
    y = np.array([human[name] for name in systems])
    outputs, references = _texts()
    for name, score in (
        ("chrf", lambda hyp: sacrebleu.corpus_chrf(hyp, [references]).score),
        ("bleu", lambda hyp: sacrebleu.corpus_bleu(hyp, [references]).score),
        ("ter", lambda hyp: -sacrebleu.corpus_ter(hyp, [references]).score),
    ):
        x = np.array([score(outputs[system]) for system in systems])
        rows = {
            row["coefficient"]: row for row in payload["correlations"] if row["measure"] == name
        }
        assert rows["pearson"]["value"] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-9)
        assert rows["spearman"]["value"] == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
        assert rows["kendall-b"]["value"] == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
        agree = [
            np.sign(x[i] - x[j]) == np.sign(y[i] - y[j])
            for i in range(len(x))
            for j in range(i + 1, len(x))
        ]
        assert rows["accuracy"]["value"] == pytest.approx(np.mean(agree), abs=1e-12)
        assert rows["pearson"]["negated"] is (name == "ter")


def test_demo_segment_level_equals_scipy_on_sacrebleu_sentence_chrf(demo):
    payload = _json(
        "correlate", "--human", DEMO_RATINGS_NAME, "--test-set", DEMO_NAME, "--level", "segment",
        "--measures", "chrf", "--normalized", "--coefficients", "pearson,kendall-b",
    )  # fmt: skip
    humans = _json("human_scores", "--name", DEMO_RATINGS_NAME, "--bootstrap", "0", "--segments")
    # The MQM file's segment ids are the test set's seg_id, not index + 1.
    index_of = dict(Segment.objects.filter(test_set__name=DEMO_NAME).values_list("seg_id", "index"))
    human = {
        (row["system"], index_of[row["segment_id"]]): row["normalized"]
        for row in humans["segments"]
    }
    outputs, references = _texts()
    x, y = [], []
    for system in payload["systems"]:
        for index, hypothesis in enumerate(outputs[system]):
            if (system, index) in human:
                x.append(sacrebleu.sentence_chrf(hypothesis, [references[index]]).score)
                y.append(human[(system, index)])
    rows = {row["coefficient"]: row for row in payload["correlations"]}
    assert rows["pearson"]["n"] == len(x) == 13 * 529
    assert rows["pearson"]["value"] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-9)
    assert rows["kendall-b"]["value"] == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-9)
