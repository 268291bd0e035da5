"""One entry point from the inputs of an import (command line or upload form) to a CorpusData.

The command and the web form both collect a :class:`CorpusInputs` and call
:func:`parse_corpus`; everything format-specific happens in ``evaltrans.corpora.formats``.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field

from .formats.base import CorpusData, CorpusFormatError, InputFile
from .formats.evaltrans_xml import parse_evaltrans_xml
from .formats.mqm_tsv import parse_mqm_tsv
from .formats.sgml import parse_sgml
from .formats.text import parse_text
from .formats.wmt_xml import parse_wmt_xml

MISSING_INPUT = "format {format}: {what} is required"
UNKNOWN_FORMAT = "unknown format {format!r} (known: {known})"
BAD_NAMED_FILE = "{given!r}: expected NAME=FILE"

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
    """Parse and validate an import. Raises CorpusInputError or CorpusFormatError."""
    parser = _PARSERS.get(import_format)
    if parser is None:
        raise CorpusInputError(
            UNKNOWN_FORMAT.format(format=import_format, known=", ".join(IMPORT_FORMATS))
        )
    return parser(import_format, inputs)


def _require(import_format: str, condition: object, what: str) -> None:
    if not condition:
        raise CorpusInputError(MISSING_INPUT.format(format=import_format, what=what))


def _parse_text(import_format: str, inputs: CorpusInputs) -> CorpusData:
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
    )


def _parse_sgml(import_format: str, inputs: CorpusInputs) -> CorpusData:
    _require(import_format, inputs.source, "a source file")
    labels = [label for label, _ in inputs.references]
    return parse_sgml(
        source=inputs.source,
        references=[file for _, file in inputs.references],
        systems=[file for _, file in inputs.systems],
        encoding=inputs.encoding or "utf-8",
        max_bytes=inputs.max_bytes,
        # Labels only when the user named every reference; otherwise the files' own refid.
        reference_labels=labels if labels and all(labels) else None,
    )


def _parse_wmt_xml(import_format: str, inputs: CorpusInputs) -> CorpusData:
    _require(import_format, inputs.file, "a file")
    return parse_wmt_xml(file=inputs.file, encoding=inputs.encoding, max_bytes=inputs.max_bytes)


def _parse_evaltrans_xml(import_format: str, inputs: CorpusInputs) -> CorpusData:
    _require(import_format, inputs.file, "a file")
    _require(
        import_format, inputs.source_lang and inputs.target_lang, "source and target languages"
    )
    return parse_evaltrans_xml(
        file=inputs.file,
        source_lang=inputs.source_lang,
        target_lang=inputs.target_lang,
        encoding=inputs.encoding,
        max_bytes=inputs.max_bytes,
    )


def _parse_mqm_tsv(import_format: str, inputs: CorpusInputs) -> CorpusData:
    _require(import_format, inputs.file, "a file")
    _require(
        import_format, inputs.source_lang and inputs.target_lang, "source and target languages"
    )
    return parse_mqm_tsv(
        file=inputs.file,
        source_lang=inputs.source_lang,
        target_lang=inputs.target_lang,
        reference_systems=inputs.reference_systems,
        encoding=inputs.encoding or "utf-8",
        max_bytes=inputs.max_bytes,
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
    "parse_corpus",
    "reference_labels",
    "split_named",
]
