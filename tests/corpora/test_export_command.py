"""export_corpus from the shell: every format writes its files, and importing them again with
import_corpus is recognised as the content already stored."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaltrans.corpora.models import TestSet
from evaltrans.corpora.selectors import testset_corpus_data
from evaltrans.corpora.services import DUPLICATE_CONTENT

from .bad_inputs import VALID, database_counts
from .test_import_command import import_files

pytestmark = pytest.mark.django_db

EXPORT_FORMATS = ["text", "sgml", "wmt-xml", "evaltrans-xml", "mqm-tsv"]


def export(
    import_format: str, out_dir: Path, name: str = "shell-corpus", *extra: str
) -> list[Path]:
    """Run export_corpus; returns the paths it reports, after checking its summary line."""
    out = StringIO()
    call_command(
        "export_corpus", import_format, "--name", name, "--out", str(out_dir), *extra, stdout=out
    )
    *paths, summary = out.getvalue().splitlines()
    assert summary.startswith(f"Exported {name} v") and summary.endswith(f"{len(paths)} files.")
    return [Path(path) for path in paths]


def reimport_args(import_format: str, files: list[Path], test_set: TestSet) -> list[str]:
    """import_corpus arguments for the files an export wrote."""
    if import_format == "text":
        manifest = json.loads((files[0].parent / "manifest.json").read_text(encoding="utf-8"))
        folder = files[0].parent
        args = ["--source", str(folder / manifest["source"])]
        args += [f"--ref={ref['label']}={folder / ref['file']}" for ref in manifest["references"]]
        args += [f"--system={sys['name']}={folder / sys['file']}" for sys in manifest["systems"]]
        if manifest.get("docs"):
            args += ["--docs", str(folder / manifest["docs"])]
        return args + [
            "--source-lang",
            manifest["source_lang"],
            "--target-lang",
            manifest["target_lang"],
        ]
    if import_format == "sgml":
        source, *others = files  # the writer lists the source first, then references, systems
        refs = [path for path in others if path.name.startswith("ref.")]
        systems = [path for path in others if path not in refs]
        return [
            "--source",
            str(source),
            *(f"--ref={path}" for path in refs),
            *(f"--system={path}" for path in systems),
        ]
    [file] = files
    args = ["--file", str(file)]
    if import_format in ("evaltrans-xml", "mqm-tsv"):
        args += ["--source-lang", test_set.source_lang, "--target-lang", test_set.target_lang]
    if import_format == "mqm-tsv":
        args += [f"--reference-system={label}" for label in test_set.metadata["reference_labels"]]
    return args


@pytest.mark.parametrize("import_format", EXPORT_FORMATS)
def test_export_writes_files_that_import_as_the_same_content(import_format, tmp_path):
    import_files(VALID[import_format], tmp_path / "in")
    test_set = TestSet.objects.get(name="shell-corpus")
    out_dir = tmp_path / "out" / "new-folder"

    files = export(import_format, out_dir)

    assert files and all(path.parent == out_dir and path.stat().st_size > 0 for path in files)
    written = {path.name for path in out_dir.iterdir()}
    assert {path.name for path in files} == written
    before = database_counts()
    args = [
        "import_corpus",
        import_format,
        "--name",
        "again",
        *reimport_args(import_format, files, test_set),
    ]
    with pytest.raises(CommandError) as refused:
        call_command(*args, stdout=StringIO())
    assert str(refused.value) == DUPLICATE_CONTENT.format(name="shell-corpus", version=1)
    assert database_counts() == before


def test_mqm_export_keeps_every_text(tmp_path):
    """MQM TSV drops the ratings, not the texts: an export read back holds the same segments."""
    import_files(VALID["mqm-tsv"], tmp_path / "in")
    original = TestSet.objects.get(name="shell-corpus")
    [file] = export("mqm-tsv", tmp_path / "out")
    original.delete()  # so that the same texts can be stored again and compared
    call_command(
        "import_corpus",
        "mqm-tsv",
        "--name",
        "again",
        "--file",
        str(file),
        "--source-lang",
        "en",
        "--target-lang",
        "de",
        stdout=StringIO(),
    )
    again = testset_corpus_data(test_set=TestSet.objects.get(name="again"))
    assert [
        (segment.doc_id, segment.seg_id, segment.source, segment.references, segment.candidates)
        for segment in again.segments
    ] == EXPECTED_MQM_TEXTS


EXPECTED_MQM_TEXTS = [
    # The sample of test_formats_mqm_tsv: span marks removed, one text per system and segment.
    ("talk.1", "1", "First", {"ref": "Die erste"}, {"sysA": "Erste", "sysB": "Erst"}),
    (
        "talk.1",
        "2",
        'Second "quoted"',
        {"ref": "Die zweite"},
        {"sysA": "Zweite falsch", "sysB": "Zwei"},
    ),
    ("talk.2", "10", "Tenth", {"ref": "Die zehnte"}, {"sysA": "Zehn", "sysB": "Zehnte"}),
]


def test_export_picks_the_version_asked_for(tmp_path, text_corpus):
    from .test_import_command import import_text

    import_text(text_corpus)
    text_corpus["sys_y"].write_text("a\nb\nc\n", encoding="utf-8")
    import_text(text_corpus)
    latest = export("text", tmp_path / "latest", "toy")
    first = export("text", tmp_path / "first", "toy", "--test-set-version", "1")
    latest_y = (tmp_path / "latest" / "Y.en").read_text(encoding="utf-8")
    first_y = (tmp_path / "first" / "Y.en").read_text(encoding="utf-8")
    assert latest_y == "a\nb\nc\n" and first_y != latest_y
    assert len(latest) == len(first)


def test_export_of_unknown_test_set_fails(tmp_path):
    with pytest.raises(CommandError, match="no test set named 'ghost'"):
        call_command("export_corpus", "text", "--name", "ghost", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="no test set named 'ghost' with version 3"):
        call_command(
            "export_corpus",
            "text",
            "--name",
            "ghost",
            "--test-set-version",
            "3",
            "--out",
            str(tmp_path),
        )


def test_a_corpus_the_format_cannot_hold_is_one_line_not_a_traceback(tmp_path):
    from evaltrans.corpora.formats.base import CorpusData, SegmentData
    from evaltrans.corpora.services import testset_import

    corpus = CorpusData(
        "de",
        "en",
        [SegmentData("Ein\tTab.", seg_id="1", references={"ref": "A tab."})],
    )
    testset_import(corpus=corpus, name="tabs", import_format="text")
    with pytest.raises(CommandError, match="cannot export tabs v1 as mqm-tsv: .*tab"):
        export("mqm-tsv", tmp_path, "tabs")
    assert not list(tmp_path.iterdir())
