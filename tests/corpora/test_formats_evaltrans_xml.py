"""EvalTrans database XML (spec §16): references by the last levels class, keying by source text."""

from __future__ import annotations

import pytest

from evaltrans.corpora.formats.base import (
    CorpusData,
    CorpusFormatError,
    EvaluationData,
    InputFile,
    SegmentData,
)
from evaltrans.corpora.formats.evaltrans_xml import (
    DOCTYPE_HEADER,
    parse_evaltrans_xml,
    write_evaltrans_xml,
)

# Figure A.1 of the spec, made concrete (its ". . ." elisions filled in).
FIGURE = """<?xml version="1.0" encoding="utf-8" ?>
<!DOCTYPE etdb SYSTEM "etdb.dtd">
<database>
  <version_id>RCS version ID</version_id>
  <!-- Human evaluation score definition: -->
  <levels class="fluency-min" count="6" gray="2" green="5"
          perfect="5" firstvalid="1"/>
  <!-- The last listed score here is relevant for the
       selection of reference sentences: -->
  <levels class="isPerfect" count="2" gray="0" green="1"
          perfect="1" firstvalid="0"/>
  <source doc="doc1" seg="1">
    <s_sent>First source sentence</s_sent>
    <targets>
      <tgt sys="human">
        <t_sent>First target sentence.
              Reference or candidate sentence, depending on last score.</t_sent>
        <!-- Scores, such as: -->
        <eval class="fluency" val="3"/>
        <eval class="isPerfect" val="1"/>
      </tgt>
      <tgt sys="mt-a">
        <t_sent>A candidate.</t_sent>
        <eval class="fluency" val="2" evaluator="anna"/>
        <eval class="fluency" val="3" evaluator="ben"/>
        <eval class="isPerfect" val="0"/>
      </tgt>
    </targets>
  </source>
</database>
"""


def parse(text: str = FIGURE, **kwargs) -> CorpusData:
    return parse_evaltrans_xml(
        file=InputFile("db.xml", text.encode("utf-8")), source_lang="de", target_lang="en", **kwargs
    )


def database(
    *sources: str,
    levels: str = '<levels class="isPerfect" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>',
) -> str:
    return f'<?xml version="1.0"?>\n<database>\n{levels}\n' + "\n".join(sources) + "\n</database>\n"


def source(text: str, *targets: str, attributes: str = "") -> str:
    return (
        f"<source{attributes}><s_sent>{text}</s_sent><targets>{''.join(targets)}</targets></source>"
    )


def tgt(text: str, *evals: tuple[str, str], sys: str | None = None) -> str:
    sys_attribute = f' sys="{sys}"' if sys is not None else ""
    scores = "".join(f'<eval class="{c}" val="{v}"/>' for c, v in evals)
    return f"<tgt{sys_attribute}><t_sent>{text}</t_sent>{scores}</tgt>"


def test_figure_a1():
    corpus = parse()
    assert (corpus.source_lang, corpus.target_lang) == ("de", "en")
    [segment] = corpus.segments
    assert (segment.source, segment.doc_id, segment.seg_id) == (
        "First source sentence",
        "doc1",
        "1",
    )
    assert list(segment.references) == ["human"]
    assert segment.references["human"].startswith("First target sentence.\n")
    assert segment.candidates == {"mt-a": "A candidate."}
    assert segment.evaluations == [
        EvaluationData("reference", "human", "fluency", 3.0),
        EvaluationData("reference", "human", "isPerfect", 1.0),
        EvaluationData("candidate", "mt-a", "fluency", 2.0, {"evaluator": "anna"}),
        EvaluationData("candidate", "mt-a", "fluency", 3.0, {"evaluator": "ben"}),
        EvaluationData("candidate", "mt-a", "isPerfect", 0.0),
    ]
    assert corpus.metadata["levels"] == [
        {"class": "fluency-min", "count": 6, "gray": 2, "green": 5, "perfect": 5, "firstvalid": 1},
        {"class": "isPerfect", "count": 2, "gray": 0, "green": 1, "perfect": 1, "firstvalid": 0},
    ]
    assert corpus.metadata["version_id"] == "RCS version ID"


def test_last_levels_class_decides_and_val_at_or_above_perfect_is_reference():
    levels = (
        '<levels class="isPerfect" count="2" perfect="1"/>'
        '<levels class="adequacy" count="6" perfect="4" firstvalid="1"/>'
    )
    text = database(
        source(
            "S",
            tgt("five", ("adequacy", "5"), sys="a"),
            tgt("four", ("adequacy", "4"), sys="b"),
            tgt("three", ("adequacy", "3"), ("isPerfect", "1"), sys="c"),
        ),
        levels=levels,
    )
    segment = parse(text).segments[0]
    assert segment.references == {"a": "five", "b": "four"}
    assert segment.candidates == {"c": "three"}


def test_without_levels_every_target_is_a_candidate():
    segment = parse(
        database(source("S", tgt("x", ("isPerfect", "1"), sys="a")), levels="")
    ).segments[0]
    assert segment.references == {} and segment.candidates == {"a": "x"}


def test_unnamed_targets_are_numbered_per_source_and_kind():
    text = database(
        source(
            "S1",
            tgt("r1", ("isPerfect", "1")),
            tgt("c1"),
            tgt("r2", ("isPerfect", "1")),
            tgt("c2"),
            tgt("n", sys="named"),
        ),
        source(
            "S2",
            tgt("c"),
        ),
    )
    first, second = parse(text).segments
    assert first.references == {"ref-1": "r1", "ref-2": "r2"}
    assert first.candidates == {"candidate-1": "c1", "candidate-2": "c2", "named": "n"}
    assert second.candidates == {"candidate-1": "c"}


def test_duplicate_sources_are_merged_by_trimmed_text():
    text = database(
        source(
            "Same",
            tgt("ref", ("isPerfect", "1"), sys="human"),
            tgt("x", ("fluency", "2"), sys="m1"),
            attributes=' doc="d" seg="1"',
        ),
        source("Other", tgt("o", sys="m1")),
        source(
            "  Same \n",
            tgt("x", ("fluency", "4"), sys="m1"),
            tgt("y", sys="m2"),
            tgt("u"),
            attributes=' doc="e" seg="9"',
        ),
        source("Same", tgt("u", ("fluency", "1"))),
    )
    corpus = parse(text)
    assert [s.source for s in corpus.segments] == ["Same", "Other"]
    same = corpus.segments[0]
    assert (same.doc_id, same.seg_id) == ("d", "1")  # the first occurrence's
    assert same.references == {"human": "ref"}
    assert same.candidates == {"m1": "x", "m2": "y", "candidate-1": "u"}
    assert [(e.target_name, e.value) for e in same.evaluations if e.aspect == "fluency"] == [
        ("m1", 2.0),
        ("m1", 4.0),
        ("candidate-1", 1.0),
    ]


def test_same_system_with_two_texts_under_one_source_is_an_error():
    text = database(source("S", tgt("x", sys="m1")), source("S", tgt("different", sys="m1")))
    with pytest.raises(CorpusFormatError, match="candidate 'm1' has two different texts") as info:
        parse(text)
    assert info.value.line == 5 and info.value.element == '<tgt sys="m1">'


def test_unknown_attributes_and_elements_are_preserved(tmp_path):
    text = database(
        source(
            "S",
            '<tgt sys="m" quality="high"><t_sent>x</t_sent><eval class="fluency" val="2.5" evaluator="e1" time="3s"/><note>hi</note></tgt>',
            attributes=' doc="d" origin="web"',
        ),
    ).replace("<database>", '<database owner="lab"><comment_block>keep me</comment_block>')
    corpus = parse(text)
    assert corpus.segments[0].evaluations[0].attributes == {"evaluator": "e1", "time": "3s"}
    assert corpus.metadata["evaltrans_xml"] == {
        "database_attributes": {"owner": "lab"},
        "extra_elements": ["<comment_block>keep me</comment_block>"],
        "segments": {
            "0": {
                "source_attributes": {"origin": "web"},
                "targets": {
                    "candidate:m": {
                        "attributes": {"quality": "high"},
                        "elements": ["<note>hi</note>"],
                    }
                },
            }
        },
    }
    [path] = write_evaltrans_xml(corpus, tmp_path)
    written = path.read_text(encoding="utf-8")
    assert 'evaluator="e1" time="3s"' in written and "<note>hi</note>" in written
    assert (
        parse_evaltrans_xml(
            file=InputFile("db.xml", path.read_bytes()), source_lang="de", target_lang="en"
        )
        == corpus
    )


def test_export_header_is_exactly_the_spec_header(tmp_path):
    [path] = write_evaltrans_xml(parse(), tmp_path)
    assert path.name == "database.xml"
    assert path.read_text(encoding="utf-8").startswith(
        '<?xml version="1.0" encoding="utf-8" ?>\n<!DOCTYPE etdb SYSTEM "etdb.dtd">\n<database>\n'
    )
    assert (
        DOCTYPE_HEADER
        == '<?xml version="1.0" encoding="utf-8" ?>\n<!DOCTYPE etdb SYSTEM "etdb.dtd">\n'
    )


def test_export_of_a_plain_corpus_marks_references_as_perfect(tmp_path):
    corpus = CorpusData(
        "de",
        "en",
        [SegmentData("Hallo", "d", "1", references={"A": "Hello"}, candidates={"mt": "Hi"})],
    )
    [path] = write_evaltrans_xml(corpus, tmp_path)
    again = parse_evaltrans_xml(
        file=InputFile("db.xml", path.read_bytes()), source_lang="de", target_lang="en"
    )
    assert again.segments[0].references == {"A": "Hello"}
    assert again.segments[0].candidates == {"mt": "Hi"}
    assert again.segments[0].evaluations == [EvaluationData("reference", "A", "isPerfect", 1.0)]
    assert again.metadata["levels"][-1]["class"] == "isPerfect"


def test_export_writes_generated_names_without_sys(tmp_path):
    text = database(source("S", tgt("r", ("isPerfect", "1")), tgt("c")))
    [path] = write_evaltrans_xml(parse(text), tmp_path)
    assert "sys=" not in path.read_text(encoding="utf-8")
