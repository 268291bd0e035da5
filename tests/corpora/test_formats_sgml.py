"""mteval SGML: tolerant scanning, names, coverage, writer output."""

from __future__ import annotations

import pytest

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.formats.sgml import parse_sgml, unescape, write_sgml

SOURCE = """<srcset setid="nt21" srclang="cs">
<doc docid="doc1" genre="news" origlang="cs">
<p>
<seg id="1">Dobrý den &amp; vítejte</seg>
<seg id="2">  &lt;b&gt;Tučně&lt;/b&gt; &quot;ano&quot;  </seg>
</p>
</doc>
<doc docid="doc2" genre="news">
<hl><seg id="1">Titulek</seg></hl>
</doc>
</srcset>
"""

REFERENCE = """<refset setid="nt21" srclang="cs" trglang="en" refid="A">
<doc docid="doc2" sysid="ref"><seg id="1">Headline</seg></doc>
<doc docid="doc1" sysid="ref">
<seg id="2"><b>Bold</b> "yes"</seg>
<seg id="1">Good day &amp; welcome</seg>
</doc>
</refset>
"""

SYSTEM = """<TSTSET SetID=nt21 SrcLang=cs TrgLang=en SysID="Online-B">
<DOC docid="doc1" sysid="Online-B">
<SEG id=1>Hello & welcome</SEG>
<SEG id=2>Bold yes</SEG>
</DOC>
<DOC docid="doc2" sysid="Online-B"><SEG id=1>Title</SEG></DOC>
</TSTSET>
"""


def f(name: str, text: str) -> InputFile:
    return InputFile(name, text.encode("utf-8"))


def parse(source=SOURCE, references=(REFERENCE,), systems=(SYSTEM,), **kwargs):
    return parse_sgml(
        source=f("src.sgm", source),
        references=[f(f"ref{i}.sgm", text) for i, text in enumerate(references)],
        systems=[f(f"sys{i}.sgm", text) for i, text in enumerate(systems)],
        **kwargs,
    )


def test_parse_follows_source_order_and_decodes_entities():
    corpus = parse()
    assert (corpus.source_lang, corpus.target_lang) == ("cs", "en")
    assert [(s.doc_id, s.seg_id) for s in corpus.segments] == [
        ("doc1", "1"),
        ("doc1", "2"),
        ("doc2", "1"),
    ]
    assert corpus.segments[0].source == "Dobrý den & vítejte"
    assert corpus.segments[1].source == '<b>Tučně</b> "ano"'  # trimmed, entities decoded
    assert corpus.segments[1].references == {"A": '<b>Bold</b> "yes"'}
    assert corpus.segments[0].candidates == {"Online-B": "Hello & welcome"}  # bare & tolerated
    assert corpus.metadata == {
        "set_id": "nt21",
        "documents": {"doc1": {"genre": "news", "origlang": "cs"}, "doc2": {"genre": "news"}},
    }


def test_reference_label_falls_back_to_document_sysid_then_position():
    no_refid = REFERENCE.replace(' refid="A"', "")
    assert parse(references=[no_refid]).reference_labels == ["ref"]
    anonymous = no_refid.replace(' sysid="ref"', "")
    assert parse(references=[anonymous]).reference_labels == ["ref-1"]


def test_translator_attribute_labels_a_reference():
    with_translator = REFERENCE.replace('refid="A"', 'translator="B"')
    assert parse(references=[with_translator]).reference_labels == ["B"]


def test_reference_labels_override_file_names():
    no_refid = REFERENCE.replace(' refid="A"', "")
    corpus = parse(references=[no_refid, no_refid], reference_labels=["A", "B"])
    assert corpus.reference_labels == ["A", "B"]


def test_system_name_from_document_sysid():
    system = SYSTEM.replace(' SysID="Online-B"', "")
    assert parse(systems=[system]).system_names == ["Online-B"]


def test_comments_and_declarations_are_skipped():
    source = '<?xml version="1.0"?>\n<!DOCTYPE x>\n<!-- a <seg> in a comment -->\n' + SOURCE
    assert len(parse(source=source).segments) == 3


def test_unescape_only_knows_xml_entities():
    assert unescape("&amp;&lt;&gt;&quot;&apos;&#233;&#xE9;&nbsp;&") == "&<>\"'éé&nbsp;&"


def test_only_references_or_only_systems():
    assert parse(systems=[]).system_names == []
    assert parse(references=[]).reference_labels == []


def test_write_sgml_output(tmp_path):
    corpus = parse()
    paths = write_sgml(corpus, tmp_path)
    assert [p.name for p in paths] == ["source.cs.sgm", "ref.A.en.sgm", "Online-B.en.sgm"]
    text = paths[2].read_text(encoding="utf-8")
    assert (
        text.splitlines()[0] == '<tstset setid="nt21" srclang="cs" trglang="en" sysid="Online-B">'
    )
    assert '<doc docid="doc1" genre="news" origlang="cs" sysid="Online-B">' in text
    assert '<seg id="1">Hello &amp; welcome</seg>' in text
    again = parse_sgml(
        source=InputFile("s", paths[0].read_bytes()),
        references=[InputFile("r", paths[1].read_bytes())],
        systems=[InputFile("t", paths[2].read_bytes())],
    )
    assert again == corpus


def test_writer_refuses_a_system_missing_a_segment(tmp_path):
    corpus = parse()
    del corpus.segments[1].candidates["Online-B"]
    with pytest.raises(
        CorpusFormatError, match="system 'Online-B' has no translation of segment '2'"
    ):
        write_sgml(corpus, tmp_path)
