"""Google MQM TSV (texts only): span marks, ordering, references, real TED data."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.formats.mqm_tsv import parse_mqm_tsv, strip_marks, write_mqm_tsv
from tests.conftest import shared_path

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment"
ROWS = [
    'sysA\ttalk.1\t2\t2\trater1\tSecond "quoted"\tZweite <v>falsch</v>\tAccuracy/Mistranslation\tMajor\t',
    "sysA\ttalk.1\t1\t1\trater1\tFirst\tErste\tNo-error\tno-error\t",
    "ref\ttalk.1\t1\t1\trater2\tFirst\tDie erste\tNo-error\tno-error\t",
    'ref\ttalk.1\t2\t2\trater2\t<v>Second</v> "quoted"\tDie zweite\tStyle/Awkward\tMinor\tnote',
    'sysA\ttalk.1\t2\t2\trater3\tSecond "quoted"\t<v>Zweite</v> falsch\tFluency/Grammar\tMinor\t',
    "sysB\ttalk.2\t1\t10\trater1\tTenth\tZehnte\tNo-error\tno-error\t",
    "sysB\ttalk.1\t1\t1\trater1\tFirst\tErst\tNo-error\tno-error\t",
    'sysB\ttalk.1\t2\t2\trater1\tSecond "quoted"\tZwei\tNo-error\tno-error\t',
    "sysA\ttalk.2\t1\t10\trater1\tTenth\tZehn\tNo-error\tno-error\t",
    "ref\ttalk.2\t1\t10\trater1\tTenth\tDie zehnte\tNo-error\tno-error\t",
]


def tsv(header: str = HEADER, rows: list[str] = ROWS) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode("utf-8")


def parse(data: bytes | None = None, **kwargs):
    return parse_mqm_tsv(
        file=InputFile("mqm.tsv", tsv() if data is None else data),
        source_lang="en",
        target_lang="de",
        **kwargs,
    )


def test_texts_per_segment_ordered_by_seg_id():
    corpus = parse()
    assert [(s.seg_id, s.doc_id) for s in corpus.segments] == [
        ("1", "talk.1"),
        ("2", "talk.1"),
        ("10", "talk.2"),
    ]
    second = corpus.segments[1]
    assert second.source == 'Second "quoted"'
    assert second.references == {"ref": "Die zweite"}
    assert second.candidates == {"sysA": "Zweite falsch", "sysB": "Zwei"}
    assert corpus.reference_labels == ["ref"]
    assert corpus.system_names == ["sysA", "sysB"]
    assert corpus.segments[0].evaluations == []


def test_strip_marks_handles_unbalanced_marks():
    assert strip_marks("a <v>b</v> c</v> <v>d") == "a b c d"


def test_reference_systems_option():
    corpus = parse(reference_systems=("ref", "sysB"))
    assert corpus.reference_labels == ["ref", "sysB"]
    assert corpus.system_names == ["sysA"]
    assert parse(reference_systems=()).system_names == ["sysA", "ref", "sysB"]


def test_comment_column_is_optional():
    header = HEADER.removesuffix("\tcomment")
    rows = [row.rsplit("\t", 1)[0] for row in ROWS]
    assert parse(tsv(header, rows)) == parse()


def test_writer_writes_no_error_rows_that_read_back(tmp_path):
    corpus = parse()
    [path] = write_mqm_tsv(corpus, tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == HEADER
    assert lines[1] == "ref\ttalk.1\t1\t1\t\tFirst\tDie erste\tNo-error\tNo-error\t"
    assert len(lines) == 1 + 3 * 3
    assert parse(path.read_bytes()) == corpus


def test_writer_refuses_tabs(tmp_path):
    corpus = parse()
    corpus.segments[0].candidates["sysA"] = "a\tb"
    with pytest.raises(CorpusFormatError, match="contains a tab or line break"):
        write_mqm_tsv(corpus, tmp_path)


def _independent_counts(path):
    """Count segments/systems/texts straight from the file, without the parser."""
    lines = path.read_text(encoding="utf-8").split("\n")
    columns = lines[0].split("\t")
    system_col, seg_col, target_col = (
        columns.index("system"),
        columns.index("seg_id"),
        columns.index("target"),
    )
    texts = defaultdict(set)
    for line in lines[1:]:
        if line:
            fields = line.split("\t")
            texts[(fields[system_col], fields[seg_col])].add(
                re.sub("</?v>", "", fields[target_col])
            )
    systems = {system for system, _ in texts}
    segments = {seg for _, seg in texts}
    return systems, segments, texts


@pytest.mark.parametrize(
    ("parts", "languages", "expected_systems"),
    [
        (("wmt-mqm-ted", "ted", "ende", "mqm_ted_ende.tsv"), ("en", "de"), 13),
        (
            ("wmt-mqm-ted", "ted", "zhen", "mqm_ted_zhen.tsv"),
            ("zh", "en"),
            14,
        ),  # refB stays a system
    ],
)
def test_real_ted_data(parts, languages, expected_systems):
    path = shared_path(*parts)
    corpus = parse_mqm_tsv(
        file=InputFile(path.name, path.read_bytes()),
        source_lang=languages[0],
        target_lang=languages[1],
    )
    systems, segments, texts = _independent_counts(path)
    assert len(corpus.segments) == len(segments) == 529
    assert corpus.reference_labels == ["ref"]
    assert set(corpus.system_names) == systems - {"ref"}
    assert len(corpus.system_names) == expected_systems
    assert [int(s.seg_id) for s in corpus.segments] == sorted(int(seg) for seg in segments)
    for segment in corpus.segments[::50]:
        for system, text in segment.candidates.items():
            assert texts[(system, segment.seg_id)] == {text}
        assert texts[("ref", segment.seg_id)] == {segment.references["ref"]}
        assert "<v>" not in segment.source


def test_real_zh_en_with_refb_as_second_reference():
    path = shared_path("wmt-mqm-ted", "ted", "zhen", "mqm_ted_zhen.tsv")
    corpus = parse_mqm_tsv(
        file=InputFile(path.name, path.read_bytes()),
        source_lang="zh",
        target_lang="en",
        reference_systems=("ref", "refB"),
    )
    assert corpus.reference_labels == ["ref", "refB"]
    assert "refB" not in corpus.system_names
    assert corpus.segments[0].seg_id == "84" and corpus.segments[0].doc_id == "talk.2"
