"""Run reports written from plain data (no ORM here): the EvalTrans XML report (measures spec
§17), and the JSON and CSV downloads of a run's results table (``results_json``,
``results_csv``).

Layout: the thesis report (Figs. A.2, A.3) describes one candidate file. evaltrans scores
several systems at once, so ``<candidate-statistics>``, ``<evaluation>`` and
``<candidate-evaluation>`` are repeated once per system, each with a ``system`` attribute
(an extension); ``/report/evaluation`` still finds every system block with XPath/XSL.

Everything needed to reproduce the numbers is written: the test set (name, version, content
SHA-256), the ``evaluate`` command line, every option of every measure
(``<evaluation-options>``, spec §17.2), each measure's signature (``signature`` attribute, an
extension) and the software version.

Measure blocks follow Fig. A.3 and §17.2, through the spec-name mapping below:

* tags: ``REPORT_TAGS`` (m-PER is ``<nper>``, skip-bigram PER ``<skip-bigram-per
  max-skip="S">``); WER, PER and CDER with word-dependent substitution costs are ``<wwer>``,
  ``<wper>`` and ``<wcder>``;
* distance measures carry ``<error-rate>`` (a fraction), ``<error-rate-percent>``,
  ``<reference-length>`` (L*_tot) and ``<sum>`` (Σ d_k); CDER puts them in its direction
  (``<cder><forward>…``), ``<nper>`` adds one ``<n-gram n="m">`` block per order;
* ``<bleu>``: ``<score-unpenalized>`` and ``<score>`` with the run's smoothing (``smoothing``
  attribute; ``none`` is the thesis' BLEU), ``<s-score…>`` (BLEU-S) and ``<r-score…>``
  (BLEU-S') from the same counts, ``<length-penalty>`` and ``<n-gram n="m">`` with the
  clipped matches n∩_m, the candidate m-grams N_m and p_m = n∩_m / N_m. BLEU scores are in
  percent, as in the results table; ``<nist>`` likewise with each order's summand;
* other measures (TER's blocks are error-rate blocks; chrF, WNM, ASW) get ``<score>`` and
  their details, numbers as elements named after the detail, lists as repeated elements with
  ``n="1.."``, dicts as nested elements.

At sentence level (``sentences-in-detail``) the same blocks are written from each sentence's
statistics, and distance measures add one ``<reference-distance nr="r" distance="…"
length="…"/>`` per reference (§17.2).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaltrans.spreadsheets import spreadsheet_safe
from metrics.core import get_metric
from metrics.core.base import Measure, format_bool
from metrics.core.bleu import thesis_bleu

XML_HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE etreport SYSTEM "etreport.dtd">\n'

# Our measure names whose report tag differs (spec §0 catalogue, §17.2).
REPORT_TAGS = {"mper": "nper", "skipper": "skip-bigram-per"}
# Measures reported under another tag when substitution costs are word-dependent (Fig. A.3).
WORD_COST_TAGS = {"wer": "wwer", "per": "wper", "cder": "wcder"}
# Option names whose report element differs from the option key (spec §17.2).
OPTION_ELEMENT = {"ref-length-rule": "reference-length-rule"}
# Measures whose blocks are error-rate blocks (Fig. A.3), beyond the mapped ones.
ERROR_RATE_MEASURES = {"wer", "per", "msder", "ljwer", "invwer", "ter"}

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
    reference_distances: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)
    """(reference number, distance, length) per signature, for distance measures."""


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
        return format_bool(value)
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


def report_tag(measure: ReportMeasure) -> str:
    """The element name of a measure's blocks (``<nper>``, ``<wwer>``, ...)."""
    costs = measure.options.get("substitution-cost-rule", "none")
    if measure.name in WORD_COST_TAGS and costs != "none":
        return WORD_COST_TAGS[measure.name]
    return REPORT_TAGS.get(measure.name, _tag(measure.name))


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


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator; 0 for 0 / 0 and None (NaN) for x / 0 (spec §4.1)."""
    if numerator is None or denominator is None:
        return None
    if denominator == 0:
        return 0.0 if numerator == 0 else None
    return numerator / denominator


# --- measure blocks ------------------------------------------------------------------------


@dataclass
class _Block:
    """What one measure block is written from: system details or one sentence's statistics."""

    measure: ReportMeasure
    core: Measure
    score: float | None
    values: Mapping[str, Any]
    sentence: bool
    reference_distances: list[tuple[int, float, float]] = field(default_factory=list)


def _error_rate(
    parent: ET.Element,
    distance: Any,
    length: Any,
    percent: Any = _NO_TEXT,
    reference_distances: Sequence[tuple[int, float, float]] = (),
) -> None:
    """The four elements of every distance block (Fig. A.3, §17.1), then reference distances.

    ``percent`` is the stored score when there is one (None: undefined); otherwise the rate
    is Σ d / L*.
    """
    if percent is _NO_TEXT:
        rate = _ratio(distance, length)
        percent = None if rate is None else 100.0 * rate
    else:
        rate = None if percent is None else percent / 100.0
    _sub(parent, "error-rate", rate)
    _sub(parent, "error-rate-percent", percent)
    _sub(parent, "reference-length", length)
    _sub(parent, "sum", distance)
    for number, ref_distance, ref_length in reference_distances:
        _sub(parent, "reference-distance", nr=number, distance=ref_distance, length=ref_length)


def _distance_parts(element: ET.Element, block: _Block) -> None:
    """Error-rate elements and the remaining details of a distance measure's block."""
    values = block.values
    if "distance" not in values:
        _sub(element, "score", block.score)
        return
    _error_rate(
        element, values["distance"], values["ref_length"], block.score, block.reference_distances
    )
    per_order = {key for key in values if key == "orders" or key.startswith(_ORDER_PREFIXES)}
    _details(element, values, {"distance", "ref_length"} | per_order)


_ORDER_PREFIXES = ("distance_", "ref_length_")


def _distance_block(parent: ET.Element, block: _Block) -> None:
    element = _sub(parent, report_tag(block.measure), signature=block.measure.signature)
    _distance_parts(element, block)


def _cder_block(parent: ET.Element, block: _Block) -> None:
    element = _sub(parent, report_tag(block.measure), signature=block.measure.signature)
    direction = block.measure.options.get("direction", "forward")
    _distance_parts(_sub(element, _tag(direction)), block)


def _orders(values: Mapping[str, Any]) -> dict[int, tuple[float, float]]:
    """(Σ d_m, Σ L*_m) per order m, from system details or a sentence's statistics."""
    if isinstance(values.get("orders"), Mapping):
        return {
            int(order): (part["distance"], part["ref_length"])
            for order, part in values["orders"].items()
        }
    return {
        int(key.removeprefix("distance_")): (
            value,
            values["ref_length_" + key.removeprefix("distance_")],
        )
        for key, value in values.items()
        if key.startswith("distance_")
    }


def _nper_block(parent: ET.Element, block: _Block) -> None:
    attributes = {"signature": block.measure.signature}
    skip_bigrams = block.measure.name == "skipper"
    if skip_bigrams:  # one order only: its <n-gram n="2"> would repeat the block
        attributes = {"max-skip": block.measure.options.get("max-bigram-skip"), **attributes}
    element = _sub(parent, report_tag(block.measure), **attributes)
    _distance_parts(element, block)
    if skip_bigrams or "distance" not in block.values:
        return
    for order, (distance, length) in sorted(_orders(block.values).items()):
        _error_rate(_sub(element, "n-gram", n=order), distance, length)


def _counts(values: Mapping[str, Any], orders: int, prefix: str) -> list[float]:
    """Per-order counts from system details (a list) or a sentence's ``{prefix}_m`` columns."""
    if isinstance(values.get(prefix), Sequence):
        return [float(x) for x in values[prefix]]
    return [float(values.get(f"{prefix}_{n}", 0.0)) for n in range(1, orders + 1)]


def _bleu_block(parent: ET.Element, block: _Block) -> None:
    options = block.measure.options
    element = _sub(
        parent,
        report_tag(block.measure),
        signature=block.measure.signature,
        smoothing=options.get("smoothing", ""),
    )
    values = block.values
    if "hyp_len" not in values:
        _sub(element, "score", block.score)
        return
    orders = int(options.get("max-ngram", 4))
    correct, total = _counts(values, orders, "correct"), _counts(values, orders, "total")
    hyp_len, ref_len = float(values["hyp_len"]), float(values["ref_len"])
    row = [hyp_len, ref_len, *correct, *total]
    parts = block.core.parts(np.asarray(row, dtype=float), sentence=block.sentence)  # type: ignore[attr-defined]
    _sub(element, "score-unpenalized", parts.unpenalized)
    _sub(element, "score", block.score)
    for prefix, method in (("s", "bleu-s"), ("r", "bleu-s-prime")):
        variant = thesis_bleu(correct, total, hyp_len, ref_len, method)
        _sub(element, f"{prefix}-score-unpenalized", variant.unpenalized)
        _sub(element, f"{prefix}-score", variant.score)
    _sub(element, "length-penalty", parts.brevity_penalty)
    _sub(element, "candidate-length", hyp_len)
    _sub(element, "reference-length", ref_len)
    for order, (matches, count) in enumerate(zip(correct, total, strict=True), start=1):
        gram = _sub(element, "n-gram", n=order)
        _sub(gram, "correct", matches)
        _sub(gram, "total", count)
        _sub(gram, "precision", _ratio(matches, count) if count else None)


def _nist_block(parent: ET.Element, block: _Block) -> None:
    element = _sub(parent, report_tag(block.measure), signature=block.measure.signature)
    values = block.values
    if "hyp_len" not in values:
        _sub(element, "score", block.score)
        return
    if "ngram_terms" in values:
        terms, penalty = list(values["ngram_terms"]), values["brevity_penalty"]
    else:
        orders = int(block.measure.options.get("max-ngram", 5))
        row = [values["hyp_len"], values["ref_len"]]
        row += _counts(values, orders, "info") + _counts(values, orders, "total")
        terms, penalty = block.core.terms(np.asarray(row, dtype=float))  # type: ignore[attr-defined]
    _sub(element, "score-unpenalized", math.fsum(terms))
    _sub(element, "score", block.score)
    _sub(element, "length-penalty", penalty)
    _sub(element, "candidate-length", values["hyp_len"])
    _sub(element, "reference-length", values["ref_len"])
    for order, term in enumerate(terms, start=1):
        _sub(_sub(element, "n-gram", n=order), "score", term)


def _generic_block(parent: ET.Element, block: _Block) -> None:
    element = _sub(parent, report_tag(block.measure), signature=block.measure.signature)
    _sub(element, "score", block.score)
    _details(element, block.values, set())


BLOCK_WRITERS: dict[str, Callable[[ET.Element, _Block], None]] = {
    **{name: _distance_block for name in ERROR_RATE_MEASURES},
    "cder": _cder_block,
    "mper": _nper_block,
    "skipper": _nper_block,
    "bleu": _bleu_block,
    "nist": _nist_block,
}


def _measure_block(parent: ET.Element, block: _Block) -> None:
    BLOCK_WRITERS.get(block.measure.name, _generic_block)(parent, block)


# --- the report ----------------------------------------------------------------------------


def _options(
    parent: ET.Element, measures: Sequence[ReportMeasure], cores: dict[str, Measure]
) -> None:
    options = _sub(parent, "evaluation-options")
    for measure in measures:
        block = _sub(options, f"{report_tag(measure)}-options", signature=measure.signature)
        # As the command line gives them: an uploaded file's text is named by its hash.
        shown = cores[measure.signature].command_line_values()
        for key, value in measure.options.items():
            _sub(block, _tag(OPTION_ELEMENT.get(key, key)), shown.get(key, value))


def _sentences(
    parent: ET.Element, data: ReportData, system: ReportSystem, cores: dict[str, Measure]
) -> None:
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
            block = _Block(
                by_signature[signature],
                cores[signature],
                value,
                sentence.stats.get(signature, {}),
                sentence=True,
                reference_distances=sentence.reference_distances.get(signature, []),
            )
            _measure_block(candidate, block)


def report_xml(data: ReportData) -> str:
    """The whole report as a string (UTF-8 XML with the thesis header)."""
    cores = {m.signature: get_metric(m.name)(**m.options) for m in data.measures}
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
    for system in data.systems:
        # Lengths in whitespace-separated tokens of the stored texts (tokenizer "none").
        statistics = _sub(root, "candidate-statistics", system=system.name, tokenize="none")
        _details(statistics, system.statistics, set())
    _options(root, data.measures, cores)
    for system in data.systems:
        evaluation = _sub(root, "evaluation", system=system.name)
        for measure in data.measures:
            score, details = system.scores.get(measure.signature, (None, {}))
            block = _Block(measure, cores[measure.signature], score, details, sentence=False)
            _measure_block(evaluation, block)
    for system in data.systems:
        if system.sentences is not None:
            _sentences(root, data, system, cores)
    ET.indent(root, space="  ")
    return XML_HEADER + ET.tostring(root, encoding="unicode") + "\n"


# --- results downloads ---------------------------------------------------------------------

RESULT_FIELDS = ["system", "measure", "score", "signature", "higher_is_better", "best"]
"""Columns of the CSV download: the keys of ``ResultsTable.as_records()``."""


def results_json(
    *,
    run_id: int,
    test_set_name: str,
    test_set_version: int,
    test_set_hash: str,
    status: str,
    records: Sequence[Mapping[str, Any]],
) -> str:
    """A run's results table as JSON: one record per (system, measure), with the test set."""
    payload = {
        "run": run_id,
        "test_set": {
            "name": test_set_name,
            "version": test_set_version,
            "content_hash": test_set_hash,
        },
        "status": status,
        "results": list(records),
    }
    return json.dumps(payload, ensure_ascii=False, indent=2)


def results_csv(records: Sequence[Mapping[str, Any]]) -> str:
    """A run's results table as CSV, one row per (system, measure); text cells that a
    spreadsheet would run as formulas are written as text (``spreadsheet_safe``)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=RESULT_FIELDS)
    writer.writeheader()
    for record in records:
        writer.writerow({key: spreadsheet_safe(value) for key, value in record.items()})
    return buffer.getvalue()
