"""``python -m metrics.core align``: JSON lines, ``--line``, the cost and score invariants
against ``score --sentences``, and the usage errors (exit status 2, one line on stderr)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from metrics.core import cli

PROJECT = Path(__file__).resolve().parents[3]
OPERATION_KINDS = {
    "identity",
    "substitution",
    "insertion",
    "deletion",
    "jump",
    "shift",
    "inversion",
    "penalty",
}
HYPOTHESES = [
    "the cat sat on the mat .",
    "d e f g h a b c",
    "",
    "we will meet at noon in the lobby",
    "a b a b b",
]
REFERENCES = [
    ["the cat is on the mat .", "a cat sat on a mat"],
    ["a b c d e f g h", "a b c d e f g h x"],
    ["nothing here", "x"],
    ["we will meet in the lobby at twelve o'clock", "we meet at noon in the lobby"],
    ["a b b", ""],
]
EDIT_CASES = [
    ("wer", []),
    ("wer", ["substitution-cost-rule=prefix", "ref-length-rule=average"]),
    ("per", []),
    ("msder", []),
    ("cder", []),
    ("cder", ["direction=bidirectional", "coverage-rule=half"]),
    ("cder", ["direction=backward", "pad-rule=none", "ref-length-rule=maximumNearest"]),
    ("ljwer", []),
    ("invwer", []),
    ("ter", []),
    ("mper", ["min-ngram=1", "max-ngram=3"]),
    ("mper", ["choose-references-separately=true"]),
    ("skipper", []),
]
NGRAM_CASES = [("bleu", []), ("bleu", ["smoothing=bleu-s"]), ("nist", []), ("chrf", [])]
NGRAM_CASES += [("chrf", ["word-order=2"])]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    def write(name: str, lines: list[str]) -> str:
        path = tmp_path / name
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        return str(path)

    return {
        "hyp": write("hyp.txt", HYPOTHESES),
        "ref": write("ref.txt", [pair[0] for pair in REFERENCES]),
        "ref2": write("ref2.txt", [pair[1] for pair in REFERENCES]),
        "short": write("short.txt", HYPOTHESES[:2]),
    }


def main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def option_arguments(options: list[str]) -> list[str]:
    return [part for option in options for part in ("--option", option)]


def records(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    status, out, err = main(capsys, "align", *args)
    assert status == 0, err
    assert out.endswith("\n")
    return [json.loads(line) for line in out.splitlines()]


def sentence_scores(capsys: pytest.CaptureFixture[str], *args: str) -> list[float | None]:
    status, out, err = main(capsys, "score", *args, "--sentences")
    assert status == 0, err
    return json.loads(out)["sentences"]


def check_span(span: list[int] | None, tokens: list[str]) -> None:
    if span is not None:
        assert len(span) == 2 and 0 <= span[0] <= span[1] <= len(tokens)


@pytest.mark.parametrize(("measure", "options"), EDIT_CASES)
def test_edit_measures_print_one_line_per_segment_with_the_invariants(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], measure: str, options: list[str]
) -> None:
    inputs = ["--measure", measure, "--ref", files["ref"], "--ref", files["ref2"]]
    inputs += ["--hyp", files["hyp"], *option_arguments(options)]
    lines = records(capsys, *inputs)
    expected_scores = sentence_scores(capsys, *inputs)
    assert [record["line"] for record in lines] == [1, 2, 3, 4, 5]
    for record, expected in zip(lines, expected_scores, strict=True):
        assert {"line", "measure", "signature", "distance", "reference_length", "reference"} <= set(
            record
        )
        assert {"score", "operations", "hyp_tokens", "ref_tokens"} <= set(record)
        assert record["measure"] == measure and "nrefs:2" in record["signature"]
        assert record["reference"] in (0, 1)
        for operation in record["operations"]:
            assert operation["op"] in OPERATION_KINDS
            assert {"op", "hyp", "ref", "cost"} <= set(operation)
            check_span(operation["hyp"], record["hyp_tokens"])
            check_span(operation["ref"], record["ref_tokens"])
        total = math.fsum(operation["cost"] for operation in record["operations"])
        assert total == pytest.approx(record["distance"], abs=1e-9)
        assert record["score"] == expected
        if record["reference_length"] > 0:
            assert 100 * record["distance"] / record["reference_length"] == pytest.approx(expected)


def test_word_spans_point_at_the_words(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    """Identities join equal words, substitutions unequal ones; TER's path spans refer to
    the shifted hypothesis."""
    for measure in ("wer", "per", "cder", "ljwer", "invwer", "ter"):
        lines = records(capsys, "--measure", measure, "--ref", files["ref"], "--hyp", files["hyp"])
        for record in lines:
            hyp = record.get("shifted_hyp", record["hyp_tokens"])
            for operation in record["operations"]:
                if operation["op"] in ("identity", "substitution"):
                    (i, i_end), (j, j_end) = operation["hyp"], operation["ref"]
                    assert (i_end - i, j_end - j) == (1, 1)
                    same = hyp[i] == record["ref_tokens"][j]
                    assert same == (operation["op"] == "identity"), (measure, operation)


def test_ter_prints_the_shifts_before_the_path(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    (record,) = records(
        capsys, "--measure", "ter", "--ref", files["ref"], "--hyp", files["hyp"], "--line", "2"
    )
    shift = record["operations"][0]
    assert shift["op"] == "shift" and shift["ref"] is None
    assert shift["words"] == ["a", "b", "c"] and shift["hyp"] == [5, 8] and shift["to"] == 0
    assert record["shifted_hyp"] == "a b c d e f g h".split()
    assert record["shifts"][0]["words"] == ["a", "b", "c"]
    assert record["distance"] == 1


def test_cder_prints_jumps_coverage_and_all_paths(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Spec §9.8, `c d a b` / `a b c d`: d = 3 and coverage 0,0,1,1, so `c d` of the reference
    are inserted (2) and `a b` matched after one long jump over `c d` (1)."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("c d a b\n")
    ref.write_text("a b c d\n")
    args = ["--measure", "cder", "--ref", str(ref), "--hyp", str(hyp), "--option", "tokenize=none"]
    (record,) = records(capsys, *args, "--grid", "--all-paths")
    assert record["distance"] == 3 and record["coverage"] == [0, 0, 1, 1]
    kinds = sorted(operation["op"] for operation in record["operations"])
    assert kinds == ["identity", "identity", "insertion", "insertion", "jump"]
    jumps = [operation for operation in record["operations"] if operation["op"] == "jump"]
    assert all(jump["hyp"] is None and jump["ref"] is None for jump in jumps)
    assert all(jump["source"][1] == jump["target"][1] for jump in jumps)
    assert record["grid"][4] == [3, 3, 2, 3, 3]  # the top row of the printed matrix
    assert all({"source", "target"} <= set(edge) for edge in record["optimal_edges"])


@pytest.mark.parametrize(("measure", "options"), NGRAM_CASES)
def test_ngram_measures_print_their_explanation(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], measure: str, options: list[str]
) -> None:
    inputs = ["--measure", measure, "--ref", files["ref"], "--ref", files["ref2"]]
    inputs += ["--hyp", files["hyp"], *option_arguments(options)]
    lines = records(capsys, *inputs)
    expected_scores = sentence_scores(capsys, *inputs)
    for record, expected in zip(lines, expected_scores, strict=True):
        assert "operations" not in record and record["score"] == expected
        assert {"reference", "reference_length", "hyp_length", "brevity_penalty", "orders"} <= set(
            record
        )
        for order in record["orders"]:
            assert {"order", "kind", "matches", "total", "matched", "unmatched"} <= set(order)
            assert order["matches"] == sum(row["matched"] for row in order["matched"])
            for row in order["matched"]:
                assert row["matched"] == min(row["hyp_count"], row["ref_count"])


def test_line_prints_that_segment_only(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    inputs = [
        "--measure",
        "cder",
        "--ref",
        files["ref"],
        "--ref",
        files["ref2"],
        "--hyp",
        files["hyp"],
    ]
    every = records(capsys, *inputs)
    for line in (1, 4, 5):
        assert records(capsys, *inputs, "--line", str(line)) == [every[line - 1]]


def test_the_module_prints_json_lines(files: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "metrics.core", "align", "--measure", "wer", "--ref", files["ref"]]
        + ["--hyp", files["hyp"], "--line", "1"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    record = json.loads(line)
    assert record["line"] == 1 and record["distance"] == 1 and record["reference_length"] == 7


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--measure", "nope"], "unknown measure 'nope'"),
        (["--measure", "wnm"], "measure wnm has no alignment"),
        (["--measure", "asw"], "measure asw has no alignment"),
        (["--measure", "wer", "--line", "0"], "--line 0 is out of range"),
        (["--measure", "wer", "--line", "6"], "--line 6 is out of range: "),
        (["--measure", "wer", "--line", "x"], "invalid int value"),
        (["--measure", "wer", "--ref", "{short}"], "short.txt has 2 lines but"),
        (["--measure", "per", "--all-paths"], "--all-paths: measure per"),
        (["--measure", "bleu", "--grid"], "--grid: measure bleu has no grid"),
        (["--measure", "wer", "--option", "x=1"], "unknown option"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], files: dict[str, str], arguments: list[str], message: str
) -> None:
    args = ["--ref", files["ref"], "--hyp", files["hyp"]]
    status, out, err = main(capsys, "align", *args, *(a.format(**files) for a in arguments))
    assert status == cli.USAGE_ERROR
    assert out == ""
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert message in err


def test_a_measure_needs_references(
    capsys: pytest.CaptureFixture[str], files: dict[str, str]
) -> None:
    status, _, err = main(capsys, "align", "--measure", "wer", "--hyp", files["hyp"])
    assert status == cli.USAGE_ERROR and "needs at least one --ref" in err
