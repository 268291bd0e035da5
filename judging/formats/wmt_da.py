"""WMT Direct Assessment (DA) judgments: per-judge rows and the judges' mean/sd file.

Layout of ``ad-<src><trg>-good-stnd.csv`` (WMT21 news, crowd DA on MTurk; oracles-and-data
spec §5.2 B): a header ``HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid
score time`` and whitespace-separated rows. ``score`` is the judge's z-score; ``type`` is SYSTEM
or a quality-control item (REPEAT, BAD_REF, REF).

``ad-<src><trg>-trk-mean-sd.txt`` gives each worker's mean and sample standard deviation of
their raw 0-100 scores in R's print format, three lines per worker::

    [1] "M0190"
    [1] 65.55914
    [1] 38.6558

WMT computed the z of the csv with exactly these printed (7 significant digit) values, so the
raw score ``z * sd + mean`` comes out an integer up to float error (measured: 1e-12 on all
13,069 cs-en rows); it is rounded to that integer, and a value further than
:data:`RAW_TOLERANCE` from one is an error (a wrong or mismatched stats file).

WMT's aggregation (README of the humaneval folder): segment score = mean over a (system,
segment)'s SYSTEM and REPEAT judgments; system score = unweighted mean of its segment scores,
raw and z. WMT's R scripts wrote every step as text (z with 15 digits, segment scores with 15
digits) and read it back; ``WMT_R_ROUNDING`` repeats that. ``human_scores(records,
aspect="adequacy", **WMT_DA_SCORING)`` (WMT's z as given) and ``**WMT_DA_RECOMPUTED`` (z
recomputed from the raw scores) both reproduce the official ``ad-seg-scores-*.csv`` and
``ad-sys-scores-*.csv`` to every printed digit.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import Any

from metrics.core.human_scores import SCORED_KINDS, WMT_R_ROUNDING

from .base import (
    KINDS,
    CorpusFormatError,
    InputFile,
    JudgmentRecord,
    check_unique,
    decode_lines,
    is_blank,
)

REQUIRED_COLUMNS = ("WorkerId", "sys_id", "type", "sid", "score")
ITEM_ASPECTS = {"ad": "adequacy"}
"""``Input.item`` value -> aspect; other values are used as the aspect name as they are."""
DEFAULT_ASPECT = "adequacy"
RAW_TOLERANCE = 1e-3
WMT_DA_SCORING: dict[str, Any] = {
    "weighting": "none",
    "z_source": "given",
    "kinds": SCORED_KINDS,
    "rounding": WMT_R_ROUNDING,
}
"""Options of ``metrics.core.human_scores.human_scores`` that give WMT's official numbers from
the file's z."""
WMT_DA_RECOMPUTED: dict[str, Any] = {**WMT_DA_SCORING, "z_source": "computed"}
"""The same from the raw scores (needs the judge-stats file): our sample-sd normalization with
WMT's roundings."""

_SYSTEM_INDEX = re.compile(r"\.\d+$")
_R_LINE = re.compile(r"^\[1\]\s+(.*)$")


@dataclass(frozen=True)
class WorkerStats:
    """One worker's mean and sd of raw scores, from the judge-stats file."""

    worker: str
    mean: float
    sd: float
    line: int


@functools.lru_cache(maxsize=1024)
def system_name(sys_id: str) -> str:
    """WMT's system id without its numeric index: ``Facebook-AI.7`` -> ``Facebook-AI``.

    Cached: a file names a handful of systems on every one of its rows."""
    return _SYSTEM_INDEX.sub("", sys_id)


def parse_judge_stats(file: InputFile) -> dict[str, WorkerStats]:
    """Read a ``*-trk-mean-sd.txt`` file (R print format, three lines per worker).

    Raises:
        CorpusFormatError: a line that is not ``[1] value``, a name that is not quoted, a mean
            or sd that is not a number, a negative sd, a truncated record or a
            worker listed twice with different values.
    """
    lines = [
        (number, text) for number, text in enumerate(decode_lines(file), 1) if not is_blank(text)
    ]
    if len(lines) % 3:
        number = lines[-1][0]
        raise CorpusFormatError(file.name, "truncated: expected worker, mean and sd lines", number)
    result: dict[str, WorkerStats] = {}
    for start in range(0, len(lines), 3):
        worker = _r_string(file, *lines[start])
        mean = _r_number(file, *lines[start + 1], "mean")
        sd = _r_number(file, *lines[start + 2], "sd")
        # sd 0 occurs (6 workers with a constant score in WMT21 cs-en, none of them in the csv).
        if sd < 0:
            raise CorpusFormatError(
                file.name, f"sd of {worker} is {sd}, negative", lines[start + 2][0]
            )
        stats = WorkerStats(worker, mean, sd, lines[start][0])
        previous = result.get(worker)
        if previous is not None and (previous.mean, previous.sd) != (mean, sd):
            raise CorpusFormatError(
                file.name,
                f"worker {worker} listed again with other values (first on line {previous.line})",
                lines[start][0],
            )
        result.setdefault(worker, stats)
    return result


def _r_value(file: InputFile, number: int, text: str) -> str:
    match = _R_LINE.match(text.strip())
    if match is None:
        raise CorpusFormatError(
            file.name, f"expected R print output '[1] value', got {text!r}", number
        )
    return match.group(1).strip()


def _r_string(file: InputFile, number: int, text: str) -> str:
    value = _r_value(file, number, text)
    if len(value) < 3 or not (value.startswith('"') and value.endswith('"')):
        raise CorpusFormatError(
            file.name, f'expected a quoted worker id like "M0190", got {value}', number
        )
    return value[1:-1]


def _r_number(file: InputFile, number: int, text: str, what: str) -> float:
    value = _r_value(file, number, text)
    try:
        result = float(value)
    except ValueError:
        raise CorpusFormatError(file.name, f"{what} is not a number: {value!r}", number) from None
    if not math.isfinite(result):
        raise CorpusFormatError(file.name, f"{what} is not finite: {value!r}", number)
    return result


def parse_wmt_da_csv(
    file: InputFile,
    *,
    judge_stats: InputFile | None = None,
    strip_system_index: bool = True,
    raw_tolerance: float = RAW_TOLERANCE,
) -> list[JudgmentRecord]:
    """Read WMT DA per-judge rows into judgment records.

    Args:
        file: the ``ad-*-good-stnd.csv`` file.
        judge_stats: the ``ad-*-trk-mean-sd.txt`` file; with it every record gets its raw
            0-100 score, without it ``raw`` is None and only ``z_given`` is known.
        strip_system_index: drop WMT's numeric suffix from ``sys_id`` (``HUMAN.0`` -> ``HUMAN``)
            so that names match the system output files; the full id stays in ``extra``.
        raw_tolerance: how far ``z * sd + mean`` may be from an integer.

    Returns:
        One record per row, in file order: ``judge`` = WorkerId, ``segment_id`` = sid,
        ``kind`` = type, ``z_given`` = score, ``aspect`` from ``Input.item`` (``ad`` ->
        adequacy); the other columns and ``line`` in ``extra``.

    Raises:
        CorpusFormatError: missing columns, a row with another number of fields, a score that is
            not a number, an unknown type, a worker missing from the stats file, a raw score
            that is not an integer, or a (judge, system, segment, type) seen twice.
    """
    lines = decode_lines(file)
    header = lines[0].split()
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise CorpusFormatError(
            file.name,
            f"missing column(s) {', '.join(missing)} in the "
            f"header (expected {' '.join(REQUIRED_COLUMNS)} ...)",
            1,
        )
    stats = parse_judge_stats(judge_stats) if judge_stats is not None else None
    # Each column name and the index of its value (the last one where a name is repeated, in
    # the order of first appearance: what ``dict(zip(header, fields))`` gives).
    columns = dict(zip(header, range(len(header)), strict=True))
    # One string object per distinct value: a WMT file repeats its workers, HITs, systems,
    # segment ids and constant columns on every row, and the records keep them (in ``extra``),
    # so sharing them keeps a 500,000-row file's records in about half the memory.
    shared: dict[str, str] = {}
    records = []
    for number, text in enumerate(lines[1:], 2):
        if is_blank(text):
            continue
        fields = text.split()
        if len(fields) != len(header):
            raise CorpusFormatError(
                file.name, f"{len(fields)} fields, the header has {len(header)}", number
            )
        row = {
            name: shared.setdefault(fields[index], fields[index]) for name, index in columns.items()
        }
        records.append(
            _record(
                file,
                number,
                row,
                stats,
                strip_system_index,
                raw_tolerance,
                judge_stats.name if judge_stats else "",
            )
        )
    if not records:
        raise CorpusFormatError(file.name, "no judgments after the header")
    check_unique(file, records)
    return records


def _record(
    file: InputFile,
    number: int,
    row: dict[str, str],
    stats: dict[str, WorkerStats] | None,
    strip_system_index: bool,
    raw_tolerance: float,
    stats_name: str,
) -> JudgmentRecord:
    kind = row["type"]
    if kind not in KINDS:
        raise CorpusFormatError(
            file.name, f"unknown type {kind!r} (known: {', '.join(KINDS)})", number
        )
    z = _score(file, number, row["score"])
    raw = None
    if stats is not None:
        raw = _raw_score(file, number, row["WorkerId"], z, stats, raw_tolerance, stats_name)
    item = row.get("Input.item", "")
    extra: dict[str, str | int | float] = {"line": number}
    extra.update({k: v for k, v in row.items() if k not in ("WorkerId", "type", "sid", "score")})
    return JudgmentRecord(
        system=system_name(row["sys_id"]) if strip_system_index else row["sys_id"],
        segment_id=row["sid"],
        judge=row["WorkerId"],
        aspect=ITEM_ASPECTS.get(item, item) or DEFAULT_ASPECT,
        raw=raw,
        z_given=z,
        kind=kind,
        extra=extra,
    )


def _score(file: InputFile, number: int, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CorpusFormatError(file.name, f"score is not a number: {text!r}", number) from None
    if not math.isfinite(value):
        raise CorpusFormatError(file.name, f"score is not finite: {text!r}", number)
    return value


def _raw_score(
    file: InputFile,
    number: int,
    worker: str,
    z: float,
    stats: dict[str, WorkerStats],
    tolerance: float,
    stats_name: str,
) -> float:
    if worker not in stats:
        raise CorpusFormatError(file.name, f"worker {worker} is not in {stats_name}", number)
    own = stats[worker]
    raw = z * own.sd + own.mean
    if not math.isfinite(raw):  # a z far outside any scale overflows (round() would raise)
        raise CorpusFormatError(
            file.name,
            f"raw score z*sd+mean is not finite: does {stats_name} belong to this file?",
            number,
        )
    if abs(raw - round(raw)) > tolerance:
        raise CorpusFormatError(
            file.name,
            f"raw score z*sd+mean = {raw:.6f} is not an integer: does {stats_name} belong to "
            "this file?",
            number,
        )
    return float(round(raw))
