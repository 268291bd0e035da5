"""``manage.py evaluate``: batch evaluation through the run tasks, table, JSON and report."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from metrics import batch_options, measure_choices
from metrics.models import MetricRun
from tests.metrics.run_helpers import OUTPUTS, REFERENCES, make_test_set
from tests.metrics.test_services import direct_scores

pytestmark = pytest.mark.django_db(transaction=True)


def evaluate(*args: str) -> str:
    out = StringIO()
    call_command("evaluate", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_eager_json_equals_core_scores():
    make_test_set("tiny")
    payload = json.loads(
        evaluate("--test-set", "tiny", "--measures", "wer,per", "--eager", "--json")
    )
    assert [m["measure"] for m in payload["measures"]] == ["wer", "per"]
    for name in ("wer", "per"):
        expected = direct_scores(name)
        got = {system["name"]: system["scores"][name] for system in payload["systems"]}
        assert got == pytest.approx(expected, abs=1e-12)
    assert MetricRun.objects.get().command_line.startswith("manage.py evaluate")


def test_table_marks_best_and_lists_signatures():
    make_test_set("tiny")
    table = evaluate("--test-set", "tiny", "--measures", "wer", "--eager")
    lines = table.splitlines()
    assert lines[0].split() == ["system", "wer"]
    assert sum("*" in line for line in lines[2:4]) == 1
    assert "wer|nrefs:1|" in table


def test_options_in_every_spelling_reach_the_signature():
    make_test_set("tiny")
    payload = json.loads(
        evaluate(
            "--test-set",
            "tiny",
            "--measures",
            "wer,cder",
            "--eager",
            "--json",
            "--option",
            "cder.pad-rule=none",
            "--option",
            "wer-ref-length-rule=average",
            "--option",
            "lowercase=true",
        )
    )
    signatures = {m["measure"]: m["signature"] for m in payload["measures"]}
    assert "pad:none" in signatures["cder"] and "reflen:average" in signatures["cder"]
    assert "reflen:average" in signatures["wer"]
    assert "lc:yes" in signatures["wer"] and "lc:yes" in signatures["cder"]
    expected = direct_scores("wer", {"ref-length-rule": "average", "lowercase": True})
    got = {system["name"]: system["scores"]["wer"] for system in payload["systems"]}
    assert got == pytest.approx(expected)


def test_systems_subset_and_report_file(tmp_path):
    make_test_set("tiny")
    report = tmp_path / "report.xml"
    evaluate(
        "--test-set",
        "tiny",
        "--systems",
        "sys-b",
        "--measures",
        "wer",
        "--eager",
        "--report",
        str(report),
        "--include-sentences",
        "--comment",
        "nightly <check>",
    )
    root = ET.parse(report).getroot()
    assert root.findtext("comment") == "nightly <check>"
    assert [e.get("system") for e in root.findall("evaluation")] == ["sys-b"]
    assert root.find("evaluation-options/wer-options/reference-length-rule").text == "lowestError"
    candidates = root.findall("candidate-evaluation/candidate")
    assert len(candidates) == len(REFERENCES)
    assert candidates[0].findtext("target") == OUTPUTS["sys-b"][0]
    assert "--include-sentences" in root.findtext("files/command-line")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--test-set", "nope", "--measures", "wer"], "no test set named 'nope'"),
        (["--test-set", "tiny", "--measures", "nope"], "unknown measure"),
        (["--test-set", "tiny", "--systems", "x", "--measures", "wer"], "no system 'x'"),
        (["--test-set", "tiny", "--measures", "wer", "--option", "colour=1"], "no chosen"),
        (["--test-set", "tiny", "--measures", "wer", "--option", "wer.x=1"], "unknown option"),
    ],
)
def test_bad_arguments_give_one_clear_error(args, message):
    make_test_set("tiny")
    with pytest.raises(CommandError, match=message):
        evaluate(*args, "--eager")
    assert MetricRun.objects.count() == 0


def test_failed_run_is_reported_with_its_reason(monkeypatch):
    make_test_set("tiny")

    def explode(*args, **kwargs):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr("metrics.core.wer.WER.statistics", explode)
    with pytest.raises(CommandError, match="failed: RuntimeError: kernel exploded"):
        evaluate("--test-set", "tiny", "--measures", "wer", "--eager")


BASE = ["wer", "per", "cder", "mper", "skipper", "bleu", "nist"]

# Every row of measures spec §15, Tables A.1 (options) and A.2 (flags): the pair as an
# EvalTrans user writes it, and what it must set (measure options, added measures, run
# settings). Rows evaltrans refuses are in SECTION_15_REFUSED.
SECTION_15_MAPPED = [
    ("output-file=out.xml", {}, {"report": "out.xml"}),
    ("encoding=utf-8", {}, {}),
    ("comment=nightly check", {}, {"comment": "nightly check"}),
    (
        "wer-ref-length-rule=average",
        {name: {"ref-length-rule": "average"} for name in ("wer", "per", "cder")},
        {},
    ),
    ("cder-pad-rule=left", {"cder": {"pad-rule": "left"}}, {}),
    ("cder-coverage-rule=half", {"cder": {"coverage-rule": "half"}}, {}),
    ("nper-max-ngram=3", {"mper": {"max-ngram": "3", "min-ngram": "1"}}, {}),
    ("nper-pad-rule=both", {"mper": {"pad-rule": "both"}, "skipper": {"pad-rule": "both"}}, {}),
    (
        "nper-ref-length-rule=minimum",
        {"mper": {"ref-length-rule": "minimum"}, "skipper": {"ref-length-rule": "minimum"}},
        {},
    ),
    ("max-ngram=3", {"bleu": {"max-ngram": "3"}}, {}),
    ("bleu-pad-rule=both", {"bleu": {"pad-rule": "both"}}, {}),
    ("bleu-ref-length-rule=average", {"bleu": {"ref-length-rule": "average"}}, {}),
    ("nist-max-ngram=4", {"nist": {"max-ngram": "4"}}, {}),
    ("nist-pad-rule=both", {"nist": {"pad-rule": "both"}}, {}),
    ("nist-ref-length-rule=minimum", {"nist": {"ref-length-rule": "minimum"}}, {}),
    (
        "substitution-cost-rule=prefix",
        {name: {"substitution-cost-rule": "prefix"} for name in ("wer", "per", "cder")},
        {},
    ),
    ("transposition-costs=1,1,1,1,2", {"invwer": {"transposition-costs": "1,1,1,1,2"}}, {}),
    ("max-bigram-skip=2", {"skipper": {"max-bigram-skip": "2"}}, {}),
    (
        "nper-choose-references-separately",
        {"mper": {"choose-references-separately": "true"}},
        {},
    ),
    ("sentences-in-detail", {}, {"sentences_in_detail": True}),
    ("include-sentences", {}, {"include_sentences": True}),
    ("allow-transpositions", {}, {"measures": [*BASE, "invwer"]}),
    ("allow-long-jumps", {}, {"measures": [*BASE, "ljwer"]}),
    ("xml-mode", {}, {}),
]
SECTION_15_REFUSED = [
    ("leaving-one-out=BLEU,mWER", "not supported.*import it as a system"),
    ("extrapolate", "not supported.*judging campaigns"),
    ("all-ngrams", "not supported.*max-ngram=M"),
    ("encoding=iso8859-1", "must be utf-8.*import_corpus --encoding"),
]


@pytest.mark.parametrize(("pair", "options", "settings"), SECTION_15_MAPPED)
def test_every_mapped_evaltrans_row_sets_our_options(pair, options, settings):
    measures = BASE + (["invwer"] if pair.startswith("transposition") else [])
    batch = batch_options.batch_options_parse(pairs=[pair], measures=measures)
    assert {name: values for name, values in batch.options.items() if values} == options
    assert batch.measures == settings.get("measures", measures)
    assert batch.report == settings.get("report", "")
    assert batch.comment == settings.get("comment", "")
    assert batch.sentences_in_detail == settings.get("sentences_in_detail", False)
    assert batch.include_sentences == settings.get("include_sentences", False)
    # Every mapped value is one the measure accepts.
    for choice in measure_choices.measure_choices_resolve(
        names=batch.measures, options=batch.options
    ):
        measure_choices.measure_build(name=choice.name, options=choice.options)


@pytest.mark.parametrize(("pair", "message"), SECTION_15_REFUSED)
def test_unsupported_evaltrans_rows_are_refused_with_why_and_what_instead(pair, message):
    with pytest.raises(measure_choices.RunError, match=message) as caught:
        batch_options.batch_options_parse(pairs=[pair], measures=BASE)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"--option {pair!r}: EvalTrans'")


def test_docs_map_every_section_15_row():
    table = (Path(__file__).resolve().parents[2] / "docs" / "runs.md").read_text()
    rows = {pair.partition("=")[0] for pair, _, _ in SECTION_15_MAPPED}
    rows |= {pair.partition("=")[0] for pair, _ in SECTION_15_REFUSED}
    missing = [row for row in sorted(rows) if f"| `{row}`" not in table]
    assert not missing


def test_evaltrans_options_that_name_no_chosen_measure_say_which():
    parse = batch_options.batch_options_parse
    with pytest.raises(
        measure_choices.RunError, match="measure 'mper' \\(EvalTrans nper\\) is not chosen"
    ):
        parse(pairs=["nper-max-ngram=3"], measures=["wer"])
    with pytest.raises(measure_choices.RunError, match="max-ngram is BLEU's.*nist-max-ngram"):
        parse(pairs=["max-ngram=3"], measures=["nist", "mper"])
    with pytest.raises(measure_choices.RunError, match="wer- options \\(wer, per, msder"):
        parse(pairs=["wer-ref-length-rule=average"], measures=["bleu"])
    with pytest.raises(measure_choices.RunError, match="measures with it: skipper"):
        parse(pairs=["max-bigram-skip=2"], measures=["wer"])
    with pytest.raises(measure_choices.RunError, match="expected true or false"):
        parse(pairs=["allow-long-jumps=maybe"], measures=["wer"])
    # An explicit min-ngram wins over the (1..M) that nper-max-ngram implies, in any order.
    options = parse(pairs=["mper.min-ngram=2", "nper-max-ngram=4"], measures=["mper"]).options
    assert options == {"mper": {"min-ngram": "2", "max-ngram": "4"}}


def test_evaltrans_batch_options_run_end_to_end(tmp_path):
    make_test_set("tiny")
    report = tmp_path / "report.xml"
    evaluate(
        "--test-set",
        "tiny",
        "--measures",
        "wer,mper",
        "--eager",
        "--option",
        "nper-max-ngram=3",
        "--option",
        "nper-pad-rule=none",
        "--option",
        f"output-file={report}",
        "--option",
        "allow-long-jumps",
        "--option",
        "sentences-in-detail",
        "--option",
        "comment=from EvalTrans",
    )
    root = ET.parse(report).getroot()
    assert root.findtext("comment") == "from EvalTrans"
    assert root.find("evaluation-options/nper-options/pad-rule").text == "none"
    nper = root.find("evaluation/nper")
    assert [gram.get("n") for gram in nper.findall("n-gram")] == ["1", "2", "3"]
    assert root.find("evaluation/ljwer/error-rate") is not None
    assert len(root.findall("candidate-evaluation/candidate")) == 2 * len(REFERENCES)
    assert f"output-file={report}" in root.findtext("files/command-line")


def test_report_given_twice_differently_is_refused(tmp_path):
    make_test_set("tiny")
    with pytest.raises(CommandError, match="--report .* and --option output-file=.* disagree"):
        evaluate(
            "--test-set",
            "tiny",
            "--measures",
            "wer",
            "--eager",
            "--report",
            str(tmp_path / "a.xml"),
            "--option",
            f"output-file={tmp_path / 'b.xml'}",
        )
    assert MetricRun.objects.count() == 0


def test_option_parsing_rules():
    parse = batch_options.measure_options_parse
    assert parse(pairs=["tokenize=13a"], measures=["wer", "cder"]) == {
        "wer": {"tokenize": "13a"},
        "cder": {"tokenize": "13a"},
    }
    assert parse(pairs=["wer-ref-length-rule=average"], measures=["per"]) == {
        "per": {"ref-length-rule": "average"}
    }
    with pytest.raises(measure_choices.RunError, match="not chosen"):
        parse(pairs=["cder.pad-rule=none"], measures=["wer"])
    with pytest.raises(measure_choices.RunError, match="expected"):
        parse(pairs=["novalue"], measures=["wer"])
