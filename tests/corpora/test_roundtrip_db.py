"""Import -> store -> export -> parse gives back exactly the imported corpus, for every format
that round-trips, and re-importing an export is recognised as the same content."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltrans.corpora.formats import FORMATS
from evaltrans.corpora.formats.base import CorpusData, EvaluationData, InputFile, SegmentData
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml
from evaltrans.corpora.formats.sgml import parse_sgml
from evaltrans.corpora.formats.text import read_text_export
from evaltrans.corpora.formats.wmt_xml import parse_wmt_xml
from evaltrans.corpora.selectors import testset_corpus_data
from evaltrans.corpora.services import CorpusImportError, testset_export, testset_import

pytestmark = pytest.mark.django_db


def as_input(path: Path) -> InputFile:
    return InputFile(name=path.name, data=path.read_bytes())


def read_back(export_format: str, files: list[Path], corpus: CorpusData) -> CorpusData:
    if export_format == "text":
        return read_text_export(files[0].parent)
    if export_format == "sgml":
        n_refs = len(corpus.reference_labels)
        return parse_sgml(
            source=as_input(files[0]),
            references=[as_input(f) for f in files[1 : 1 + n_refs]],
            systems=[as_input(f) for f in files[1 + n_refs :]],
        )
    if export_format == "wmt-xml":
        return parse_wmt_xml(file=as_input(files[0]))
    return parse_evaltrans_xml(
        file=as_input(files[0]), source_lang=corpus.source_lang, target_lang=corpus.target_lang
    )


def awkward_corpus(with_evaluations: bool) -> CorpusData:
    """Two documents, two references, HTML and entities in the texts, Unicode."""
    texts = [
        ("d1", "Ein <b>Test</b> & mehr.", "A <b>test</b> & more.", "One test &amp; more."),
        ("d1", "Grüße „aus“ Köln!", "Greetings “from” Cologne!", "Regards from Köln!"),
        ("d2", "<script>alert(1)</script>", "<script>alert(1)</script>", "alert(1)"),
    ]
    segments = []
    for number, (doc, source, ref, output) in enumerate(texts, start=1):
        segment = SegmentData(
            source=source,
            doc_id=doc,
            seg_id=str(number),
            references={"A": ref, "B": ref.upper()},
            candidates={"sys-1": output, "sys two": output[::-1]},
        )
        if with_evaluations:
            segment.evaluations = [
                EvaluationData("candidate", "sys-1", "fluency", 3.0, {"evaluator": "j1"}),
                EvaluationData("candidate", "sys two", "adequacy", 1.0, {}),
            ]
        segments.append(segment)
    return CorpusData(source_lang="de", target_lang="en", segments=segments)


ROUND_TRIP_FORMATS = sorted(name for name, spec in FORMATS.items() if spec.round_trip)


def test_every_required_format_round_trips():
    assert {"text", "sgml", "wmt-xml", "evaltrans-xml"} <= set(ROUND_TRIP_FORMATS)


@pytest.mark.parametrize("export_format", ROUND_TRIP_FORMATS)
def test_export_of_stored_corpus_parses_back_to_the_same_corpus(export_format, tmp_path):
    # EvalTrans XML carries human scores; the other formats carry texts only.
    imported = awkward_corpus(with_evaluations=export_format == "evaltrans-xml")
    imported = read_back(
        export_format, FORMATS[export_format].write(imported, tmp_path / "first"), imported
    )
    test_set = testset_import(corpus=imported, name="toy", import_format=export_format).test_set

    files = testset_export(test_set=test_set, export_format=export_format, out_dir=tmp_path / "out")
    exported = read_back(export_format, files, imported)

    assert exported.segments == imported.segments
    assert exported.metadata == imported.metadata
    assert (exported.source_lang, exported.target_lang) == ("de", "en")
    assert testset_corpus_data(test_set=test_set).segments == imported.segments
    with pytest.raises(CorpusImportError, match="already stored as test set 'toy' version 1"):
        testset_import(corpus=exported, name="toy-again", import_format=export_format)
