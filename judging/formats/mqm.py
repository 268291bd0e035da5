"""MQM error annotations (google/wmt-mqm-human-evaluation TSV) and their MQM scores.

Layout (oracles-and-data spec §5.2 A): a tab-separated header ``system doc doc_id seg_id rater
source target category severity [comment]``; one row per error a rater marked in a
(system, segment), or one ``No-error`` row when the rater found none. Error spans are ``<v>...</v>``
in ``source``/``target``.

Scoring (the repository's README, Freitag et al. 2021; as mt-metrics-eval's weights
``Major:5 Minor:1 Neutral:0 Major/Non-translation!:25 Minor/Fluency/Punctuation:0.1``, the
most specific match winning): a Major error costs 5, a Major ``Non-translation!`` 25, a Minor
error 1, a Minor ``Fluency/Punctuation`` 0.1, Neutral and No-error 0. The MQM score of a
(system, segment, rater) is minus the sum of its penalties. Errors whose category starts with
``Accuracy`` (``Fluency``) alone give the adequacy-like aspect ``mqm-accuracy`` (fluency-like
``mqm-fluency``); Terminology, Style, Locale convention, Other, Source error and
Non-translation count in ``mqm`` only.

Averaging a segment's raters (``human_scores(..., weighting="none")``) reproduces the official
``*.avg_seg_scores.tsv`` exactly; those files rename the reference systems
(:data:`TED_OFFICIAL_NAMES`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .base import (
    KIND_SYSTEM,
    CorpusFormatError,
    InputFile,
    JudgmentRecord,
    decode_lines,
    is_blank,
)

REQUIRED_COLUMNS = ("system", "seg_id", "rater", "category", "severity")
OPTIONAL_COLUMNS = ("doc", "doc_id", "source", "target", "comment")
ASPECT_TOTAL = "mqm"
ASPECT_ACCURACY = "mqm-accuracy"
ASPECT_FLUENCY = "mqm-fluency"
ASPECTS = (ASPECT_TOTAL, ASPECT_ACCURACY, ASPECT_FLUENCY)
SEVERITIES = ("major", "minor", "neutral", "no-error")
"""Known severities, compared case-insensitively (``No-error`` in TED, ``no-error`` elsewhere)."""
NON_TRANSLATION = ("Non-translation!", "Non-translation")
"""The whole-segment category; spelled with ``!`` in the data, without it in some tools."""
TED_OFFICIAL_NAMES = {"ref": "ref-A", "refB": "ref-B"}
"""System names of the TED ``*.avg_seg_scores.tsv`` files for the TSV's reference systems
(verified: with the opposite mapping 850 zh-en segments differ)."""


@dataclass(frozen=True)
class MqmWeights:
    """Penalty per error; the defaults are the published WMT/TED weights."""

    major: float = 5.0
    minor: float = 1.0
    neutral: float = 0.0
    non_translation: float = 25.0
    minor_punctuation: float = 0.1

    def penalty(self, category: str, severity: str) -> float:
        """The penalty of one error row (0 for No-error and Neutral)."""
        level = severity.lower()
        if level == "major":
            return self.non_translation if category in NON_TRANSLATION else self.major
        if level == "minor":
            return self.minor_punctuation if category == "Fluency/Punctuation" else self.minor
        if level == "neutral":
            return self.neutral
        return 0.0


DEFAULT_WEIGHTS = MqmWeights()


@dataclass(frozen=True)
class MqmError:
    """One row of an MQM TSV (an error, or the No-error marker of a rated segment)."""

    line: int
    system: str
    seg_id: str
    rater: str
    category: str
    severity: str
    doc: str = ""
    doc_id: str = ""
    source: str = ""
    target: str = ""
    comment: str = ""


def parse_mqm_errors(file: InputFile) -> list[MqmError]:
    """Read the rows of an MQM TSV.

    Rows may omit trailing optional columns (an empty ``comment``).

    Raises:
        CorpusFormatError: missing columns, a row with too many or too few fields, an empty
            system, segment or rater, or an unknown severity.
    """
    lines = decode_lines(file)
    header = lines[0].split("\t")
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise CorpusFormatError(
            file.name,
            f"missing column(s) {', '.join(missing)} in the "
            f"tab-separated header (expected {' '.join(REQUIRED_COLUMNS)})",
            1,
        )
    required_width = max(header.index(name) for name in REQUIRED_COLUMNS) + 1
    errors = []
    for number, text in enumerate(lines[1:], 2):
        if is_blank(text):
            continue
        fields = text.split("\t")
        if not required_width <= len(fields) <= len(header):
            raise CorpusFormatError(
                file.name,
                f"{len(fields)} tab-separated fields, the header has {len(header)}",
                number,
            )
        row = dict(zip(header, fields, strict=False))
        errors.append(_error(file, number, row))
    if not errors:
        raise CorpusFormatError(file.name, "no ratings after the header")
    return errors


def _error(file: InputFile, number: int, row: dict[str, str]) -> MqmError:
    for name in ("system", "seg_id", "rater"):
        if is_blank(row[name]):
            raise CorpusFormatError(file.name, f"empty {name}", number)
    if row["severity"].lower() not in SEVERITIES:
        raise CorpusFormatError(
            file.name,
            f"unknown severity {row['severity']!r} (known: Major, Minor, Neutral, No-error)",
            number,
        )
    known = {name: row.get(name, "") for name in REQUIRED_COLUMNS + OPTIONAL_COLUMNS}
    return MqmError(line=number, **known)


def mqm_records(
    errors: Iterable[MqmError],
    *,
    weights: MqmWeights = DEFAULT_WEIGHTS,
    system_aliases: Mapping[str, str] | None = None,
) -> list[JudgmentRecord]:
    """MQM scores per (system, segment, rater): three records, one per :data:`ASPECTS`.

    Args:
        errors: rows from :func:`parse_mqm_errors`.
        weights: the penalties.
        system_aliases: renames systems (e.g. :data:`TED_OFFICIAL_NAMES`).

    Returns:
        Records in order of first appearance, ``raw`` = minus the summed penalties (0 for a
        segment without errors), ``kind`` SYSTEM; ``extra`` has ``line`` (first row), ``doc``,
        ``doc_id`` and the counts ``errors``, ``major``, ``minor``, ``neutral``.
    """
    aliases = system_aliases or {}
    grouped: dict[tuple[str, str, str], list[MqmError]] = {}
    for error in errors:
        key = (aliases.get(error.system, error.system), error.seg_id, error.rater)
        grouped.setdefault(key, []).append(error)
    records = []
    for (system, seg_id, rater), rows in grouped.items():
        extra = _extra(rows)
        for aspect in ASPECTS:
            penalties = [
                weights.penalty(r.category, r.severity)
                for r in rows
                if _counts_for(aspect, r.category)
            ]
            # 0.0 - sum keeps a clean 0.0 (not -0.0) for error-free segments.
            raw = 0.0 - math.fsum(penalties)
            records.append(
                JudgmentRecord(system, seg_id, rater, aspect, raw, None, KIND_SYSTEM, dict(extra))
            )
    return records


def parse_mqm_tsv(
    file: InputFile,
    *,
    weights: MqmWeights = DEFAULT_WEIGHTS,
    system_aliases: Mapping[str, str] | None = None,
) -> list[JudgmentRecord]:
    """Read an MQM TSV and score it: :func:`parse_mqm_errors` then :func:`mqm_records`."""
    return mqm_records(parse_mqm_errors(file), weights=weights, system_aliases=system_aliases)


def strip_spans(text: str) -> str:
    """The text without the ``<v>``/``</v>`` error-span marks (the candidate as translated)."""
    return text.replace("<v>", "").replace("</v>", "")


def _counts_for(aspect: str, category: str) -> bool:
    if aspect == ASPECT_ACCURACY:
        return category.split("/")[0] == "Accuracy"
    if aspect == ASPECT_FLUENCY:
        return category.split("/")[0] == "Fluency"
    return True


def _extra(rows: list[MqmError]) -> dict[str, str | int | float]:
    severities = Counter(row.severity.lower() for row in rows)
    return {
        "line": rows[0].line,
        "doc": rows[0].doc,
        "doc_id": rows[0].doc_id,
        "errors": sum(count for level, count in severities.items() if level != "no-error"),
        "major": severities["major"],
        "minor": severities["minor"],
        "neutral": severities["neutral"],
    }
