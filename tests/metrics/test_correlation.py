"""``manage.py correlate`` and the selectors under it: both sides aligned by system and segment,
oriented (error measures negated), and every number equal to scipy on the same aligned data."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from scipy import stats

from evaltrans.corpora.models import Segment
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from metrics.core import get_metric
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
        "cat mat", "dog garden", "there before we", "book evening reads",
        "today weather", "noon lobby meet", "children outside", "short",
    ],
    "<b>sys-d</b>": [
        "the cat sat on the mat", "there is a dog in garden", "we have been there before",
        "he reads a long book every evening", "the weather is nice", "she will meet us at noon",
        "all the children were playing", "this is a short sentence",
    ],
}  # fmt: skip
# One judge's scores per (system, segment); segment 5 is unjudged for sys-c and all systems tie
# on segment 8 (a constant item: undefined for Pearson, skipped in the item grouping).
HUMAN = {
    "sys-a": [3, 4, 3, 4, 4, 3, 4, 2],
    "sys-b": [4, 4, 5, 3, 5, 5, 3, 2],
    "sys-c": [1, 2, 1, 1, None, 2, 2, 2],
    "<b>sys-d</b>": [5, 4, 5, 5, 4, 4, 4, 2],
    "ref": [5, 5, 5, 5, 5, 5, 5, 5],
}
SET_NAME = "tiny judgments"


def judgment_set(test_set, human=HUMAN, name=SET_NAME, aspect="adequacy"):
    segments = {s.index: s for s in Segment.objects.filter(test_set=test_set)}
    judgment_set = JudgmentSet.objects.create(
        name=name, source_format="evaltrans-xml", test_set=test_set
    )
    ExternalJudgment.objects.bulk_create(
        ExternalJudgment(
            judgment_set=judgment_set,
            system=system,
            segment_key=str(k + 1),
            segment=segments[k],
            judge="ann",
            aspect=aspect,
            raw=float(value),
        )
        for system, values in human.items()
        for k, value in enumerate(values)
        if value is not None
    )
    return judgment_set


@pytest.fixture
def stored():
    test_set = make_test_set("tiny", outputs=OUTPUTS)
    call_command(
        "evaluate", "--test-set", "tiny", "--measures", "wer,bleu,chrf", "--eager",
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    judgment_set(test_set)
    return test_set


def correlate(*args: str) -> dict:
    out = StringIO()
    call_command("correlate", "--human", SET_NAME, *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def value(payload: dict, measure: str, coefficient: str) -> dict:
    for row in payload["correlations"]:
        if row["measure"] == measure and row["coefficient"] == coefficient:
            return row
    raise KeyError((measure, coefficient))


MT_SYSTEMS = ["<b>sys-d</b>", "sys-a", "sys-b", "sys-c"]


def human_system_scores() -> np.ndarray:
    return np.array([np.mean([v for v in HUMAN[name] if v is not None]) for name in MT_SYSTEMS])


def core_scores(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Corpus scores (S,) and sentence scores (S, K) straight from metrics.core."""
    measure = get_metric(name)()
    refs = [[text] for text in REFERENCES]
    corpus, sentences = [], []
    for system in MT_SYSTEMS:
        statistics = measure.statistics(OUTPUTS[system], refs, measure.context(refs))
        corpus.append(measure.aggregate(statistics, n_refs=1).score)
        sentences.append(measure.sentence_scores(statistics))
    return np.array(corpus), np.array(sentences)


def test_system_level_equals_scipy_with_error_measures_negated(stored):
    payload = correlate("--test-set", "tiny", "--level", "system", "--weighting", "none",
                        "--coefficients", "pearson,spearman,kendall-b,kendall-a")  # fmt: skip
    assert payload["systems"] == MT_SYSTEMS
    assert payload["excluded"] == ["ref"]
    assert payload["excluded_reasons"] == {"ref": "human translation"}
    assert payload["human"] == {
        "name": SET_NAME, "aspect": "adequacy", "view": "raw", "weighting": "none",
        "negated": False, "judgments": 39, "attached": True,
    }  # fmt: skip
    human = human_system_scores()
    for name, sign in (("wer", -1.0), ("bleu", 1.0), ("chrf", 1.0)):
        corpus, _ = core_scores(name)
        x = sign * corpus
        assert value(payload, name, "pearson")["negated"] is (sign < 0)
        assert value(payload, name, "pearson")["value"] == pytest.approx(
            stats.pearsonr(x, human)[0], abs=1e-12
        )
        assert value(payload, name, "spearman")["value"] == pytest.approx(
            stats.spearmanr(x, human)[0], abs=1e-12
        )
        assert value(payload, name, "kendall-b")["value"] == pytest.approx(
            stats.kendalltau(x, human)[0], abs=1e-12
        )
        assert value(payload, name, "pearson")["n"] == 4
    # Fisher-z interval of r with n = 4 systems (thesis §2.9).
    r = value(payload, "bleu", "pearson")["value"]
    low, high = value(payload, "bleu", "pearson")["ci"]
    half = 1.959963984540054 / np.sqrt(4 - 3)
    assert (low, high) == pytest.approx(
        (np.tanh(np.arctanh(r) - half), np.tanh(np.arctanh(r) + half))
    )


def test_a_stand_alone_set_gives_system_level_only(stored):
    """A set whose segment ids are its own (a WMT DA file) still has system scores."""
    attached = correlate("--test-set", "tiny", "--level", "system", "--weighting", "none")
    JudgmentSet.objects.filter(name=SET_NAME).update(test_set=None)
    ExternalJudgment.objects.update(segment=None)
    alone = correlate("--test-set", "tiny", "--level", "system")
    assert alone["human"]["attached"] is False and alone["human"]["weighting"] == "none"
    assert alone["systems"] == MT_SYSTEMS
    assert [row["value"] for row in alone["correlations"]] == pytest.approx(
        [row["value"] for row in attached["correlations"]], abs=1e-12
    )
    with pytest.raises(CommandError, match="system scores only: use --level system"):
        call_command("correlate", "--human", SET_NAME, "--test-set", "tiny", "--level",
                     "segment", stdout=StringIO())  # fmt: skip
    out = StringIO()
    call_command("correlate", "--human", SET_NAME, "--test-set", "tiny", "--level", "system",
                 stdout=out)  # fmt: skip
    assert "stand-alone set (not attached to the test set)" in out.getvalue()
    assert "judged segments" not in out.getvalue()


def test_segment_level_pools_the_judged_cells_and_groups_by_item(stored):
    _, sentences = core_scores("chrf")
    human = np.array([[np.nan if v is None else v for v in HUMAN[name]] for name in MT_SYSTEMS])
    judged = ~np.isnan(human)
    pooled = correlate("--test-set", "tiny", "--level", "segment", "--measures", "chrf")
    expected = stats.pearsonr(sentences[judged], human[judged])[0]
    assert value(pooled, "chrf", "pearson")["value"] == pytest.approx(expected, abs=1e-12)
    assert value(pooled, "chrf", "pearson")["n"] == int(judged.sum()) == 31
    item = correlate("--test-set", "tiny", "--level", "segment", "--grouping", "item",
                     "--measures", "chrf", "--coefficients", "kendall-a,pearson")  # fmt: skip
    per_item = []
    for k in range(len(REFERENCES)):
        rows = judged[:, k]
        if rows.sum() >= 2 and np.ptp(human[rows, k]) > 0:
            per_item.append(stats.pearsonr(sentences[rows, k], human[rows, k])[0])
    pearson = value(item, "chrf", "pearson")
    assert pearson["value"] == pytest.approx(np.mean(per_item), abs=1e-12)
    assert pearson["groups_skipped"] == 1  # segment 8: every system tied


def test_sentence_mean_aggregation_averages_over_the_judged_segments(stored):
    _, sentences = core_scores("bleu")
    human = np.array([[np.nan if v is None else v for v in HUMAN[name]] for name in MT_SYSTEMS])
    means = np.array(
        [
            np.nanmean(np.where(np.isnan(h), np.nan, s))
            for h, s in zip(human, sentences, strict=True)
        ]
    )
    payload = correlate("--test-set", "tiny", "--level", "system", "--weighting", "none",
                        "--aggregation", "sentence-mean", "--measures", "bleu")  # fmt: skip
    assert payload["aggregation"] == "sentence-mean"
    assert value(payload, "bleu", "pearson")["value"] == pytest.approx(
        stats.pearsonr(means, human_system_scores())[0], abs=1e-12
    )


def test_bootstrap_intervals_are_seeded_and_contain_the_value(stored):
    args = ("--test-set", "tiny", "--level", "segment", "--bootstrap", "200", "--seed", "7")
    first, second = correlate(*args), correlate(*args)
    assert first == second
    for row in first["correlations"]:
        assert row["ci_method"] == "bootstrap-200"
        assert row["ci"][0] <= row["value"] <= row["ci"][1]
    other = correlate(
        "--test-set", "tiny", "--level", "segment", "--bootstrap", "200", "--seed", "8"
    )
    assert other["correlations"][0]["ci"] != first["correlations"][0]["ci"]


def test_a_run_limits_the_measures(stored):
    from metrics.models import MetricRun

    run = MetricRun.objects.get()
    payload = correlate("--run", str(run.pk), "--level", "system")
    assert {row["measure"] for row in payload["correlations"]} == {"wer", "bleu", "chrf"}


def test_the_table_marks_the_best_and_says_what_was_left_out(stored):
    out = StringIO()
    call_command("correlate", "--human", SET_NAME, "--test-set", "tiny", "--level", "system",
                 stdout=out)  # fmt: skip
    text = out.getvalue()
    assert "wer (negated)" in text
    assert "*" in text
    assert "left out: ref (human translation)" in text


@pytest.mark.parametrize(
    "args, message",
    [
        (("--human", "nobody", "--test-set", "tiny", "--level", "system"), "no judgment set or campaign named 'nobody'"),
        (("--human", SET_NAME, "--test-set", "nothing", "--level", "system"), "no test set named 'nothing'"),
        (("--human", SET_NAME, "--run", "999", "--level", "system"), "no run with id 999"),
        (("--human", SET_NAME, "--test-set", "tiny", "--level", "system", "--grouping", "item"), "needs segment level"),
        (("--human", SET_NAME, "--test-set", "tiny", "--level", "system", "--coefficients", "tau99"), "unknown coefficient 'tau99'"),
        (("--human", SET_NAME, "--test-set", "tiny", "--level", "segment", "--coefficients", "accuracy"), "not defined at segment level"),
        (("--human", SET_NAME, "--test-set", "tiny", "--level", "system", "--measures", "ter"), "no stored results of measure 'ter'"),
        (("--human", SET_NAME, "--test-set", "tiny", "--level", "system", "--aspect", "fluency"), "has no aspect 'fluency'"),
    ],
)  # fmt: skip
def test_bad_requests_get_one_clear_line(stored, args, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call_command("correlate", *args, stdout=StringIO())


def test_fewer_than_three_systems_is_refused_at_system_level():
    test_set = make_test_set("tiny", outputs={k: OUTPUTS[k] for k in ("sys-a", "sys-b")})
    call_command("evaluate", "--test-set", "tiny", "--measures", "wer", "--eager",
                 stdout=StringIO(), stderr=StringIO())  # fmt: skip
    judgment_set(test_set)
    with pytest.raises(CommandError, match="at least 3 systems"):
        call_command("correlate", "--human", SET_NAME, "--test-set", "tiny", "--level", "system",
                     stdout=StringIO())  # fmt: skip
    payload = correlate("--test-set", "tiny", "--level", "segment")
    assert payload["systems"] == ["sys-a", "sys-b"]


def test_nothing_stored_says_how_to_compute_it():
    test_set = make_test_set("tiny", outputs=OUTPUTS)
    judgment_set(test_set)
    with pytest.raises(CommandError, match="no stored measure results .*manage.py evaluate"):
        call_command("correlate", "--human", SET_NAME, "--test-set", "tiny", "--level", "system",
                     stdout=StringIO())  # fmt: skip
