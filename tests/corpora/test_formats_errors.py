"""Every validation rule gives a CorpusFormatError naming the file, the place and the problem."""

from __future__ import annotations

import pytest

from evaltrans.corpora.formats import mqm_tsv as mqm
from evaltrans.corpora.formats import reading, sgml, text, wmt_xml, xmlsafe
from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml
from evaltrans.corpora.formats.mqm_tsv import parse_mqm_tsv
from evaltrans.corpora.formats.sgml import parse_sgml
from evaltrans.corpora.formats.text import parse_text
from evaltrans.corpora.formats.wmt_xml import parse_wmt_xml

from .test_formats_mqm_tsv import HEADER, ROWS, tsv
from .test_formats_sgml import REFERENCE, SOURCE, SYSTEM
from .test_formats_wmt_xml import SAMPLE as WMT_SAMPLE

EVALTRANS = """<?xml version="1.0" encoding="utf-8" ?>
<!DOCTYPE etdb SYSTEM "etdb.dtd">
<database>
  <levels class="isPerfect" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>
  <source><s_sent>S</s_sent><targets><tgt sys="a"><t_sent>T</t_sent><eval class="isPerfect" val="1"/></tgt></targets></source>
</database>
"""


def f(name: str, data: str | bytes) -> InputFile:
    return InputFile(name, data.encode("utf-8") if isinstance(data, str) else data)


def run_text(
    source="a\nb\n", refs=(("A", "x\ny\n"),), systems=(("s1", "p\nq\n"),), docs=None, **kwargs
):
    return parse_text(
        source=f("src.txt", source),
        references=[(label, f(f"ref-{label}.txt", data)) for label, data in refs],
        systems=[(name, f(f"sys-{name}.txt", data)) for name, data in systems],
        source_lang="de",
        target_lang="en",
        docs=f("docs.txt", docs) if docs is not None else None,
        **kwargs,
    )


def run_sgml(source=SOURCE, references=(REFERENCE,), systems=(SYSTEM,), **kwargs):
    return parse_sgml(
        source=f("src.sgm", source),
        references=[f(f"ref{i}.sgm", data) for i, data in enumerate(references)],
        systems=[f(f"sys{i}.sgm", data) for i, data in enumerate(systems)],
        **kwargs,
    )


def run_wmt(data=WMT_SAMPLE, **kwargs):
    return parse_wmt_xml(file=f("test.xml", data), **kwargs)


def run_evaltrans(data=EVALTRANS, **kwargs):
    return parse_evaltrans_xml(file=f("db.xml", data), source_lang="de", target_lang="en", **kwargs)


def run_mqm(data=None, **kwargs):
    return parse_mqm_tsv(
        file=f("mqm.tsv", tsv() if data is None else data),
        source_lang="en",
        target_lang="de",
        **kwargs,
    )


def raises(call, *args, **kwargs) -> CorpusFormatError:
    with pytest.raises(CorpusFormatError) as info:
        call(*args, **kwargs)
    return info.value


# --- the message format ---------------------------------------------------------------


def test_error_string_names_file_line_and_element():
    assert str(CorpusFormatError("a.txt", "bad", line=3)) == "a.txt, line 3: bad"
    assert str(CorpusFormatError("a.xml", "bad", element="<doc>")) == "a.xml, <doc>: bad"


# --- text format ------------------------------------------------------------------------


def test_line_count_mismatch_names_both_files_and_counts():
    error = raises(run_text, refs=(("A", "x\ny\nz\n"),))
    assert error.file == "ref-A.txt"
    assert error.message == text.LINE_COUNT_MISMATCH.format(
        file="ref-A.txt", count=3, source="src.txt", source_count=2
    )
    assert "ref-A.txt has 3 lines, but the source file src.txt has 2" in str(error)


def test_line_count_mismatch_of_system_and_docs():
    assert raises(run_text, systems=(("s1", "p\n"),)).file == "sys-s1.txt"
    assert raises(run_text, docs="d\n").file == "docs.txt"


@pytest.mark.parametrize("data", ["", "\n\n", " \t\r\n"])
def test_empty_file(data):
    error = raises(run_text, source=data)
    assert (error.file, error.message) == ("src.txt", reading.EMPTY_FILE)


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
@pytest.mark.parametrize("which", ["source", "ref", "system", "docs"])
def test_empty_line_names_file_and_line(which, blank):
    lines = f"a\n{blank}\nc\n"
    full = "a\nb\nc\n"
    kwargs = {
        "source": lines if which == "source" else full,
        "refs": (("A", lines if which == "ref" else full),),
        "systems": (("s1", lines if which == "system" else full),),
        "docs": lines if which == "docs" else None,
    }
    error = raises(run_text, **kwargs)
    assert error.line == 2 and error.message == reading.EMPTY_LINE
    assert (
        error.file
        == {"source": "src.txt", "ref": "ref-A.txt", "system": "sys-s1.txt", "docs": "docs.txt"}[
            which
        ]
    )


def test_invalid_utf8_gives_line_and_encoding_hint_and_latin1_works():
    data = "ok\nok\nGrüße\n".encode("latin-1")
    error = raises(run_text, source=data, refs=(("A", "x\ny\nz\n"),), systems=())
    assert error.file == "src.txt" and error.line == 3
    assert error.message == reading.BAD_ENCODING.format(encoding="utf-8", byte=0xFC)
    assert "--encoding" in str(error)
    corpus = run_text(source=data, refs=(("A", "x\ny\nz\n"),), systems=(), encoding="latin-1")
    assert corpus.segments[2].source == "Grüße"


def test_unknown_encoding():
    assert raises(run_text, encoding="no-such-codec").message == reading.UNKNOWN_ENCODING.format(
        encoding="no-such-codec"
    )


@pytest.mark.parametrize(
    ("refs", "systems", "message", "file"),
    [
        ((("A", "x\ny\n"), ("A", "x\ny\n")), (), "reference label 'A' is given twice", "ref-A.txt"),
        (
            (("A", "x\ny\n"),),
            (("s", "p\nq\n"), ("s", "p\nq\n")),
            "system name 's' is given twice",
            "sys-s.txt",
        ),
        (
            (("A", "x\ny\n"),),
            (("A", "p\nq\n"),),
            "system name 'A' is also a reference label",
            "sys-A.txt",
        ),
        ((("A", "x\ny\n"),), ((" ", "p\nq\n"),), "empty system name", "sys- .txt"),
    ],
)
def test_duplicate_names(refs, systems, message, file):
    error = raises(run_text, refs=refs, systems=systems)
    assert (error.message, error.file) == (message, file)


# --- size limit, every parser ---------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda limit: run_text(max_bytes=limit),
        lambda limit: run_sgml(max_bytes=limit),
        lambda limit: run_wmt(max_bytes=limit),
        lambda limit: run_evaltrans(max_bytes=limit),
        lambda limit: run_mqm(max_bytes=limit),
    ],
    ids=["text", "sgml", "wmt-xml", "evaltrans-xml", "mqm-tsv"],
)
def test_size_limit(call):
    call(10_000)  # under the limit: fine
    error = raises(call, 3)
    assert error.message.startswith("the file has ") and error.message.endswith(
        "more than the limit of 3 bytes"
    )
    assert error.file


def test_size_limit_message_names_size_and_limit():
    error = raises(run_text, source="abcdef\n", max_bytes=5)
    assert str(error) == "src.txt: " + reading.TOO_LARGE.format(size=7, limit=5)


@pytest.mark.parametrize(
    "call",
    [
        lambda: run_sgml(source=""),
        lambda: run_wmt(""),
        lambda: run_evaltrans("  \n"),
        lambda: run_mqm(b""),
    ],
    ids=["sgml", "wmt-xml", "evaltrans-xml", "mqm-tsv"],
)
def test_empty_file_every_format(call):
    assert raises(call).message == reading.EMPTY_FILE


# --- SGML ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        (
            '<srcset srclang="cs">\n<doc docid="a">\n<seg id=1>x\n</doc>\n</srcset>',
            3,
            sgml.UNCLOSED_SEG,
        ),
        (
            '<srcset srclang="cs">\n<doc docid="a">\n<seg id=1>x\n<seg id=2>y</seg>\n</doc></srcset>',
            3,
            sgml.UNCLOSED_SEG,
        ),
        (
            '<srcset srclang="cs">\n<doc docid="a">\nstray <seg id=1>x</seg>\n</doc></srcset>',
            3,
            sgml.TEXT_OUTSIDE_SEG.format(text="stray"),
        ),
        (
            '<srcset srclang="cs">\n<doc docid="a">\n<seg id=1>x</seg>\n',
            4,
            sgml.UNCLOSED.format(name="doc", line=2),
        ),
        (
            '<srcset srclang="cs">\n<doc docid="a">\n<seg id=1>x</seg>\n</doc>\n',
            5,
            sgml.UNCLOSED.format(name="srcset", line=1),
        ),
        ('<srcset srclang="cs">\n<seg id=1>x</seg>\n</srcset>', 2, sgml.SEG_OUTSIDE_DOC),
        (
            '<srcset srclang="cs">\n<doc docid="a">\n<doc docid="b">\n</doc></srcset>',
            3,
            sgml.NESTED_DOC.format(line=2),
        ),
        (
            '<srcset srclang="cs">\n<doc>\n</doc></srcset>',
            2,
            sgml.MISSING_ATTRIBUTE.format(element="doc", attribute="docid"),
        ),
        (
            '<srcset srclang="cs">\n<doc docid="a"><seg id=1>x</seg></doc>\n<doc docid="a"></doc></srcset>',
            3,
            sgml.DUPLICATE_DOC.format(doc="a"),
        ),
        (
            '<srcset srclang="cs">\n<doc docid="a">\n<seg id=1>x</seg>\n<seg id=1>y</seg></doc></srcset>',
            4,
            sgml.DUPLICATE_SEG.format(seg="1", doc="a"),
        ),
        (
            '<srcset srclang="cs">\n<doc docid="a">\n<seg id=1> </seg></doc></srcset>',
            3,
            sgml.EMPTY_SEGMENT.format(seg="1", doc="a"),
        ),
        (
            '<refset srclang="cs">\n</refset>',
            1,
            sgml.WRONG_SET.format(expected="srcset", found="refset"),
        ),
        (
            '<srcset srclang="cs"></srcset>\n<srcset srclang="cs"></srcset>',
            2,
            sgml.SECOND_SET.format(name="srcset"),
        ),
        ('<srcset srclang="cs">\n</doc></srcset>', 2, sgml.STRAY_CLOSE.format(name="doc")),
        ('<srcset srclang="cs">\n</seg></srcset>', 2, sgml.STRAY_CLOSE.format(name="seg")),
    ],
)
def test_malformed_sgml_gives_line(source, line, message):
    error = raises(run_sgml, source=source)
    assert (error.file, error.line, error.message) == ("src.sgm", line, message)


def test_sgml_source_document_without_segments():
    error = raises(run_sgml, source=SOURCE.replace('<hl><seg id="1">Titulek</seg></hl>', ""))
    assert (error.line, error.message) == (8, sgml.NO_SEGMENTS.format(doc="doc2"))


def test_sgml_structural_attributes():
    assert raises(run_sgml, source="<p>\n</p>").message == sgml.NO_SET.format(expected="srcset")
    error = raises(run_sgml, source=SOURCE.replace(' srclang="cs"', ""))
    assert error.message == sgml.MISSING_ATTRIBUTE.format(element="srcset", attribute="srclang")
    error = raises(
        run_sgml, systems=[SYSTEM.replace(' SysID="Online-B"', "").replace(' sysid="Online-B"', "")]
    )
    assert (error.file, error.message) == ("sys0.sgm", sgml.NO_SYSTEM_NAME)
    error = raises(run_sgml, systems=[SYSTEM.replace(" TrgLang=en", " TrgLang=de")])
    assert error.message == sgml.LANGUAGE_MISMATCH.format(
        found="de", expected="en", other="ref0.sgm"
    )
    assert raises(run_sgml, references=(), systems=()).message == sgml.NO_TRANSLATIONS


def test_sgml_mixed_document_sysids():
    system = SYSTEM.replace(' SysID="Online-B"', "").replace(
        '<DOC docid="doc2" sysid="Online-B">', '<DOC docid="doc2" sysid="Other">'
    )
    error = raises(run_sgml, systems=[system])
    assert (
        error.message == sgml.MIXED_SYSIDS.format(first="Online-B", second="Other")
        and error.line == 6
    )


def test_sgml_duplicate_system_names_and_system_named_like_reference():
    error = raises(run_sgml, systems=[SYSTEM, SYSTEM])
    assert (error.file, error.message) == ("sys1.sgm", "system name 'Online-B' is given twice")
    error = raises(run_sgml, systems=[SYSTEM.replace("Online-B", "A")])
    assert (error.file, error.message) == ("sys0.sgm", "system name 'A' is also a reference label")
    error = raises(run_sgml, references=[REFERENCE, REFERENCE])
    assert error.message == "reference label 'A' is given twice"


def test_sgml_reference_label_count():
    assert raises(run_sgml, reference_labels=["A", "B"]).message == sgml.LABEL_COUNT.format(
        count=2, files=1
    )


@pytest.mark.parametrize(
    ("system", "message", "line"),
    [
        (
            SYSTEM.replace("<SEG id=2>Bold yes</SEG>", ""),
            sgml.MISSING_SEG.format(seg="2", doc="doc1", source="src.sgm"),
            2,
        ),
        (
            SYSTEM.replace("<SEG id=2>", "<SEG id=3>"),
            sgml.EXTRA_SEG.format(seg="3", doc="doc1", source="src.sgm"),
            4,
        ),
        (
            SYSTEM.replace('<DOC docid="doc2" sysid="Online-B"><SEG id=1>Title</SEG></DOC>', ""),
            sgml.MISSING_DOC.format(doc="doc2", source="src.sgm"),
            None,
        ),
        (
            SYSTEM.replace('docid="doc2"', 'docid="doc9"'),
            sgml.EXTRA_DOC.format(doc="doc9", source="src.sgm"),
            6,
        ),
    ],
)
def test_sgml_system_covering_other_segments(system, message, line):
    error = raises(run_sgml, systems=[system])
    assert (error.file, error.message, error.line) == ("sys0.sgm", message, line)


def test_sgml_invalid_utf8():
    error = raises(
        run_sgml, source=SOURCE.encode("utf-8").replace("Tučně".encode(), "Tučně".encode("cp1250"))
    )
    assert error.line == 5 and "--encoding" in error.message


# --- XML: malformed, entities ---------------------------------------------------------------


@pytest.mark.parametrize("call", [run_wmt, run_evaltrans], ids=["wmt-xml", "evaltrans-xml"])
def test_malformed_xml_gives_parser_line(call):
    error = raises(call, '<?xml version="1.0"?>\n<dataset>\n<doc id="a">\n</dataset>\n')
    assert error.line == 4
    assert error.message == xmlsafe.MALFORMED_XML.format(reason="mismatched tag", column=2)


BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
]>
<database><source><s_sent>&lol2;</s_sent></source></database>
"""
EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE database [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<database><source><s_sent>&xxe;</s_sent></source></database>
"""
PARAMETER = """<?xml version="1.0"?>
<!DOCTYPE database [<!ENTITY % remote SYSTEM "http://example.invalid/x.dtd"> %remote;]>
<database/>
"""


@pytest.mark.parametrize("call", [run_wmt, run_evaltrans], ids=["wmt-xml", "evaltrans-xml"])
@pytest.mark.parametrize(
    ("document", "name", "line"), [(BOMB, "lol", 3), (EXTERNAL, "xxe", 2), (PARAMETER, "remote", 2)]
)
def test_entity_declarations_are_refused(call, document, name, line):
    error = raises(call, document)
    assert error.message == xmlsafe.ENTITIES_REFUSED.format(name=name)
    assert error.message.startswith("refused: XML entity declarations are not allowed")
    assert error.line == line


def test_xml_invalid_encoding_gives_line_and_hint():
    data = WMT_SAMPLE.encode("utf-8").replace("Tři".encode(), "Tři".encode("cp1250"))
    error = raises(run_wmt, data)
    assert error.line == 7 and "--encoding" in error.message
    assert run_wmt(data, encoding="cp1250").segments[2].source == "Tři"


# --- WMT XML structure ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "message", "element"),
    [
        (
            '<dataset id="wmttest2022">',
            '<dataset id="wmttest2022"><junk/>',
            wmt_xml.UNEXPECTED_ELEMENT.format(tag="junk", parent="dataset"),
            "<junk>",
        ),
        (
            '<doc id="d2" origlang="en" testsuite="x">',
            '<doc origlang="en">',
            wmt_xml.MISSING_ATTRIBUTE.format(tag="doc", attribute="id"),
            "<doc>",
        ),
        ('<doc id="d2"', '<doc id="d1"', wmt_xml.DUPLICATE_DOC.format(doc="d1"), '<doc id="d1">'),
        (
            '<hyp lang="en" system="Online-B"><p><seg id="1">One!',
            '<hyp lang="en" system="Online-B"><p><seg id="2">One!',
            wmt_xml.EXTRA_SEG.format(seg="2", doc="d2"),
            '<seg id="2">',
        ),
        (
            '<seg id="2">spaces</seg>',
            "",
            wmt_xml.MISSING_SEG.format(seg="2", doc="d1"),
            '<hyp system="Online-B">',
        ),
        (
            '<seg id="3">3</seg>',
            '<seg id="3"> </seg>',
            wmt_xml.EMPTY_SEGMENT.format(seg="3", doc="d1"),
            '<seg id="3">',
        ),
        ('<seg id="1">Jedna</seg>', "", wmt_xml.NO_SEGMENTS.format(doc="d2"), '<doc id="d2">'),
        (
            '<src lang="cs"><p><seg id="1">Jedna',
            '<src lang="de"><p><seg id="1">Jedna',
            wmt_xml.LANGUAGE_MISMATCH.format(what="source", found="de", expected="cs"),
            '<src lang="de">',
        ),
        (
            '<ref lang="en"><p>',
            '<ref lang="en" translator="Online-B"><p>',
            wmt_xml.SYSTEM_IS_REFERENCE.format(name="Online-B"),
            '<ref translator="Online-B">',
        ),
        (
            '<hyp lang="en" system="Online-B"><p><seg id="1">One!',
            '<hyp lang="en" system="X"><p><seg id="1">One!',
            wmt_xml.MISSING_SYSTEM.format(name="Online-B", doc="d2"),
            '<doc id="d2">',
        ),
        (
            '<seg id="1">Hello</seg>',
            '<seg id="1">Hello <b>x</b></seg>',
            wmt_xml.UNEXPECTED_ELEMENT.format(tag="b", parent="seg"),
            "<b>",
        ),
    ],
)
def test_wmt_xml_structure_errors(old, new, message, element):
    assert old in WMT_SAMPLE
    error = raises(run_wmt, WMT_SAMPLE.replace(old, new, 1))
    assert (error.file, error.message, error.element) == ("test.xml", message, element)
    assert error.line is not None


def test_wmt_xml_duplicate_system_in_document():
    hyp = '<hyp lang="en" system="Online-B"><p><seg id="1">One!</seg></p></hyp>'
    error = raises(run_wmt, WMT_SAMPLE.replace(hyp, hyp + hyp))
    assert error.message == wmt_xml.DUPLICATE_TRANSLATION.format(
        what="system", name="Online-B", doc="d2"
    )
    assert error.line == 21


def test_wmt_xml_wrong_root_and_no_translations():
    assert raises(run_wmt, "<database/>").message == wmt_xml.WRONG_ROOT.format(tag="database")
    source_only = (
        '<dataset><doc id="a"><src lang="cs"><p><seg id="1">x</seg></p></src></doc></dataset>'
    )
    assert raises(run_wmt, source_only).message == wmt_xml.NO_TRANSLATIONS


# --- EvalTrans XML ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('val="1"/>', 'val="high"/>', "<eval> val='high' is not a number"),
        ('val="1"/>', 'val="nan"/>', "<eval> val='nan' is not a number"),
        ('<eval class="isPerfect" val="1"/>', '<eval val="1"/>', "<eval> has no class attribute"),
        (
            '<eval class="isPerfect" val="1"/>',
            '<eval class="isPerfect"/>',
            "<eval> has no val attribute",
        ),
        ('count="2"', 'count="two"', "<levels> attribute count='two' is not an integer"),
        (' perfect="1"', "", "<levels> has no perfect attribute"),
        ("<s_sent>S</s_sent>", "", "<source> must contain exactly one <s_sent>, it has 0"),
        ("<t_sent>T</t_sent>", "<t_sent> </t_sent>", "<t_sent> is empty"),
        ("<database>", "<db>", None),
    ],
)
def test_evaltrans_xml_errors(old, new, message):
    document = (
        EVALTRANS.replace(old, new).replace("</database>", "</db>")
        if old == "<database>"
        else EVALTRANS.replace(old, new)
    )
    error = raises(run_evaltrans, document)
    assert error.file == "db.xml"
    assert error.message == (message or "the root element must be <database>, found <db>")
    assert error.line is not None


def test_evaltrans_duplicate_levels_class():
    levels = '<levels class="isPerfect" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>'
    error = raises(run_evaltrans, EVALTRANS.replace(levels, levels + levels))
    assert error.message == "score class 'isPerfect' is defined twice" and error.line == 4


# --- MQM TSV ----------------------------------------------------------------------------------


def test_unknown_column_is_named():
    error = raises(run_mqm, tsv(HEADER + "\tglobalSegId", [row + "\t7" for row in ROWS]))
    assert error.line == 1 and error.message == mqm.UNKNOWN_COLUMN.format(
        name="globalSegId", columns=" ".join(mqm.COLUMNS)
    )


def test_missing_and_duplicate_columns():
    header = HEADER.replace("\trater", "")
    assert raises(run_mqm, tsv(header, [])).message == mqm.MISSING_COLUMN.format(name="rater")
    assert raises(run_mqm, tsv(HEADER + "\tcomment", [])).message == mqm.DUPLICATE_COLUMN.format(
        name="comment"
    )


def test_row_with_wrong_field_count_and_empty_fields():
    error = raises(run_mqm, tsv(rows=[*ROWS[:3], "sysA\ttalk.1\t1"]))
    assert (error.line, error.message) == (5, mqm.FIELD_COUNT.format(count=3, expected=10))
    error = raises(run_mqm, tsv(rows=[ROWS[0].replace("Zweite <v>falsch</v>", "<v></v>")]))
    assert (error.line, error.message) == (2, mqm.EMPTY_FIELD.format(column="target"))


def test_conflicting_texts():
    error = raises(run_mqm, tsv(rows=[*ROWS, ROWS[1].replace("Erste", "Anders")]))
    assert (error.line, error.message) == (
        12,
        mqm.TARGET_CONFLICT.format(system="sysA", seg="1", line=3),
    )
    error = raises(run_mqm, tsv(rows=[*ROWS, ROWS[1].replace("First", "Changed")]))
    assert (error.line, error.message) == (12, mqm.SOURCE_CONFLICT.format(seg="1", line=3))
    error = raises(run_mqm, tsv(rows=[*ROWS, ROWS[1].replace("talk.1", "talk.9")]))
    assert error.message == mqm.DOC_CONFLICT.format(seg="1", doc="talk.9", other="talk.1", line=3)


def test_missing_reference_system_and_missing_rows():
    error = raises(run_mqm, reference_systems=("ref-A",))
    assert error.message == mqm.UNKNOWN_REFERENCE.format(name="ref-A", systems="sysA, ref, sysB")
    error = raises(run_mqm, tsv(rows=ROWS[:-1]))
    assert error.message == mqm.MISSING_ROW.format(system="ref", seg="10")


# --- markup is data -----------------------------------------------------------------------------


def test_html_and_script_are_stored_as_is():
    script = "<script>alert(1)</script> & <b>x</b>"
    corpus = run_text(source=f"{script}\nb\n", refs=(("A", f"{script}\ny\n"),), systems=())
    assert corpus.segments[0].source == corpus.segments[0].references["A"] == script
    corpus = run_wmt(WMT_SAMPLE.replace("Good day", "&lt;script&gt;alert(1)&lt;/script&gt;"))
    assert corpus.segments[0].references["A"] == "<script>alert(1)</script>"


def test_wmt_xml_source_count_and_duplicate_segment():
    two_sources = WMT_SAMPLE.replace(
        '<src lang="cs"><p><seg id="1">Jedna</seg></p></src>',
        '<src lang="cs"><p><seg id="1">Jedna</seg></p></src><src lang="cs"><p><seg id="1">x</seg></p></src>',
    )
    assert raises(run_wmt, two_sources).message == wmt_xml.SOURCE_COUNT.format(doc="d2", count=2)
    duplicate = WMT_SAMPLE.replace('<seg id="3">Tři</seg>', '<seg id="2">Tři</seg>')
    error = raises(run_wmt, duplicate)
    assert (error.message, error.line) == (wmt_xml.DUPLICATE_SEG.format(seg="2"), 7)


# --- writers refuse what their format cannot hold ---------------------------------------------------


def _corpus():
    from evaltrans.corpora.formats.base import CorpusData, SegmentData

    return CorpusData(
        "de",
        "en",
        [
            SegmentData("a", "d1", "1", {"A": "x"}, {"s": "p"}),
            SegmentData("b", "d2", "2", {"A": "y"}, {"s": "q"}),
            SegmentData("c", "d1", "3", {"A": "z"}, {"s": "r"}),
        ],
    )


def test_text_writer_errors(tmp_path):
    from evaltrans.corpora.formats.text import write_text

    corpus = _corpus()
    corpus.segments[1].doc_id = ""
    assert raises(write_text, corpus, tmp_path).message == text.MIXED_DOC_IDS
    corpus = _corpus()
    corpus.segments[0].candidates["s"] = "two\nlines"
    error = raises(write_text, corpus, tmp_path)
    assert error.message == text.NOT_ONE_LINE.format(seg="1", what="system output", name="s")
    corpus = _corpus()
    corpus.segments[2].references["A"] = " "
    error = raises(write_text, corpus, tmp_path)
    assert error.message == text.BLANK_TEXT.format(seg="3", what="reference", name="A")
    corpus = _corpus()
    del corpus.segments[1].references["A"]
    error = raises(write_text, corpus, tmp_path)
    assert (error.file, error.message) == (
        "ref.A.en",
        text.MISSING_IN_SEGMENT.format(seg="2", what="reference", name="A"),
    )


def test_text_export_manifest_errors(tmp_path):
    from evaltrans.corpora.formats.text import read_text_export, write_text

    assert raises(read_text_export, tmp_path).message == text.BAD_MANIFEST.format(
        reason="file not found"
    )
    write_text(_corpus(), tmp_path)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"source.de"', '"../source.de"'))
    error = raises(read_text_export, tmp_path)
    assert error.message == text.BAD_MANIFEST.format(reason="bad file name '../source.de'")


def test_document_writers_refuse_split_documents_and_repeated_ids(tmp_path):
    from evaltrans.corpora.formats.common import DUPLICATE_SEGMENT_ID, SPLIT_DOCUMENT
    from evaltrans.corpora.formats.sgml import write_sgml
    from evaltrans.corpora.formats.wmt_xml import write_wmt_xml

    for writer in (write_sgml, write_wmt_xml):
        assert raises(writer, _corpus(), tmp_path).message == SPLIT_DOCUMENT.format(doc="d1")
        corpus = _corpus()
        corpus.segments[1].doc_id = "d1"
        corpus.segments[2].seg_id = "1"
        assert raises(writer, corpus, tmp_path).message == DUPLICATE_SEGMENT_ID.format(
            seg="1", doc="d1"
        )


def test_evaltrans_writer_errors(tmp_path):
    from evaltrans.corpora.formats import evaltrans_xml
    from evaltrans.corpora.formats.base import EvaluationData

    corpus = _corpus()
    corpus.segments[0].evaluations.append(EvaluationData("candidate", "nobody", "fluency", 3.0))
    error = raises(evaltrans_xml.write_evaltrans_xml, corpus, tmp_path)
    assert error.message == evaltrans_xml.UNKNOWN_TARGET.format(
        kind="candidate", name="nobody", seg="1"
    )
    corpus = _corpus()
    corpus.segments[0].evaluations.append(EvaluationData("candidate", "s", "isPerfect", 1.0))
    error = raises(evaltrans_xml.write_evaltrans_xml, corpus, tmp_path)
    assert error.message == evaltrans_xml.CANDIDATE_LOOKS_PERFECT.format(
        name="s", seg="1", aspect="isPerfect", value=1.0
    )
