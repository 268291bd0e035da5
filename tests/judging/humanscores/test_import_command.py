"""import_judgments: every format through the command; bad input gives a clear message naming
file and line, a non-zero exit (CommandError) and stores nothing."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evaltrans.corpora.formats.base import InputFile
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml
from evaltrans.corpora.services import testset_import
from judging.humanscores import services
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from judging.models import Campaign

from .conftest import DA_HEADER, DA_ROWS, DA_STATS, EVALTRANS_XML, mqm_rows, write

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_judgments", *args, stdout=out)
    return out.getvalue()


def refused(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert JudgmentSet.objects.count() == 0
    assert ExternalJudgment.objects.count() == 0
    return str(caught.value)


def test_mqm_tsv_attached_to_its_test_set(files, toy_test_set):
    output = run("mqm-tsv", str(files["mqm"]), "--name", "toy mqm", "--test-set", "toy")
    judgment_set = JudgmentSet.objects.get(name="toy mqm")
    assert judgment_set.test_set == toy_test_set
    assert "attached to test set toy v1" in output
    # 3 systems x 3 segments x 2 raters x 3 aspects
    assert judgment_set.judgments.count() == 54
    assert not judgment_set.judgments.filter(segment__isnull=True).exists()
    major = judgment_set.judgments.get(
        system="sysA", segment_key="1", judge="rater1", aspect="mqm-accuracy"
    )
    assert major.raw == -5.0 and major.segment.seg_id == "1"
    assert judgment_set.metadata["scales"]["mqm"] == {"kind": "mqm"}


def test_test_set_named_with_its_version(files, toy_test_set):
    run("mqm-tsv", str(files["mqm"]), "--name", "v", "--test-set", "toy v1")
    assert JudgmentSet.objects.get(name="v").test_set == toy_test_set


def test_mqm_tsv_without_test_set_stands_alone(files):
    output = run("mqm-tsv", str(files["mqm"]), "--name", "alone")
    judgment_set = JudgmentSet.objects.get(name="alone")
    assert judgment_set.test_set is None and "not attached" in output
    assert not judgment_set.judgments.filter(segment__isnull=False).exists()


def test_wmt_da_with_judge_stats_gets_raw_scores_and_judge_time(files):
    run("wmt-da-csv", str(files["da"]), "--judge-stats", str(files["stats"]), "--name", "da")
    judgment_set = JudgmentSet.objects.get(name="da")
    rows = judgment_set.judgments.order_by("pk")
    assert [row.raw for row in rows] == [60.0, 40.0, 60.0, 30.0, 80.0, 60.0, 70.0]
    assert rows[0].system == "sysA" and rows[0].extra["sys_id"] == "sysA.1"
    assert rows[3].kind == "BAD_REF"
    assert judgment_set.metadata["judge_seconds"] == {"W1": 100.0, "W2": 60.0}
    assert judgment_set.file_name == "ad-good-stnd.csv + ad-trk-mean-sd.txt"


def test_wmt_da_without_judge_stats_keeps_only_the_given_z(files):
    run("wmt-da-csv", str(files["da"]), "--name", "da")
    rows = JudgmentSet.objects.get(name="da").judgments.all()
    assert {row.raw for row in rows} == {None}
    assert sorted(row.z_given for row in rows)[0] == -1.0


def test_evaltrans_xml_file(files):
    run("evaltrans-xml", str(files["xml"]), "--name", "xml")
    judgment_set = JudgmentSet.objects.get(name="xml")
    # isPerfect only marks the references: it is no aspect and has no scale.
    assert set(judgment_set.metadata["aspects"]) == {"adequacy", "fluency"}
    assert set(judgment_set.metadata["scales"]) == {"adequacy", "fluency"}
    assert judgment_set.judgments.filter(judge="bob", aspect="adequacy").count() == 2
    assert judgment_set.metadata["scales"]["fluency"] == {
        "kind": "levels",
        "values": [1, 2, 3, 4, 5],
    }


def _evaltrans_test_set(text: str = EVALTRANS_XML.format(value=3)):
    corpus = parse_evaltrans_xml(
        file=InputFile("db.xml", text.encode()), source_lang="de", target_lang="en"
    )
    return testset_import(corpus=corpus, name="et", import_format="evaltrans-xml").test_set


def test_evaltrans_xml_from_a_test_set_without_file():
    test_set = _evaltrans_test_set()
    output = run("evaltrans-xml", "--name", "from db", "--test-set", "et")
    judgment_set = JudgmentSet.objects.get(name="from db")
    assert judgment_set.test_set == test_set and "attached" in output
    # ann and bob: fluency and adequacy of sysA on two segments (the isPerfect flags are no
    # judgments).
    assert judgment_set.judgments.count() == 8
    assert not judgment_set.judgments.filter(segment__isnull=True).exists()


def test_evaltrans_xml_file_attached_by_source_sentences(files):
    _evaltrans_test_set()
    run("evaltrans-xml", str(files["xml"]), "--name", "checked", "--test-set", "et")
    assert JudgmentSet.objects.get(name="checked").test_set is not None


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("ratings.tsv", "system\tseg_id\trater\n", "ratings.tsv, line 1: missing column(s)"),
        ("ratings.tsv", "", "ratings.tsv: the file is empty"),
        ("ratings.tsv", "\n".join(mqm_rows()[:3] + ["sysA\td\t1\t1\tr\ts\tt\tX\tCritical\t"]),
         "ratings.tsv, line 4: unknown severity 'Critical'"),
        ("ratings.tsv", "\n".join(mqm_rows()[:2] + ["sysA\td\t1"]),
         "ratings.tsv, line 3: 3 tab-separated fields"),
        ("ad.csv", "\n".join([DA_HEADER, DA_ROWS[0], "H1 W1 de en ad 1 sysA.1 10 SYSTEM 2"]),
         "ad.csv, line 3: 10 fields, the header has 12"),
        ("ad.csv", "\n".join([DA_HEADER, "H1 W1 de en ad 1 sysA.1 10 SYSTEM 1 high 1.0"]),
         "ad.csv, line 2: score is not a number: 'high'"),
        ("ad.csv", "\n".join([DA_HEADER, "H1 W1 de en ad 1 sysA.1 10 FOO 1 0.1 1.0"]),
         "ad.csv, line 2: unknown type 'FOO'"),
        ("ad.csv", "\n".join([DA_HEADER, DA_ROWS[0], DA_ROWS[0]]),
         "ad.csv, line 3: judge W1 scored sysA segment 1 (adequacy, SYSTEM) twice"),
    ],
)  # fmt: skip
def test_bad_files_are_refused_with_file_and_line(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    import_format = "mqm-tsv" if name.endswith(".tsv") else "wmt-da-csv"
    assert expected in refused(import_format, str(path), "--name", "bad")


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "ratings.tsv"
    path.write_bytes(("\n".join(mqm_rows()[:2]) + "\nsysA\t\xff").encode("utf-8")[:-2] + b"\xff\n")
    assert "ratings.tsv, line 3: not valid UTF-8" in refused("mqm-tsv", str(path), "--name", "x")


def test_worker_missing_from_the_judge_stats(files, tmp_path):
    stats = write(tmp_path / "stats.txt", DA_STATS[:3])
    message = refused("wmt-da-csv", str(files["da"]), "--judge-stats", str(stats), "--name", "x")
    assert "ad-good-stnd.csv, line 6: worker W2 is not in stats.txt" in message


def test_judge_stats_that_do_not_belong_to_the_file(files, tmp_path):
    stats = write(tmp_path / "stats.txt", ['[1] "W1"', "[1] 50.5", "[1] 20", *DA_STATS[3:]])
    message = refused("wmt-da-csv", str(files["da"]), "--judge-stats", str(stats), "--name", "x")
    assert "line 2: raw score z*sd+mean = 60.500000 is not an integer" in message


def test_malformed_judge_stats(files, tmp_path):
    stats = write(tmp_path / "stats.txt", ['[1] "W1"', "[1] fifty", "[1] 20"])
    message = refused("wmt-da-csv", str(files["da"]), "--judge-stats", str(stats), "--name", "x")
    assert "stats.txt, line 2: mean is not a number" in message


def not_attached(output: str, name: str = "x") -> str:
    """The note of a set imported stand-alone although a test set was asked for; checks that
    it was stored unattached and that the command printed the note."""
    judgment_set = JudgmentSet.objects.get(name=name)
    assert judgment_set.test_set is None
    assert not judgment_set.judgments.filter(segment__isnull=False).exists()
    note = judgment_set.attachment_note
    assert note.startswith("not attached to test set toy v1: ")
    assert note in output
    return note.removeprefix("not attached to test set toy v1: ")


def test_wmt_da_is_kept_unattached_with_a_note(files, toy_test_set):
    output = run("wmt-da-csv", str(files["da"]), "--name", "x", "--test-set", "toy")
    reason = not_attached(output)
    assert reason == services.DA_NOT_ATTACHABLE.format(file="ad-good-stnd.csv")
    assert JudgmentSet.objects.get(name="x").judgments.count() == len(DA_ROWS)


def test_judge_stats_only_with_wmt_da(files):
    message = refused(
        "mqm-tsv", str(files["mqm"]), "--judge-stats", str(files["stats"]), "--name", "x"
    )
    assert message == services.JUDGE_STATS_ONLY_DA


def test_unknown_system_of_the_test_set_keeps_the_set_unattached(files, toy_test_set, tmp_path):
    rows = mqm_rows()
    rows.append("sysC\tdoc1\t1\t2\trater1\tWie geht es dir?\tt\tNo-error\tNo-error\t")
    path = write(tmp_path / "more.tsv", rows)
    reason = not_attached(run("mqm-tsv", str(path), "--name", "x", "--test-set", "toy"))
    assert reason == f"more.tsv, line {len(rows)}: " + services.UNKNOWN_SYSTEM.format(
        system="sysC", test_set="toy v1"
    )
    assert JudgmentSet.objects.get(name="x").judgments.filter(system="sysC").exists()


def test_unknown_segment_of_the_test_set_keeps_the_set_unattached(files, toy_test_set, tmp_path):
    rows = [*mqm_rows(), "sysA\tdoc1\t1\t9\trater1\tNeu.\tt\tNo-error\tNo-error\t"]
    path = write(tmp_path / "more.tsv", rows)
    reason = not_attached(run("mqm-tsv", str(path), "--name", "x", "--test-set", "toy"))
    assert reason.startswith(f"more.tsv, line {len(rows)}: segment id '9' is not a segment")


def test_other_source_sentences_keep_the_set_unattached(files, toy_test_set, tmp_path):
    rows = [row.replace("Guten Morgen.", "Guten Abend.") for row in mqm_rows()]
    path = write(tmp_path / "other.tsv", rows)
    reason = not_attached(run("mqm-tsv", str(path), "--name", "x", "--test-set", "toy"))
    assert reason.startswith("other.tsv: segment 1: the source differs from test set toy v1")


def test_a_test_set_with_repeated_segment_ids_is_not_attached_to(files, toy_test_set):
    toy_test_set.segments.filter(seg_id="3").update(seg_id="2")
    reason = not_attached(run("mqm-tsv", str(files["mqm"]), "--name", "x", "--test-set", "toy"))
    assert reason == services.AMBIGUOUS_IDS.format(test_set="toy v1", seg_id="2", count=2)


def test_name_taken_keeps_the_first_set(files):
    run("mqm-tsv", str(files["mqm"]), "--name", "once")
    with pytest.raises(CommandError, match="a judgment set named 'once' exists already"):
        run("mqm-tsv", str(files["mqm"]), "--name", "once")
    assert JudgmentSet.objects.count() == 1


def test_a_campaign_name_is_refused(files, toy_test_set):
    Campaign.objects.create(name="Spring", test_set=toy_test_set, seed=1)
    message = refused("mqm-tsv", str(files["mqm"]), "--name", "Spring")
    assert message == services.NAME_IS_CAMPAIGN.format(name="Spring")


def test_missing_file_and_missing_test_set(files):
    assert (
        refused("mqm-tsv", "/nonexistent/x.tsv", "--name", "x")
        == "/nonexistent/x.tsv: no such file"
    )
    assert refused("mqm-tsv", str(files["mqm"]), "--name", "x", "--test-set", "nope") == (
        "no test set named 'nope'"
    )
    assert refused("mqm-tsv", "--name", "x") == "mqm-tsv needs a FILE"
    assert refused("evaltrans-xml", "--name", "x") == "evaltrans-xml needs a FILE"


def test_file_above_the_size_limit(files, settings):
    settings.CORPUS_UPLOAD_MAX_BYTES = 10
    assert "bytes is above the limit of 10 bytes" in refused(
        "mqm-tsv", str(files["mqm"]), "--name", "x"
    )


def test_evaltrans_without_file_needs_an_evaltrans_test_set(toy_test_set):
    message = refused("evaltrans-xml", "--name", "x", "--test-set", "toy")
    assert message == services.NOT_EVALTRANS.format(test_set="toy v1", format="mqm-tsv")


def test_evaltrans_value_above_the_last_level(tmp_path):
    path = write(tmp_path / "db.xml", EVALTRANS_XML.format(value=7))
    message = refused("evaltrans-xml", str(path), "--name", "x")
    assert "db.xml" in message and "adequacy value 7 is above the last level 5" in message


def test_malformed_evaltrans_xml(tmp_path):
    path = write(tmp_path / "db.xml", "<database><source>")
    assert refused("evaltrans-xml", str(path), "--name", "x").startswith("db.xml")


def test_failure_while_storing_leaves_nothing(files, toy_test_set, monkeypatch):
    """A failure after the set row is written rolls the whole import back."""

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "insert_rows", boom)
    with pytest.raises(RuntimeError):
        run("mqm-tsv", str(files["mqm"]), "--name", "x", "--test-set", "toy")
    assert JudgmentSet.objects.count() == 0


def test_import_is_bulk(files, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        run("wmt-da-csv", str(files["da"]), "--name", "da")


def test_paths_in_messages_are_the_users(tmp_path: Path):
    missing = tmp_path / "none.csv"
    assert refused("wmt-da-csv", str(missing), "--name", "x") == f"{missing}: no such file"
