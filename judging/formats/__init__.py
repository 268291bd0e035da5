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
problem, as for corpus files. The record and what the parsers share are in
:mod:`judging.formats.base`; this package re-exports them and dispatches by format name.
"""

from __future__ import annotations

from .base import (
    KIND_BAD_REF,
    KIND_REF,
    KIND_REPEAT,
    KIND_SYSTEM,
    KINDS,
    CorpusFormatError,
    FieldLimits,
    InputFile,
    JudgmentRecord,
    check_records,
    check_unique,
    decode_lines,
)
from .mqm import parse_mqm_tsv
from .wmt_da import parse_wmt_da_csv

FILE_FORMATS = ("wmt-da-csv", "mqm-tsv")
"""Formats :func:`parse_judgments` reads from one file; ``evaltrans-xml`` goes through the
corpus importer and :func:`judging.formats.evaltrans.records_from_corpus`."""


def parse_judgments(
    format_name: str, file: InputFile, *, judge_stats: InputFile | None = None
) -> list[JudgmentRecord]:
    """Parse one judgments file of a :data:`FILE_FORMATS` format with default options.

    Raises:
        CorpusFormatError: bad input, an unknown format, or ``judge_stats`` for a format
            without one.
    """
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
    "FieldLimits",
    "InputFile",
    "JudgmentRecord",
    "check_records",
    "check_unique",
    "decode_lines",
    "parse_judgments",
]
