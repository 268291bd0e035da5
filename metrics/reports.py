"""The EvalTrans XML report (measures spec §17), written from plain data (no ORM here).

Layout: the thesis report (Figs. A.2, A.3) describes one candidate file. evaltrans scores
several systems at once, so ``<candidate-statistics>``, ``<evaluation>`` and
``<candidate-evaluation>`` are repeated once per system, each with a ``system`` attribute
(an extension); ``/report/evaluation`` still finds every system block with XPath/XSL.

Everything needed to reproduce the numbers is written: the test set (name, version, content
SHA-256), every option of every measure (``<evaluation-options>``, spec §17.2), each
measure's signature (``signature`` attribute, an extension) and the software version.

Measure blocks: error-rate measures (those whose details carry ``distance`` and
``ref_length``) get ``<error-rate>`` (a fraction), ``<error-rate-percent>``,
``<reference-length>`` (L*_tot) and ``<sum>`` (Σ d_k) as in Fig. A.3. Every measure also gets
``<score>`` and its remaining details: numbers as elements named after the detail (``_`` →
``-``), lists as repeated elements with ``n="1.."`` (the ``<n-gram n="1">`` pattern), dicts as
nested elements.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

XML_HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE etreport SYSTEM "etreport.dtd">\n'

# Option names whose report element differs from the option key (spec §17.2).
OPTION_ELEMENT = {"ref-length-rule": "reference-length-rule"}

# Characters XML 1.0 cannot carry at all; sentences are user data and may hold them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_TAG_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass
class ReportMeasure:
    name: str
    signature: str
    options: dict[str, Any]


@dataclass
class ReportSentence:
    index: int
    source: str
    candidate: str
    references: list[str]
    scores: dict[str, float | None]
    """Sentence score per signature."""
    stats: dict[str, dict[str, float]] = field(default_factory=dict)
    """Named statistics per signature (``distance``, ``ref_length``, ...)."""


@dataclass
class ReportSystem:
    name: str
    scores: dict[str, tuple[float | None, dict[str, Any]]]
    """(score, details) per signature."""
    statistics: dict[str, Any] = field(default_factory=dict)
    sentences: list[ReportSentence] | None = None


@dataclass
class ReportData:
    author: str
    date: str
    software: str
    test_set: dict[str, Any]
    measures: list[ReportMeasure]
    systems: list[ReportSystem]
    comment: str = ""
    command_line: str = ""
    include_sentences: bool = False


def clean_text(text: str) -> str:
    return _INVALID_XML.sub("", text)


def _number(value: Any) -> str:
    if value is None:
        return "NaN"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "NaN"
        return repr(value)
    return clean_text(str(value))


def _tag(name: str) -> str:
    tag = _TAG_SAFE.sub("-", str(name).replace("_", "-")) or "value"
    return tag if tag[0].isalpha() else f"x-{tag}"


_NO_TEXT = object()


def _sub(parent: ET.Element, tag: str, text: Any = _NO_TEXT, **attributes: Any) -> ET.Element:
    """A child element; ``text`` None is written as NaN (an undefined score)."""
    element = ET.SubElement(parent, tag, {key: _number(v) for key, v in attributes.items()})
    if text is not _NO_TEXT:
        element.text = _number(text)
    return element


def _details(parent: ET.Element, details: Mapping[str, Any], skip: set[str]) -> None:
    for key, value in details.items():
        if key in skip:
            continue
        tag = _tag(key)
        if isinstance(value, Mapping):
            _details(_sub(parent, tag), value, set())
        elif isinstance(value, Sequence) and not isinstance(value, str):
            for position, item in enumerate(value, start=1):
                if isinstance(item, Mapping):
                    _details(_sub(parent, tag, n=position), item, set())
                else:
                    _sub(parent, tag, item, n=position)
        else:
            _sub(parent, tag, value)


def _measure_block(
    parent: ET.Element, measure: ReportMeasure, score: float | None, details: Mapping[str, Any]
) -> None:
    block = _sub(parent, _tag(measure.name), signature=measure.signature)
    skip: set[str] = set()
    if "distance" in details and "ref_length" in details:
        distance, length = details["distance"], details["ref_length"]
        rate = distance / length if length else None
        _sub(block, "error-rate", rate)
        _sub(block, "error-rate-percent", score)
        _sub(block, "reference-length", length)
        _sub(block, "sum", distance)
        skip = {"distance", "ref_length"}
    _sub(block, "score", score)
    _details(block, details, skip)


def _options(parent: ET.Element, measures: Sequence[ReportMeasure]) -> None:
    options = _sub(parent, "evaluation-options")
    for measure in measures:
        block = _sub(options, f"{_tag(measure.name)}-options", signature=measure.signature)
        for key, value in measure.options.items():
            _sub(block, _tag(OPTION_ELEMENT.get(key, key)), value)


def _sentences(parent: ET.Element, data: ReportData, system: ReportSystem) -> None:
    evaluation = _sub(parent, "candidate-evaluation", system=system.name)
    by_signature = {measure.signature: measure for measure in data.measures}
    for sentence in system.sentences or []:
        candidate = _sub(evaluation, "candidate", nr=sentence.index)
        source = _sub(candidate, "source", nr=sentence.index)
        target = _sub(candidate, "target", nr=-1)
        if data.include_sentences:
            source.text = clean_text(sentence.source)
            target.text = clean_text(sentence.candidate)
            for number, reference in enumerate(sentence.references):
                _sub(candidate, "reference", clean_text(reference), nr=number)
        for signature, value in sentence.scores.items():
            measure = by_signature[signature]
            _measure_block(candidate, measure, value, sentence.stats.get(signature, {}))


def report_xml(data: ReportData) -> str:
    """The whole report as a string (UTF-8 XML with the thesis header)."""
    root = ET.Element("report")
    _sub(root, "author", data.author)
    _sub(root, "date", data.date)
    _sub(root, "comment", data.comment)
    _sub(root, "software", data.software)
    files = _sub(root, "files")
    test_set = data.test_set
    _sub(
        files,
        "database-file",
        f"{test_set.get('name', '')} v{test_set.get('version', '')}",
        **{"content-sha256": test_set.get("content_hash", "")},
    )
    _sub(files, "source-file", test_set.get("name", ""))
    _sub(files, "command-line", data.command_line)
    _sub(root, "test-set", **{_tag(key): value for key, value in test_set.items()})
    _options(root, data.measures)
    for system in data.systems:
        statistics = _sub(root, "candidate-statistics", system=system.name)
        _details(statistics, system.statistics, set())
    for system in data.systems:
        evaluation = _sub(root, "evaluation", system=system.name)
        for measure in data.measures:
            score, details = system.scores.get(measure.signature, (None, {}))
            _measure_block(evaluation, measure, score, details)
    for system in data.systems:
        if system.sentences is not None:
            _sentences(root, data, system)
    ET.indent(root, space="  ")
    return XML_HEADER + ET.tostring(root, encoding="unicode") + "\n"
