"""parse → write → parse gives an equal CorpusData (text, SGML, WMT XML, EvalTrans XML).

Hypothesis generates corpora with awkward text: markup, entities written literally (``&amp;``),
quotes, Unicode (including U+2028 and astral characters), tabs and inner spaces. What each
format keeps is documented in ``docs/import-formats.md``: text and WMT XML keep sentences
exactly (leading/trailing spaces included); SGML and EvalTrans XML trim them, so their
generated sentences are trimmed already.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaltrans.corpora.formats import reading
from evaltrans.corpora.formats.base import CorpusData, EvaluationData, InputFile, SegmentData
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml, write_evaltrans_xml
from evaltrans.corpora.formats.mqm_tsv import parse_mqm_tsv
from evaltrans.corpora.formats.sgml import parse_sgml, write_sgml
from evaltrans.corpora.formats.text import parse_text, read_text_export, write_text
from evaltrans.corpora.formats.wmt_xml import parse_wmt_xml, write_wmt_xml
from tests.conftest import shared_path

AWKWARD = [
    "<script>alert(1)</script>",
    "&amp; &lt; &#233; &nbsp;",
    "AT&T <b>bold</b>",
    "\"double\" 'single' „German“",
    "  leading and trailing  ",
    "tab\there",
    "line\u2028separator\x85next",
    "emoji 🙂 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "中文，标点。",
    "]]> <![CDATA[x]]>",
    '<seg id="9">fake</seg> </doc>',
    "\ufeffstarts with U+FEFF, like a byte-order mark",
]

# Characters XML 1.0 can carry: no surrogates, no other control characters, no U+FFFE/U+FFFF.
_XML_CHARACTERS = st.characters(
    blacklist_categories=("Cs", "Cc", "Cn"), min_codepoint=1
) | st.sampled_from("\t\n\r")
# Every character an import stores: the readers refuse the others (reading.UNSTORABLE_CHARACTER).
_LINE_CHARACTERS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r").filter(
    lambda char: not reading.UNSTORABLE_CHARACTER.match(char)
)


def _sentences(characters: st.SearchStrategy[str], *, trimmed: bool) -> st.SearchStrategy[str]:
    generated = st.text(characters, min_size=1, max_size=30)
    sentences = st.sampled_from(AWKWARD) | generated
    if trimmed:
        sentences = sentences.map(str.strip)
    return sentences.filter(lambda text: not reading.is_blank(text))


_NAMES = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Cn", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=12,
).filter(lambda name: not reading.is_blank(name))


@st.composite
def corpora(draw, sentences, *, docs: bool = True, partial_references: bool = False) -> CorpusData:
    """A corpus of 1-6 segments with 1-2 references and 0-3 systems, all names distinct."""
    names = draw(st.lists(_NAMES, min_size=2, max_size=5, unique_by=str.lower))
    ref_count = draw(st.integers(1, min(2, len(names) - 1)))
    labels, systems = names[:ref_count], names[ref_count:]
    count = draw(st.integers(1, 6))
    doc_ids = ["d1"] * count
    if docs:
        cut = draw(st.integers(0, count))
        doc_ids = ["d1"] * cut + ["d 2 <&>"] * (count - cut)
    segments = []
    for index in range(count):
        references = {label: draw(sentences) for label in labels}
        if partial_references and index > 0 and draw(st.booleans()):
            references.pop(labels[-1])
        segments.append(
            SegmentData(
                source=draw(sentences),
                doc_id=doc_ids[index] if docs else "",
                seg_id=str(index + 1),
                references=references,
                candidates={name: draw(sentences) for name in systems},
            )
        )
    return CorpusData("de", "en", segments)


@contextmanager
def _out_dir() -> Iterator[Path]:
    # tmp_path is function-scoped, but hypothesis runs many examples per test function.
    with tempfile.TemporaryDirectory(prefix="evaltrans-roundtrip-") as directory:
        yield Path(directory)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- text -----------------------------------------------------------------------------------


def _parse_text_dir(directory: Path) -> CorpusData:
    return read_text_export(directory)


@SETTINGS
@given(corpora(_sentences(_LINE_CHARACTERS, trimmed=False).filter(lambda t: not t.endswith("\r"))))
def test_text_round_trip(corpus):
    with _out_dir() as first_dir, _out_dir() as second_dir:
        write_text(corpus, first_dir)
        parsed = _parse_text_dir(first_dir)
        assert parsed == corpus  # the generated corpus already has text-format segment ids
        write_text(parsed, second_dir)
        assert _parse_text_dir(second_dir) == parsed


def test_text_round_trip_of_parsed_files(tmp_path):
    source = InputFile("s.txt", "\n".join(AWKWARD).encode())
    ref = InputFile("r.txt", "\n".join(reversed(AWKWARD)).encode())
    corpus = parse_text(
        source=source,
        references=[("A", ref)],
        systems=[("x/y", ref)],
        source_lang="de",
        target_lang="en",
    )
    write_text(corpus, tmp_path)
    assert read_text_export(tmp_path) == corpus
    assert corpus.segments[0].source == "<script>alert(1)</script>"


# --- WMT XML -----------------------------------------------------------------------------------


def _wmt_round_trip(corpus: CorpusData) -> CorpusData:
    with _out_dir() as directory:
        [path] = write_wmt_xml(corpus, directory)
        return parse_wmt_xml(file=InputFile(path.name, path.read_bytes()))


@SETTINGS
@given(corpora(_sentences(_XML_CHARACTERS, trimmed=False), partial_references=True))
def test_wmt_xml_round_trip(corpus):
    parsed = _wmt_round_trip(corpus)
    assert parsed.segments == corpus.segments  # texts kept exactly, even "\r" and edge spaces
    assert _wmt_round_trip(parsed) == parsed


# --- SGML ----------------------------------------------------------------------------------------


def _sgml_round_trip(corpus: CorpusData) -> CorpusData:
    with _out_dir() as directory:
        paths = write_sgml(corpus, directory)
        files = [InputFile(path.name, path.read_bytes()) for path in paths]
    count = len(corpus.reference_labels)
    return parse_sgml(source=files[0], references=files[1 : 1 + count], systems=files[1 + count :])


@SETTINGS
@given(corpora(_sentences(_LINE_CHARACTERS, trimmed=True)))
def test_sgml_round_trip(corpus):
    parsed = _sgml_round_trip(corpus)
    assert parsed.segments == corpus.segments
    assert _sgml_round_trip(parsed) == parsed


# --- EvalTrans XML ---------------------------------------------------------------------------------


def _evaltrans_round_trip(corpus: CorpusData) -> CorpusData:
    with _out_dir() as directory:
        [path] = write_evaltrans_xml(corpus, directory)
        data = path.read_bytes()
    return parse_evaltrans_xml(file=InputFile(path.name, data), source_lang="de", target_lang="en")


@st.composite
def scored_corpora(draw) -> CorpusData:
    corpus = draw(corpora(_sentences(_XML_CHARACTERS, trimmed=True), partial_references=True))
    seen_sources: set[str] = set()
    for segment in corpus.segments:
        segment.source += f" #{segment.seg_id}"  # EvalTrans keys by source text: keep them distinct
        assert segment.source not in seen_sources
        seen_sources.add(segment.source)
        for name in segment.candidates:
            for _ in range(draw(st.integers(0, 2))):
                segment.evaluations.append(
                    EvaluationData(
                        "candidate",
                        name,
                        draw(st.sampled_from(["fluency", "adequacy"])),
                        draw(st.sampled_from([0.0, 1.0, 2.5, 4.0])),
                        draw(st.sampled_from([{}, {"evaluator": "e<1>"}])),
                    )
                )
    return corpus


@SETTINGS
@given(scored_corpora())
def test_evaltrans_xml_round_trip(corpus):
    parsed = _evaltrans_round_trip(corpus)  # adds the deciding isPerfect score to references
    assert [s.references for s in parsed.segments] == [s.references for s in corpus.segments]
    assert [s.candidates for s in parsed.segments] == [s.candidates for s in corpus.segments]
    assert _evaltrans_round_trip(parsed) == parsed


def test_evaltrans_xml_round_trip_of_spec_figure():
    from .test_formats_evaltrans_xml import parse

    corpus = parse()
    assert _evaltrans_round_trip(corpus) == corpus


# --- real data across formats ------------------------------------------------------------------------


def test_mqm_ted_texts_survive_wmt_xml_and_sgml():
    path = shared_path("wmt-mqm-ted", "ted", "ende", "mqm_ted_ende.tsv")
    corpus = parse_mqm_tsv(
        file=InputFile(path.name, path.read_bytes()), source_lang="en", target_lang="de"
    )
    assert _wmt_round_trip(corpus).segments == corpus.segments
    assert _sgml_round_trip(corpus).segments == corpus.segments
