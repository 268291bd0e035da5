"""The practice phase of a campaign: a few screens with known answers before the real items,
feedback after each (no database access; ``judging.services.practice`` reads and stores).

Practice items come from the campaign's own data, so they work for any language pair:

* a **known good** text is a human reference translation of a segment: it deserves a high
  score, has no error that matters, ranks above a degraded text and needs no post-edit;
* a **known bad** text is a candidate of the segment degraded as WMT's bad references are
  (``judging.badrefs``: a phrase replaced by one pasted from another sentence), and this module
  knows which characters were pasted: it deserves a low score, an error span on them, a rank
  below the reference, and a post-edit that changes them.

Which segments, which kind on which screen and the order of a ranking screen's translations
all come from the campaign's seed: every judge of a campaign practises on the same screens.

Grading compares the judge's answer with the expected one and explains the difference in plain
words (:class:`Feedback`). The thresholds are on each scale's own range, from its worst end
(0) to its best end (1, the scale's ``perfect``): a good text should get at least
:data:`GOOD_AT_LEAST` (60 of 100, or 4 and 5 of the LDC 5-point levels), a bad one at most
:data:`BAD_AT_MOST` (50 of 100; 1–3 of 5). A pasted phrase always breaks the meaning but not
always the grammar, so a fluency scale only needs a bad text below its best end.
"""

from __future__ import annotations

import difflib
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .badrefs import bad_reference

OFF = "off"
OFFERED = "offered"
REQUIRED = "required"
MODES = (OFF, OFFERED, REQUIRED)
DEFAULT_SCREENS = 3
MAX_SCREENS = 10

GOOD = "good"
BAD = "bad"
OTHER = "candidate"
"""A text of a ranking screen whose quality is not known (a real candidate): not graded."""

GOOD_AT_LEAST = 0.6
BAD_AT_MOST = 0.5
FLUENCY = "fluency"

CATEGORICAL = "categorical"
DIRECT_ASSESSMENT = "direct-assessment"
RANKING = "ranking"
MQM = "mqm"
ESA = "esa"
POST_EDIT = "post-edit"

LONG_ENOUGH = 6
"""Tokens a candidate needs for a phrase of 3 or more to be pasted in (``badrefs``): shorter
candidates are practised on only when no longer one is left."""

WHY_GOOD = "This is the human reference translation; it deserves a high score."
WHY_BAD = (
    "The highlighted words were pasted from another sentence: a major accuracy error, "
    "so the translation deserves a low score."
)
WHY_GOOD_SPANS = "This is the human reference translation: it has no error worth marking as major."
WHY_BAD_SPANS = "The highlighted words were pasted from another sentence: a major accuracy error."
WHY_GOOD_ESA = (
    "This is the human reference translation: it has no major error and deserves a high "
    "overall score."
)
WHY_BAD_ESA = (
    "The highlighted words were pasted from another sentence: a major accuracy error, and a "
    "low overall score."
)
WHY_GOOD_POSTEDIT = "This is the human reference translation: it needs no edit."
WHY_BAD_POSTEDIT = (
    "The highlighted words were pasted from another sentence: a post-edit must replace them."
)
WHY_RANKING = (
    "Translation {bad} has words pasted from another sentence (highlighted): it should rank "
    "below {others}."
)
WHY_RANK_GOOD = "the human reference translation"
WHY_RANK_OTHER = "a machine translation"


@dataclass(frozen=True)
class SegmentTexts:
    """What the campaign's data offers for practice on one segment."""

    segment: int
    """A stable id of the segment (its 0-based place in the test set): it seeds the degraded
    copy, so it must not depend on database ids."""
    source: str
    reference: str
    """The reference the screen shows (empty when the campaign shows none)."""
    good: str
    """A known-good text: a human reference translation (a second one when the shown reference
    would otherwise stand next to itself); empty when the segment has none."""
    candidates: tuple[str, ...] = ()
    """The campaign's systems' outputs for the segment, in a fixed order."""
    judged: bool = True
    """Whether the campaign judges this segment for real (others are practised on first)."""


@dataclass(frozen=True)
class PracticeText:
    """A text of a practice screen: known good, known bad (``replaced``: the characters that
    were pasted in) or, on a ranking screen, a real candidate of unknown quality."""

    text: str
    kind: str
    replaced: tuple[int, int] | None = None

    @property
    def pieces(self) -> tuple[str, str, str]:
        """The text before, inside and after the pasted phrase (for highlighting)."""
        if self.replaced is None:
            return self.text, "", ""
        start, end = self.replaced
        return self.text[:start], self.text[start:end], self.text[end:]


@dataclass(frozen=True)
class PracticeScreen:
    number: int
    """0-based."""
    segment: int
    source: str
    reference: str
    texts: tuple[PracticeText, ...]

    @property
    def kind(self) -> str:
        """``bad`` when a text of the screen is degraded, else ``good``."""
        return BAD if any(text.kind == BAD for text in self.texts) else GOOD


@dataclass(frozen=True)
class FeedbackLine:
    """What the judge answered for one text or aspect, what was expected and why."""

    label: str
    answered: str
    expected: str
    matched: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "answered": self.answered,
            "expected": self.expected,
            "matched": self.matched,
        }


@dataclass(frozen=True)
class Feedback:
    matched: bool
    why: str
    lines: tuple[FeedbackLine, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        return {
            "matched": self.matched,
            "why": self.why,
            "lines": [line.as_dict() for line in self.lines],
        }


@dataclass(frozen=True)
class Answer:
    """A practice screen's answer, keyed by the text's 1-based place on the screen (as the
    page's fields name it): scores by (place, aspect name), error spans and post-edits by
    place."""

    scores: Mapping[tuple[int, str], int] = field(default_factory=dict)
    spans: Mapping[int, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    postedits: Mapping[int, str] = field(default_factory=dict)


class PracticeError(ValueError):
    """An answer that cannot be graded (something missing); the message is for the judge."""


# ---------------------------------------------------------------- which items


def practice_pool(segments: Sequence[tuple[int, bool]], *, seed: int, size: int) -> list[int]:
    """The segments whose texts a practice plan is drawn from: ``size`` of ``segments``
    (``(segment, judged)``), drawn with the seed, those the campaign does not judge first;
    returned in their given order. Bounds what is read however large the test set."""
    order = list(segments)
    random.Random(f"{seed}:practice-pool").shuffle(order)
    order.sort(key=lambda row: row[1])
    chosen = {segment for segment, _ in order[: max(0, size)]}
    return [segment for segment, _ in segments if segment in chosen]


def practice_plan(
    *,
    protocol: str,
    segments: Sequence[SegmentTexts],
    donors: Sequence[tuple[int, str]],
    seed: int,
    count: int,
    per_screen: int = 3,
    character_based: bool = False,
) -> list[PracticeScreen]:
    """The practice screens of a campaign, the same for the same arguments.

    Args:
        protocol: the campaign's protocol (``Campaign.Protocol`` values).
        segments: the test set's segments, in test-set order.
        donors: ``(segment, text)`` a pasted phrase may come from (``judging.badrefs``).
        seed: the campaign's seed.
        count: screens wanted (fewer when the data has fewer usable segments).
        per_screen: ranking: at most this many translations per screen (2 or 3 are used).
        character_based: the target language has no word spaces (Chinese, Japanese).

    Returns:
        Up to ``count`` screens, each on its own segment; segments the campaign does not judge
        come first, and, among them, candidates long enough for a pasted phrase of 3 words.
        A single-text screen is known good or known bad (as many bad as good, one more bad
        for an odd count, in an order drawn from the seed); a ranking screen holds the
        reference, the degraded copy of a candidate and (3 per screen) that candidate.
    """
    rng = random.Random(f"{seed}:practice")
    order = list(segments)
    rng.shuffle(order)
    order.sort(key=lambda row: (row.judged, not _long_candidate(row, character_based)))
    kinds = [BAD if number % 2 == 0 else GOOD for number in range(max(0, count))]
    rng.shuffle(kinds)
    if protocol == RANKING:
        kinds = [BAD] * len(kinds)
    screens: list[PracticeScreen] = []
    used: set[int] = set()
    for kind in kinds:
        made = None
        for wanted in (kind, GOOD if kind == BAD else BAD):
            if protocol == RANKING and wanted == GOOD:
                continue
            made = _first_screen(
                wanted, order, used, protocol, donors, seed, per_screen, character_based, rng
            )
            if made is not None:
                break
        if made is None:
            break
        row, texts = made
        used.add(row.segment)
        screens.append(
            PracticeScreen(
                number=len(screens),
                segment=row.segment,
                source=row.source,
                reference=row.reference,
                texts=texts,
            )
        )
    return screens


def _tokens(text: str, character_based: bool) -> list[str]:
    return list(text) if character_based else text.split(" ")


def _long_candidate(row: SegmentTexts, character_based: bool) -> bool:
    need = 2 * LONG_ENOUGH if character_based else LONG_ENOUGH
    return any(len(_tokens(text, character_based)) >= need for text in row.candidates)


def _first_screen(
    kind: str,
    order: Sequence[SegmentTexts],
    used: set[int],
    protocol: str,
    donors: Sequence[tuple[int, str]],
    seed: int,
    per_screen: int,
    character_based: bool,
    rng: random.Random,
) -> tuple[SegmentTexts, tuple[PracticeText, ...]] | None:
    for row in order:
        if row.segment in used:
            continue
        if kind == GOOD:
            if row.good.strip():
                return row, (PracticeText(row.good, GOOD),)
            continue
        made = _degraded(row, donors, seed, character_based)
        if made is None:
            continue
        candidate, bad = made
        if protocol != RANKING:
            return row, (bad,)
        if not row.good.strip() or row.good.strip() == candidate.strip():
            continue
        texts = [PracticeText(row.good, GOOD), bad]
        if per_screen >= 3 and candidate.strip() != row.good.strip():
            texts.append(PracticeText(candidate, OTHER))
        rng.shuffle(texts)
        return row, tuple(texts)
    return None


def _degraded(
    row: SegmentTexts, donors: Sequence[tuple[int, str]], seed: int, character_based: bool
) -> tuple[str, PracticeText] | None:
    """The first candidate of the segment (longest first) that ``badrefs`` can degrade, and
    its degraded copy with the pasted characters."""
    texts = [text for text in row.candidates if text.strip() and text.strip() != row.good.strip()]
    texts.sort(key=lambda text: -len(_tokens(text, character_based)))
    for text in texts:
        degraded = bad_reference(
            text=text,
            segment=row.segment,
            donors=donors,
            seed=seed,
            key=f"practice:{row.segment}:{text}",
            character_based=character_based,
        )
        if degraded is not None:
            replaced = pasted_span(text, degraded, character_based=character_based)
            return text, PracticeText(degraded, BAD, replaced)
    return None


def pasted_span(original: str, degraded: str, *, character_based: bool = False) -> tuple[int, int]:
    """Character offsets, in ``degraded``, of the tokens that differ from ``original``: the
    pasted phrase, less any word that happens to equal the one it replaced. A phrase that
    replaced words by fewer (a short donor) marks the word after the gap (or before it)."""
    old = _tokens(original, character_based)
    new = _tokens(degraded, character_based)
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(old), len(new)) - prefix
        and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]
    ):
        suffix += 1
    first, last = prefix, len(new) - suffix
    if first >= last:
        first, last = (first, first + 1) if first < len(new) else (first - 1, first)
    glue = 0 if character_based else 1
    start = sum(len(token) + glue for token in new[:first])
    end = start + sum(len(token) + glue for token in new[first:last]) - glue
    return start, max(end, start + 1)


# ---------------------------------------------------------------- grading


@dataclass(frozen=True)
class _Scale:
    name: str
    label: str
    kind: str
    worst: int
    best: int
    levels: tuple[tuple[int, str], ...]

    @classmethod
    def of(cls, scale: Mapping[str, Any]) -> _Scale:
        values = [int(level["value"]) for level in scale["levels"]]
        best = int(scale.get("perfect", max(values)))
        worst = min(values) if best == max(values) else max(values)
        return cls(
            name=str(scale["name"]),
            label=str(scale.get("label") or scale["name"]),
            kind=str(scale.get("kind") or "levels"),
            worst=worst,
            best=best,
            levels=tuple((int(level["value"]), str(level["text"])) for level in scale["levels"]),
        )

    def position(self, value: int) -> float:
        """0 at the worst end, 1 at the best."""
        if self.best == self.worst:
            return 1.0
        return (value - self.worst) / (self.best - self.worst)

    def expects(self, kind: str, value: int) -> bool:
        at = self.position(value)
        if kind == GOOD:
            return at >= GOOD_AT_LEAST - 1e-9
        if self.name == FLUENCY:
            return at < 1
        return at <= BAD_AT_MOST + 1e-9

    def describe(self, value: int) -> str:
        if self.kind == "slider":
            return f"{value} of {max(self.best, self.worst)}"
        text = dict(self.levels).get(value, "")
        return f"{value} ({text})" if text else str(value)

    def expected(self, kind: str) -> str:
        """The expected answer in words: "60 or more", "4 (Good) or 5 (Flawless)"."""
        if self.kind == "slider":
            span = self.best - self.worst
            if kind == GOOD:
                return f"{self.worst + math.ceil(GOOD_AT_LEAST * span)} or more"
            if self.name == FLUENCY:
                return f"below {self.best}"
            return f"{self.worst + math.floor(BAD_AT_MOST * span)} or less"
        fitting = [
            (value, text) for value, text in sorted(self.levels) if self.expects(kind, value)
        ]
        words = [f"{value} ({text})" for value, text in fitting]
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def grade(
    *,
    protocol: str,
    screen: PracticeScreen,
    scales: Sequence[Mapping[str, Any]],
    answer: Answer,
) -> Feedback:
    """Compare a practice answer with the expected one.

    Args:
        protocol: the campaign's protocol.
        screen: the practice screen answered.
        scales: the campaign's aspects as scale dicts (``name``, ``label``, ``kind``,
            ``levels``, ``perfect``).
        answer: what the judge sent.

    Raises:
        PracticeError: a score, the spans or the post-edit of the screen is missing.
    """
    if protocol == RANKING:
        return _grade_ranking(screen, scales, answer)
    text = screen.texts[0]
    if protocol in (MQM, ESA):
        return _grade_spans(protocol, text, scales, answer)
    if protocol == POST_EDIT:
        return _grade_postedit(text, answer)
    lines = _score_lines(text, scales, answer, missing="Give a score for {label} first.")
    return Feedback(
        matched=all(line.matched for line in lines),
        why=WHY_GOOD if text.kind == GOOD else WHY_BAD,
        lines=tuple(lines),
    )


def _score_lines(
    text: PracticeText, scales: Sequence[Mapping[str, Any]], answer: Answer, *, missing: str
) -> list[FeedbackLine]:
    """One line per scale: the judge's score against the expected one for the text's kind.

    Raises:
        PracticeError: ``missing`` (with ``{label}``) for a scale without a score.
    """
    lines = []
    for scale in map(_Scale.of, scales):
        value = answer.scores.get((1, scale.name))
        if value is None:
            raise PracticeError(missing.format(label=scale.label.lower()))
        lines.append(
            FeedbackLine(
                label=scale.label,
                answered=scale.describe(value),
                expected=scale.expected(text.kind),
                matched=scale.expects(text.kind, value),
            )
        )
    return lines


def _letter(place: int) -> str:
    return chr(ord("A") + place)


def _grade_ranking(
    screen: PracticeScreen, scales: Sequence[Mapping[str, Any]], answer: Answer
) -> Feedback:
    name = str(scales[0]["name"]) if scales else "rank"
    ranks = {}
    for place in range(len(screen.texts)):
        rank = answer.scores.get((place + 1, name))
        if rank is None:
            raise PracticeError("Rank every translation first.")
        ranks[place] = rank
    bad = next(place for place, text in enumerate(screen.texts) if text.kind == BAD)
    others = [place for place in ranks if place != bad]
    lines = []
    for place, text in enumerate(screen.texts):
        what = {GOOD: WHY_RANK_GOOD, BAD: "pasted words", OTHER: WHY_RANK_OTHER}[text.kind]
        if place == bad:
            expected = "below " + " and ".join(_letter(other) for other in others)
            matched = all(ranks[bad] > ranks[other] for other in others)
        else:
            expected = f"above {_letter(bad)}"
            matched = ranks[place] < ranks[bad]
        lines.append(
            FeedbackLine(
                label=f"Translation {_letter(place)} ({what})",
                answered=f"rank {ranks[place]}",
                expected=expected,
                matched=matched,
            )
        )
    why = WHY_RANKING.format(
        bad=_letter(bad), others=" and ".join(_letter(other) for other in others)
    )
    return Feedback(matched=all(line.matched for line in lines), why=why, lines=tuple(lines))


def _spans_described(text: str, spans: Sequence[Mapping[str, Any]]) -> str:
    if not spans:
        return "no errors"
    words = [
        f"“{text[int(span['start']) : int(span['end'])]}” ({span.get('severity', '')})"
        for span in spans
    ]
    count = f"{len(spans)} error{'s' if len(spans) != 1 else ''}"
    return f"{count}: " + ", ".join(words)


def _grade_spans(
    protocol: str, text: PracticeText, scales: Sequence[Mapping[str, Any]], answer: Answer
) -> Feedback:
    spans = answer.spans.get(1)
    if spans is None:
        raise PracticeError("The page sent no error spans.")
    majors = [span for span in spans if span.get("severity") == "major"]
    if text.kind == GOOD:
        lines = [
            FeedbackLine(
                label="Errors",
                answered=_spans_described(text.text, spans),
                expected="no major error",
                matched=not majors,
            )
        ]
        why = WHY_GOOD_SPANS
    else:
        start, end = text.replaced or (0, len(text.text))
        on_it = [s for s in spans if int(s["start"]) < end and int(s["end"]) > start]
        found = any(span.get("severity") == "major" for span in on_it)
        answered = _spans_described(text.text, spans)
        if on_it and not found:
            answered += " — on the pasted words, but not as major"
        lines = [
            FeedbackLine(
                label="Errors",
                answered=answered,
                expected=f"a major error on “{text.text[start:end]}”",
                matched=found,
            )
        ]
        why = WHY_BAD_SPANS
    if protocol == ESA:
        why = WHY_GOOD_ESA if text.kind == GOOD else WHY_BAD_ESA
        lines += _score_lines(text, scales, answer, missing="Move the {label} slider first.")
    return Feedback(matched=all(line.matched for line in lines), why=why, lines=tuple(lines))


_SPACE = re.compile(r"\s+")


def _one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _grade_postedit(text: PracticeText, answer: Answer) -> Feedback:
    edited = answer.postedits.get(1)
    if edited is None or not _one_line(edited):
        raise PracticeError("Type the translation first: an empty post-edit is not graded.")
    edited = _one_line(edited)
    shown = _one_line(text.text)
    if text.kind == GOOD:
        matched = edited == shown
        line = FeedbackLine(
            label="Your post-edit",
            answered="no change" if matched else f"changed to “{edited}”",
            expected="no change",
            matched=matched,
        )
        return Feedback(matched=matched, why=WHY_GOOD_POSTEDIT, lines=(line,))
    start, end = text.replaced or (0, len(text.text))
    matched = changes_inside(text.text, edited, start, end)
    pasted = text.text[start:end]
    line = FeedbackLine(
        label="Your post-edit",
        answered=f"“{edited}”" + ("" if matched else f" — “{pasted}” kept as it was"),
        expected=f"“{pasted}” replaced",
        matched=matched,
    )
    return Feedback(matched=matched, why=WHY_BAD_POSTEDIT, lines=(line,))


def changes_inside(original: str, edited: str, start: int, end: int) -> bool:
    """Whether ``edited`` changes a character of ``original[start:end]`` (or inserts inside
    it), by a character alignment of the two."""
    matcher = difflib.SequenceMatcher(None, original, _one_line(edited), autojunk=False)
    for tag, first, last, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert" and start < first < end:
            return True
        if tag != "insert" and first < end and last > start:
            return True
    return False
