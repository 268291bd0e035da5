"""Hostile option values: bounded numbers refused with the same message by the core, the run
form and the command line, and WNM corpus statistics that come from an upload on the web,
never from a server path (one message for any path, so it tells nothing about the files)."""

from __future__ import annotations

import html
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from metrics import forms as run_forms
from metrics.core import METRICS, MeasureError, cli
from metrics.models import MetricRun, SystemScore
from metrics.selectors.sweep import sweepable_options
from tests.metrics.run_helpers import OUTPUTS, REFERENCES, make_test_set

PROJECT = Path(__file__).resolve().parents[2]

HOSTILE = [
    ("chrf", "char-order", "99999999999999999999", "is above 20"),
    ("chrf", "word-order", "99999999999999999999", "is above 20"),
    ("nist", "max-ngram", "10000000", "is above 20"),
    ("mper", "max-ngram", "10000000", "is above 20"),
    ("bleu", "max-ngram", "1e20", "expected a whole number"),
    ("bleu", "max-ngram", "100000000000000000000", "is above 20"),
    ("mper", "max-ngram", "1e20", "expected a whole number"),
    ("bleu", "max-ngram", "100000", "is above 20"),
    ("chrf", "char-order", "100000", "is above 20"),
    ("nist", "max-ngram", "100000", "is above 20"),
    ("chrf", "beta", "nan", "expected a finite number"),
    ("bleu", "smooth-value", "1e400", "expected a finite number"),
    ("wnm", "complexity-factor", "-inf", "expected a finite number"),
]
STATS = "<CorpStat>;30;3\nthe;6;3\nsat;1;1\nmat;1;1\non;3;3\n"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_user("boss", password="pw", is_staff=True))
    return client


def post_run(client, test_set, measures, data=None, **files):
    payload = {
        "test_set": test_set.pk,
        "systems": list(test_set.systems.values_list("pk", flat=True)),
        "measures": measures,
        **(data or {}),
        **files,
    }
    return client.post(reverse("metrics:run_create"), payload)


def page_errors(response) -> list[str]:
    """The messages of the form's error box and of its fields, unescaped."""
    text = response.content.decode()
    found = re.findall(r'class="(?:error-box|field-error)">(.*?)</(?:div|span)>', text, re.S)
    return [html.unescape(message) for message in found]


def write_lines(path: Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


# -- numbers: the core, the form and the command line give one message ------------------


@pytest.mark.parametrize(("measure", "key", "value", "message"), HOSTILE)
def test_the_core_refuses_hostile_numbers(measure, key, value, message):
    with pytest.raises(MeasureError, match=f"option {key}: .*{message}"):
        METRICS[measure](**{key: value})


@pytest.mark.parametrize(("measure", "key", "value", "message"), HOSTILE)
def test_the_run_form_refuses_hostile_numbers(admin_client, measure, key, value, message):
    test_set = make_test_set()
    response = post_run(admin_client, test_set, [measure], {f"opt__{measure}__{key}": value})
    assert response.status_code == 200
    errors = page_errors(response)
    assert any(f"option {key}:" in error and message in error for error in errors), errors
    assert MetricRun.objects.count() == 0


@pytest.mark.parametrize(("measure", "key", "value", "message"), HOSTILE)
def test_the_command_line_refuses_hostile_numbers(tmp_path, capsys, measure, key, value, message):
    hyp = write_lines(tmp_path / "hyp.txt", ["a b c"])
    ref = write_lines(tmp_path / "ref.txt", ["a b d"])
    arguments = ["score", "--measure", measure, "--ref", ref, "--hyp", hyp]
    status = cli.main([*arguments, "--option", f"{key}={value}"])
    captured = capsys.readouterr()
    assert status == cli.USAGE_ERROR and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: option {key}:")
    assert message in lines[0]


def test_the_command_line_process_exits_with_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "metrics.core", "score", "--measure", "chrf"]
        + ["--ref", os.devnull, "--hyp", os.devnull, "--option", "char-order=99999999999999999999"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == cli.USAGE_ERROR
    assert done.stderr.strip() == "error: option char-order: '99999999999999999999' is above 20"


def test_the_form_gives_number_inputs_the_bounds(admin_client):
    test_set = make_test_set()
    page = admin_client.get(reverse("metrics:run_create") + f"?test_set={test_set.pk}")
    text = page.content.decode()
    field = re.search(r'<input[^>]*name="opt__chrf__char-order"[^>]*>', text).group(0)
    assert 'type="number"' in field and 'min="1"' in field and 'max="20"' in field
    beta = re.search(r'<input[^>]*name="opt__chrf__beta"[^>]*>', text).group(0)
    assert 'max="100"' in beta and 'step="any"' in beta


def test_a_refused_option_opens_its_measure(admin_client):
    test_set = make_test_set()
    response = post_run(admin_client, test_set, ["chrf"], {"opt__chrf__char-order": "21"})
    assert re.search(
        r'<details class="measure" data-measure="chrf" open>', response.content.decode()
    )


# -- WNM corpus statistics: an upload on the web, a path only on the command line ----------


@pytest.mark.parametrize("path", ["/etc/hostname", "/nonexistent", "corpus.txt", " "])
def test_the_web_refuses_every_corpus_stats_path_with_one_message(admin_client, path):
    test_set = make_test_set()
    response = post_run(admin_client, test_set, ["wnm"], {"opt__wnm__corpus-stats": path})
    assert response.status_code == 200
    assert page_errors(response) == [
        run_forms.SERVER_PATH_REFUSED.format(measure="wnm", key="corpus-stats")
    ]
    assert MetricRun.objects.count() == 0


def test_existing_and_missing_files_are_refused_alike(admin_client):
    test_set = make_test_set()
    pages = [
        post_run(admin_client, test_set, ["wnm"], {"opt__wnm__corpus-stats": path})
        for path in ("/etc/hostname", "/nonexistent")
    ]
    assert page_errors(pages[0]) == page_errors(pages[1])
    assert MetricRun.objects.count() == 0


def test_the_form_offers_an_upload_and_no_path_field(admin_client):
    test_set = make_test_set()
    text = admin_client.get(reverse("metrics:run_create") + f"?test_set={test_set.pk}").content
    assert b'enctype="multipart/form-data"' in text
    assert b'type="file" name="opt__wnm__corpus-stats-text"' in text
    assert b'name="opt__wnm__corpus-stats"' not in text


def test_sweeps_offer_no_file_option():
    assert "corpus-stats" not in sweepable_options("wnm")
    assert "corpus-stats-text" not in sweepable_options("wnm")
    assert "max-ngram" in sweepable_options("wnm")


def test_uploaded_statistics_score_as_the_command_line_with_the_file(
    admin_client, tmp_path, capsys
):
    test_set = make_test_set()
    upload = SimpleUploadedFile("stats.txt", STATS.encode("utf-8"))
    response = post_run(
        admin_client,
        test_set,
        ["wnm"],
        {"opt__wnm__tokenize": "none", "opt__wnm__lowercase": "on"},
        **{"opt__wnm__corpus-stats-text": upload},
    )
    run = MetricRun.objects.get()
    assert response.status_code == 302 and run.status == MetricRun.Status.DONE
    signature = run.measures.get().signature
    assert "corpus:sha256-" in signature and "<CorpStat>" not in signature

    stats = tmp_path / "stats.txt"
    stats.write_text(STATS, encoding="utf-8")
    ref = write_lines(tmp_path / "ref.txt", REFERENCES)
    for system, lines in OUTPUTS.items():
        hyp = write_lines(tmp_path / f"{system}.txt", list(lines))
        options = ["--option", "tokenize=none", "--option", f"corpus-stats={stats}"]
        status = cli.main(["score", "--measure", "wnm", "--ref", ref, "--hyp", hyp, *options])
        assert status == 0
        printed = json.loads(capsys.readouterr().out)
        stored = SystemScore.objects.get(test_set=test_set, system__name=system)
        assert printed["signature"] == stored.signature == signature
        assert stored.score == pytest.approx(printed["score"], abs=1e-12)


def test_a_web_run_with_uploaded_statistics_names_the_file_by_its_hash(admin_client, tmp_path):
    """The stored command line, with the upload saved under the name it gives, asks for the
    same signature: nothing is computed again."""
    test_set = make_test_set()
    upload = SimpleUploadedFile("stats.txt", STATS.encode("utf-8"))
    post_run(admin_client, test_set, ["wnm"], **{"opt__wnm__corpus-stats-text": upload})
    web = MetricRun.objects.get()
    words = shlex.split(web.command_line)
    option = next(word for word in words if word.startswith("wnm.corpus-stats="))
    name = option.partition("=")[2]
    assert re.fullmatch(r"corpus-stats-sha256-[0-9a-f]{16}\.txt", name)
    assert STATS not in web.command_line
    report = admin_client.get(reverse("metrics:run_download", args=[web.pk, "xml"])).content
    assert f"<corpus-stats>{name}</corpus-stats>".encode() in report
    assert b"<CorpStat>" not in report and b"&lt;CorpStat&gt;" not in report
    (tmp_path / name).write_text(STATS, encoding="utf-8")
    words[words.index(option)] = f"wnm.corpus-stats={tmp_path / name}"
    call_command(*words[1:], "--eager", "--json", stdout=io.StringIO(), stderr=io.StringIO())
    again = MetricRun.objects.exclude(pk=web.pk).get()
    assert list(again.measures.values_list("signature", flat=True)) == [
        web.measures.get().signature
    ]
    assert again.planned_tasks == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"word;1;1\n", "line 1: the first line must be <CorpStat>;tokens;texts"),
        (b"<CorpStat>;30;3\nthe;x;3\n", "line 2: frequency 'x' is not a whole number"),
        (b"<CorpStat>;30;3\n\xff\n", "not UTF-8"),
    ],
)
def test_a_bad_upload_is_a_form_error(admin_client, content, message):
    test_set = make_test_set()
    upload = SimpleUploadedFile("stats.txt", content)
    response = post_run(admin_client, test_set, ["wnm"], **{"opt__wnm__corpus-stats-text": upload})
    assert response.status_code == 200
    assert any(message in error for error in page_errors(response)), page_errors(response)
    assert MetricRun.objects.count() == 0


def test_an_upload_above_the_cap_is_refused_before_it_is_read(admin_client, monkeypatch):
    monkeypatch.setattr(run_forms, "FILE_MAX_BYTES", 10)
    test_set = make_test_set()
    upload = SimpleUploadedFile("stats.txt", STATS.encode("utf-8"))
    response = post_run(admin_client, test_set, ["wnm"], **{"opt__wnm__corpus-stats-text": upload})
    assert response.status_code == 200
    expected = f"wnm corpus-stats-text: the file has {len(STATS):,} bytes, above the limit of 10"
    assert expected in page_errors(response)
    assert MetricRun.objects.count() == 0


@pytest.mark.parametrize("kind", ["device", "directory", "fifo"])
def test_the_command_line_reads_corpus_stats_only_from_regular_files(tmp_path, capsys, kind):
    if kind == "device":
        path = "/dev/zero"
    elif kind == "directory":
        path = str(tmp_path)
    else:
        path = str(tmp_path / "pipe")
        os.mkfifo(path)  # nobody writes: reading it would wait forever
    hyp = write_lines(tmp_path / "hyp.txt", ["a b c"])
    status = cli.main(
        ["score", "--measure", "wnm", "--ref", hyp, "--hyp", hyp]
        + ["--option", f"corpus-stats={path}"]
    )
    assert status == cli.USAGE_ERROR
    assert capsys.readouterr().err.strip() == (
        f"error: option corpus-stats: {path}: not a regular file"
    )
