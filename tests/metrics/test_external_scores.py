"""Scores from elsewhere: ``manage.py import_scores`` and the import page store a measure computed
outside evaltrans (COMET, BLEURT, …) in the result tables, so that the correlation command and
dashboards include it; every bad input gets a message naming file and line and stores nothing."""

from __future__ import annotations

import json
import math
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils.html import escape
from scipy import stats

from evaltrans.corpora.models import Segment
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from metrics.models import SegmentStatistics, SystemScore
from metrics.selectors.correlation import measure_results
from metrics.selectors.runs import segment_arrays
from tests.metrics.run_helpers import OUTPUTS, make_test_set

pytestmark = pytest.mark.django_db(transaction=True)

SYSTEMS = ["sys-a", "sys-b"]
SEG = {
    "sys-a": [0.81, 0.52, 0.60, 0.77, 0.70, 0.44, 0.91, 0.65],
    "sys-b": [0.85, 0.75, 0.58, 0.83, 0.90, 0.88, 0.79, 0.99],
}
SYS = {"sys-a": 0.7125, "sys-b": 0.8212}
HUMAN = {"sys-a": [3, 4, 3, 4, 4, 3, 4, 2], "sys-b": [4, 4, 5, 3, 5, 5, 3, 2]}
SET_NAME = "tiny judgments"
IMPORT_URL = reverse("correlation:import_scores")


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def test_set():
    return make_test_set("tiny")


def seg_text(scores=SEG) -> str:
    return "".join(f"{name}\t{value}\n" for name, values in scores.items() for value in values)


def sys_text(scores=SYS) -> str:
    return "".join(f"{name}\t{value}\n" for name, value in scores.items())


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def import_scores(*args: str) -> str:
    out = StringIO()
    call_command("import_scores", "--test-set", "tiny", *args, stdout=out)
    return out.getvalue()


def result_of(test_set, name: str):
    found = [r for r in measure_results(test_set=test_set) if r.measure == name]
    assert len(found) == 1, found
    return found[0]


def nothing_stored() -> bool:
    return not SystemScore.objects.exists() and not SegmentStatistics.objects.exists()


# ---------------------------------------------------------------- imports


def test_seg_and_sys_files_give_sentence_and_system_scores(test_set, tmp_path):
    seg = write(tmp_path, "COMET-22.seg.score", seg_text())
    sys = write(tmp_path, "COMET-22.sys.score", sys_text())
    out = import_scores("--name", "COMET-22", "--higher-is-better", "--signature", "wmt22-da",
                        "--mtme-seg", seg, "--mtme-sys", sys)  # fmt: skip
    assert "Imported COMET-22 (signature 'wmt22-da', higher is better) for 2 systems" in out
    assert "system scores from COMET-22.sys.score, sentence scores from COMET-22.seg.score" in out
    result = result_of(test_set, "COMET-22")
    assert result.signature == "COMET-22|external:wmt22-da"
    assert result.higher_is_better and not result.negated
    assert result.label == "COMET-22 (external:wmt22-da)"
    assert result.corpus == SYS
    for name in SYSTEMS:
        assert result.sentences[name].tolist() == SEG[name]
    score = SystemScore.objects.get(system__name="sys-a")
    assert score.details["external"] is True
    assert score.details["declared"] == "wmt22-da"
    assert score.details["file"] == "COMET-22.seg.score, COMET-22.sys.score"
    assert score.segment_count == 8
    rows = SegmentStatistics.objects.filter(signature=result.signature)
    assert [(r.start, r.stop, r.stat_names, bytes(r.stats)) for r in rows] == [(0, 8, [], b"")] * 2
    arrays = segment_arrays(test_set=test_set, signature=result.signature)
    assert [a.stats.shape for a in arrays.values()] == [(8, 0), (8, 0)]


def test_lines_of_human_translations_are_skipped_as_mt_metrics_eval_files_have_them(
    test_set, tmp_path
):
    seg = seg_text() + "".join(f"refA\t{0.9}\n" for _ in range(8))
    sys = "refA\t0.9\n" + sys_text()
    import_scores("--name", "COMET-22", "--higher-is-better",
                  "--mtme-seg", write(tmp_path, "a.seg.score", seg),
                  "--mtme-sys", write(tmp_path, "a.sys.score", sys))  # fmt: skip
    assert result_of(test_set, "COMET-22").corpus == SYS
    with pytest.raises(CommandError, match="system 'refinement' is not in the test set"):
        import_scores("--name", "X", "--higher-is-better",
                      "--mtme-sys", write(tmp_path, "b.sys.score", "refinement\t1\n" + sys_text()))  # fmt: skip


@pytest.mark.parametrize(
    "name, human",
    [("ref", True), ("refA", True), ("ref-B", True), ("Human-A.0", True), ("reference", True),
     ("refinement", False), ("Online-W", False), ("humane-mt", False)],
)  # fmt: skip
def test_which_names_are_human_translations(name, human):
    from metrics.human_systems import is_human_system

    assert is_human_system(name) is human
    assert is_human_system(name, {name}) is True


def test_seg_only_system_score_is_the_mean_of_the_sentence_scores(test_set, tmp_path):
    scores = {"sys-a": [*SEG["sys-a"][:7], "None"], "sys-b": SEG["sys-b"]}
    out = import_scores("--name", "BLEURT-20", "--higher-is-better",
                        "--mtme-seg", write(tmp_path, "b.seg.score", seg_text(scores)))  # fmt: skip
    assert "system scores their mean" in out
    result = result_of(test_set, "BLEURT-20")
    assert result.signature == "BLEURT-20|external:unspecified"
    assert result.corpus["sys-a"] == pytest.approx(np.mean(SEG["sys-a"][:7]))
    assert result.corpus["sys-b"] == pytest.approx(np.mean(SEG["sys-b"]))
    assert math.isnan(result.sentences["sys-a"][7])
    assert result.sentences["sys-a"][:7].tolist() == SEG["sys-a"][:7]
    assert SystemScore.objects.get(system__name="sys-a").segment_count == 7


def test_sys_only_is_system_level_only(test_set, tmp_path):
    out = import_scores("--name", "MetricX-23", "--lower-is-better",
                        "--mtme-sys", write(tmp_path, "m.sys.score", sys_text()))  # fmt: skip
    assert "system scores only" in out and "lower is better" in out
    result = result_of(test_set, "MetricX-23")
    assert result.corpus == SYS
    assert result.sentences == {}
    assert result.negated
    assert not SegmentStatistics.objects.exists()


def test_tsv_with_header_and_missing_cells(test_set, tmp_path):
    lines = ["system\tsegment\tscore"]
    lines += [
        f"{name}\t{k + 1}\t{v}" for name in SYSTEMS for k, v in enumerate(SEG[name]) if k != 2
    ]
    lines.reverse()  # any order
    lines.insert(0, lines.pop())
    import_scores("--name", "xCOMET", "--higher-is-better",
                  "--tsv", write(tmp_path, "x.tsv", "\n".join(lines)))  # fmt: skip
    result = result_of(test_set, "xCOMET")
    for name in SYSTEMS:
        expected = [math.nan if k == 2 else v for k, v in enumerate(SEG[name])]
        assert result.sentences[name].tolist() == pytest.approx(expected, nan_ok=True)
        assert result.corpus[name] == pytest.approx(np.nanmean(expected))


def test_importing_again_replaces_and_another_signature_adds(test_set, tmp_path):
    seg = write(tmp_path, "c.seg.score", seg_text())
    import_scores("--name", "COMET-22", "--higher-is-better", "--mtme-seg", seg)
    changed = {name: [v + 1 for v in values] for name, values in SEG.items()}
    out = import_scores("--name", "COMET-22", "--higher-is-better",
                        "--mtme-seg", write(tmp_path, "d.seg.score", seg_text(changed)))  # fmt: skip
    assert "replaces the scores imported before under this name and signature" in out
    assert SystemScore.objects.count() == 2 and SegmentStatistics.objects.count() == 2
    assert result_of(test_set, "COMET-22").sentences["sys-b"].tolist() == changed["sys-b"]
    out = import_scores("--name", "COMET-22", "--higher-is-better", "--signature", "v2",
                        "--mtme-seg", seg)  # fmt: skip
    assert "replaces" not in out
    labels = sorted(r.label for r in measure_results(test_set=test_set))
    assert labels == ["COMET-22 (external:unspecified)", "COMET-22 (external:v2)"]


def test_a_test_set_version_is_chosen(tmp_path):
    make_test_set("tiny")
    newer = make_test_set("tiny", version=2)
    sys = write(tmp_path, "s.sys.score", sys_text())
    out = import_scores("--test-set-version", "1", "--name", "C", "--higher-is-better",
                        "--mtme-sys", sys)  # fmt: skip
    assert "of tiny v1" in out
    assert not SystemScore.objects.filter(test_set=newer).exists()


# ---------------------------------------------------------------- correlation


def make_judgments(test_set):
    segments = {s.index: s for s in Segment.objects.filter(test_set=test_set)}
    judgment_set = JudgmentSet.objects.create(
        name=SET_NAME, source_format="evaltrans-xml", test_set=test_set
    )
    ExternalJudgment.objects.bulk_create(
        ExternalJudgment(judgment_set=judgment_set, system=system, segment_key=str(k + 1),
                         segment=segments[k], judge="ann", aspect="adequacy", raw=float(value))
        for system, values in HUMAN.items()
        for k, value in enumerate(values)
    )  # fmt: skip
    return judgment_set


def correlate(*args: str) -> dict:
    out = StringIO()
    call_command("correlate", "--human", SET_NAME, "--test-set", "tiny", *args, "--json",
                 stdout=out)  # fmt: skip
    return json.loads(out.getvalue())


def cell(payload: dict, measure: str, coefficient: str = "pearson") -> dict:
    rows = [r for r in payload["correlations"] if r["measure"] == measure]
    return next(r for r in rows if r["coefficient"] == coefficient)


def test_correlate_includes_external_measures_with_the_sign_convention(test_set, tmp_path):
    make_judgments(test_set)
    call_command("evaluate", "--test-set", "tiny", "--measures", "wer", "--eager",
                 stdout=StringIO(), stderr=StringIO())  # fmt: skip
    seg = write(tmp_path, "c.seg.score", seg_text())
    import_scores("--name", "COMET-22", "--higher-is-better", "--mtme-seg", seg)
    import_scores("--name", "ERR-22", "--lower-is-better", "--mtme-seg", seg)
    import_scores("--name", "SYS-ONLY", "--higher-is-better",
                  "--mtme-sys", write(tmp_path, "s.sys.score", sys_text()))  # fmt: skip
    payload = correlate("--level", "segment")
    assert {r["measure"] for r in payload["correlations"]} == {
        "wer", "COMET-22", "ERR-22", "SYS-ONLY"
    }  # fmt: skip
    x = np.array([SEG[name] for name in SYSTEMS]).ravel()
    y = np.array([HUMAN[name] for name in SYSTEMS], dtype=float).ravel()
    expected = stats.pearsonr(x, y)[0]
    comet, error = cell(payload, "COMET-22"), cell(payload, "ERR-22")
    assert comet["value"] == pytest.approx(expected, abs=1e-12) and not comet["negated"]
    assert error["value"] == pytest.approx(-expected, abs=1e-12) and error["negated"]
    assert comet["n"] == 16
    assert cell(payload, "SYS-ONLY")["value"] is None  # no sentence scores
    assert cell(payload, "wer")["negated"]
    only = correlate("--level", "segment", "--measures", "COMET-22")
    assert {r["measure"] for r in only["correlations"]} == {"COMET-22"}


def test_the_matrix_page_lists_the_external_measure(client, test_set, tmp_path, viewer_user):
    judgment_set = make_judgments(test_set)
    import_scores("--name", "COMET-22", "--higher-is-better",
                  "--mtme-seg", write(tmp_path, "c.seg.score", seg_text()))  # fmt: skip
    import_scores("--name", "MetricX", "--lower-is-better",
                  "--mtme-sys", write(tmp_path, "m.sys.score", sys_text()))  # fmt: skip
    client.force_login(viewer_user)
    for coefficient in ("pearson", "kendall-b"):
        response = client.get(
            reverse("correlation:matrix", args=["set", judgment_set.pk]),
            {"coefficient": coefficient, "significance": "on"},
        )
        assert response.status_code == 200
        assert [row.label for row in response.context["matrix"].rows] == [
            "COMET-22 (external:unspecified)",
            "MetricX (external:unspecified)",
        ]
    response = client.get(reverse("correlation:scatter", args=["set", judgment_set.pk]))
    assert response.status_code == 200


# ---------------------------------------------------------------- bad input

GOOD_SEG = seg_text()
GOOD_SYS = sys_text()
KNOWN = "(its systems: sys-a, sys-b)"


@pytest.mark.parametrize(
    "files, message",
    [
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG + "sys-z\t0.5\n")},
         f"x.seg.score, line 17: system 'sys-z' is not in the test set {KNOWN}"),
        ({"--mtme-sys": ("x.sys.score", "sys-a\t1\n")},
         "x.sys.score: no scores for system 'sys-b' of the test set; the file needs every system"),
        ({"--mtme-seg": ("x.seg.score", "".join(f"sys-a\t{v}\n" for v in SEG["sys-a"]))},
         "x.seg.score: no scores for system 'sys-b' of the test set"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG + "sys-a\t0.5\n")},
         "x.seg.score, line 17: system 'sys-a' has more lines than the test set has segments (8)"),
        ({"--mtme-seg": ("x.seg.score", seg_text({"sys-a": SEG["sys-a"][:7], "sys-b": SEG["sys-b"]}))},
         "x.seg.score, line 7: system 'sys-a' has 7 lines, but the test set has 8 segments"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG.replace("0.6\n", "zero\n"))},
         "x.seg.score, line 3: score 'zero' is not a number (write None for a missing score)"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG.replace("0.6\n", "inf\n"))},
         "x.seg.score, line 3: score 'inf' is not a finite number"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG.replace("0.6\n", "\n"))},
         "x.seg.score, line 3: score '' is not a number"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG.replace("sys-a\t0.6\n", "sys-a 0.6\n"))},
         "x.seg.score, line 3: expected SYSTEM<TAB>SCORE, found 1 tab-separated field"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG.replace("sys-a\t0.6\n", "\n"))},
         "x.seg.score, line 3: empty line; every line needs SYSTEM<TAB>SCORE"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG.replace("sys-a\t0.6\n", "\t0.6\n"))},
         "x.seg.score, line 3: empty system name"),
        ({"--mtme-sys": ("x.sys.score", GOOD_SYS + "sys-a\t0.1\n")},
         "x.sys.score, line 3: system 'sys-a' appears twice (first on line 1)"),
        ({"--mtme-seg": ("x.seg.score", GOOD_SEG), "--mtme-sys": ("x.sys.score", "sys-a\t1\n")},
         "x.sys.score: no scores for system 'sys-b'"),
        ({"--tsv": ("x.tsv", "sys-a\t9\t0.5\nsys-b\t1\t0.5\n")},
         "x.tsv, line 1: segment 9 is out of range: the test set has segments 1 to 8"),
        ({"--tsv": ("x.tsv", "system\tsegment\tscore\nsys-a\t0\t0.5\n")},
         "x.tsv, line 2: segment 0 is out of range"),
        ({"--tsv": ("x.tsv", "sys-a\tone\t0.5\n")},
         "x.tsv, line 1: segment 'one' is not a segment number (1 to 8)"),
        ({"--tsv": ("x.tsv", "sys-a\t2\t0.5\nsys-b\t1\t0.5\nsys-a\t2\t0.7\n")},
         "x.tsv, line 3: system 'sys-a' segment 2 appears twice (first on line 1)"),
        ({"--tsv": ("x.tsv", "sys-a\t2\t0.5\n")}, "x.tsv: no scores for system 'sys-b'"),
        ({"--tsv": ("x.tsv", "sys-a\t2\n")},
         "x.tsv, line 1: expected system<TAB>segment<TAB>score, found 2 tab-separated fields"),
        ({"--tsv": ("x.tsv", "system\tsegment\tscore\n")}, "x.tsv: the file has a header but no scores"),
        ({"--mtme-seg": ("x.seg.score", "")}, "x.seg.score: the file is empty"),
        ({"--mtme-sys": ("x.sys.score", " \n\n")}, "x.sys.score: the file is empty"),
        ({"--mtme-sys": ("x.sys.score", b"sys-a\t1\nsys-\xe9\t2\n")},
         "x.sys.score, line 2: the file is not valid UTF-8 (byte 0xe9 cannot be decoded)"),
        ({}, "give a score file: mtme-seg, mtme-sys (or both), or tsv"),
        ({"--tsv": ("x.tsv", "sys-a\t1\t1\n"), "--mtme-sys": ("x.sys.score", GOOD_SYS)},
         "a tsv file cannot be combined with mt-metrics-eval files"),
    ],
)  # fmt: skip
def test_bad_files_name_file_and_line_and_store_nothing(test_set, tmp_path, files, message):
    args = []
    for option, (name, content) in files.items():
        args += [option, write(tmp_path, name, content)]
    with pytest.raises(CommandError) as error:
        import_scores("--name", "COMET-22", "--higher-is-better", *args)
    assert str(error.value).startswith(message)
    assert nothing_stored()


@pytest.mark.parametrize(
    "name, message",
    [
        ("COMET 22", "bad measure name 'COMET 22': use letters, digits and - _ . + only"),
        ("<b>x</b>", "bad measure name '<b>x</b>'"),
        ("-comet", "bad measure name '-comet'"),
        ("x" * 65, "bad measure name"),
        ("bleu", "'bleu' is the name of a built-in measure (bleu); give the imported scores"),
        ("TER", "'TER' is the name of a built-in measure (ter)"),
    ],
)
def test_bad_and_builtin_names_are_refused(test_set, tmp_path, name, message):
    sys = write(tmp_path, "s.sys.score", GOOD_SYS)
    with pytest.raises(CommandError) as error:
        import_scores(f"--name={name}", "--higher-is-better", "--mtme-sys", sys)
    assert str(error.value).startswith(message)
    assert nothing_stored()


def test_command_level_errors(test_set, tmp_path, settings):
    sys = write(tmp_path, "s.sys.score", GOOD_SYS)
    with pytest.raises(CommandError, match="no test set named 'nothing'"):
        call_command("import_scores", "--test-set", "nothing", "--name", "C",
                     "--higher-is-better", "--mtme-sys", sys)  # fmt: skip
    with pytest.raises(CommandError, match="no test set named 'tiny' with version 5"):
        import_scores("--test-set-version", "5", "--name", "C", "--higher-is-better",
                      "--mtme-sys", sys)  # fmt: skip
    with pytest.raises(CommandError, match="missing.sys.score: no such file"):
        import_scores("--name", "C", "--higher-is-better", "--mtme-sys", "missing.sys.score")
    with pytest.raises(CommandError, match="one of the arguments --higher-is-better"):
        import_scores("--name", "C", "--mtme-sys", sys)
    with pytest.raises(CommandError, match="not allowed with argument"):
        import_scores("--name", "C", "--higher-is-better", "--lower-is-better", "--mtme-sys", sys)
    with pytest.raises(CommandError, match="the signature must be one line"):
        import_scores("--name", "C", "--higher-is-better", "--signature", "a\nb", "--mtme-sys", sys)
    settings.CORPUS_UPLOAD_MAX_BYTES = 10
    with pytest.raises(CommandError, match=r"bytes is above the limit of 10 bytes"):
        import_scores("--name", "C", "--higher-is-better", "--mtme-sys", sys)
    assert nothing_stored()


def test_a_bad_file_keeps_the_scores_imported_before(test_set, tmp_path):
    sys = write(tmp_path, "s.sys.score", GOOD_SYS)
    import_scores("--name", "C", "--higher-is-better", "--mtme-sys", sys)
    bad = write(tmp_path, "t.sys.score", "sys-a\t5\n")
    with pytest.raises(CommandError):
        import_scores("--name", "C", "--lower-is-better", "--mtme-sys", bad)
    assert result_of(test_set, "C").corpus == SYS
    assert SystemScore.objects.filter(higher_is_better=True).count() == 2


# ---------------------------------------------------------------- the page


def upload(name: str, content: str | bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content.encode() if isinstance(content, str) else content)


def form_data(test_set, **overrides):
    data = {
        "test_set": test_set.pk,
        "name": "COMET-22",
        "direction": "higher",
        "signature": "unspecified",
        "seg_file": upload("c.seg.score", GOOD_SEG),
        "sys_file": upload("c.sys.score", GOOD_SYS),
    }
    data.update(overrides)
    return data


def test_admins_import_on_the_page_and_return_to_the_index(client, admin_user, test_set):
    client.force_login(admin_user)
    index = client.get(reverse("correlation:index")).content.decode()
    assert f'href="{IMPORT_URL}"' in index and "Import metric scores" in index
    page = client.get(IMPORT_URL)
    assert page.status_code == 200
    html = page.content.decode()
    assert "tiny v1 (en→en, 8 segments, 2 systems)" in html
    assert 'value="lower"' in html and 'name="csrfmiddlewaretoken"' in html
    response = client.post(IMPORT_URL, form_data(test_set, direction="lower"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("correlation:index")
    messages = [m.message for m in response.context["messages"]]
    assert messages and messages[0].startswith("Imported COMET-22 (signature 'unspecified', lower")
    result = result_of(test_set, "COMET-22")
    assert result.corpus == SYS and result.negated
    assert SystemScore.objects.first().details["imported_by"] == admin_user.username


def test_viewers_and_judges_are_forbidden(client, viewer_user, judge_user, test_set):
    for user in (viewer_user, judge_user):
        client.force_login(user)
        assert client.get(IMPORT_URL).status_code == 403
        assert client.post(IMPORT_URL, form_data(test_set)).status_code == 403
    client.force_login(viewer_user)
    assert "Import metric scores" not in client.get(reverse("correlation:index")).content.decode()
    client.logout()
    assert client.get(IMPORT_URL).status_code == 302  # to the login page
    assert nothing_stored()


def test_a_bad_file_shows_the_error_in_the_page_escaped(client, admin_user):
    outputs = {"sys-a": OUTPUTS["sys-a"], "<b>sys-d</b>": OUTPUTS["sys-b"]}
    test_set = make_test_set("tiny", outputs=outputs)
    client.force_login(admin_user)
    bad = "<script>alert(1)</script>\t0.5\n"
    response = client.post(
        IMPORT_URL, form_data(test_set, seg_file=upload("c.seg.score", bad), sys_file="")
    )
    assert response.status_code == 200
    html = response.content.decode()
    message = (
        "c.seg.score, line 1: system '<script>alert(1)</script>' is not in the test set "
        "(its systems: <b>sys-d</b>, sys-a)"
    )
    assert escape(message) in html
    assert "<script>alert(1)" not in html and "<b>sys-d</b>" not in html
    assert nothing_stored()


def test_field_errors_on_the_page(client, admin_user, test_set, settings):
    client.force_login(admin_user)
    response = client.post(IMPORT_URL, form_data(test_set, name="bleu"))
    assert "is the name of a built-in measure" in response.content.decode()
    response = client.post(IMPORT_URL, form_data(test_set, direction=""))
    assert response.context["form"].errors["direction"]
    response = client.post(IMPORT_URL, form_data(test_set, seg_file="", sys_file=""))
    assert "give a score file" in response.content.decode()
    settings.CORPUS_UPLOAD_MAX_BYTES = 10
    response = client.post(IMPORT_URL, form_data(test_set))
    assert "the limit is 10 bytes" in response.content.decode()
    assert nothing_stored()
