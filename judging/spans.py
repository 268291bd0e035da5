"""Error spans (MQM and ESA): the typology, checking a judge's spans, the MQM score, and the
agreement of two judges on spans. Pure functions (no database).

A span is ``{"start", "end", "category", "severity", "note"}``: ``start``/``end`` are offsets
in *characters* (Unicode code points, as Python indexes ``str``; the judging page counts the
same way) into the candidate text, ``start < end``, the end exclusive. ``severity`` is
``minor`` or ``major`` (Appraise dropped "critical", WMT 2021- MQM and ESA use these two).
An MQM span has a ``category`` of the campaign's typology; an ESA span has none (``""``).

**Scoring** reuses the MQM importer's one weight table, :class:`judging.formats.mqm.MqmWeights`
(Freitag et al. 2021, WMT: major 5, minor 1, minor ``Fluency/Punctuation`` 0.1, major
``Non-translation!`` 25): the MQM score of a judge's segment is minus the sum of its spans'
penalties, exactly as the importer scores an MQM TSV row by row, so a campaign judged here
and the same errors imported as a TSV score alike.

**Agreement** (:func:`span_f1`): the characters each judge marked (any category or
severity), compared as sets: F1 = 2|A ∩ B| / (|A| + |B|); two judges who both marked nothing
agree fully (1.0). :func:`span_agreement` averages it over every pair of judges of every item.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from .formats.mqm import DEFAULT_WEIGHTS, NON_TRANSLATION, MqmWeights

SEVERITY_MINOR = "minor"
SEVERITY_MAJOR = "major"
SEVERITIES = (SEVERITY_MINOR, SEVERITY_MAJOR)
SEVERITY_LABELS = {SEVERITY_MINOR: "Minor", SEVERITY_MAJOR: "Major"}
"""As the MQM TSV spells them (the importer compares case-insensitively)."""

MQM_TYPOLOGY = (
    "Accuracy/Addition",
    "Accuracy/Omission",
    "Accuracy/Mistranslation",
    "Accuracy/Untranslated text",
    "Fluency/Grammar",
    "Fluency/Spelling",
    "Fluency/Punctuation",
    "Fluency/Register",
    "Fluency/Inconsistency",
    "Fluency/Character encoding",
    "Terminology/Inappropriate for context",
    "Terminology/Inconsistent use of terminology",
    "Style/Awkward",
    "Locale convention/Address format",
    "Locale convention/Currency format",
    "Locale convention/Date format",
    "Locale convention/Name format",
    "Locale convention/Telephone format",
    "Locale convention/Time format",
    "Other",
    "Non-translation!",
)
"""The WMT MQM typology (Freitag et al. 2021, google/wmt-mqm-human-evaluation), spelled as the
MQM TSVs spell it, so that exported spans re-import with the same weights. (The TSVs' "Source
error" marks errors in the source, which this screen does not annotate.)"""

MAX_SPANS = 100
MAX_NOTE_LENGTH = 500
MAX_CATEGORY_LENGTH = 100
MAX_CATEGORIES = 60

ERROR_SPANS_SHAPE = "The error spans of a translation must be a list of spans."
ERROR_SPAN_SHAPE = "Error span {number}: give start, end and severity (and a category for MQM)."
ERROR_SPAN_RANGE = (
    "Error span {number} ({start}–{end}) is not inside the translation "
    "(0–{length} characters; start before end)."
)
ERROR_SPAN_SEVERITY = "Error span {number}: severity {severity!r} is not minor or major."
ERROR_SPAN_CATEGORY = "Error span {number}: {category!r} is not a category of this campaign."
ERROR_SPAN_NO_CATEGORY = "Error span {number}: ESA spans have a severity only, no category."
ERROR_SPAN_NOTE = "Error span {number}: the note is longer than {limit} characters."
ERROR_TOO_MANY_SPANS = "At most {limit} error spans per translation."
ERROR_CATEGORIES = (
    "Give 1 to {limit} distinct error categories, one per line, each at most {length} "
    "characters (e.g. Accuracy/Mistranslation)."
)


class SpanError(ValueError):
    """Spans that cannot be stored; the message is for the judge."""


@dataclass(frozen=True)
class Span:
    """One marked error of one judge in one candidate text."""

    start: int
    end: int
    severity: str
    category: str = ""
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "category": self.category,
            "severity": self.severity,
            "note": self.note,
        }


def default_categories() -> list[str]:
    """The default typology of an MQM campaign (a fresh list)."""
    return list(MQM_TYPOLOGY)


def categories_validate(categories: Iterable[str]) -> list[str]:
    """A cleaned list of a campaign's categories (blank lines dropped, order kept).

    Raises:
        SpanError: none left, duplicates, too many or too long.
    """
    cleaned = [str(name).strip() for name in categories if str(name).strip()]
    if (
        not 1 <= len(cleaned) <= MAX_CATEGORIES
        or len(set(cleaned)) != len(cleaned)
        or any(len(name) > MAX_CATEGORY_LENGTH for name in cleaned)
    ):
        raise SpanError(ERROR_CATEGORIES.format(limit=MAX_CATEGORIES, length=MAX_CATEGORY_LENGTH))
    return cleaned


def spans_validate(raw: object, *, text: str, categories: Sequence[str] | None) -> list[Span]:
    """Check a judge's spans of one candidate text.

    Args:
        raw: the spans as sent (a list of dicts, e.g. decoded JSON).
        text: the candidate text the offsets index (in characters).
        categories: the campaign's MQM categories; None for ESA (spans without category).

    Returns:
        The spans, sorted by (start, end).

    Raises:
        SpanError: not a list, a span outside the text or empty, an unknown severity or
            category, a category on an ESA span, a note too long, too many spans.
    """
    if not isinstance(raw, list):
        raise SpanError(ERROR_SPANS_SHAPE)
    if len(raw) > MAX_SPANS:
        raise SpanError(ERROR_TOO_MANY_SPANS.format(limit=MAX_SPANS))
    spans = []
    for number, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            raise SpanError(ERROR_SPAN_SHAPE.format(number=number))
        start, end = item.get("start"), item.get("end")
        severity = item.get("severity")
        category = item.get("category") or ""
        note = item.get("note") or ""
        if (
            not _is_int(start)
            or not _is_int(end)
            or not isinstance(severity, str)
            or not isinstance(category, str)
            or not isinstance(note, str)
        ):
            raise SpanError(ERROR_SPAN_SHAPE.format(number=number))
        if not 0 <= start < end <= len(text):
            raise SpanError(
                ERROR_SPAN_RANGE.format(number=number, start=start, end=end, length=len(text))
            )
        severity = severity.strip().lower()
        if severity not in SEVERITIES:
            raise SpanError(ERROR_SPAN_SEVERITY.format(number=number, severity=severity))
        if categories is None:
            if category.strip():
                raise SpanError(ERROR_SPAN_NO_CATEGORY.format(number=number))
        elif category not in categories:
            raise SpanError(ERROR_SPAN_CATEGORY.format(number=number, category=category))
        note = note.strip()
        if len(note) > MAX_NOTE_LENGTH:
            raise SpanError(ERROR_SPAN_NOTE.format(number=number, limit=MAX_NOTE_LENGTH))
        spans.append(Span(start, end, severity, category.strip(), note))
    return sorted(spans, key=lambda span: (span.start, span.end, span.category, span.severity))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def mqm_penalties(spans: Iterable[Span], weights: MqmWeights = DEFAULT_WEIGHTS) -> list[float]:
    """The penalty of each span, by the MQM importer's weights."""
    return [weights.penalty(span.category, span.severity) for span in spans]


def mqm_score(spans: Iterable[Span], weights: MqmWeights = DEFAULT_WEIGHTS) -> float:
    """Minus the summed penalties (0.0 without errors), as ``judging.formats.mqm`` scores a
    (system, segment, rater) of an MQM TSV."""
    return 0.0 - math.fsum(mqm_penalties(spans, weights))


MQM_STORED_SCALE = 100
"""``Judgment.score`` is an integer (DA stores its 0-100 slider value as is): an MQM score is
stored x100, rounded (the default weights are multiples of 0.1, so nothing is lost)."""


def mqm_stored(spans: Iterable[Span], weights: MqmWeights = DEFAULT_WEIGHTS) -> int:
    """The MQM score as ``Judgment.score`` stores it: x :data:`MQM_STORED_SCALE`, rounded."""
    return round(mqm_score(spans, weights) * MQM_STORED_SCALE)


def mqm_from_stored(score: int) -> float:
    """The MQM score of a stored ``Judgment.score``."""
    return score / MQM_STORED_SCALE


def covered(spans: Iterable[Span | Mapping[str, Any]]) -> set[int]:
    """The character positions any of the spans covers."""
    positions: set[int] = set()
    for span in spans:
        start, end = (
            (span.start, span.end) if isinstance(span, Span) else (span["start"], span["end"])
        )
        positions.update(range(start, end))
    return positions


def span_f1(
    first: Iterable[Span | Mapping[str, Any]], second: Iterable[Span | Mapping[str, Any]]
) -> float:
    """Character-level F1 of two judges' spans of one text (module docstring): symmetric,
    1.0 when both marked the same characters (or both marked none), 0.0 when no character is
    shared."""
    a, b = covered(first), covered(second)
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


@dataclass(frozen=True)
class SpanAgreement:
    """Mean character-level F1 over (item, pair of judges), and how many pairs it averages."""

    f1: float | None
    pairs: int
    items: int


def span_agreement(by_item: Mapping[Any, Mapping[str, Sequence[Any]]]) -> SpanAgreement:
    """Mean :func:`span_f1` over every item and every pair of its judges.

    Args:
        by_item: item -> judge -> that judge's spans of the item (an empty list: no errors).
    """
    scores = []
    items = 0
    for per_judge in by_item.values():
        pairs = list(combinations(sorted(per_judge), 2))
        if pairs:
            items += 1
        scores += [span_f1(per_judge[a], per_judge[b]) for a, b in pairs]
    return SpanAgreement(math.fsum(scores) / len(scores) if scores else None, len(scores), items)


def marked_target(text: str, span: Span | Mapping[str, Any]) -> str:
    """The text with one span wrapped in ``<v>``/``</v>``, as the MQM TSV's ``target``."""
    start, end = (span.start, span.end) if isinstance(span, Span) else (span["start"], span["end"])
    return f"{text[:start]}<v>{text[start:end]}</v>{text[end:]}"


def is_non_translation(category: str) -> bool:
    """The whole-segment category (weight 25 when major)."""
    return category in NON_TRANSLATION
