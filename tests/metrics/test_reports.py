"""The EvalTrans XML report writer (measures spec §17): pure, from plain data."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from metrics.reports import (
    ReportData,
    ReportMeasure,
    ReportSentence,
    ReportSystem,
    report_xml,
)

WER_SIG = "wer|nrefs:1|tok:13a|lc:no|reflen:lowestError|version:1.0"
BLEU_SIG = "bleu|nrefs:1|tok:13a|version:1.0"


def sample(**overrides) -> ReportData:
    data = ReportData(
        author="admin",
        date="2025-01-02T03:04:05+00:00",
        software="evaltrans 0.1.0",
        test_set={"name": "news", "version": 2, "content_hash": "ab" * 32, "segments": 2},
        measures=[
            ReportMeasure("wer", WER_SIG, {"ref-length-rule": "lowestError", "lowercase": False}),
            ReportMeasure("bleu", BLEU_SIG, {"max-ngram": 4}),
        ],
        systems=[
            ReportSystem(
                name='sys <a> & "b"',
                scores={
                    WER_SIG: (25.0, {"distance": 3.0, "ref_length": 12.0, "segments": 2}),
                    BLEU_SIG: (31.5, {"precisions": [60.0, 40.0], "bp": 1.0}),
                },
                statistics={"sentences": 2, "references": 1},
                sentences=[
                    ReportSentence(
                        0,
                        "src\x0b one",
                        "hyp <one>",
                        ["ref one"],
                        {WER_SIG: 50.0, BLEU_SIG: None},
                        {WER_SIG: {"distance": 2.0, "ref_length": 4.0}},
                    ),
                ],
            ),
            ReportSystem(
                name="sys-c", scores={WER_SIG: (30.0, {"distance": 3.6, "ref_length": 12.0})}
            ),
        ],
        comment="a & b",
        command_line="manage.py evaluate --test-set news",
        include_sentences=True,
    )
    for key, value in overrides.items():
        setattr(data, key, value)
    return data


def parse(data: ReportData) -> ET.Element:
    text = report_xml(data)
    assert text.startswith('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE etreport')
    return ET.fromstring(text.split("\n", 2)[2])


def test_header_files_and_options_reproduce_the_run():
    root = parse(sample())
    assert root.tag == "report"
    assert root.findtext("author") == "admin" and root.findtext("comment") == "a & b"
    assert root.findtext("files/command-line") == "manage.py evaluate --test-set news"
    assert root.find("files/database-file").get("content-sha256") == "ab" * 32
    options = root.find("evaluation-options/wer-options")
    assert options.get("signature") == WER_SIG
    assert options.findtext("reference-length-rule") == "lowestError"
    assert options.findtext("lowercase") == "false"
    assert root.findtext("evaluation-options/bleu-options/max-ngram") == "4"


def test_error_rate_block_follows_figure_a3():
    root = parse(sample())
    evaluations = root.findall("evaluation")
    assert [e.get("system") for e in evaluations] == ['sys <a> & "b"', "sys-c"]
    wer = evaluations[0].find("wer")
    assert float(wer.findtext("error-rate")) == 0.25
    assert float(wer.findtext("error-rate-percent")) == 25.0
    assert float(wer.findtext("reference-length")) == 12.0
    assert float(wer.findtext("sum")) == 3.0
    assert wer.findtext("segments") == "2"


def test_other_measures_write_score_and_details_generically():
    bleu = parse(sample()).find("evaluation/bleu")
    assert bleu.findtext("score") == "31.5"
    assert [(e.get("n"), e.text) for e in bleu.findall("precisions")] == [
        ("1", "60.0"),
        ("2", "40.0"),
    ]
    assert bleu.findtext("bp") == "1.0"
    missing = parse(sample()).findall("evaluation")[1].find("bleu")
    assert missing.findtext("score") == "NaN"


def test_sentences_in_detail_with_texts_escaped_and_cleaned():
    root = parse(sample())
    candidate = root.find("candidate-evaluation/candidate")
    assert candidate.get("nr") == "0"
    assert candidate.findtext("source") == "src one"  # XML-illegal control character dropped
    assert candidate.findtext("target") == "hyp <one>"
    assert candidate.findtext("reference") == "ref one"
    assert float(candidate.findtext("wer/sum")) == 2.0
    assert candidate.findtext("bleu/score") == "NaN"


def test_without_texts_only_numbers_are_written():
    root = parse(sample(include_sentences=False))
    candidate = root.find("candidate-evaluation/candidate")
    assert candidate.find("source").text is None and candidate.find("reference") is None
