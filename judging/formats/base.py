"""What every judgments parser shares: the record, the kinds, reading lines, the record checks.

Reading goes through ``evaltrans.corpora.formats.reading``, so judgments files are refused for
exactly what corpus files are (characters that cannot be stored, classic Mac OS line ends,
blank values, names too long for the database).

The format modules import these from here (never from the package), so that
``judging.formats`` can import the format modules to dispatch without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.formats.reading import (
    NO_LIMITS,
    FieldLimits,
    check_line_ends,
    decode,
    is_blank,
    split_lines,
)
from metrics.core.human_scores import KIND_BAD_REF, KIND_REF, KIND_REPEAT, KIND_SYSTEM, KINDS


@dataclass(frozen=True)
class JudgmentRecord:
    """One human judgment of one candidate for one aspect.

    Stored as one row of an "external judgment" table keyed by (judgment set, system,
    segment_id, judge, aspect, kind): ``kind`` belongs to the key because WMT shows a judge the
    same candidate as a SYSTEM item and again as its REPEAT, BAD_REF or REF control. Read by the
    statistics as a ``metrics.core.human_scores.JudgmentLike``.

    Attributes:
        system: system name (WMT's numeric suffix ``.7`` removed; the original is in ``extra``).
        segment_id: the segment's id in the file, as text (``"177"``).
        judge: the judge (WMT worker id, MQM rater, EvalTrans ``evaluator``).
        aspect: ``"adequacy"``, ``"fluency"``, ``"mqm"``, ``"mqm-accuracy"``, ...
        raw: the score on the judgment's own scale (DA 0-100, MQM -penalty, EvalTrans level),
            or None when the file gives only a normalized score.
        z_given: a normalized score shipped with the file (WMT's per-judge z), else None.
        kind: one of :data:`KINDS`.
        extra: everything else of the row (line number, HIT id, document, error counts, ...),
            JSON-serializable.
    """

    system: str
    segment_id: str
    judge: str
    aspect: str
    raw: float | None
    z_given: float | None = None
    kind: str = KIND_SYSTEM
    extra: dict[str, str | int | float] = field(default_factory=dict, compare=False)

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """The record's identity within a judgment set."""
        return (self.system, self.segment_id, self.judge, self.aspect, self.kind)


BAD_UTF8 = "not valid UTF-8 (byte 0x{byte:02x})"
SAVE_AS_UTF8 = "save it as UTF-8"
EMPTY_VALUE = "empty {what}"


def decode_lines(file: InputFile) -> list[str]:
    """The file's text lines (UTF-8, an optional BOM dropped, ``\n`` or ``\r\n`` line ends
    removed).

    Raises:
        CorpusFormatError: invalid UTF-8 (naming the line of the first bad byte), a character
            that cannot be stored, a CR without LF (classic Mac OS line ends), or an empty file.
    """
    text = decode(file, "utf-8", bad_encoding=BAD_UTF8, other_encoding=SAVE_AS_UTF8)
    if is_blank(text):
        raise CorpusFormatError(file.name, "the file is empty")
    check_line_ends(file, text)
    return split_lines(text)


def check_records(
    file: InputFile, records: list[JudgmentRecord], limits: FieldLimits = NO_LIMITS
) -> None:
    """Refuse a record with a blank or too long system, segment id, judge or aspect.

    ``limits`` are the judgment model's (the services fill them); the record is located by its
    ``extra["line"]`` where the format keeps one, else by its segment.

    Raises:
        CorpusFormatError: the first such record, naming its line (or segment).
    """
    # A value passes or fails wherever it stands, so each distinct one is checked once, at its
    # first record (the one an error names): a file of 10^6 judgments has a few systems,
    # judges and aspects, repeated on every line.
    checked: set[tuple[str, str]] = set()
    for record in records:
        for kind, what, value in (
            ("system", "system", record.system),
            ("seg_id", "segment id", record.segment_id),
            ("judge", "judge", record.judge),
            ("aspect", "aspect", record.aspect),
        ):
            if (kind, value) in checked:
                continue
            line = record.extra.get("line")
            line = line if isinstance(line, int) else None
            where = "" if line is not None else f"segment {record.segment_id[:30]!r}"
            if is_blank(value):
                raise CorpusFormatError(file.name, EMPTY_VALUE.format(what=what), line, where)
            limits.check(kind, value, file.name, line, where)
            checked.add((kind, value))


def check_unique(file: InputFile, records: list[JudgmentRecord]) -> None:
    """Raise when two records share a key (the database could not store both)."""
    seen: dict[tuple[str, str, str, str, str], object] = {}
    for record in records:
        line = record.extra.get("line")
        if record.key in seen:
            system, segment, judge, aspect, kind = record.key
            raise CorpusFormatError(
                file.name,
                f"judge {judge} scored {system} segment {segment} ({aspect}, {kind}) twice "
                f"(first on line {seen[record.key]})",
                int(line) if isinstance(line, int) else None,
            )
        seen[record.key] = line


__all__ = [
    "KINDS",
    "KIND_BAD_REF",
    "KIND_REF",
    "KIND_REPEAT",
    "KIND_SYSTEM",
    "CorpusFormatError",
    "FieldLimits",
    "InputFile",
    "JudgmentRecord",
    "check_records",
    "check_unique",
    "decode_lines",
    "is_blank",
]
