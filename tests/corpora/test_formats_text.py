"""Plain-text format: parsing, line handling, export files and manifest, real WMT21 data."""

from __future__ import annotations

import json

import pytest

from evaltrans.corpora.formats import FORMATS
from evaltrans.corpora.formats.base import InputFile
from evaltrans.corpora.formats.text import parse_text, read_text_export, write_text
from tests.conftest import shared_path


def parse(
    source: bytes,
    refs: dict[str, bytes],
    systems: dict[str, bytes],
    docs: bytes | None = None,
    **kwargs,
):
    return parse_text(
        source=InputFile("src.txt", source),
        references=[(label, InputFile(f"ref.{label}.txt", data)) for label, data in refs.items()],
        systems=[(name, InputFile(f"{name}.txt", data)) for name, data in systems.items()],
        source_lang="cs",
        target_lang="en",
        docs=InputFile("docs.txt", docs) if docs is not None else None,
        **kwargs,
    )


def test_parses_lines_into_segments():
    corpus = parse(
        "Dobrý den\nAhoj\n".encode(),
        {"A": b"Good day\nHi\n", "B": b"Hello\nHey\n"},
        {"sys1": b"Good morning\nHallo\n"},
    )
    assert (corpus.source_lang, corpus.target_lang) == ("cs", "en")
    assert [s.source for s in corpus.segments] == ["Dobrý den", "Ahoj"]
    assert [s.seg_id for s in corpus.segments] == ["1", "2"]
    assert corpus.segments[0].references == {"A": "Good day", "B": "Hello"}
    assert corpus.segments[1].candidates == {"sys1": "Hallo"}
    assert corpus.reference_labels == ["A", "B"]
    assert corpus.system_names == ["sys1"]
    assert corpus.segments[0].doc_id == ""


def test_docs_file_gives_document_ids():
    corpus = parse(b"a\nb\nc", {"A": b"x\ny\nz"}, {}, docs=b"d1\nd1\nd2\n")
    assert [s.doc_id for s in corpus.segments] == ["d1", "d1", "d2"]


def test_crlf_and_lf_are_the_same_and_no_final_newline_is_fine():
    crlf = parse(b"a\r\nb\r\n", {"A": b"x\r\ny"}, {})
    lf = parse(b"a\nb\n", {"A": b"x\ny\n"}, {})
    assert crlf == lf


def test_unicode_line_separators_stay_inside_the_sentence():
    # A form feed (U+000C) would split it too, but it is refused: XML 1.0 cannot carry it.
    source = "one\u2028still one\x85and\u2029more\nsecond\n".encode()
    corpus = parse(source, {"A": b"x\ny\n"}, {})
    assert corpus.segments[0].source == "one\u2028still one\x85and\u2029more"
    assert len(corpus.segments) == 2


def test_utf8_bom_is_removed():
    corpus = parse(b"\xef\xbb\xbfa\n", {"A": b"\xef\xbb\xbfx\n"}, {})
    assert corpus.segments[0].source == "a"
    assert corpus.segments[0].references["A"] == "x"


def test_inner_spaces_and_markup_are_kept_as_written():
    corpus = parse(b"  a  b \n", {"A": b"<script>alert(1)</script> &amp;\n"}, {})
    assert corpus.segments[0].source == "  a  b "
    assert corpus.segments[0].references["A"] == "<script>alert(1)</script> &amp;"


def test_latin1_encoding_option():
    corpus = parse(
        "Grüße\n".encode("latin-1"), {"A": "Größe\n".encode("latin-1")}, {}, encoding="latin-1"
    )
    assert corpus.segments[0].source == "Grüße"


def test_write_text_files_and_manifest(tmp_path):
    corpus = parse(
        b"a\nb\n", {"A": b"x\ny\n"}, {"Online-B": b"p\nq\n", "team/v2": b"r\ns\n"}, docs=b"d\nd\n"
    )
    paths = write_text(corpus, tmp_path)
    names = [p.name for p in paths]
    assert names == [
        "source.cs",
        "ref.A.en",
        "Online-B.en",
        "team%2Fv2.en",
        "docs.txt",
        "manifest.json",
    ]
    assert (tmp_path / "ref.A.en").read_text(encoding="utf-8") == "x\ny\n"
    assert (tmp_path / "docs.txt").read_text(encoding="utf-8") == "d\nd\n"
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["systems"] == [
        {"name": "Online-B", "file": "Online-B.en"},
        {"name": "team/v2", "file": "team%2Fv2.en"},
    ]
    assert manifest["references"] == [{"label": "A", "file": "ref.A.en"}]
    assert read_text_export(tmp_path) == corpus


def test_write_text_without_doc_ids_writes_no_docs_file(tmp_path):
    corpus = parse(b"a\n", {"A": b"x\n"}, {})
    names = [p.name for p in write_text(corpus, tmp_path)]
    assert "docs.txt" not in names
    assert json.loads((tmp_path / "manifest.json").read_text())["docs"] is None


def test_names_differing_only_in_case_get_distinct_files(tmp_path):
    corpus = parse(b"a\n", {"A": b"x\n"}, {"Online-A": b"p\n", "online-a": b"q\n"})
    paths = write_text(corpus, tmp_path)
    assert len({p.name.lower() for p in paths}) == len(paths)
    assert read_text_export(tmp_path) == corpus


def test_registry_entry():
    spec = FORMATS["text"]
    assert spec.parse is parse_text and spec.write is write_text and spec.round_trip
    assert "docs" in spec.inputs


def test_real_wmt21_cs_en_text_files(tmp_path):
    source = shared_path("wmt21-news-cs-en", "txt", "sources", "newstest2021.cs-en.src.cs")
    ref_a = shared_path("wmt21-news-cs-en", "txt", "references", "newstest2021.cs-en.ref.A.en")
    ref_b = shared_path("wmt21-news-cs-en", "txt", "references", "newstest2021.cs-en.ref.B.en")
    system_dir = shared_path("wmt21-news-cs-en", "txt", "system-outputs")
    system_files = sorted(system_dir.glob("newstest2021.cs-en.hyp.*.en"))
    assert system_files
    systems = [
        (p.name.split(".hyp.")[1].removesuffix(".en"), InputFile(p.name, p.read_bytes()))
        for p in system_files
    ]
    corpus = parse_text(
        source=InputFile(source.name, source.read_bytes()),
        references=[
            ("A", InputFile(ref_a.name, ref_a.read_bytes())),
            ("B", InputFile(ref_b.name, ref_b.read_bytes())),
        ],
        systems=systems,
        source_lang="cs",
        target_lang="en",
    )
    expected_lines = source.read_bytes().count(b"\n")
    assert len(corpus.segments) == expected_lines == 1000
    assert corpus.reference_labels == ["A", "B"]
    assert corpus.system_names == [name for name, _ in systems]
    assert "Facebook-AI" in corpus.system_names
    last_ref_b = ref_b.read_text(encoding="utf-8").split("\n")[999]
    assert corpus.segments[999].references["B"] == last_ref_b
    write_text(corpus, tmp_path)
    assert read_text_export(tmp_path) == corpus


@pytest.mark.parametrize("blank", [b"", b" ", b"\t"])
def test_blank_label_is_refused(blank):
    from evaltrans.corpora.formats.base import CorpusFormatError

    with pytest.raises(CorpusFormatError, match="empty reference label"):
        parse(b"a\n", {blank.decode(): b"x\n"}, {})
