"""Human scores: (0,1) evaluator normalization, sentence and system aggregation, bootstrap CIs.

Implements the thesis' human-score pipeline (human-eval spec §1.3–§1.4, measures spec §13,
confidence intervals §2.9) as pure functions over plain judgments:

* **(0,1) evaluator normalization** (thesis §5.5 after Doddington 2003): per judge and per
  aspect, ``z = (score - mean_j) / sd_j`` over *all* of that judge's judgments of the aspect in
  the set (quality-control items included, as WMT does). ``sd`` is the sample standard deviation
  by default (``ddof = 1``, what WMT's DA files use, so their z are reproduced from the raw
  scores); ``sd="population"`` gives the thesis' 1/N form (Eq. C.7). A judge with one judgment or
  a constant score cannot be normalized: every z of that judge is 0 and the judge's
  :class:`JudgeStats` says ``normalizable=False``.
* **Sentence score**: mean (or median) over the candidate's judgments; "A+F" is requested as the
  aspect ``"adequacy+fluency"`` and is the sum of the parts' sentence scores.
* **System score**: ``H = sum_k w_k h_k / sum_k w_k`` over the system's segments, with ``w_k``
  the reference length (default), the candidate length, or 1 (``weighting="none"``), and a
  percentile bootstrap confidence interval over segments (seeded; the seed is in the signature).

Means are taken with :func:`math.fsum` so that results do not depend on summation order. WMT's
published files were made by R scripts that wrote their intermediate results as text; a
:class:`Rounding` (``rounding=WMT_R_ROUNDING``) repeats those roundings, so that z-scores
recomputed from the raw scores reproduce WMT's segment and system scores digit for digit.

No Django here: the judging app's selectors feed these functions plain records.
"""

from __future__ import annotations

import math
import os
import statistics
import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol, overload

import numpy as np
import numpy.typing as npt

from .base import Signature, format_signature_value
from .resampling import DEFAULT_SEED

VERSION = "1.0"
"""Implementation version of the human-score statistics, part of every signature."""

SD_CHOICES = ("sample", "population")
STATISTIC_CHOICES = ("mean", "median")
WEIGHTING_CHOICES = ("reference", "candidate", "none")
Z_SOURCE_CHOICES = ("auto", "computed", "given")
ROUNDING_NONE = "none"
KIND_SYSTEM = "SYSTEM"
"""An ordinary judgment of a system's (or a rated human translation's) candidate."""
KIND_REPEAT = "REPEAT"
"""The same judge scoring the same candidate again (WMT quality control; EvalTrans re-judgment)."""
KIND_BAD_REF = "BAD_REF"
"""WMT quality control: a deliberately degraded candidate."""
KIND_REF = "REF"
"""A reference translation judged like a candidate (WMT quality control, EvalTrans references)."""
KINDS = (KIND_SYSTEM, KIND_REPEAT, KIND_BAD_REF, KIND_REF)
"""Every kind of judgment (``JudgmentLike.kind``)."""
SCORED_KINDS = (KIND_SYSTEM, KIND_REPEAT)
"""Kinds aggregated by default. WMT counts a REPEAT like any other judgment of the candidate;
BAD_REF and REF are quality-control items and only enter the normalization statistics."""

FloatArray = npt.NDArray[np.float64]


class HumanScoresError(ValueError):
    """Bad options or input for the human-score statistics; the message is shown as is."""


@dataclass(frozen=True)
class Rounding:
    """Significant digits kept at each step, as a pipeline that writes its steps as text does.

    ``None`` at a step keeps full precision. WMT's DA scripts (R) printed each judge's mean and
    sd with R's default 7 significant digits and normalized with those printed values, wrote
    every z with 15 digits (``write.table``), and averaged the z as written into segment scores,
    which they wrote with 15 digits again before averaging them into system scores
    (:data:`WMT_R_ROUNDING`; docs/human-scores.md shows the evidence).

    Attributes:
        stats: digits of each judge's mean and sd before dividing.
        z: digits of each normalized judgment before aggregating.
        segments: digits of each segment score (raw and normalized) before the system score.
    """

    stats: int | None = None
    z: int | None = None
    segments: int | None = None

    def __post_init__(self) -> None:
        for name in ("stats", "z", "segments"):
            digits = getattr(self, name)
            if digits is not None and not 1 <= digits <= 17:
                raise HumanScoresError(f"rounding {name}: {digits} digits is not in 1..17")

    def __str__(self) -> str:
        return "/".join(
            "full" if d is None else str(d) for d in (self.stats, self.z, self.segments)
        )


WMT_R_ROUNDING = Rounding(stats=7, z=15, segments=15)
"""The roundings of WMT's R scripts: stats printed with 7 digits, z and segments with 15."""


def significant(value: float, digits: int | None) -> float:
    """``value`` rounded to ``digits`` significant digits (``None``: unchanged), as ``%.{digits}g``
    prints it (R's ``print`` and ``write.table`` round the same way)."""
    if digits is None or not math.isfinite(value):
        return value
    return float(f"{value:.{digits}g}")


class JudgmentLike(Protocol):
    """What the statistics read from a judgment (a parser record or a database row)."""

    @property
    def system(self) -> str: ...

    @property
    def segment_id(self) -> str: ...

    @property
    def judge(self) -> str: ...

    @property
    def aspect(self) -> str: ...

    @property
    def raw(self) -> float | None: ...

    @property
    def z_given(self) -> float | None: ...

    @property
    def kind(self) -> str: ...


# --------------------------------------------------------------------------- normalization


@dataclass(frozen=True)
class JudgeStats:
    """One judge's statistics for one aspect.

    ``normalizable`` is False for a judge with fewer than two judgments or a constant score
    (``sd`` is then 0 or undefined and every z of the judge is set to 0).
    """

    judge: str
    n: int
    mean: float
    sd: float
    normalizable: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "n": self.n,
            "mean": self.mean,
            "sd": _finite_or_none(self.sd),
            "normalizable": self.normalizable,
        }


@dataclass(frozen=True)
class Normalization:
    """Normalized scores (same order as the input) and the per-judge statistics behind them."""

    z: FloatArray
    judges: dict[str, JudgeStats]
    sd: str


def judge_stats(judge: str, scores: Sequence[float], *, sd: str = "sample") -> JudgeStats:
    """Mean and standard deviation of one judge's scores.

    Args:
        judge: the judge's name (kept in the result).
        scores: every score the judge gave for one aspect.
        sd: ``"sample"`` (divide by n-1, the default) or ``"population"`` (divide by n).

    Returns:
        The statistics; ``normalizable`` is False when ``sd`` is 0 or undefined (n = 1 with the
        sample sd), in which case ``sd`` is ``nan`` (n = 1) or 0.

    Raises:
        HumanScoresError: no scores, or an unknown ``sd``.
    """
    _check_choice("sd", sd, SD_CHOICES)
    n = len(scores)
    if n == 0:
        raise HumanScoresError(f"judge {judge!r} has no scores")
    mean = math.fsum(scores) / n
    ddof = 1 if sd == "sample" else 0
    if n - ddof <= 0:
        return JudgeStats(judge, n, mean, math.nan, normalizable=False)
    deviation = math.sqrt(math.fsum((x - mean) ** 2 for x in scores) / (n - ddof))
    # A constant judge can still leave rounding dust in the deviation; exact equality is the test.
    if all(x == scores[0] for x in scores):
        deviation = 0.0
    return JudgeStats(judge, n, mean, deviation, normalizable=deviation > 0.0)


def normalize_by_judge(
    judges: Sequence[str],
    scores: Sequence[float],
    *,
    sd: str = "sample",
    stats_digits: int | None = None,
) -> Normalization:
    """(0,1) evaluator normalization of one aspect's scores (thesis §5.5).

    Args:
        judges: the judge of each score.
        scores: the raw scores, same length as ``judges``.
        sd: ``"sample"`` (default; n-1, as WMT DA) or ``"population"`` (1/N, thesis Eq. C.7).
        stats_digits: round each judge's mean and sd to this many significant digits before
            dividing (WMT: 7, see :class:`Rounding`); None (default) keeps full precision. The
            returned statistics are the rounded ones, the values actually used.

    Returns:
        z-scores in input order: mean 0 and sd 1 per normalizable judge; 0 for every score of a
        judge that is not normalizable (one judgment or a constant score).

    Raises:
        HumanScoresError: lengths differ, or an unknown ``sd``.

    Example:
        >>> normalize_by_judge(["a", "a", "b"], [1.0, 3.0, 4.0]).z.tolist()
        [-0.7071067811865475, 0.7071067811865475, 0.0]
    """
    if len(judges) != len(scores):
        raise HumanScoresError(f"{len(judges)} judges but {len(scores)} scores")
    by_judge: dict[str, list[float]] = defaultdict(list)
    for judge, score in zip(judges, scores, strict=True):
        by_judge[judge].append(float(score))
    stats = {judge: judge_stats(judge, values, sd=sd) for judge, values in by_judge.items()}
    if stats_digits is not None:
        stats = {
            judge: replace(
                own, mean=significant(own.mean, stats_digits), sd=significant(own.sd, stats_digits)
            )
            for judge, own in stats.items()
        }
    order = list(stats.values())
    code_of = {own.judge: code for code, own in enumerate(order)}
    codes = np.fromiter((code_of[judge] for judge in judges), dtype=np.intp, count=len(judges))
    usable = np.array([own.normalizable for own in order], dtype=np.bool_)[codes]
    means = np.array([own.mean for own in order], dtype=np.float64)[codes]
    sds = np.array([own.sd if own.normalizable else 1.0 for own in order])[codes]
    values = np.array([float(score) for score in scores], dtype=np.float64)
    z = np.where(usable, (values - means) / sds, 0.0)
    return Normalization(z=z, judges=stats, sd=sd)


# --------------------------------------------------------------------------- aggregation


def sentence_statistic(values: Sequence[float], statistic: str = "mean") -> float:
    """Combine one candidate's judgments into its sentence score (thesis §5.5: mean; median)."""
    _check_choice("sentence_statistic", statistic, STATISTIC_CHOICES)
    if not values:
        raise HumanScoresError("no judgments to combine")
    if statistic == "median":
        return float(statistics.median(values))
    return math.fsum(values) / len(values)


def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    """``sum w*h / sum w`` (thesis §1.4 system score), exact-summed."""
    w = np.asarray(weights, dtype=np.float64)
    h = np.asarray(values, dtype=np.float64)
    if w.shape != h.shape:
        raise HumanScoresError(f"{len(w)} weights but {len(h)} values")
    total = math.fsum(w.tolist())
    if total <= 0:
        raise HumanScoresError("the weights of a system's segments sum to zero")
    return math.fsum((w * h).tolist()) / total


@dataclass(frozen=True)
class Interval:
    """A confidence interval: bounds and the confidence level."""

    low: float
    high: float
    confidence: float

    def as_dict(self) -> dict[str, float]:
        return {"low": self.low, "high": self.high, "confidence": self.confidence}


BOOTSTRAP_BLOCK = 64
"""Resamples summed at a time: bounds the gathered temporaries to BLOCK × segments values."""


def bootstrap_interval(
    values: Sequence[float],
    weights: Sequence[float],
    *,
    samples: int,
    rng: np.random.Generator,
    confidence: float = 0.95,
) -> Interval | None:
    """Percentile bootstrap CI of a weighted mean, resampling segments with replacement.

    Args:
        values: sentence scores of one system.
        weights: their weights (all 1 for an unweighted mean).
        samples: number of bootstrap resamples (0 gives no interval).
        rng: the random generator (randomness is an argument, never global state).
        confidence: coverage, e.g. 0.95 for the 2.5 % and 97.5 % percentiles.

    Returns:
        The interval, or None with fewer than two segments or ``samples == 0``.
    """
    return bootstrap_intervals([values], weights, samples=samples, rng=rng, confidence=confidence)[
        0
    ]


def bootstrap_intervals(
    columns: Sequence[Sequence[float]],
    weights: Sequence[float],
    *,
    samples: int,
    rng: np.random.Generator,
    confidence: float = 0.95,
) -> list[Interval | None]:
    """:func:`bootstrap_interval` of several score columns of the same segments (a system's raw
    and normalized scores) from the same resamples: the draws are made once, and each interval
    equals :func:`bootstrap_interval` of its column with a generator in the same state (the
    same draws, products and sums, so the same numbers to the last bit)."""
    if samples <= 0 or len(weights) < 2:
        return [None] * len(columns)
    w = np.asarray(weights, dtype=np.float64)
    weighted = [w * np.asarray(values, dtype=np.float64) for values in columns]
    means = np.empty((len(columns), samples))
    unweighted = bool(np.all(w == 1.0))
    # A resample of only zero-length segments has no mean; it is left out.
    with np.errstate(invalid="ignore", divide="ignore"):
        for start in range(0, samples, BOOTSTRAP_BLOCK):
            # Drawn block by block, the int32 draws are the one (samples × n) int64 draw of
            # the plain formula (the same bounded 32-bit stream), without its 280 MB.
            rows = min(BOOTSTRAP_BLOCK, samples - start)
            block = rng.integers(0, len(w), size=(rows, len(w)), dtype=_index_type(len(w)))
            # n ones sum to n exactly, in any order: no gather needed for unit weights.
            total = np.full(len(block), float(len(w))) if unweighted else w[block].sum(axis=1)
            for column, wh in enumerate(weighted):
                means[column, start : start + len(block)] = wh[block].sum(axis=1) / total
    tail = (1.0 - confidence) / 2.0
    intervals: list[Interval | None] = []
    for row in means:
        low, high = np.nanquantile(row, [tail, 1.0 - tail])
        intervals.append(Interval(float(low), float(high), confidence))
    return intervals


def _index_type(size: int) -> type[np.integer[Any]]:
    return np.int32 if size <= np.iinfo(np.int32).max else np.int64


def system_rng(seed: int, system: str) -> np.random.Generator:
    """A generator for one system's bootstrap: a system's interval never depends on which
    other systems are in the set or on their order."""
    return np.random.default_rng([seed, zlib.crc32(system.encode("utf-8"))])


# --------------------------------------------------------------------------- results


class SegmentScore(NamedTuple):
    """One candidate's sentence score: raw and normalized, and how many judgments it rests on.

    A tuple: a WMT DA year has some 300,000 of them, and a frozen dataclass takes twice as
    long to make (312,327: 0.41-0.47 s against 0.22-0.26 s)."""

    system: str
    segment_id: str
    raw: float | None
    normalized: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "segment_id": self.segment_id,
            "raw": self.raw,
            "normalized": self.normalized,
            "n": self.n,
        }


@dataclass(frozen=True)
class HumanSystemScore:
    """One system's score: raw and normalized weighted means of its sentence scores, with CIs."""

    system: str
    raw: float | None
    normalized: float
    n_segments: int
    n_judgments: int
    raw_ci: Interval | None
    normalized_ci: Interval | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "raw": self.raw,
            "normalized": self.normalized,
            "n_segments": self.n_segments,
            "n_judgments": self.n_judgments,
            "raw_ci": self.raw_ci.as_dict() if self.raw_ci else None,
            "normalized_ci": self.normalized_ci.as_dict() if self.normalized_ci else None,
        }


@dataclass(frozen=True)
class HumanScores:
    """Everything ``human_scores`` computes for one aspect, with the signature of its options."""

    aspect: str
    systems: list[HumanSystemScore]
    segments: Sequence[SegmentScore]
    judges: dict[str, list[JudgeStats]] = field(default_factory=dict)
    signature: Signature = field(default_factory=lambda: Signature("human", ()))

    def system(self, name: str) -> HumanSystemScore:
        for score in self.systems:
            if score.system == name:
                return score
        raise KeyError(name)

    def as_dict(self, *, segments: bool = False) -> dict[str, Any]:
        """JSON-ready form (what ``manage.py human_scores --json`` prints)."""
        result: dict[str, Any] = {
            "aspect": self.aspect,
            "signature": str(self.signature),
            "systems": [score.as_dict() for score in self.systems],
            "judges": {
                aspect: [stats.as_dict() for stats in rows] for aspect, rows in self.judges.items()
            },
        }
        if segments:
            result["segments"] = [score.as_dict() for score in self.segments]
        return result


# --------------------------------------------------------------------------- high level


@dataclass
class _CellTable:
    """Sentence-level values of candidates, one row per (system, segment id), as arrays (a WMT
    DA year has some 300,000 candidates: too many for an object each until the result is
    built). ``raw`` is NaN where ``raw_known`` is False: some judgment of the candidate has no
    raw score."""

    keys: list[tuple[str, str]]
    raw: FloatArray
    raw_known: npt.NDArray[np.bool_]
    normalized: FloatArray
    n: npt.NDArray[np.int64]

    def take(self, rows: npt.NDArray[np.intp]) -> _CellTable:
        return _CellTable(
            [self.keys[row] for row in rows.tolist()],
            self.raw[rows],
            self.raw_known[rows],
            self.normalized[rows],
            self.n[rows],
        )

    def segment_scores(self) -> list[SegmentScore]:
        return [
            SegmentScore(system, segment_id, raw if known else None, normalized, n)
            for (system, segment_id), raw, known, normalized, n in zip(
                self.keys,
                self.raw.tolist(),
                self.raw_known.tolist(),
                self.normalized.tolist(),
                self.n.tolist(),
                strict=True,
            )
        ]


def human_scores(
    records: Iterable[JudgmentLike],
    *,
    aspect: str,
    sentence_statistic: str = "mean",
    weighting: str = "reference",
    reference_lengths: Mapping[str, float] | None = None,
    candidate_lengths: Mapping[tuple[str, str], float] | None = None,
    sd: str = "sample",
    z_source: str = "auto",
    kinds: Sequence[str] = SCORED_KINDS,
    bootstrap_samples: int = 1000,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
    rounding: Rounding | None = None,
) -> HumanScores:
    """Per-segment and per-system human scores of one aspect, raw and normalized.

    Args:
        records: judgments (any objects with the :class:`JudgmentLike` attributes).
        aspect: the aspect to score, e.g. ``"adequacy"``; ``"adequacy+fluency"`` (parts joined by
            ``+``, unless an aspect has exactly that name) sums the parts' sentence scores (A+F).
        sentence_statistic: ``"mean"`` (thesis default) or ``"median"`` over a candidate's
            judgments.
        weighting: ``"reference"`` (default: weight by ``reference_lengths[segment_id]``, the
            way error rates weight segments), ``"candidate"`` (``candidate_lengths[(system,
            segment_id)]``) or ``"none"`` (plain mean, as WMT and MQM do).
        reference_lengths: segment id -> reference length in words (for ``"reference"``).
        candidate_lengths: (system, segment id) -> candidate length in words.
        sd: standard deviation of the normalization, ``"sample"`` (default) or ``"population"``.
        z_source: ``"computed"`` normalizes the raw scores; ``"given"`` uses each record's
            ``z_given`` (e.g. WMT's published z); ``"auto"`` computes when every record of the
            aspect has a raw score and otherwise uses the given z. The signature records the
            choice made.
        kinds: record kinds that are aggregated (normalization always uses all of a judge's
            records of the aspect).
        bootstrap_samples: resamples per system for the CIs (0: none).
        confidence: CI coverage.
        seed: bootstrap seed, recorded in the signature.
        rounding: the roundings of a text-writing pipeline to repeat (:class:`Rounding`;
            ``WMT_R_ROUNDING`` reproduces WMT's DA files from the raw scores); None (default)
            keeps full precision. Recorded in the signature.

    Returns:
        :class:`HumanScores`; systems and segments sorted by name and segment id.

    Raises:
        HumanScoresError: unknown option, no judgment of the aspect, missing lengths or z.
    """
    _check_options(sentence_statistic, weighting, sd, z_source)
    all_records = list(records)
    parts = _aspect_parts(aspect, {record.aspect for record in all_records})
    tables: list[_CellTable] = []
    judges: dict[str, list[JudgeStats]] = {}
    resolved: list[str] = []
    for part in parts:
        part_records = [record for record in all_records if record.aspect == part]
        part_source = _resolve_z_source(part, part_records, z_source)
        resolved.append(part_source)
        normalized, stats = _normalized_values(part_records, part_source, sd, rounding)
        if stats is not None:
            judges[part] = sorted(stats.values(), key=lambda item: item.judge)
        tables.append(_sentence_cells(part_records, normalized, kinds, sentence_statistic))
    cells = _combine_parts(tables, rounding.segments if rounding else None)
    weights = _segment_weights(cells.keys, weighting, reference_lengths, candidate_lengths)
    systems = _system_scores(cells, weights, bootstrap_samples, confidence, seed)
    signature = _signature(
        aspect,
        sentence_statistic,
        weighting,
        sd,
        "+".join(sorted(set(resolved))),
        kinds,
        bootstrap_samples,
        confidence,
        seed,
        rounding,
    )
    return HumanScores(aspect, systems, SegmentScores(cells), judges, signature)


class SegmentScores(Sequence[SegmentScore]):
    """The sentence scores of a :class:`HumanScores`, made from its cell table on first use:
    the system scores alone (``manage.py human_scores`` without ``--segments``) never need
    the 300,000 of a WMT DA year (0.6 s to make)."""

    def __init__(self, cells: _CellTable) -> None:
        self._cells = cells
        self._scores: list[SegmentScore] | None = None

    def _all(self) -> list[SegmentScore]:
        if self._scores is None:
            self._scores = self._cells.segment_scores()
        return self._scores

    def __len__(self) -> int:
        return len(self._cells.keys)

    @overload
    def __getitem__(self, index: int) -> SegmentScore: ...

    @overload
    def __getitem__(self, index: slice) -> list[SegmentScore]: ...

    def __getitem__(self, index: int | slice) -> SegmentScore | list[SegmentScore]:
        return self._all()[index]

    def __iter__(self) -> Iterator[SegmentScore]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return self._all() == list(other)

    def __repr__(self) -> str:
        return f"SegmentScores({len(self)} candidates)"


def _aspect_parts(aspect: str, present: set[str]) -> list[str]:
    if aspect in present:
        return [aspect]
    parts = [part.strip() for part in aspect.split("+")]
    missing = [part for part in parts if part not in present]
    if missing:
        known = ", ".join(sorted(present)) or "none"
        raise HumanScoresError(f"no judgments of aspect {missing[0]!r} (aspects: {known})")
    return parts


def _resolve_z_source(aspect: str, records: list[JudgmentLike], z_source: str) -> str:
    has_raw = all(record.raw is not None for record in records)
    has_z = all(record.z_given is not None for record in records)
    source = z_source
    if z_source == "auto":
        source = "computed" if has_raw else "given"
    if source == "computed" and not has_raw:
        raise HumanScoresError(f"aspect {aspect!r}: some judgments have no raw score to normalize")
    if source == "given" and not has_z:
        raise HumanScoresError(
            f"aspect {aspect!r}: some judgments have neither a raw score nor a given z"
        )
    return source


def _normalized_values(
    records: list[JudgmentLike], z_source: str, sd: str, rounding: Rounding | None
) -> tuple[FloatArray, dict[str, JudgeStats] | None]:
    z_digits = rounding.z if rounding else None
    if z_source == "given":
        given = _all_present([record.z_given for record in records])
        return _significant_array(np.array(given, dtype=np.float64), z_digits), None
    raw = _all_present([record.raw for record in records])
    result = normalize_by_judge(
        [record.judge for record in records],
        raw,
        sd=sd,
        stats_digits=rounding.stats if rounding else None,
    )
    return _significant_array(result.z, z_digits), result.judges


def _significant_array(values: FloatArray, digits: int | None) -> FloatArray:
    if digits is None:
        return values
    return np.array([significant(value, digits) for value in values.tolist()], dtype=np.float64)


def _sentence_cells(
    records: list[JudgmentLike], normalized: FloatArray, kinds: Sequence[str], statistic: str
) -> _CellTable:
    """The candidates' sentence statistics, in the order each candidate first occurs."""
    wanted = set(kinds)
    rows = [row for row, record in enumerate(records) if record.kind in wanted]
    cell_of: dict[tuple[str, str], int] = {}
    codes = np.fromiter(
        (
            cell_of.setdefault((records[row].system, records[row].segment_id), len(cell_of))
            for row in rows
        ),
        dtype=np.int64,
        count=len(rows),
    )
    raws = [records[row].raw for row in rows]
    known = np.fromiter((value is not None for value in raws), dtype=np.bool_, count=len(rows))
    raw = np.fromiter(
        (0.0 if value is None else value for value in raws), dtype=np.float64, count=len(rows)
    )
    groups = _Groups(codes, len(cell_of))
    raw_known = np.bincount(codes[~known], minlength=len(cell_of)) == 0
    raw_statistic = groups.statistic(raw, statistic)
    raw_statistic[~raw_known] = math.nan
    z = normalized[np.asarray(rows, dtype=np.intp)]
    return _CellTable(
        list(cell_of), raw_statistic, raw_known, groups.statistic(z, statistic), groups.counts
    )


class _Groups:
    """Values grouped by code (0..count-1, every code present): the group statistics of
    :func:`sentence_statistic` with numpy, to the same bit."""

    def __init__(self, codes: npt.NDArray[np.int64], count: int) -> None:
        self.codes = codes
        self.counts = np.bincount(codes, minlength=count)
        self.starts = np.cumsum(self.counts) - self.counts
        self.order = np.argsort(codes, kind="stable")

    def statistic(self, values: FloatArray, statistic: str) -> FloatArray:
        if statistic == "median":
            return self._median(values)
        return self._sums(values[self.order]) / self.counts

    def _sums(self, grouped: FloatArray) -> FloatArray:
        """``math.fsum`` of each group: one value, or the float sum of two, is already the
        correctly rounded sum (``+ 0.0`` turns -0.0 into 0.0, as ``fsum`` does); larger groups,
        rare, go through ``fsum`` itself."""
        first = grouped[self.starts]
        sums = first + 0.0
        pairs = np.flatnonzero(self.counts == 2)
        sums[pairs] = (first[pairs] + grouped[self.starts[pairs] + 1]) + 0.0
        for group in np.flatnonzero(self.counts > 2).tolist():
            start = self.starts[group]
            sums[group] = math.fsum(grouped[start : start + self.counts[group]].tolist())
        return sums

    def _median(self, values: FloatArray) -> FloatArray:
        ordered = values[np.lexsort((values, self.codes))]
        lower = ordered[self.starts + (self.counts - 1) // 2]
        upper = ordered[self.starts + self.counts // 2]
        return np.where(self.counts % 2 == 1, lower, (lower + upper) / 2)


def _combine_parts(tables: list[_CellTable], digits: int | None) -> _CellTable:
    """Sentence scores of the aspect, sorted by system and segment id; for A+F the sum over the
    parts, on candidates judged in all; rounded to ``digits`` significant digits when given."""
    if len(tables) == 1:
        table = tables[0]
        combined = _CellTable(
            table.keys, table.raw + 0.0, table.raw_known, table.normalized + 0.0, table.n
        )
    else:
        combined = _sum_parts(tables)
    combined = combined.take(_natural_order(combined.keys))
    combined.raw = _significant_array(combined.raw, digits)
    combined.normalized = _significant_array(combined.normalized, digits)
    return combined


def _sum_parts(tables: list[_CellTable]) -> _CellTable:
    rows_of = [{key: row for row, key in enumerate(table.keys)} for table in tables]
    keys = [key for key in tables[0].keys if all(key in rows for rows in rows_of[1:])]
    parts = [
        table.take(np.array([rows[key] for key in keys], dtype=np.intp))
        for table, rows in zip(tables, rows_of, strict=True)
    ]
    raw_known = np.logical_and.reduce([part.raw_known for part in parts])
    raw = _column_sums([part.raw for part in parts])
    raw[~raw_known] = math.nan
    return _CellTable(
        keys,
        raw,
        raw_known,
        _column_sums([part.normalized for part in parts]),
        np.sum([part.n for part in parts], axis=0),
    )


def _column_sums(columns: list[FloatArray]) -> FloatArray:
    """``math.fsum`` across the columns, row by row (two columns: their float sum)."""
    if len(columns) == 2:
        return (columns[0] + columns[1]) + 0.0
    return np.array([math.fsum(row) for row in zip(*(c.tolist() for c in columns), strict=True)])


def _natural_order(keys: list[tuple[str, str]]) -> npt.NDArray[np.intp]:
    """Rows by system name, then segment id in natural order ("2" before "10")."""
    systems = {name: rank for rank, name in enumerate(sorted({system for system, _ in keys}))}
    segment_ids = sorted({segment_id for _, segment_id in keys}, key=lambda s: (_natural(s), s))
    segments = {segment_id: rank for rank, segment_id in enumerate(segment_ids)}
    system_rank = np.fromiter((systems[s] for s, _ in keys), dtype=np.int64, count=len(keys))
    segment_rank = np.fromiter((segments[g] for _, g in keys), dtype=np.int64, count=len(keys))
    return np.lexsort((segment_rank, system_rank))


def _segment_weights(
    keys: list[tuple[str, str]],
    weighting: str,
    reference_lengths: Mapping[str, float] | None,
    candidate_lengths: Mapping[tuple[str, str], float] | None,
) -> FloatArray:
    if weighting == "none":
        return np.ones(len(keys))
    if weighting == "reference":
        if reference_lengths is None:
            raise HumanScoresError(
                "weighting 'reference' needs reference_lengths (use weighting 'none' without a "
                "test set)"
            )
        return np.array([_length(reference_lengths, seg, "reference") for _, seg in keys])
    if candidate_lengths is None:
        raise HumanScoresError("weighting 'candidate' needs candidate_lengths")
    return np.array([_length(candidate_lengths, key, "candidate") for key in keys])


def _length(lengths: Mapping[Any, float], key: Any, what: str) -> float:
    try:
        value = float(lengths[key])
    except KeyError:
        raise HumanScoresError(f"no {what} length for {key!r}") from None
    if value < 0 or not math.isfinite(value):
        raise HumanScoresError(f"{what} length for {key!r} is {value}")
    return value


def _system_scores(
    cells: _CellTable,
    weights: FloatArray,
    samples: int,
    confidence: float,
    seed: int,
) -> list[HumanSystemScore]:
    """One score per system; ``cells`` are sorted by system, so each system is one slice."""
    systems = [system for system, _ in cells.keys]
    starts = [row for row in range(len(systems)) if row == 0 or systems[row] != systems[row - 1]]
    slices = [slice(a, b) for a, b in zip(starts, [*starts[1:], len(systems)], strict=True)]

    def score(rows: slice) -> HumanSystemScore:
        return _system_score(systems[rows.start], cells, weights, rows, samples, confidence, seed)

    # Each system draws from its own generator, so the threads (numpy releases the GIL while
    # it gathers and sums) give the numbers of a serial loop.
    with ThreadPoolExecutor(max_workers=max(1, min(len(slices), os.cpu_count() or 1))) as pool:
        return list(pool.map(score, slices))


def _system_score(
    system: str,
    cells: _CellTable,
    weights: FloatArray,
    rows: slice,
    samples: int,
    confidence: float,
    seed: int,
) -> HumanSystemScore:
    w = weights[rows]
    z = cells.normalized[rows]
    raws = cells.raw[rows] if cells.raw_known[rows].all() else None
    # Raw and normalized come from the same resamples, drawn once.
    columns = [z] if raws is None else [z, raws]
    intervals = bootstrap_intervals(
        columns, w, samples=samples, rng=system_rng(seed, system), confidence=confidence
    )
    return HumanSystemScore(
        system=system,
        raw=weighted_mean(raws, w) if raws is not None else None,
        normalized=weighted_mean(z, w),
        n_segments=len(z),
        n_judgments=int(cells.n[rows].sum()),
        raw_ci=intervals[1] if raws is not None else None,
        normalized_ci=intervals[0],
    )


def _signature(
    aspect: str,
    statistic: str,
    weighting: str,
    sd: str,
    z_source: str,
    kinds: Sequence[str],
    samples: int,
    confidence: float,
    seed: int,
    rounding: Rounding | None,
) -> Signature:
    params = [
        ("aspect", aspect),
        ("stat", statistic),
        ("weight", weighting),
        ("sd", sd),
        ("z", z_source),
        ("round", str(rounding) if rounding else ROUNDING_NONE),
        ("kinds", ",".join(kinds)),
        ("boot", samples),
        ("conf", confidence),
        ("seed", seed),
        ("version", VERSION),
    ]
    return Signature("human", tuple((key, format_signature_value(v)) for key, v in params))


def _check_options(statistic: str, weighting: str, sd: str, z_source: str) -> None:
    _check_choice("sentence_statistic", statistic, STATISTIC_CHOICES)
    _check_choice("weighting", weighting, WEIGHTING_CHOICES)
    _check_choice("sd", sd, SD_CHOICES)
    _check_choice("z_source", z_source, Z_SOURCE_CHOICES)


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise HumanScoresError(f"{name}: {value!r} is not one of {', '.join(choices)}")


def _all_present(values: list[float | None]) -> list[float]:
    """The values as floats; callers have checked that none is missing."""
    present = _present_or_none(values)
    if present is None:
        raise HumanScoresError("a judgment lacks the score needed")
    return present


def _present_or_none(values: Sequence[float | None]) -> list[float] | None:
    """The values as floats, or None when any is missing."""
    present = [float(value) for value in values if value is not None]
    return present if len(present) == len(values) else None


def _natural(segment_id: str) -> tuple[int, int | str]:
    """Sort key: numeric ids numerically ("2" before "10"), others after, by text."""
    return (0, int(segment_id)) if segment_id.isdigit() else (1, segment_id)


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
