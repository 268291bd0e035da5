"""The in-memory corpus every import format parses into and every export format writes from.

Parsers are pure Python (no database): they read :class:`InputFile` objects (a name for
messages and the raw bytes), validate everything, and return a :class:`CorpusData` or raise
:class:`CorpusFormatError` naming the file, the line (or XML element) and what is wrong.
The import service stores a CorpusData in one transaction; the export service builds one
from the database and hands it to a writer. Round-trip = parse(write(corpus)) == corpus.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class CorpusFormatError(ValueError):
    """Bad input. ``str(error)`` is the full message shown to users."""

    def __init__(self, file: str, message: str, line: int | None = None, element: str = "") -> None:
        self.file = file
        self.line = line
        self.element = element
        self.message = message
        where = file
        if line is not None:
            where += f", line {line}"
        if element:
            where += f", {element}"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class InputFile:
    """One uploaded or command-line file: its name (for messages) and its bytes."""

    name: str
    data: bytes


@dataclass
class EvaluationData:
    """One raw human score kept from an EvalTrans XML ``<eval>`` element.

    ``target_kind`` is ``"reference"`` or ``"candidate"``; ``target_name`` is the reference
    label or the system name; ``attributes`` keeps every further attribute (``evaluator`` …).
    """

    target_kind: str
    target_name: str
    aspect: str
    value: float
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass
class SegmentData:
    """One source segment with its references (label -> text) and candidates (system -> text)."""

    source: str
    doc_id: str = ""
    seg_id: str = ""
    references: dict[str, str] = field(default_factory=dict)
    candidates: dict[str, str] = field(default_factory=dict)
    evaluations: list[EvaluationData] = field(default_factory=list)


@dataclass
class CorpusData:
    """A whole test set in memory, in segment order.

    ``metadata`` holds what a format needs for a lossless round trip and is stored as JSON
    (e.g. ``levels`` of EvalTrans XML, document attributes of WMT XML, set ids of SGML).
    """

    source_lang: str
    target_lang: str
    segments: list[SegmentData]
    name: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def reference_labels(self) -> list[str]:
        return _ordered_keys(segment.references for segment in self.segments)

    @property
    def system_names(self) -> list[str]:
        return _ordered_keys(segment.candidates for segment in self.segments)


def _ordered_keys(dicts: Any) -> list[str]:
    seen: dict[str, None] = {}
    for mapping in dicts:
        for key in mapping:
            seen.setdefault(key, None)
    return list(seen)
