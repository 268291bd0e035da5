"""Judgment files the database cannot take, careless ones that used to pass, and the cap on one
submission: the upload page and ``import_judgments`` give the same one-line message naming file,
line and problem, and store nothing (SQLite and PostgreSQL alike)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from evaltrans.corpora.formats import reading
from judging.humanscores.models import ExternalJudgment, JudgmentSet

from .conftest import DA_HEADER, DA_ROWS, DA_STATS, EVALTRANS_XML, mqm_rows

pytestmark = pytest.mark.django_db

JUDGE = ExternalJudgment._meta.get_field("judge").max_length
SYSTEM = ExternalJudgment._meta.get_field("system").max_length
SEGMENT = ExternalJudgment._meta.get_field("segment_key").max_length
ASPECT = ExternalJudgment._meta.get_field("aspect").max_length
NAME = JudgmentSet._meta.get_field("name").max_length
FILE_NAMES = {"mqm-tsv": "ratings.tsv", "wmt-da-csv": "ad.csv", "evaltrans-xml": "db.xml"}


def control(code: int, column: int) -> str:
    return (
        f"the control character U+{code:04X} (column {column}) cannot be stored or exported: "
        "remove it (tab, line feed and carriage return are the only ones allowed)"
    )


def too_long(what: str, value: str, limit: int) -> str:
    return (
        f"{what} of {len(value):,} characters is too long; at most {limit:,} can be stored "
        f"({value[:30]!r}…)"
    )


def mqm(row: int, old: str, new: str) -> str:
    """The MQM sample with one replacement in data row ``row`` (file line ``row + 2``)."""
    rows = mqm_rows()
    rows[row + 1] = rows[row + 1].replace(old, new, 1)
    return "\n".join(rows) + "\n"


def da(row: int, old: str, new: str) -> str:
    rows = list(DA_ROWS)
    rows[row] = rows[row].replace(old, new, 1)
    return "\n".join([DA_HEADER, *rows]) + "\n"


LONG_JUDGE = "r" * (JUDGE + 1)
LONG_SYSTEM = "s" * (SYSTEM + 1)
LONG_SEGMENT = "9" * (SEGMENT + 1)
LONG_CLASS = "c" * (ASPECT + 1)
MQM_NUL = mqm(1, "Guten", "Gu\x00ten")

CASES = [
    pytest.param(
        "mqm-tsv",
        MQM_NUL,
        f"ratings.tsv, line 3: {control(0, MQM_NUL.split(chr(10))[2].index(chr(0)) + 1)}",
        id="mqm-nul",
    ),
    pytest.param(
        "wmt-da-csv",
        da(0, "W1", "W\x011"),
        f"ad.csv, line 2: {control(1, 5)}",
        id="da-control-character",
    ),
    pytest.param(
        "mqm-tsv",
        mqm(0, "rater1", LONG_JUDGE),
        f"ratings.tsv, line 2: {too_long('judge', LONG_JUDGE, JUDGE)}",
        id="mqm-long-rater",
    ),
    pytest.param(
        "mqm-tsv",
        mqm(0, "\t1\trater1", f"\t{LONG_SEGMENT}\trater1"),
        f"ratings.tsv, line 2: {too_long('segment id', LONG_SEGMENT, SEGMENT)}",
        id="mqm-long-segment-id",
    ),
    pytest.param(
        "wmt-da-csv",
        da(1, "sysB.2", LONG_SYSTEM),
        f"ad.csv, line 3: {too_long('system name', LONG_SYSTEM, SYSTEM)}",
        id="da-long-system",
    ),
    pytest.param(
        "evaltrans-xml",
        EVALTRANS_XML.format(value=3).replace('evaluator="bob"', f'evaluator="{LONG_JUDGE}"', 1),
        f"db.xml, segment '1': {too_long('judge', LONG_JUDGE, JUDGE)}",
        id="evaltrans-long-evaluator",
    ),
    pytest.param(
        "evaltrans-xml",
        EVALTRANS_XML.format(value=3).replace(
            '<eval class="isPerfect" val="0"/>', f'<eval class="{LONG_CLASS}" val="0"/>', 1
        ),
        f'db.xml, line 11, <eval class="{LONG_CLASS[:40]}…">: '
        + too_long("score class", LONG_CLASS, ASPECT),
        id="evaltrans-long-class",
    ),
    pytest.param(
        "mqm-tsv",
        mqm(0, "rater1", "\u200b"),
        "ratings.tsv, line 2: empty rater",
        id="mqm-invisible-rater",
    ),
    pytest.param(
        "wmt-da-csv",
        da(0, "W1", "\u200b"),
        "ad.csv, line 2: empty judge",
        id="da-invisible-worker",
    ),
    pytest.param(
        "mqm-tsv",
        "\n".join(mqm_rows()).replace("\n", "\r") + "\r",
        f"ratings.tsv, line 1: {reading.BARE_CR}",
        id="mqm-classic-mac-line-ends",
    ),
]


def upload(name: str, text: str | bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8") if isinstance(text, str) else text)


def nothing_stored() -> bool:
    return not JudgmentSet.objects.exists() and not ExternalJudgment.objects.exists()


@pytest.mark.parametrize(("import_format", "text", "message"), CASES)
def test_the_upload_page_refuses_with_file_line_and_problem(
    client, admin_user, import_format, text, message
):
    client.force_login(admin_user)
    data = {"format": import_format, "name": "set", "file": upload(FILE_NAMES[import_format], text)}
    response = client.post(reverse("humanscores:import"), data)
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [message]
    assert nothing_stored()


@pytest.mark.parametrize(("import_format", "text", "message"), CASES)
def test_the_command_refuses_with_the_same_one_line_message(
    tmp_path: Path, import_format, text, message
):
    path = tmp_path / FILE_NAMES[import_format]
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(CommandError) as refused:
        call_command("import_judgments", import_format, str(path), "--name", "set")
    assert str(refused.value) == message
    assert nothing_stored()


def test_a_judge_stats_file_is_checked_alike(tmp_path: Path):
    stats = tmp_path / "stats.txt"
    stats.write_text("\n".join(DA_STATS).replace('"W2"', '"W\x002"') + "\n", encoding="utf-8")
    csv = tmp_path / "ad.csv"
    csv.write_text("\n".join([DA_HEADER, *DA_ROWS]) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command(
            "import_judgments", "wmt-da-csv", str(csv), "--name", "x", "--judge-stats", str(stats)
        )
    assert str(refused.value) == f"stats.txt, line 4: {control(0, 7)}"
    assert nothing_stored()


def test_the_total_of_one_submission_is_capped(client, admin_user, settings, tmp_path):
    csv = ("\n".join([DA_HEADER, *DA_ROWS]) + "\n").encode()
    stats = ("\n".join(DA_STATS) + "\n").encode()
    total = len(csv) + len(stats)
    settings.CORPUS_UPLOAD_MAX_TOTAL_BYTES = total - 1
    message = (
        f"the files of one import have {total:,} bytes together, more than the limit of "
        f"{total - 1:,} bytes (CORPUS_UPLOAD_MAX_TOTAL_BYTES)"
    )
    client.force_login(admin_user)
    data = {
        "format": "wmt-da-csv",
        "name": "da",
        "file": upload("ad.csv", csv),
        "judge_stats": upload("stats.txt", stats),
    }
    response = client.post(reverse("humanscores:import"), data)
    assert response.context["form"].non_field_errors() == [message[0].upper() + message[1:] + "."]
    (tmp_path / "ad.csv").write_bytes(csv)
    (tmp_path / "stats.txt").write_bytes(stats)
    with pytest.raises(CommandError) as refused:
        call_command(
            "import_judgments",
            "wmt-da-csv",
            str(tmp_path / "ad.csv"),
            "--name",
            "da",
            "--judge-stats",
            str(tmp_path / "stats.txt"),
        )
    assert str(refused.value) == message
    assert nothing_stored()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("n" * (NAME + 1), f"the judgment set name has {NAME + 1:,} characters; at most {NAME:,} can be stored"),
        ("a\x01b", "judgment set name 'a\\x01b': " + control(1, 2).replace(" (column 2)", "")),
        ("\u200b", "a judgment set needs a name"),
    ],
    ids=["too-long", "control-character", "invisible"],
)  # fmt: skip
def test_the_command_refuses_names_the_database_cannot_store(tmp_path: Path, name, message):
    path = tmp_path / "ratings.tsv"
    path.write_text("\n".join(mqm_rows()) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_judgments", "mqm-tsv", str(path), "--name", name)
    assert str(refused.value) == message
    assert nothing_stored()


def test_crlf_files_still_import(tmp_path: Path):
    path = tmp_path / "ratings.tsv"
    path.write_bytes(("\r\n".join(mqm_rows()) + "\r\n").encode())
    call_command("import_judgments", "mqm-tsv", str(path), "--name", "crlf")
    assert JudgmentSet.objects.get(name="crlf").judgments.count() == 54


# ---------------------------------------------------------------- found by fuzzing


def test_a_z_score_that_overflows_the_raw_score_is_refused(tmp_path: Path):
    csv = tmp_path / "ad.csv"
    csv.write_text(da(0, " 0.5 ", " 1e308 "), encoding="utf-8")
    stats = tmp_path / "stats.txt"
    stats.write_text("\n".join(DA_STATS) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command(
            "import_judgments", "wmt-da-csv", str(csv), "--name", "x", "--judge-stats", str(stats)
        )
    assert str(refused.value) == (
        "ad.csv, line 2: raw score z*sd+mean is not finite: does stats.txt belong to this file?"
    )
    assert nothing_stored()


@pytest.mark.parametrize("time", ["nan", "inf", "1e308"])
def test_judge_times_that_are_no_numbers_are_left_out(tmp_path: Path, time):
    """JSON has no NaN or Infinity: PostgreSQL's jsonb refused the whole set."""
    rows = [row.rsplit(" ", 1)[0] + f" {time}" for row in DA_ROWS]
    rows[3] = rows[3].replace("H1", "H3", 1)  # W1's second HIT: 2 x 1e308 overflows
    csv = tmp_path / "ad.csv"
    csv.write_text("\n".join([DA_HEADER, *rows]) + "\n", encoding="utf-8")
    call_command("import_judgments", "wmt-da-csv", str(csv), "--name", "da")
    seconds = JudgmentSet.objects.get(name="da").metadata["judge_seconds"]
    assert all(math.isfinite(value) for value in seconds.values())
    if time == "1e308":  # PostgreSQL's jsonb gives the number back as an int
        assert list(seconds) == ["W2"] and float(seconds["W2"]) == 1e308


def test_a_levels_class_of_absurdly_many_levels_is_refused(tmp_path: Path):
    path = tmp_path / "db.xml"
    text = EVALTRANS_XML.format(value=3).replace('count="6"', 'count="10000000000"', 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("import_judgments", "evaltrans-xml", str(path), "--name", "x")
    assert str(refused.value) == (
        'db.xml, <levels class="fluency">: 9999999999 valid levels (firstvalid to count-1); '
        "at most 1000 are supported"
    )
    assert nothing_stored()


def test_a_utf_16_file_is_named_as_such(tmp_path: Path):
    """Judgment files have no encoding option: the advice is to convert, not to choose one."""
    path = tmp_path / "ratings.tsv"
    path.write_bytes(("\n".join(mqm_rows()) + "\n").encode("utf-16"))
    with pytest.raises(CommandError) as refused:
        call_command("import_judgments", "mqm-tsv", str(path), "--name", "x")
    assert str(refused.value) == (
        "ratings.tsv: the file looks like utf-16 (it starts with the utf-16 byte-order mark), "
        "not utf-8; save it as UTF-8"
    )
