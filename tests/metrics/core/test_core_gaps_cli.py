"""Command line: ``--ref`` only where a measure needs references, the approximation count of
LJWER/INVWER and the complexity factor as extra JSON keys, the new options in ``list``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metrics.core import METRICS, cli


def write(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if captured.out else {}, captured.err


def test_asw_needs_no_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hyp = write(tmp_path, "hyp.txt", ["university education", "the cat"])
    status, result, _ = run(capsys, "score", "--measure", "asw", "--hyp", hyp, "--sentences")
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
    status, result, error = run(capsys, "score", "--measure", measure, "--hyp", hyp)
    assert (status, result) == (cli.USAGE_ERROR, {})
    assert error.strip().splitlines() == [f"error: measure {measure} needs at least one --ref file"]


def test_needs_references_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    _, listed, _ = run(capsys, "list")
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
    status, result, _ = run(
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
    _, result, _ = run(
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
    _, result, _ = run(
        capsys, "score", "--measure", "asw", "--hyp", hyp, "--option", "reference-asw=3"
    )
    assert result["complexity_factor"] == pytest.approx(1.5)
    text = write(tmp_path, "text.txt", ["the university education of the young"])
    _, result, _ = run(
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
    _, result, _ = run(capsys, "score", "--measure", "bleu", "--ref", text, "--hyp", text)
    assert set(result) == {"measure", "signature", "score"}


def test_list_shows_the_new_options(capsys: pytest.CaptureFixture[str]) -> None:
    _, listed, _ = run(capsys, "list")
    for measure in ("bleu", "wnm"):
        option = listed[measure]["options"]["complexity-factor"]
        assert (option["default"], option["type"]) == (1.0, "float")
    lowercase = listed["ter"]["options"]["lowercase"]
    assert (lowercase["default"], lowercase["type"]) == (True, "bool")
