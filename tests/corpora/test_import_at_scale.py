"""The streamed, batched import (issue 16) stores exactly what the in-memory path stores.

Three ways to import one plain-text corpus must give identical rows: the in-memory path
(``parse_text`` reading every file into a list, stored in one batch), the command (files on
disk streamed line by line, stored in many small batches) and the web form's background job
(uploaded files streamed from the storage by the eager Celery task, in other batches). Every
stored row is compared, and with the rows built directly from the parsed texts, so an error
of the insert code cannot hide on both sides. The content hash, computed segment by segment,
is compared with the hash of the whole structure dumped at once, the definition existing
test sets were stored under.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from evaltrans.corpora import services
from evaltrans.corpora.formats.base import CorpusData, InputFile, StreamedSegments
from evaltrans.corpora.formats.text import parse_text
from evaltrans.corpora.models import CorpusImport, TestSet
from evaltrans.corpora.services import corpus_content_hash, testset_import

from .test_background_import import rows

pytestmark = pytest.mark.django_db

SEGMENTS = 53
SYSTEMS = ("sys-a", "sys-b", "sys-ü")


def _line(column: int, index: int) -> str:
    """A sentence with what the reader must keep: non-ASCII, tabs, U+2028 inside a line,
    markup, leading and trailing spaces."""
    extras = ["", " Grüße\tund <b>mehr</b>", " a\u2028b", "  spaced  ", " 中文 ✓"]
    return f"col{column} seg{index}{extras[(index + column) % len(extras)]}"


def _file_bytes(column: int, *, crlf: bool = False, bom: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    text = end.join(_line(column, index) for index in range(SEGMENTS))
    if column % 2:
        text += end  # some files end with a newline, others not
    return ("\ufeff" if bom else "").encode("utf-8") + text.encode("utf-8")


DOCS = "".join(f"doc{index // 10}\n" for index in range(SEGMENTS)).encode("utf-8")


@pytest.fixture
def corpus_files(tmp_path: Path) -> dict[str, tuple[str, bytes]]:
    files = {
        "source": ("src.en", _file_bytes(0, bom=True)),
        "ref_a": ("ref.a.de", _file_bytes(1, crlf=True)),
        "ref_b": ("ref.b.de", _file_bytes(2)),
        "docs": ("docs.txt", DOCS),
    }
    for number, name in enumerate(SYSTEMS, start=3):
        files[name] = (f"{name}.de", _file_bytes(number, crlf=number == 4))
    for name, data in files.values():
        (tmp_path / name).write_bytes(data)
    return files


def _in_memory(files: dict[str, tuple[str, bytes]]) -> CorpusData:
    def file(key: str) -> InputFile:
        return InputFile(*files[key])

    return parse_text(
        source=file("source"),
        references=[("A", file("ref_a")), ("B", file("ref_b"))],
        systems=[(name, file(name)) for name in SYSTEMS],
        source_lang="en",
        target_lang="de",
        docs=file("docs"),
    )


def _expected_rows(corpus: CorpusData, name: str, import_format: str = "text") -> dict:
    """The rows an import of ``corpus`` must store, built from the parsed texts alone."""
    segments = list(corpus.segments)
    return {
        "test_sets": [
            (
                name,
                1,
                _whole_dump_hash(corpus),
                corpus.source_lang,
                corpus.target_lang,
                import_format,
                {"reference_labels": ["A", "B"]},
            )
        ],
        "segments": [
            (index, segment.doc_id, segment.seg_id, segment.source)
            for index, segment in enumerate(segments)
        ],
        "references": [
            (index, label, text)
            for index, segment in enumerate(segments)
            for label, text in segment.references.items()
        ],
        "systems": list(SYSTEMS),
        "candidates": [
            (index, system, text)
            for index, segment in enumerate(segments)
            for system, text in segment.candidates.items()
        ],
        "evaluations": [],
    }


def _whole_dump_hash(corpus: CorpusData) -> str:
    """The content hash as first defined: the whole structure dumped at once."""
    canonical = {
        "source_lang": corpus.source_lang,
        "target_lang": corpus.target_lang,
        "segments": [
            [
                segment.doc_id,
                segment.seg_id,
                segment.source,
                sorted(segment.references.items()),
                sorted(segment.candidates.items()),
            ]
            for segment in corpus.segments
        ],
    }
    encoded = json.dumps(canonical, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def test_streamed_text_corpus_equals_the_in_memory_one(corpus_files, tmp_path):
    on_disk = {
        key: InputFile(name, path=tmp_path / name) for key, (name, _) in corpus_files.items()
    }
    streamed = parse_text(
        source=on_disk["source"],
        references=[("A", on_disk["ref_a"]), ("B", on_disk["ref_b"])],
        systems=[(name, on_disk[name]) for name in SYSTEMS],
        source_lang="en",
        target_lang="de",
        docs=on_disk["docs"],
        streamed=True,
    )
    in_memory = _in_memory(corpus_files)
    assert isinstance(streamed.segments, StreamedSegments)
    assert isinstance(in_memory.segments, list)
    assert len(streamed.segments) == SEGMENTS
    assert list(streamed.segments) == in_memory.segments
    assert list(streamed.segments) == in_memory.segments  # iterated again: read again
    assert streamed == in_memory
    assert (streamed.reference_labels, streamed.system_names) == (["A", "B"], list(SYSTEMS))
    first = in_memory.segments[0]
    assert first.source == _line(0, 0)  # the byte-order mark is gone
    assert first.references["A"] == _line(1, 0)  # and the CR of CR LF
    assert in_memory.segments[2].candidates["sys-a"] == _line(3, 2)  # U+2028 kept
    assert [segment.doc_id for segment in in_memory.segments[9:11]] == ["doc0", "doc1"]


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
def test_streamed_reading_decodes_like_the_whole_file(tmp_path, encoding):
    lines = ["Grüße aus Köln", "zweite Zeile\r", "dritte"]
    data = "\n".join(lines).encode(encoding)
    (tmp_path / "src").write_bytes(data)
    (tmp_path / "sys").write_bytes(data)
    kwargs = {"source_lang": "de", "target_lang": "en", "references": [], "encoding": encoding}
    streamed = parse_text(
        source=InputFile("src", path=tmp_path / "src"),
        systems=[("S", InputFile("sys", path=tmp_path / "sys"))],
        streamed=True,
        **kwargs,
    )
    whole = parse_text(
        source=InputFile("src", data), systems=[("S", InputFile("sys", data))], **kwargs
    )
    assert list(streamed.segments) == whole.segments
    assert [segment.source for segment in whole.segments] == [
        "Grüße aus Köln",
        "zweite Zeile",
        "dritte",
    ]


def test_content_hash_is_the_hash_of_the_whole_dump(corpus_files):
    corpus = _in_memory(corpus_files)
    assert corpus_content_hash(corpus) == _whole_dump_hash(corpus)
    empty = CorpusData("en", "de", [])
    assert corpus_content_hash(empty) == _whole_dump_hash(empty)


def test_command_job_and_in_memory_import_store_identical_rows(
    client, admin_user, settings, monkeypatch, corpus_files, tmp_path,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    corpus = _in_memory(corpus_files)

    # 1. The in-memory path: every file read into a list, stored in one batch.
    testset_import(corpus=corpus, name="scale", import_format="text")
    in_memory = rows()
    assert in_memory == _expected_rows(corpus, "scale")
    TestSet.objects.all().delete()

    # 2. The command: files streamed from disk, stored in batches of 5 segments, and never
    #    held whole (indexing a streamed corpus would read it into a list).
    monkeypatch.setattr(services, "BULK_BATCH", 5)

    def no_indexing(self, index):  # noqa: ANN001, ANN202
        raise AssertionError("the import indexed the streamed segments")

    monkeypatch.setattr(StreamedSegments, "__getitem__", no_indexing)
    path = {key: str(tmp_path / name) for key, (name, _) in corpus_files.items()}
    call_command(
        "import_corpus", "text", "--name", "scale", "--source-lang", "en", "--target-lang", "de",
        "--source", path["source"], "--ref", path["ref_a"], "--ref", path["ref_b"],
        "--docs", path["docs"], *[f"--system={name}={path[name]}" for name in SYSTEMS],
    )  # fmt: skip
    assert rows() == in_memory
    TestSet.objects.all().delete()

    # 3. The web form's background job (eager task), in batches of 7 segments.
    monkeypatch.setattr(services, "BULK_BATCH", 7)
    settings.CORPUS_BACKGROUND_IMPORT_BYTES = 0
    client.force_login(admin_user)

    def upload(key: str) -> SimpleUploadedFile:
        return SimpleUploadedFile(*corpus_files[key])

    data = {
        "name": "scale",
        "format": "text",
        "source_lang": "en",
        "target_lang": "de",
        "encoding": "",
        "reference_systems": "ref",
        "system_names": ",".join(SYSTEMS),
        "source": upload("source"),
        "docs": upload("docs"),
        "references": [upload("ref_a"), upload("ref_b")],
        "systems": [upload(name) for name in SYSTEMS],
    }
    with django_capture_on_commit_callbacks(execute=True) as sent:
        response = client.post(reverse("corpora:test_set_import"), data)
    assert response.status_code == 302
    job = CorpusImport.objects.get()
    assert (job.background, len(sent)) == (True, 2)  # the import, then the search index
    assert job.status == CorpusImport.Status.DONE, job.message
    assert rows() == in_memory


def test_a_bad_line_deep_in_a_big_file_stores_nothing(tmp_path, monkeypatch):
    """Every file is checked before the first batch is stored: the message names file and
    line as before, and nothing is stored."""
    monkeypatch.setattr(services, "BULK_BATCH", 2)
    good = "\n".join(f"line {n}" for n in range(40)) + "\n"
    bad = good.replace("line 33\n", "\n")
    (tmp_path / "src").write_text(good, encoding="utf-8")
    (tmp_path / "sys").write_text(bad, encoding="utf-8")
    with pytest.raises(Exception, match=r"sys, line 34: empty line"):
        call_command(
            "import_corpus", "text", "--name", "bad", "--source-lang", "en", "--target-lang",
            "de", "--source", str(tmp_path / "src"), "--system", f"S={tmp_path / 'sys'}",
        )  # fmt: skip
    assert not TestSet.objects.exists()
