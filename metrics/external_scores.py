"""Scores from elsewhere: parse the stored scores of a measure that cannot run here.

Neural measures (COMET, BLEURT, MetricX, xCOMET) run elsewhere; their scores arrive as files:

* ``mtme-seg`` — mt-metrics-eval's ``*.seg.score``: ``SYSTEM<TAB>SCORE``, one line per system
  and segment, each system's lines in segment order (so exactly as many lines per system as the
  test set has segments); ``None`` marks a missing score (NaN).
* ``mtme-sys`` — mt-metrics-eval's ``*.sys.score``: ``SYSTEM<TAB>SCORE``, one line per system.
* ``tsv`` — ``system<TAB>segment<TAB>score`` with the 1-based segment index; an optional header
  line ``system<TAB>segment<TAB>score``; a (system, segment) without a line is NaN.

No database and no Django: :func:`external_scores_parse` takes the test set's system names and
segment count and returns plain data, or raises :class:`CorpusFormatError` naming the file and
the line, as the corpus parsers do. Whole-request problems (a bad measure name, no file, files
that do not go together) raise :class:`ExternalScoresError`. ``metrics.services.external``
stores the result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from evaltrans.corpora.formats.reading import is_blank, split_lines
from metrics.core import METRICS
from metrics.human_systems import is_human_system

FORMATS = ("mtme-seg", "mtme-sys", "tsv")
DEFAULT_SIGNATURE = "unspecified"
NAME_MAX_LENGTH = 64  # SystemScore.measure
SIGNATURE_MAX_LENGTH = 900  # the stored signature "NAME|external:TEXT" must fit 1000
MISSING = frozenset({"none", "nan"})  # mt-metrics-eval writes None for a missing score
TSV_HEADER = ("system", "segment", "score")

# --- whole-request messages (ExternalScoresError)
BAD_NAME = (
    "bad measure name {name!r}: use letters, digits and - _ . + only, starting with a letter or "
    "digit, at most 64 characters (e.g. COMET-22)"
)
BUILTIN_NAME = (
    "{name!r} is the name of a built-in measure ({builtin}); give the imported scores another "
    "name (built-in: {known})"
)
BAD_SIGNATURE = "the signature must be one line of at most 900 characters"
NO_FILE = "give a score file: mtme-seg, mtme-sys (or both), or tsv"
TSV_WITH_MTME = "a tsv file cannot be combined with mt-metrics-eval files; give one or the other"
NO_SYSTEMS = "the test set has no systems to import scores for"

# --- file messages (CorpusFormatError: "FILE, line N: ...")
EMPTY_FILE = "the file is empty"
BAD_ENCODING = "the file is not valid UTF-8 (byte 0x{byte:02x} cannot be decoded); save it as UTF-8"
EMPTY_LINE = "empty line; every line needs {layout}"
FIELD_COUNT = "expected {layout}, found {count} tab-separated field{s}"
EMPTY_SYSTEM = "empty system name"
UNKNOWN_SYSTEM = "system {name!r} is not in the test set (its systems: {known})"
MISSING_SYSTEMS = (
    "no scores for {names} of the test set; the file needs every system of the test set"
)
NOT_A_NUMBER = "score {text!r} is not a number (write None for a missing score)"
NOT_FINITE = "score {text!r} is not a finite number (write None for a missing score)"
TOO_MANY_LINES = (
    "system {name!r} has more lines than the test set has segments ({count}); each system "
    "needs exactly one line per segment, in segment order"
)
TOO_FEW_LINES = (
    "system {name!r} has {lines} line{s}, but the test set has {count} segments; each system "
    "needs exactly one line per segment, in segment order"
)
DUPLICATE_SYSTEM = "system {name!r} appears twice (first on line {first})"
BAD_SEGMENT = "segment {text!r} is not a segment number (1 to {count})"
SEGMENT_OUT_OF_RANGE = "segment {index} is out of range: the test set has segments 1 to {count}"
REPEATED_SEGMENT = "system {name!r} segment {index} appears twice (first on line {first})"
NO_SCORES = "the file has a header but no scores"

SYSTEM_SCORE_LAYOUT = "SYSTEM<TAB>SCORE"
TSV_LAYOUT = "system<TAB>segment<TAB>score"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


class ExternalScoresError(ValueError):
    """The import request as a whole is wrong; ``str(error)`` is the message for the user."""


@dataclass(frozen=True)
class ExternalScores:
    """Parsed scores of every system of the test set.

    ``system_scores``: the system-level score (NaN = missing), from the ``mtme-sys`` file or
    else the mean of the system's finite sentence scores. ``sentence_scores``: one value per
    segment in segment order (NaN = missing), or None when only system scores were given.
    ``files`` maps each given format to its file name.
    """

    system_scores: dict[str, float]
    sentence_scores: dict[str, list[float]] | None
    files: dict[str, str]

    @property
    def system_level_source(self) -> str:
        return "mtme-sys" if "mtme-sys" in self.files else "mean of the sentence scores"


def check_name(name: str) -> str:
    """The measure name, stripped; refuses bad characters and built-in measure names.

    Raises:
        ExternalScoresError: bad name, or the name of a registry measure (any letter case).
    """
    name = name.strip()
    if len(name) > NAME_MAX_LENGTH or not _NAME.match(name):
        raise ExternalScoresError(BAD_NAME.format(name=name))
    builtin = {known.lower(): known for known in METRICS}
    if name.lower() in builtin:
        raise ExternalScoresError(
            BUILTIN_NAME.format(name=name, builtin=builtin[name.lower()], known=", ".join(METRICS))
        )
    return name


def check_signature(text: str | None) -> str:
    """The declared signature, stripped (``unspecified`` when blank).

    Raises:
        ExternalScoresError: a line break or other control character, or too long.
    """
    text = (text or "").strip() or DEFAULT_SIGNATURE
    if len(text) > SIGNATURE_MAX_LENGTH or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ExternalScoresError(BAD_SIGNATURE)
    return text


def external_signature(name: str, declared: str) -> str:
    """The stored signature of an imported measure."""
    return f"{name}|external:{declared}"


def external_scores_parse(
    *,
    systems: Sequence[str],
    segment_count: int,
    seg_file: InputFile | None = None,
    sys_file: InputFile | None = None,
    tsv_file: InputFile | None = None,
) -> ExternalScores:
    """Parse and check the given files against the test set's systems and segment count.

    Raises:
        ExternalScoresError: no file, tsv with mt-metrics-eval files, a test set without systems.
        CorpusFormatError: anything wrong inside a file (file and line named).
    """
    if seg_file is None and sys_file is None and tsv_file is None:
        raise ExternalScoresError(NO_FILE)
    if tsv_file is not None and (seg_file is not None or sys_file is not None):
        raise ExternalScoresError(TSV_WITH_MTME)
    if not systems:
        raise ExternalScoresError(NO_SYSTEMS)
    known = list(systems)
    sentences: dict[str, list[float]] | None = None
    files: dict[str, str] = {}
    if tsv_file is not None:
        sentences = parse_tsv(tsv_file, systems=known, segment_count=segment_count)
        files["tsv"] = tsv_file.name
    if seg_file is not None:
        sentences = parse_seg_scores(seg_file, systems=known, segment_count=segment_count)
        files["mtme-seg"] = seg_file.name
    if sys_file is not None:
        system_scores = parse_sys_scores(sys_file, systems=known)
        files["mtme-sys"] = sys_file.name
    else:  # seg or tsv was given: the mean of the sentence scores, as mt-metrics-eval does
        system_scores = {name: _mean(values) for name, values in (sentences or {}).items()}
    return ExternalScores(system_scores=system_scores, sentence_scores=sentences, files=files)


def parse_seg_scores(
    file: InputFile, *, systems: Sequence[str], segment_count: int
) -> dict[str, list[float]]:
    """An mt-metrics-eval ``*.seg.score`` file: the k-th line of a system is segment k."""
    known = set(systems)
    scores: dict[str, list[float]] = {}
    last_line: dict[str, int] = {}
    for number, fields in _rows(file, SYSTEM_SCORE_LAYOUT, 2):
        name = _system(file, number, fields[0], known, systems)
        if name is None:
            continue
        values = scores.setdefault(name, [])
        if len(values) == segment_count:
            raise CorpusFormatError(
                file.name, TOO_MANY_LINES.format(name=name, count=segment_count), number
            )
        values.append(_score(file, number, fields[1]))
        last_line[name] = number
    _check_every_system(file, systems, scores)
    for name in systems:
        lines = len(scores[name])
        if lines != segment_count:
            raise CorpusFormatError(
                file.name,
                TOO_FEW_LINES.format(name=name, lines=lines, s=_plural(lines), count=segment_count),
                last_line[name],
            )
    return {name: scores[name] for name in systems}


def parse_sys_scores(file: InputFile, *, systems: Sequence[str]) -> dict[str, float]:
    """An mt-metrics-eval ``*.sys.score`` file: one line per system."""
    known = set(systems)
    scores: dict[str, float] = {}
    first_line: dict[str, int] = {}
    for number, fields in _rows(file, SYSTEM_SCORE_LAYOUT, 2):
        name = _system(file, number, fields[0], known, systems)
        if name is None:
            continue
        if name in scores:
            raise CorpusFormatError(
                file.name, DUPLICATE_SYSTEM.format(name=name, first=first_line[name]), number
            )
        scores[name] = _score(file, number, fields[1])
        first_line[name] = number
    _check_every_system(file, systems, scores)
    return {name: scores[name] for name in systems}


def parse_tsv(
    file: InputFile, *, systems: Sequence[str], segment_count: int
) -> dict[str, list[float]]:
    """A ``system<TAB>segment<TAB>score`` file with 1-based segment indices."""
    known = set(systems)
    scores: dict[str, list[float]] = {}
    first_line: dict[tuple[str, int], int] = {}
    rows = _rows(file, TSV_LAYOUT, 3)
    if rows and tuple(field.strip().lower() for field in rows[0][1]) == TSV_HEADER:
        rows = rows[1:]
        if not rows:
            raise CorpusFormatError(file.name, NO_SCORES)
    for number, (system, segment, score) in rows:
        name = _system(file, number, system, known, systems)
        if name is None:
            continue
        index = _segment(file, number, segment, segment_count)
        if (name, index) in first_line:
            raise CorpusFormatError(
                file.name,
                REPEATED_SEGMENT.format(name=name, index=index, first=first_line[name, index]),
                number,
            )
        first_line[name, index] = number
        values = scores.setdefault(name, [math.nan] * segment_count)
        values[index - 1] = _score(file, number, score)
    _check_every_system(file, systems, scores)
    return {name: scores[name] for name in systems}


# --------------------------------------------------------------------------- helpers


def _rows(file: InputFile, layout: str, width: int) -> list[tuple[int, list[str]]]:
    """(line number, fields) of every line; refuses bad UTF-8, an empty file, blank lines and
    lines with another number of tab-separated fields."""
    try:
        text = file.data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = file.data[: error.start].count(b"\n") + 1
        raise CorpusFormatError(
            file.name, BAD_ENCODING.format(byte=file.data[error.start]), line
        ) from None
    text = text.removeprefix("\ufeff")
    if is_blank(text):
        raise CorpusFormatError(file.name, EMPTY_FILE)
    rows = []
    for number, line in enumerate(split_lines(text), start=1):
        if is_blank(line):
            raise CorpusFormatError(file.name, EMPTY_LINE.format(layout=layout), number)
        fields = line.split("\t")
        if len(fields) != width:
            raise CorpusFormatError(
                file.name,
                FIELD_COUNT.format(layout=layout, count=len(fields), s=_plural(len(fields))),
                number,
            )
        rows.append((number, fields))
    return rows


def _system(
    file: InputFile, number: int, text: str, known: set[str], systems: Sequence[str]
) -> str | None:
    """The system of a line; None for a human translation's line, which is skipped."""
    name = text.strip()
    if not name:
        raise CorpusFormatError(file.name, EMPTY_SYSTEM, number)
    if name not in known and is_human_system(name):
        return None  # a human translation scored as a system (mt-metrics-eval's refA lines)
    if name not in known:
        raise CorpusFormatError(
            file.name,
            UNKNOWN_SYSTEM.format(name=name, known=", ".join(sorted(systems))),
            number,
        )
    return name


def _score(file: InputFile, number: int, text: str) -> float:
    stripped = text.strip()
    if stripped.lower() in MISSING:
        return math.nan
    try:
        value = float(stripped)
    except ValueError:
        raise CorpusFormatError(file.name, NOT_A_NUMBER.format(text=stripped), number) from None
    if not math.isfinite(value):
        raise CorpusFormatError(file.name, NOT_FINITE.format(text=stripped), number)
    return value


def _segment(file: InputFile, number: int, text: str, segment_count: int) -> int:
    stripped = text.strip()
    if not stripped.isascii() or not stripped.isdigit():
        raise CorpusFormatError(
            file.name, BAD_SEGMENT.format(text=stripped, count=segment_count), number
        )
    index = int(stripped)
    if not 1 <= index <= segment_count:
        raise CorpusFormatError(
            file.name, SEGMENT_OUT_OF_RANGE.format(index=index, count=segment_count), number
        )
    return index


def _check_every_system(file: InputFile, systems: Sequence[str], found: dict[str, object]) -> None:
    missing = [name for name in systems if name not in found]
    if missing:
        names = ", ".join(repr(name) for name in sorted(missing))
        label = "system " if len(missing) == 1 else "systems "
        raise CorpusFormatError(file.name, MISSING_SYSTEMS.format(names=label + names))


def _mean(values: list[float]) -> float:
    finite = [value for value in values if not math.isnan(value)]
    return math.fsum(finite) / len(finite) if finite else math.nan


def _plural(count: int) -> str:
    return "" if count == 1 else "s"
