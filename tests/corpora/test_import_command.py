"""import_corpus / export_corpus from the shell: success, versions, duplicates, bad input."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet

from .conftest import REF_A, SOURCE, SYS_X, write_lines

pytestmark = pytest.mark.django_db


def import_text(corpus: dict[str, Path], name: str = "toy", *extra: str) -> str:
    out = StringIO()
    call_command(
        "import_corpus", "text", "--name", name,
        "--source-lang", "de", "--target-lang", "en",
        "--source", str(corpus["source"]),
        "--ref", str(corpus["ref_a"]), "--ref", str(corpus["ref_b"]),
        "--system", f"X={corpus['sys_x']}", "--system", f"Y={corpus['sys_y']}",
        *extra, stdout=out,
    )
    return out.getvalue()


def database_counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (TestSet, Segment, Reference, System, Candidate))


def test_text_import_stores_every_text_in_order(text_corpus):
    output = import_text(text_corpus)
    test_set = TestSet.objects.get()
    assert "Imported toy v1" in output
    assert (test_set.source_lang, test_set.target_lang, test_set.version) == ("de", "en", 1)
    assert [s.source for s in test_set.segments.order_by("index")] == SOURCE
    refs_a = Reference.objects.filter(label="A").order_by("segment__index")
    assert [r.text for r in refs_a] == REF_A
    assert Reference.objects.filter(label="B").count() == 3
    outputs_x = Candidate.objects.filter(system__name="X").order_by("segment__index")
    assert [c.text for c in outputs_x] == SYS_X
    assert sorted(test_set.systems.values_list("name", flat=True)) == ["X", "Y"]


def test_identical_content_is_reported_and_changes_nothing(text_corpus):
    import_text(text_corpus)
    before = database_counts()
    with pytest.raises(CommandError, match="already stored as test set 'toy' version 1"):
        import_text(text_corpus, "another-name")
    assert database_counts() == before


def test_changed_content_under_same_name_makes_a_new_version(text_corpus):
    import_text(text_corpus)
    write_lines(text_corpus["sys_y"], ["Good morning.", "How are you?", "That is good."])
    output = import_text(text_corpus)
    assert "Imported toy v2 (new version)" in output
    assert list(TestSet.objects.filter(name="toy").values_list("version", flat=True)) == [2, 1]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda c: write_lines(c["sys_x"], ["one", "two"]), "sysX.en"),
        (lambda c: c["ref_a"].write_bytes(b""), "ref.A.en"),
        (lambda c: write_lines(c["ref_b"], ["a", "", "c"]), "ref.B.en, line 2"),
        (lambda c: c["sys_y"].write_bytes(b"ok\n\xff\xfe bad\nthree\n"), "sysY.en, line 2"),
    ],
    ids=["line-count", "empty-file", "empty-line", "invalid-utf8"],
)
def test_bad_text_input_names_the_file_and_stores_nothing(text_corpus, mutate, message):
    mutate(text_corpus)
    with pytest.raises(CommandError, match=message.replace(".", r"\.")):
        import_text(text_corpus)
    assert database_counts() == (0, 0, 0, 0, 0)


def test_missing_file_is_a_clear_error(text_corpus, tmp_path):
    text_corpus["sys_x"] = tmp_path / "nope.txt"
    with pytest.raises(CommandError, match="nope.txt: no such file"):
        import_text(text_corpus)


def test_file_above_the_size_limit_is_refused(text_corpus, settings):
    settings.CORPUS_UPLOAD_MAX_BYTES = 10
    with pytest.raises(CommandError, match="above the limit of 10 bytes"):
        import_text(text_corpus)
    assert database_counts() == (0, 0, 0, 0, 0)


def test_duplicate_system_names_are_refused(text_corpus):
    out = StringIO()
    with pytest.raises(CommandError, match="X"):
        call_command(
            "import_corpus", "text", "--name", "dup", "--source-lang", "de", "--target-lang", "en",
            "--source", str(text_corpus["source"]), "--ref", str(text_corpus["ref_a"]),
            "--system", f"X={text_corpus['sys_x']}", "--system", f"X={text_corpus['sys_y']}",
            stdout=out,
        )
    assert database_counts() == (0, 0, 0, 0, 0)


def test_encoding_option_reads_latin1_files(text_corpus):
    text_corpus["source"].write_bytes("Grüße\nzwei\ndrei\n".encode("latin-1"))
    with pytest.raises(CommandError, match="--encoding"):
        import_text(text_corpus)
    import_text(text_corpus, "toy", "--encoding", "latin-1")
    assert Segment.objects.get(index=0).source == "Grüße"


def test_export_of_unknown_test_set_fails(tmp_path):
    with pytest.raises(CommandError, match="no test set named 'ghost'"):
        call_command("export_corpus", "text", "--name", "ghost", "--out", str(tmp_path))


def sgml_file(path: Path, kind: str, attrs: str, texts: list[str]) -> Path:
    segs = "".join(f'<seg id="{n}">{t}</seg>\n' for n, t in enumerate(texts, start=1))
    path.write_text(
        f'<{kind} setid="toy" srclang="de" trglang="en" {attrs}>\n'
        f'<doc docid="d1" {attrs}>\n{segs}</doc>\n</{kind}>\n',
        encoding="utf-8",
    )
    return path


def test_sgml_import_takes_explicit_reference_labels(tmp_path):
    """Two WMT reference files that both say sysid="ref" are told apart by LABEL=FILE."""
    source = sgml_file(tmp_path / "src.sgm", "srcset", "", SOURCE)
    ref1 = sgml_file(tmp_path / "r1.sgm", "refset", 'sysid="ref"', REF_A)
    ref2 = sgml_file(tmp_path / "r2.sgm", "refset", 'sysid="ref"', REF_A[::-1])
    system = sgml_file(tmp_path / "x.sgm", "tstset", 'sysid="X"', SYS_X)
    call_command(
        "import_corpus", "sgml", "--name", "sgml-toy", "--source", str(source),
        "--ref", f"first={ref1}", "--ref", f"second={ref2}", "--system", str(system),
        stdout=StringIO(),
    )
    first = Reference.objects.filter(label="first").order_by("segment__index")
    assert [r.text for r in first] == REF_A
    assert Reference.objects.filter(label="second").count() == 3
    assert list(System.objects.values_list("name", flat=True)) == ["X"]
