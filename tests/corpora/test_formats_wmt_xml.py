"""WMT XML: structure, names, empty reference segments, metadata, writer output."""

from __future__ import annotations

import pytest

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.formats.wmt_xml import parse_wmt_xml, write_wmt_xml

SAMPLE = """<?xml version="1.0" encoding="utf-8"?>
<dataset id="wmttest2022">
  <collection id="general">
    <doc id="d1" origlang="cs" domain="news">
      <src lang="cs">
        <p><seg id="1">Dobrý den &amp; &lt;b&gt;</seg></p>
        <p><seg id="2"> mezery </seg><seg id="3">Tři</seg></p>
      </src>
      <ref lang="en" translator="A">
        <p><seg id="1">Good day</seg></p>
        <p><seg id="2"></seg><seg id="3">Three</seg></p>
      </ref>
      <hyp lang="en" system="Online-B">
        <p><seg id="1">Hello</seg><seg id="2">spaces</seg><seg id="3">3</seg></p>
      </hyp>
    </doc>
  </collection>
  <doc id="d2" origlang="en" testsuite="x">
    <src lang="cs"><p><seg id="1">Jedna</seg></p></src>
    <ref lang="en"><p><seg id="1">One</seg></p></ref>
    <hyp lang="en" system="Online-B"><p><seg id="1">One!</seg></p></hyp>
  </doc>
</dataset>
"""


def parse(text: str = SAMPLE, **kwargs):
    return parse_wmt_xml(file=InputFile("test.xml", text.encode("utf-8")), **kwargs)


def test_parse_sample():
    corpus = parse()
    assert (corpus.source_lang, corpus.target_lang) == ("cs", "en")
    assert [(s.doc_id, s.seg_id) for s in corpus.segments] == [
        ("d1", "1"),
        ("d1", "2"),
        ("d1", "3"),
        ("d2", "1"),
    ]
    first, second, _, fourth = corpus.segments
    assert first.source == "Dobrý den & <b>"
    assert second.source == " mezery "  # XML text kept exactly
    assert first.references == {"A": "Good day"}
    assert second.references == {}  # empty <seg> in a <ref>: no reference for this segment
    assert fourth.references == {"ref": "One"}  # no translator attribute
    assert corpus.system_names == ["Online-B"]
    assert corpus.metadata == {
        "set_id": "wmttest2022",
        "documents": {
            "d1": {"origlang": "cs", "domain": "news"},
            "d2": {"origlang": "en", "testsuite": "x"},
        },
        "wmt_xml": {"collections": {"d1": "general"}, "paragraphs": {"d1": [1, 2]}},
    }


def test_document_without_reference_is_allowed():
    text = SAMPLE.replace('<ref lang="en"><p><seg id="1">One</seg></p></ref>', "")
    corpus = parse(text)
    assert corpus.segments[3].references == {}
    assert corpus.reference_labels == ["A"]


def test_segments_without_paragraph_are_tolerated():
    text = SAMPLE.replace(
        '<src lang="cs"><p><seg id="1">Jedna</seg></p></src>',
        '<src lang="cs"><seg id="1">Jedna</seg></src>',
    )
    assert parse(text).segments[3].source == "Jedna"


def test_declared_encoding_is_honoured_and_can_be_overridden():
    latin = SAMPLE.replace('encoding="utf-8"', 'encoding="iso-8859-2"')
    corpus = parse_wmt_xml(file=InputFile("l.xml", latin.encode("iso-8859-2")))
    assert corpus.segments[0].source == "Dobrý den & <b>"
    utf8_data = SAMPLE.encode("utf-8")
    mislabelled = utf8_data.replace(b'encoding="utf-8"', b'encoding="latin-1"')
    assert (
        parse_wmt_xml(file=InputFile("m.xml", mislabelled), encoding="utf-8").segments[2].source
        == "Tři"
    )


def test_writer_output_and_read_back(tmp_path):
    corpus = parse()
    [path] = write_wmt_xml(corpus, tmp_path)
    assert path.name == "wmttest2022.cs-en.xml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith(
        '<?xml version="1.0" encoding="utf-8"?>\n<dataset id="wmttest2022">\n  <collection id="general">'
    )
    assert '<ref lang="en" translator="A">' in text
    assert '<seg id="2"></seg>' in text  # the missing reference segment
    assert "&lt;b&gt;" in text
    assert parse_wmt_xml(file=InputFile(path.name, path.read_bytes())) == corpus


def test_writer_refuses_control_characters(tmp_path):
    corpus = parse()
    corpus.segments[0].source = "bell\x07"
    with pytest.raises(CorpusFormatError, match="U\\+0007 cannot be written"):
        write_wmt_xml(corpus, tmp_path)


def test_writer_names_documents_of_plain_corpora(tmp_path):
    from evaltrans.corpora.formats.base import CorpusData, SegmentData

    corpus = CorpusData(
        "de", "en", [SegmentData("a", references={"A": "x"}, candidates={"s": "y"})]
    )
    [path] = write_wmt_xml(corpus, tmp_path)
    again = parse_wmt_xml(file=InputFile(path.name, path.read_bytes()))
    assert again.segments[0].doc_id == "doc1" and again.segments[0].seg_id == "1"
    assert again.segments[0].candidates == {"s": "y"}
