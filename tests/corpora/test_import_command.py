"""import_corpus / export_corpus from the shell: success, versions, duplicates, bad input."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaltrans.corpora.management.commands.import_corpus import FILE_TOO_LARGE
from evaltrans.corpora.models import Candidate, Reference, System, TestSet

from .bad_inputs import (
    BAD_INPUTS,
    SIZE_LIMIT,
    BadInput,
    CorpusFiles,
    database_counts,
    stored_texts,
)
from .conftest import REF_A, SOURCE, SYS_X, write_lines

pytestmark = pytest.mark.django_db


def import_text(corpus: dict[str, Path], name: str = "toy", *extra: str) -> str:
    out = StringIO()
    call_command(
        "import_corpus",
        "text",
        "--name",
        name,
        "--source-lang",
        "de",
        "--target-lang",
        "en",
        "--source",
        str(corpus["source"]),
        "--ref",
        str(corpus["ref_a"]),
        "--ref",
        str(corpus["ref_b"]),
        "--system",
        f"X={corpus['sys_x']}",
        "--system",
        f"Y={corpus['sys_y']}",
        *extra,
        stdout=out,
    )
    return out.getvalue()


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


def import_files(files: CorpusFiles, folder: Path, name: str = "shell-corpus", *extra: str) -> str:
    """Write ``files`` into ``folder`` and import them with ``import_corpus``."""
    folder.mkdir(parents=True, exist_ok=True)

    def write(named: tuple[str, bytes]) -> str:
        path = folder / named[0]
        path.write_bytes(named[1])
        return str(path)

    args = ["import_corpus", files.format, "--name", name]
    if files.source_lang:
        args += ["--source-lang", files.source_lang, "--target-lang", files.target_lang]
    if files.source is not None:
        args += ["--source", write(files.source)]
    if files.file is not None:
        args += ["--file", write(files.file)]
    for named in files.references:
        args += ["--ref", write(named)]
    names = files.system_names or [None] * len(files.systems)
    for system_name, named in zip(names, files.systems, strict=True):
        args += ["--system", f"{system_name}={write(named)}" if system_name else write(named)]
    out = StringIO()
    call_command(*args, *extra, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda case: case.id)
def test_bad_input_is_a_command_error_naming_the_file_and_stores_nothing(
    settings, tmp_path, case: BadInput
):
    settings.CORPUS_UPLOAD_MAX_BYTES = SIZE_LIMIT
    before = database_counts()

    with pytest.raises(CommandError) as refused:
        import_files(case.files, tmp_path)

    expected = case.message or FILE_TOO_LARGE.format(
        path=tmp_path / case.oversized, size=case.files.size_of(case.oversized), limit=SIZE_LIMIT
    )
    assert str(refused.value) == expected
    assert database_counts() == before
    if case.encoding:  # the --encoding option, as the message says, makes the files import
        import_files(case.files, tmp_path, "shell-corpus", "--encoding", case.encoding)
        assert case.decoded in stored_texts()


def test_a_refused_import_leaves_stored_test_sets_alone(settings, tmp_path, text_corpus):
    import_text(text_corpus)
    before = database_counts()
    bad = next(case for case in BAD_INPUTS if case.id == "sgml-other-segments")
    with pytest.raises(CommandError):
        import_files(bad.files, tmp_path / "bad", "toy")
    assert database_counts() == before


def test_missing_file_is_a_clear_error(text_corpus, tmp_path):
    text_corpus["sys_x"] = tmp_path / "nope.txt"
    with pytest.raises(CommandError, match="nope.txt: no such file"):
        import_text(text_corpus)


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
        "import_corpus",
        "sgml",
        "--name",
        "sgml-toy",
        "--source",
        str(source),
        "--ref",
        f"first={ref1}",
        "--ref",
        f"second={ref2}",
        "--system",
        str(system),
        stdout=StringIO(),
    )
    first = Reference.objects.filter(label="first").order_by("segment__index")
    assert [r.text for r in first] == REF_A
    assert Reference.objects.filter(label="second").count() == 3
    assert list(System.objects.values_list("name", flat=True)) == ["X"]
