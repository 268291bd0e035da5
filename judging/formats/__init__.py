"""Parsers of external human judgments: bytes in, :class:`JudgmentRecord` lists out.

Pure Python (no Django): ``manage.py import_judgments`` and the upload page call these and
store the records; the statistics in ``metrics.core.human_scores`` and ``metrics.core.agreement``
read them back (docs/human-scores.md).

Formats (the ``FORMAT`` argument of ``import_judgments``):

* ``wmt-da-csv``: WMT Direct Assessment per-judge rows (``ad-*-good-stnd.csv``) with an optional
  judge-stats file (``ad-*-trk-mean-sd.txt``) -> :mod:`judging.formats.wmt_da`;
* ``mqm-tsv``: MQM error annotations (google/wmt-mqm-human-evaluation) -> :mod:`judging.formats.mqm`;
* ``evaltrans-xml``: the ``<eval>`` elements of an EvalTrans database, parsed by the corpus
  importer into ``EvaluationData`` and mapped by :func:`judging.formats.evaltrans.records_from_corpus`.

Errors are :class:`~evaltrans.corpora.formats.base.CorpusFormatError` naming file, line and
problem, as for corpus files.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile

KIND_SYSTEM = "SYSTEM"
"""An ordinary judgment of a system's (or a rated human translation's) candidate."""
KIND_REPEAT = "REPEAT"
"""The same judge scoring the same candidate again (WMT quality control; EvalTrans re-judgment)."""
KIND_BAD_REF = "BAD_REF"
"""WMT quality control: a deliberately degraded candidate."""
KIND_REF = "REF"
"""A reference translation judged like a candidate (WMT quality control, EvalTrans references)."""
KINDS = (KIND_SYSTEM, KIND_REPEAT, KIND_BAD_REF, KIND_REF)

FILE_FORMATS = ("wmt-da-csv", "mqm-tsv")
"""Formats :func:`parse_judgments` reads from one file; ``evaltrans-xml`` goes through the
corpus importer and :func:`judging.formats.evaltrans.records_from_corpus`."""


@dataclass(frozen=True)
class JudgmentRecord:
    """One human judgment of one candidate for one aspect.

    Stored as one row of an "external judgment" table keyed by (judgment set, system,
    segment_id, judge, aspect, kind): ``kind`` belongs to the key because WMT shows a judge the
    same candidate as a SYSTEM item and again as its REPEAT, BAD_REF or REF control.

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


def decode_lines(file: InputFile) -> list[str]:
    """The file's text lines (UTF-8, an optional BOM dropped, line ends removed).

    Raises:
        CorpusFormatError: invalid UTF-8 (naming the line of the first bad byte) or an empty file.
    """
    try:
        text = file.data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = file.data[: error.start].count(b"\n") + 1
        raise CorpusFormatError(
            file.name, f"not valid UTF-8 (byte 0x{file.data[error.start]:02x})", line
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise CorpusFormatError(file.name, "the file is empty")
    return text.splitlines()


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


def parse_judgments(
    format_name: str, file: InputFile, *, judge_stats: InputFile | None = None
) -> list[JudgmentRecord]:
    """Parse one judgments file of a :data:`FILE_FORMATS` format with default options.

    Raises:
        CorpusFormatError: bad input, an unknown format, or ``judge_stats`` for a format
            without one.
    """
    # Imported here: the format modules import JudgmentRecord from this package.
    from .mqm import parse_mqm_tsv
    from .wmt_da import parse_wmt_da_csv

    if format_name == "wmt-da-csv":
        return parse_wmt_da_csv(file, judge_stats=judge_stats)
    if judge_stats is not None:
        raise CorpusFormatError(judge_stats.name, f"format {format_name} has no judge-stats file")
    if format_name == "mqm-tsv":
        return parse_mqm_tsv(file)
    known = ", ".join(FILE_FORMATS)
    raise CorpusFormatError(file.name, f"unknown judgments format {format_name!r} ({known})")


__all__ = [
    "FILE_FORMATS",
    "KINDS",
    "KIND_BAD_REF",
    "KIND_REF",
    "KIND_REPEAT",
    "KIND_SYSTEM",
    "CorpusFormatError",
    "InputFile",
    "JudgmentRecord",
    "check_unique",
    "decode_lines",
    "parse_judgments",
]
