"""The command line: ``python -m metrics.core`` (JSON output, the measure list, every usage
error) and ``cli.main`` in process: ``--ref`` only where a measure needs references, the
approximation count of LJWER/INVWER and the complexity factor as extra JSON keys, the options
in ``list``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.core import METRICS, cli

PROJECT = Path(__file__).resolve().parents[3]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "metrics.core", *args],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
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
    done = run(
        "score",
        "--measure",
        "wer",
        "--ref",
        files["ref"],
        "--hyp",
        files["hyp"],
        "--option",
        "tokenize=none",
        "--sentences",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"measure", "signature", "score", "sentences"}
    assert result["score"] == pytest.approx(100 * 2 / 8)  # 1/6 + 1/2 edits over 8 words
    assert result["sentences"] == pytest.approx([100 / 6, 50.0])
    assert "tok:none" in result["signature"] and "nrefs:1" in result["signature"]


def test_two_references_and_null_sentence_scores(files: dict[str, str]) -> None:
    done = run(
        "score", "--measure", "per", "--ref", files["ref2"], "--hyp", files["hyp"], "--sentences"
    )
    result = json.loads(done.stdout)
    assert result["sentences"][1] is None  # empty reference: undefined rate
    done = run(
        "score",
        "--measure",
        "ter",
        "--ref",
        files["ref"],
        "--ref",
        files["ref2"],
        "--hyp",
        files["hyp"],
    )
    assert "nrefs:2" in json.loads(done.stdout)["signature"]
    assert "sentences" not in json.loads(done.stdout)


def test_boolean_options_and_explicit_option_wins(files: dict[str, str]) -> None:
    done = run(
        "score",
        "--measure",
        "ter",
        "--ref",
        files["ref"],
        "--hyp",
        files["hyp"],
        "--option",
        "case-sensitive=true",
        "--preset",
        "default",
    )
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
        (
            ["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{hyp}", "--option", "x=1"],
            "unknown option",
        ),
        (
            [
                "score",
                "--measure",
                "wer",
                "--ref",
                "{ref}",
                "--hyp",
                "{hyp}",
                "--option",
                "lowercase=maybe",
            ],
            "true or false",
        ),
        (
            [
                "score",
                "--measure",
                "cder",
                "--ref",
                "{ref}",
                "--hyp",
                "{hyp}",
                "--option",
                "pad-rule=up",
            ],
            "pad-rule",
        ),
        (
            [
                "score",
                "--measure",
                "wer",
                "--ref",
                "{ref}",
                "--hyp",
                "{hyp}",
                "--option",
                "novalue",
            ],
            "KEY=VALUE",
        ),
        (["score", "--measure", "wer", "--ref", "{short}", "--hyp", "{hyp}"], "short.txt"),
        (["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{latin1}"], "latin1.txt"),
        (
            ["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "/nonexistent/file"],
            "/nonexistent/file",
        ),
        (
            ["score", "--measure", "wer", "--ref", "{ref}", "--hyp", "{hyp}", "--preset", "zzz"],
            "unknown preset",
        ),
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


def write(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if captured.out else {}, captured.err


def test_asw_needs_no_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp = write(tmp_path, "hyp.txt", ["university education", "the cat"])
    status, result, _ = run_main(capsys, "score", "--measure", "asw", "--hyp", hyp, "--sentences")
    assert status == 0
    # university 5 + education 4 syllables over 2 words; the cat: 1 + 1 over 2.
    assert result["score"] == pytest.approx(11 / 4)
    assert result["sentences"] == pytest.approx([4.5, 1.0])
    assert "nrefs:0" in result["signature"]


@pytest.mark.parametrize("measure", sorted(name for name in METRICS if name != "asw"))
def test_measures_with_references_say_that_ref_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], measure: str
) -> None:
    hyp = write(tmp_path, "hyp.txt", ["a b"])
    status, result, error = run_main(capsys, "score", "--measure", measure, "--hyp", hyp)
    assert (status, result) == (cli.USAGE_ERROR, {})
    assert error.strip().splitlines() == [f"error: measure {measure} needs at least one --ref file"]


def test_needs_references_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    _, listed, _ = run_main(capsys, "list")
    assert listed["asw"]["needs_references"] is False
    assert listed["wer"]["needs_references"] is True


@pytest.mark.parametrize(
    ("measure", "option"), [("ljwer", "max-length=2"), ("invwer", "max-length=2")]
)
def test_approximated_segments_in_the_json_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], measure: str, option: str
) -> None:
    # Beyond the cap: a block swap (approximated) and a substitution (bounds meet, exact).
    hyp = write(tmp_path, "hyp.txt", ["c d a b", "a b x d", "a b"])
    ref = write(tmp_path, "ref.txt", ["a b c d", "a b c d", "a b"])
    status, result, _ = run_main(
        capsys,
        "score",
        "--measure",
        measure,
        "--ref",
        ref,
        "--hyp",
        hyp,
        "--option",
        "tokenize=none",
        "--option",
        option,
    )
    assert status == 0
    assert result["approximated_segments"] == 1
    assert result["score"] == pytest.approx(100 * (4 + 1 + 0) / 10)
    assert set(result) == {"measure", "signature", "score", "approximated_segments"}


def test_exact_runs_report_zero_approximated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp = write(tmp_path, "hyp.txt", ["c d a b"])
    ref = write(tmp_path, "ref.txt", ["a b c d"])
    _, result, _ = run_main(
        capsys,
        "score",
        "--measure",
        "ljwer",
        "--ref",
        ref,
        "--hyp",
        hyp,
        "--option",
        "tokenize=none",
    )
    assert result["approximated_segments"] == 0
    assert result["score"] == pytest.approx(75.0)  # d_LJ = 3 (spec §8) over 4 words


def test_complexity_factor_key_for_asw_and_bleu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hyp = write(tmp_path, "hyp.txt", ["university education"])
    _, result, _ = run_main(
        capsys, "score", "--measure", "asw", "--hyp", hyp, "--option", "reference-asw=3"
    )
    assert result["complexity_factor"] == pytest.approx(1.5)
    text = write(tmp_path, "text.txt", ["the university education of the young"])
    _, result, _ = run_main(
        capsys,
        "score",
        "--measure",
        "bleu",
        "--ref",
        text,
        "--hyp",
        text,
        "--option",
        "complexity-factor=1.5",
    )
    assert result["complexity_factor"] == 1.5
    assert result["score"] == pytest.approx(100 * 1.5**2)
    _, result, _ = run_main(capsys, "score", "--measure", "bleu", "--ref", text, "--hyp", text)
    assert set(result) == {"measure", "signature", "score"}


def test_list_shows_the_new_options(capsys: pytest.CaptureFixture[str]) -> None:
    _, listed, _ = run_main(capsys, "list")
    for measure in ("bleu", "wnm"):
        option = listed[measure]["options"]["complexity-factor"]
        assert (option["default"], option["type"]) == (1.0, "float")
    lowercase = listed["ter"]["options"]["lowercase"]
    assert (lowercase["default"], lowercase["type"]) == (True, "bool")
