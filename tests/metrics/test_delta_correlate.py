"""``manage.py delta_correlate`` (EDPM paper §A10) on the tiny judged test set of
test_correlation.py: every number equals scipy's pearsonr on points built by hand from
metrics.core's own statistics and the human scores."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from scipy import stats

from evaltrans.corpora.models import Segment
from metrics.core import get_metric
from metrics.selectors.delta import reference_lengths
from tests.metrics.run_helpers import REFERENCES, make_test_set
from tests.metrics.test_correlation import (
    HUMAN,
    MT_SYSTEMS,
    OUTPUTS,
    SET_NAME,
    core_scores,
    judgment_set,
)

pytestmark = pytest.mark.django_db(transaction=True)

DOCUMENTS = ["talk-1"] * 3 + ["talk-2"] * 3 + ["talk-3"] * 2


def _stored(documents: list[str] | None = DOCUMENTS, outputs: dict = OUTPUTS, human=HUMAN):
    test_set = make_test_set("tiny", outputs=outputs)
    for index, document in enumerate(documents or []):
        Segment.objects.filter(test_set=test_set, index=index).update(doc_id=document)
    call_command(
        "evaluate", "--test-set", "tiny", "--measures", "wer,bleu,chrf", "--eager",
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    judgment_set(test_set, human=human)
    return test_set


@pytest.fixture
def stored():
    return _stored()


def delta(*args: str) -> dict:
    out = StringIO()
    call_command("delta_correlate", "--human", SET_NAME, "--test-set", "tiny", *args, "--json",
                 stdout=out)  # fmt: skip
    return json.loads(out.getvalue())


def row(payload: dict, measure: str) -> dict:
    return next(item for item in payload["correlations"] if item["measure"] == measure)


def human_matrix() -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in HUMAN[name]] for name in MT_SYSTEMS])


def naive_r(x_by_system: np.ndarray, y_by_system: np.ndarray) -> tuple[float, int, int]:
    """Pearson r, points and Δhuman ties over every (unit, pair), oriented by hand."""
    xs, ys = [], []
    for b in range(len(MT_SYSTEMS)):
        for z in range(b + 1, len(MT_SYSTEMS)):
            for i in range(x_by_system.shape[1]):
                dx = x_by_system[z, i] - x_by_system[b, i]
                dy = y_by_system[z, i] - y_by_system[b, i]
                if np.isfinite(dx) and np.isfinite(dy):
                    xs.append(-dx if dy < 0 else dx)
                    ys.append(abs(dy))
    return stats.pearsonr(xs, ys)[0], len(xs), sum(1 for y in ys if y == 0)


def test_sentence_level_is_length_weighted_and_equals_scipy(stored):
    payload = delta("--unit", "sentence")
    assert payload["systems"] == MT_SYSTEMS
    assert payload["excluded_reasons"] == {"ref": "human translation"}
    assert (payload["pairs"], payload["units"]) == (6, 8)
    assert payload["length_tokenizer"] == "13a"
    lengths = np.array([len(reference.split()) for reference in REFERENCES], dtype=float)
    human = human_matrix()
    for name, sign in (("wer", -1.0), ("bleu", 1.0), ("chrf", 1.0)):
        _, sentences = core_scores(name)
        r, n, ties = naive_r(sign * sentences * lengths, human * lengths)
        found = row(payload, name)
        assert found["negated"] is (sign < 0)
        assert found["value"] == pytest.approx(r, abs=1e-12)
        assert (found["n"], found["human_ties"]) == (n, ties)
        assert found["ci"][0] < found["value"] < found["ci"][1]
    # sys-c's unjudged segment 5 (index 4) drops its 3 pairs; segment 8 is a tie for all 6 pairs
    assert row(payload, "bleu")["n"] == 6 * 8 - 3
    assert row(payload, "bleu")["human_ties"] >= 6


def test_document_level_aggregates_summed_statistics_and_equals_scipy(stored):
    payload = delta("--unit", "document")
    assert payload["units"] == 3
    human = human_matrix()
    groups = [[0, 1, 2], [3, 4, 5], [6, 7]]
    refs = [[text] for text in REFERENCES]
    for name, sign in (("wer", -1.0), ("bleu", 1.0), ("chrf", 1.0)):
        measure = get_metric(name)()
        scores = np.full((len(MT_SYSTEMS), 3), np.nan)
        means = np.full((len(MT_SYSTEMS), 3), np.nan)
        for s, system in enumerate(MT_SYSTEMS):
            statistics = measure.statistics(OUTPUTS[system], refs, measure.context(refs))
            for d, positions in enumerate(groups):
                judged = [k for k in positions if np.isfinite(human[s, k])]
                scores[s, d] = sign * measure.aggregate(statistics[judged], n_refs=1).score
                means[s, d] = human[s, judged].mean()
        r, n, ties = naive_r(scores, means)
        found = row(payload, name)
        assert found["value"] == pytest.approx(r, abs=1e-12)
        assert (found["n"], found["human_ties"]) == (n, ties) == (18, ties)
    # not the mean of the sentence scores: those give another r
    _, sentences = core_scores("bleu")
    mean_scores = np.array([[sentences[s, g].mean() for g in groups] for s in range(4)])
    assert abs(naive_r(mean_scores, means)[0] - row(payload, "bleu")["value"]) > 1e-3


def test_the_table_names_the_unit_the_orientation_and_what_was_left_out(stored):
    out = StringIO()
    call_command("delta_correlate", "--human", SET_NAME, "--test-set", "tiny", "--unit",
                 "document", "--measures", "wer,bleu", stdout=out)  # fmt: skip
    text = out.getvalue()
    assert "wer (negated)" in text
    assert "chrf" not in text
    assert "Δhuman ≥ 0" in text
    assert "4 systems, 6 pairs, 3 documents" in text
    assert "left out: ref (human translation)" in text


def test_no_document_ids_is_refused_at_document_level_only():
    _stored(documents=None)
    with pytest.raises(CommandError, match="no document ids on 8 of its 8 judged segments"):
        delta("--unit", "document")
    assert delta("--unit", "sentence")["units"] == 8


def test_fewer_than_two_shared_systems_is_refused():
    _stored(human={"sys-a": HUMAN["sys-a"], "ref": HUMAN["ref"]})
    with pytest.raises(CommandError, match=r"at least 2 systems .*found 1 \(sys-a\)"):
        delta("--unit", "sentence")


@pytest.mark.parametrize(
    "args, message",
    [
        (("--human", "nobody", "--test-set", "tiny"), "no judgment set or campaign named 'nobody'"),
        (("--human", SET_NAME, "--test-set", "nothing"), "no test set named 'nothing'"),
        (("--human", SET_NAME, "--test-set", "tiny", "--measures", "ter"), "no stored results of measure 'ter'"),
        (("--human", SET_NAME, "--test-set", "tiny", "--aspect", "fluency"), "has no aspect 'fluency'"),
    ],
)  # fmt: skip
def test_bad_requests_get_one_clear_line(stored, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("delta_correlate", *args, "--unit", "document", stdout=StringIO())


def test_imported_scores_have_sentence_but_no_document_deltas(stored, tmp_path):
    rng = np.random.default_rng(2)
    seg = tmp_path / "COMET-22.seg.score"
    seg.write_text(
        "".join(f"{name}\t{value}\n" for name in MT_SYSTEMS for value in rng.random(8)),
        encoding="utf-8",
    )
    call_command("import_scores", "--test-set", "tiny", "--name", "COMET-22",
                 "--higher-is-better", "--mtme-seg", str(seg), stdout=StringIO())  # fmt: skip
    document = row(delta("--unit", "document"), "COMET-22")
    assert document["value"] is None and document["n"] == 0
    assert "no stored sufficient statistics" in document["note"]
    assert row(delta("--unit", "document"), "bleu")["value"] is not None
    assert row(delta("--unit", "sentence"), "COMET-22")["n"] == 6 * 8 - 3


def test_reference_lengths_are_13a_tokens_of_the_first_reference():
    test_set = make_test_set(
        "punct",
        references=["Hello, world.", "It's 3.5%!", "x"],
        second_references=["a b c d e f", "a", "b"],
        outputs={"a": ["x", "y", "z"]},
    )
    test_set.segments.get(index=2).references.filter(label="A").update(text="")
    lengths = reference_lengths(test_set=test_set, items=[0, 1, 2])
    assert lengths[:2].tolist() == [4.0, 4.0]  # Hello , world . | It's 3.5 % !
    assert np.isnan(lengths[2])  # an empty first reference: the segment is left out
