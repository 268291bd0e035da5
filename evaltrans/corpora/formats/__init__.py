"""Corpus file formats: pure-Python parsers and writers (no Django), and their registry.

:data:`FORMATS` maps a format name (as typed after ``import_corpus`` / ``export_corpus``) to a
:class:`FormatSpec` telling which inputs its parse function takes, so the management commands
and the upload form can be driven from one table. Every parse function also takes the keyword
arguments ``encoding``, ``max_bytes`` and ``limits`` (a :class:`FieldLimits`: the longest names
and ids that can be stored) and raises :class:`CorpusFormatError` on bad input; what every format
refuses alike is decided in :mod:`.reading`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .base import CorpusData, CorpusFormatError, EvaluationData, InputFile, SegmentData
from .evaltrans_xml import parse_evaltrans_xml, write_evaltrans_xml
from .mqm_tsv import parse_mqm_tsv, write_mqm_tsv
from .reading import FieldLimits
from .sgml import parse_sgml, write_sgml
from .text import parse_text, read_text_export, write_text
from .wmt_xml import parse_wmt_xml, write_wmt_xml

__all__ = [
    "FORMATS",
    "INPUTS",
    "CorpusData",
    "CorpusFormatError",
    "EvaluationData",
    "FieldLimits",
    "FormatSpec",
    "InputFile",
    "SegmentData",
    "read_text_export",
]

# What each parse keyword argument expects (for help texts and form labels).
INPUTS = {
    "source": "source file (InputFile)",
    "references": "reference files: list of InputFile, or for text list of (label, InputFile)",
    "reference_labels": "optional labels for the reference files, in order (list of str)",
    "systems": "system output files: list of InputFile, or for text list of (name, InputFile)",
    "docs": "optional file with one document id per line (InputFile or None)",
    "file": "the one file holding everything (InputFile)",
    "source_lang": "source language code, e.g. 'cs'",
    "target_lang": "target language code, e.g. 'en'",
    "reference_systems": "system names that are references (tuple of str, default ('ref',))",
}


@dataclass(frozen=True)
class FormatSpec:
    """One import/export format.

    Attributes:
        name: the registry key.
        description: one line for help texts and the upload form.
        parse: keyword-only parse function returning a CorpusData.
        write: ``write(corpus, out_dir) -> list[Path]``, or None when there is no export.
        inputs: the keyword arguments of ``parse`` besides ``encoding``, ``max_bytes`` and
            ``limits`` (see :data:`INPUTS`).
        round_trip: whether parse → write → parse gives an equal CorpusData.
    """

    name: str
    description: str
    parse: Callable[..., CorpusData]
    write: Callable[[CorpusData, Path], list[Path]] | None
    inputs: tuple[str, ...]
    round_trip: bool


FORMATS: dict[str, FormatSpec] = {
    spec.name: spec
    for spec in (
        FormatSpec(
            "text",
            "Plain text, one sentence per line: a source file, reference files, system files",
            parse_text,
            write_text,
            ("source", "references", "systems", "docs", "source_lang", "target_lang"),
            True,
        ),
        FormatSpec(
            "sgml",
            "NIST/WMT mteval SGML: <srcset>, <refset> and <tstset> files",
            parse_sgml,
            write_sgml,
            ("source", "references", "systems", "reference_labels"),
            True,
        ),
        FormatSpec(
            "wmt-xml",
            "WMT XML (2021 on): sources, references and system outputs in one file",
            parse_wmt_xml,
            write_wmt_xml,
            ("file",),
            True,
        ),
        FormatSpec(
            "evaltrans-xml",
            "EvalTrans database XML: references and human-scored candidates",
            parse_evaltrans_xml,
            write_evaltrans_xml,
            ("file", "source_lang", "target_lang"),
            True,
        ),
        FormatSpec(
            "mqm-tsv",
            "Google MQM TSV (texts only; error ratings are imported separately)",
            parse_mqm_tsv,
            write_mqm_tsv,
            ("file", "source_lang", "target_lang", "reference_systems"),
            False,
        ),
    )
}
