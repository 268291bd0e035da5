"""The in-memory corpus every import format parses into and every export format writes from.

Parsers are pure Python (no database): they read :class:`InputFile` objects (a name for
messages and the raw bytes), validate everything, and return a :class:`CorpusData` or raise
:class:`CorpusFormatError` naming the file, the line (or XML element) and what is wrong.
The import service stores a CorpusData in one transaction; the export service builds one
from the database and hands it to a writer. Round-trip = parse(write(corpus)) == corpus.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO


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
    """One uploaded or command-line file: its name (for messages) and its bytes.

    A file on disk may be given by ``path`` instead of ``data`` (which stays empty), so that a
    streaming parser (plain text) never holds the whole file: :meth:`open` reads either, and
    :meth:`loaded` gives the in-memory file the other parsers read whole.
    """

    name: str
    data: bytes = b""
    path: Path | None = None

    def open(self) -> BinaryIO:
        """The bytes as a binary stream (the file on disk, or ``data``)."""
        if self.path is not None:
            return self.path.open("rb")
        return io.BytesIO(self.data)

    def loaded(self) -> InputFile:
        """This file with its bytes in ``data`` (itself when they already are)."""
        if self.path is None:
            return self
        return InputFile(name=self.name, data=self.path.read_bytes())


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


class StreamedSegments(Sequence[SegmentData]):
    """Segments read again from their files each time they are iterated (bounded memory).

    A parser that validated its files whole returns this instead of a list: iterating yields
    fresh :class:`SegmentData` objects in order, ``len()`` is known, and the reference labels
    and system names are known without a pass over the segments. Indexing materializes the
    segments (for tests and small corpora); it compares equal to a list of equal segments.
    """

    def __init__(
        self,
        reader: Callable[[], Iterator[SegmentData]],
        count: int,
        reference_labels: list[str],
        system_names: list[str],
    ) -> None:
        self._reader = reader
        self._count = count
        self.reference_labels = list(reference_labels)
        self.system_names = list(system_names)

    def __iter__(self) -> Iterator[SegmentData]:
        return iter(self._reader())

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:  # an int or a slice, as for a list
        return list(self)[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StreamedSegments | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<StreamedSegments: {self._count} segments>"


@dataclass
class CorpusData:
    """A whole test set in segment order: in memory (a list), or streamed from its files
    (:class:`StreamedSegments`, what the plain-text import gives).

    ``metadata`` holds what a format needs for a lossless round trip and is stored as JSON
    (e.g. ``levels`` of EvalTrans XML, document attributes of WMT XML, set ids of SGML).
    """

    source_lang: str
    target_lang: str
    segments: Sequence[SegmentData]
    name: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def reference_labels(self) -> list[str]:
        known = getattr(self.segments, "reference_labels", None)
        if known is not None:
            return list(known)
        return _ordered_keys(segment.references for segment in self.segments)

    @property
    def system_names(self) -> list[str]:
        known = getattr(self.segments, "system_names", None)
        if known is not None:
            return list(known)
        return _ordered_keys(segment.candidates for segment in self.segments)


def _ordered_keys(dicts: Iterable[dict[str, str]]) -> list[str]:
    seen: dict[str, None] = {}
    for mapping in dicts:
        for key in mapping:
            seen.setdefault(key, None)
    return list(seen)
