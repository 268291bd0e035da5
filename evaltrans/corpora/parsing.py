"""One entry point from the inputs of an import (command line or upload form) to a CorpusData.

Plain text is read as :class:`~evaltrans.corpora.formats.base.StreamedSegments` (each file
checked whole one at a time, then the segments streamed from the files while they are stored),
so an import of any size holds at most one file and one batch of segments in memory; the
other formats read their files whole (:meth:`InputFile.loaded`).

The command and the web form both collect a :class:`CorpusInputs` and call
:func:`parse_corpus`; everything format-specific happens in ``evaltrans.corpora.formats``, and
what every format refuses alike in ``evaltrans.corpora.formats.reading``. This module adds what
depends on the project: the longest names and ids the models store (:func:`storage_limits`)
and the caps of one import (:func:`max_total_bytes`, :func:`max_segments`), so the parsers can
refuse what the database could not take, with its file and line, before anything is stored.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings

from .formats.base import CorpusData, CorpusFormatError, InputFile
from .formats.evaltrans_xml import parse_evaltrans_xml
from .formats.mqm_tsv import parse_mqm_tsv
from .formats.reading import FieldLimits, unstorable_problem
from .formats.sgml import parse_sgml
from .formats.text import parse_text
from .formats.wmt_xml import parse_wmt_xml
from .models import RawEvaluation, Reference, Segment, System, TestSet

MISSING_INPUT = "format {format}: {what} is required"
UNKNOWN_FORMAT = "unknown format {format!r} (known: {known})"
BAD_NAMED_FILE = "{given!r}: expected NAME=FILE"
BAD_LANGUAGE = "{what} language {value!r}: {problem}"
TOTAL_TOO_LARGE = (
    "the files of one import have {size:,} bytes together, more than the limit of {limit:,} "
    "bytes (CORPUS_UPLOAD_MAX_TOTAL_BYTES)"
)
TOO_MANY_SEGMENTS = (
    "{count:,} segments, more than the limit of {limit:,} segments per import "
    "(CORPUS_IMPORT_MAX_SEGMENTS)"
)

# Used where the settings do not name the caps (docs/import-formats.md, "What is refused").
DEFAULT_MAX_TOTAL_BYTES = 200 * 1024 * 1024
DEFAULT_MAX_SEGMENTS = 500_000

IMPORT_FORMATS = ("text", "sgml", "wmt-xml", "evaltrans-xml", "mqm-tsv")


class CorpusInputError(ValueError):
    """Inputs that do not fit the chosen format (a missing file, a missing language)."""


@dataclass
class CorpusInputs:
    """Everything an import may name; each format uses the part it needs."""

    source: InputFile | None = None
    references: list[tuple[str | None, InputFile]] = field(default_factory=list)
    """(label, file); label None where the user gave none (text: A, B, …; SGML: the file's refid)."""
    systems: list[tuple[str, InputFile]] = field(default_factory=list)
    file: InputFile | None = None
    docs: InputFile | None = None
    source_lang: str = ""
    target_lang: str = ""
    encoding: str | None = None
    """None: UTF-8 for text, SGML and TSV; XML files follow their own declaration."""
    reference_systems: tuple[str, ...] = ("ref",)
    max_bytes: int | None = None
    max_segments: int | None = None
    """Refuse a corpus of more segments (None: no cap)."""
    limits: FieldLimits | None = None
    """None: the models' own (:func:`storage_limits`)."""


def storage_limits() -> FieldLimits:
    """The longest names and ids the test-set models store, read from their fields."""

    def longest(*fields: tuple[type, str]) -> int:
        return min(model._meta.get_field(name).max_length for model, name in fields)

    return FieldLimits(
        doc_id=longest((Segment, "doc_id")),
        seg_id=longest((Segment, "seg_id")),
        system=longest((System, "name"), (RawEvaluation, "target_name")),
        reference=longest((Reference, "label"), (RawEvaluation, "target_name")),
        language=longest((TestSet, "source_lang"), (TestSet, "target_lang")),
        aspect=longest((RawEvaluation, "aspect")),
    )


def max_total_bytes() -> int:
    """``CORPUS_UPLOAD_MAX_TOTAL_BYTES``: the cap on all files of one import together."""
    return getattr(settings, "CORPUS_UPLOAD_MAX_TOTAL_BYTES", DEFAULT_MAX_TOTAL_BYTES)


def max_segments() -> int:
    """``CORPUS_IMPORT_MAX_SEGMENTS``: the cap on the segments of one test-set import."""
    return getattr(settings, "CORPUS_IMPORT_MAX_SEGMENTS", DEFAULT_MAX_SEGMENTS)


def total_size_problem(sizes: Iterable[int]) -> str | None:
    """Why files of these sizes are too much for one import together, or None."""
    total, limit = sum(sizes), max_total_bytes()
    return TOTAL_TOO_LARGE.format(size=total, limit=limit) if total > limit else None


def reference_labels(count: int) -> list[str]:
    """Default labels of unnamed references: A, B, … Z, then R27, R28 …"""
    letters = string.ascii_uppercase
    return [letters[i] if i < len(letters) else f"R{i + 1}" for i in range(count)]


def split_named(value: str) -> tuple[str, str]:
    """``NAME=FILE`` -> (NAME, FILE)."""
    name, sep, path = value.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise CorpusInputError(BAD_NAMED_FILE.format(given=value))
    return name.strip(), path.strip()


def parse_corpus(import_format: str, inputs: CorpusInputs) -> CorpusData:
    """Parse and validate an import for storing. Raises CorpusInputError or CorpusFormatError."""
    parser = _PARSERS.get(import_format)
    if parser is None:
        raise CorpusInputError(
            UNKNOWN_FORMAT.format(format=import_format, known=", ".join(IMPORT_FORMATS))
        )
    limits = inputs.limits or storage_limits()
    for what, value in (("source", inputs.source_lang), ("target", inputs.target_lang)):
        problem = unstorable_problem(value) or limits.problem("language", value)
        if problem is not None:
            raise CorpusInputError(BAD_LANGUAGE.format(what=what, value=value, problem=problem))
    corpus = parser(import_format, inputs, limits)
    count = len(corpus.segments)
    if inputs.max_segments is not None and count > inputs.max_segments:
        main = inputs.source or inputs.file
        raise CorpusFormatError(
            main.name if main else import_format,
            TOO_MANY_SEGMENTS.format(count=count, limit=inputs.max_segments),
        )
    return corpus


def _require(import_format: str, condition: object, what: str) -> None:
    if not condition:
        raise CorpusInputError(MISSING_INPUT.format(format=import_format, what=what))


def _parse_text(import_format: str, inputs: CorpusInputs, limits: FieldLimits) -> CorpusData:
    _require(import_format, inputs.source, "a source file")
    _require(import_format, inputs.references or inputs.systems, "a reference or a system file")
    _require(
        import_format, inputs.source_lang and inputs.target_lang, "source and target languages"
    )
    defaults = reference_labels(len(inputs.references))
    references = [
        (label or default, file)
        for (label, file), default in zip(inputs.references, defaults, strict=True)
    ]
    return parse_text(
        source=inputs.source,
        references=references,
        systems=inputs.systems,
        source_lang=inputs.source_lang,
        target_lang=inputs.target_lang,
        docs=inputs.docs,
        encoding=inputs.encoding or "utf-8",
        max_bytes=inputs.max_bytes,
        limits=limits,
        streamed=True,
    )


def _parse_sgml(import_format: str, inputs: CorpusInputs, limits: FieldLimits) -> CorpusData:
    _require(import_format, inputs.source, "a source file")
    labels = [label for label, _ in inputs.references]
    return parse_sgml(
        source=inputs.source.loaded(),
        references=[file.loaded() for _, file in inputs.references],
        systems=[file.loaded() for _, file in inputs.systems],
        encoding=inputs.encoding or "utf-8",
        max_bytes=inputs.max_bytes,
        # Labels only when the user named every reference; otherwise the files' own refid.
        reference_labels=labels if labels and all(labels) else None,
        limits=limits,
    )


def _parse_wmt_xml(import_format: str, inputs: CorpusInputs, limits: FieldLimits) -> CorpusData:
    _require(import_format, inputs.file, "a file")
    return parse_wmt_xml(
        file=inputs.file.loaded(),
        encoding=inputs.encoding,
        max_bytes=inputs.max_bytes,
        limits=limits,
    )


def _parse_evaltrans_xml(
    import_format: str, inputs: CorpusInputs, limits: FieldLimits
) -> CorpusData:
    _require(import_format, inputs.file, "a file")
    _require(
        import_format, inputs.source_lang and inputs.target_lang, "source and target languages"
    )
    return parse_evaltrans_xml(
        file=inputs.file.loaded(),
        source_lang=inputs.source_lang,
        target_lang=inputs.target_lang,
        encoding=inputs.encoding,
        max_bytes=inputs.max_bytes,
        limits=limits,
    )


def _parse_mqm_tsv(import_format: str, inputs: CorpusInputs, limits: FieldLimits) -> CorpusData:
    _require(import_format, inputs.file, "a file")
    _require(
        import_format, inputs.source_lang and inputs.target_lang, "source and target languages"
    )
    return parse_mqm_tsv(
        file=inputs.file.loaded(),
        source_lang=inputs.source_lang,
        target_lang=inputs.target_lang,
        reference_systems=inputs.reference_systems,
        encoding=inputs.encoding or "utf-8",
        max_bytes=inputs.max_bytes,
        limits=limits,
    )


_PARSERS = {
    "text": _parse_text,
    "sgml": _parse_sgml,
    "wmt-xml": _parse_wmt_xml,
    "evaltrans-xml": _parse_evaltrans_xml,
    "mqm-tsv": _parse_mqm_tsv,
}

__all__ = [
    "CorpusFormatError",
    "CorpusInputError",
    "CorpusInputs",
    "IMPORT_FORMATS",
    "max_segments",
    "max_total_bytes",
    "parse_corpus",
    "reference_labels",
    "split_named",
    "storage_limits",
    "total_size_problem",
]
