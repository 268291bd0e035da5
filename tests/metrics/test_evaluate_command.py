"""``manage.py evaluate``: batch evaluation through the run tasks, table, JSON and report."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from metrics import services
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


def test_option_parsing_rules():
    parse = services.measure_options_parse
    assert parse(pairs=["tokenize=13a"], measures=["wer", "cder"]) == {
        "wer": {"tokenize": "13a"},
        "cder": {"tokenize": "13a"},
    }
    assert parse(pairs=["wer-ref-length-rule=average"], measures=["per"]) == {
        "per": {"ref-length-rule": "average"}
    }
    with pytest.raises(services.RunError, match="not chosen"):
        parse(pairs=["cder.pad-rule=none"], measures=["wer"])
    with pytest.raises(services.RunError, match="expected"):
        parse(pairs=["novalue"], measures=["wer"])
