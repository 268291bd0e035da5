"""``python -m metrics.core``: JSON output, the measure list and every usage error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[3]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "metrics.core", *args],
        cwd=PROJECT, capture_output=True, text=True, timeout=60,
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {
        "hyp": ("the cat sat on the mat\na dog\n", "utf-8"),
        "ref": ("the cat is on the mat\nthe dog\n", "utf-8"),
        "ref2": ("the cat sat on a mat\n\n", "utf-8"),
        "short": ("one line\n", "utf-8"),
        "latin1": ("caf\u00e9\nx\n", "latin-1"),
    }
    result = {}
    for name, (text, encoding) in paths.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(text.encode(encoding))
        result[name] = str(path)
    return result


def test_score_prints_one_json_object(files: dict[str, str]) -> None:
    done = run("score", "--measure", "wer", "--ref", files["ref"], "--hyp", files["hyp"],
               "--option", "tokenize=none", "--sentences")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"measure", "signature", "score", "sentences"}
    assert result["score"] == pytest.approx(100 * 2 / 8)  # 1/6 + 1/2 edits over 8 words
    assert result["sentences"] == pytest.approx([100 / 6, 50.0])
    assert "tok:none" in result["signature"] and "nrefs:1" in result["signature"]


def test_two_references_and_null_sentence_scores(files: dict[str, str]) -> None:
    done = run("score", "--measure", "per", "--ref", files["ref2"], "--hyp", files["hyp"],
               "--sentences")
    result = json.loads(done.stdout)
    assert result["sentences"][1] is None  # empty reference: undefined rate
    done = run("score", "--measure", "ter", "--ref", files["ref"], "--ref", files["ref2"],
               "--hyp", files["hyp"])
    assert "nrefs:2" in json.loads(done.stdout)["signature"]
    assert "sentences" not in json.loads(done.stdout)


def test_boolean_options_and_explicit_option_wins(files: dict[str, str]) -> None:
    done = run("score", "--measure", "ter", "--ref", files["ref"], "--hyp", files["hyp"],
               "--option", "case-sensitive=true", "--preset", "default")
    assert done.returncode == 0, done.stderr
    assert "cs:yes" in json.loads(done.stdout)["signature"]


def test_list_describes_every_edit_measure() -> None:
    done = run("list")
    assert done.returncode == 0
    measures = json.loads(done.stdout)
    for name in ("wer", "per", "msder", "cder", "ljwer", "invwer", "ter"):
        assert name in measures
    cder = measures["cder"]["options"]
    assert cder["pad-rule"]["default"] == "both"
    assert cder["direction"]["choices"] == ["forward", "backward", "bidirectional", "maximum"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["score", "--measure", "nope", "--ref", "{ref}", "--hyp", "{hyp}"], "unknown measure"),
        (["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{hyp}", "--option", "x=1"],
         "unknown option"),
        (["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{hyp}", "--option", "lowercase=maybe"],
         "true or false"),
        (["score", "--measure", "cder", "--ref", "{ref}", "--hyp", "{hyp}", "--option", "pad-rule=up"],
         "pad-rule"),
        (["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{hyp}", "--option", "novalue"],
         "KEY=VALUE"),
        (["score", "--measure", "wer", "--ref", "{short}", "--hyp", "{hyp}"], "short.txt"),
        (["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{latin1}"], "latin1.txt"),
        (["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "/nonexistent/file"],
         "/nonexistent/file"),
        (["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{hyp}", "--preset", "zzz"],
         "unknown preset"),
        (["score", "--measure", "wer", "--hyp", "{hyp}"], "--ref"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    files: dict[str, str], arguments: list[str], message: str
) -> None:
    done = run(*(argument.format(**files) for argument in arguments))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert message in done.stderr
