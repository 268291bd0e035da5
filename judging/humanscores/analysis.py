"""Panel statistics on plain judgments (no Django): what the three human-score panels show.

Built on ``metrics.core.human_scores`` and ``metrics.core.agreement``; what those modules do not
offer and the panels need is here, each choice documented in docs/human-scores.md ("Panels"):

* **Levels** of a judge's raw scores (thesis Figure 5.3): the scale's levels where it has few
  (EvalTrans classes, campaign scales), fixed bins for WMT DA (0-100 in tens) and MQM (by the
  penalty of the errors), otherwise the distinct values or ten equal bins.
* **QC flags** of imported judgments (outlier mean, not normalizable, same level, inconsistent
  repeats, degraded references not lower): their rules and thresholds are ``judging.qc``'s;
  here the judge's numbers are gathered for them.
* **Confidence intervals** of Krippendorff's alpha and of Cohen's kappa: percentile bootstrap
  over items (seeded; ``metrics.core.agreement`` resamples them); of Pearson's r: Fisher z
  (``metrics.core.significance``).
* **Kappa's categories** are the scale's declared levels (EvalTrans classes, campaign scales),
  not the values that happen to occur: an unused level keeps its place in the quadratic
  weights. Scales without declared levels (WMT DA 0-100, MQM penalties) are continuous: kappa
  is not computed there, and the interval alpha is the agreement to read.
* **Without raw scores** (WMT DA imported without its judge statistics) the interval alpha is
  computed on the z-scores; ordinal alpha and kappa need the raw levels and are left out.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from judging.qc import FLAG_OUTLIER, imported_judge_flags, mean_outliers
from metrics.core.agreement import (
    alpha_resampled,
    cohen_kappa,
    inter_annotator_correlation,
    intra_judge_consistency,
    item_values,
    kappa_resampled,
    krippendorff_alpha,
    pairwise_judge_correlations,
)
from metrics.core.human_scores import (
    KIND_BAD_REF,
    KIND_REPEAT,
    KIND_SYSTEM,
    JudgmentLike,
    normalize_by_judge,
)
from metrics.core.resampling import DEFAULT_SEED
from metrics.core.significance import fisher_interval

FloatArray = npt.NDArray[np.float64]

MIN_COMMON_ITEMS = 5
AGREEMENT_BOOTSTRAP = 200
MAX_PAIR_ROWS = 40

KAPPA_CONTINUOUS = (
    "Cohen's κ needs a scale of declared levels; {scale} are continuous, so read the interval α"
)
KAPPA_NEEDS_CANDIDATES = "Cohen's κ compares two judges on shared candidates"
MAX_MATRIX_JUDGES = 100
"""Judges up to which the judge × judge matrix is computed and drawn (WMT DA crowds have
thousands: the 500,000-judgment benchmark set's 3,526² cells would be a page of hundreds of MB and a figure no one can read)."""
JUDGE_MATRIX_SKIPPED = (
    "The judge × judge matrix is drawn for at most {limit} judges; this aspect has {count:,} "
    "({pairs:,} pairs), so only the pooled figures, over every judge, are shown"
)
ALPHA_ON_Z = (
    "No raw scores: α (interval) is computed on the judges' z-scores; ordinal α and κ need the "
    "raw levels"
)
SCALE_NAMES = {"da": "DA scores (0–100)", "mqm": "MQM penalties"}

MQM_BINS = (
    ("0 (no error)", 0.0, 0.0),
    ("−0.1 to −0.9", -1.0, 0.0),
    ("−1 to −4.9", -5.0, -1.0),
    ("−5 to −9.9", -10.0, -5.0),
    ("−10 to −24.9", -25.0, -10.0),
    ("−25 or less", -math.inf, -25.0),
)
"""(label, low, high) of the MQM bins: ``low < score <= high`` (``0`` alone for no error)."""


# ---------------------------------------------------------------- one aspect as columns


@dataclass(frozen=True)
class AspectData:
    """The judgments of one aspect as parallel lists, with their normalized scores.

    ``z`` comes from the judges' raw scores when every judgment has one, else from the file's z
    (the ``auto`` rule of ``human_scores``); ``raw`` holds ``nan`` where the file gives none.
    """

    aspect: str
    systems: list[str]
    segments: list[str]
    judges: list[str]
    kinds: list[str]
    raw: FloatArray
    z: FloatArray
    z_source: str

    @property
    def has_raw(self) -> bool:
        return bool(len(self.raw)) and not bool(np.isnan(self.raw).any())

    def items(self) -> list[tuple[str, str]]:
        return list(zip(self.systems, self.segments, strict=True))


def aspect_data(
    records: Sequence[JudgmentLike], aspect: str, *, raw_complete: bool | None = None
) -> AspectData:
    """Columns of the records of ``aspect`` (every kind: normalization uses them all).

    z is computed from the raw scores when every judgment of the aspect has one, else it is
    the given z. ``raw_complete`` says so for the whole aspect when ``records`` are some
    judges' only (a judge's z depends on that judge's scores alone); None: from ``records``."""
    rows = [record for record in records if record.aspect == aspect]
    raw = np.array([np.nan if r.raw is None else r.raw for r in rows], dtype=np.float64)
    judges = [r.judge for r in rows]
    if raw_complete is None:
        raw_complete = bool(rows) and not np.isnan(raw).any()
    if rows and raw_complete:
        z, source = normalize_by_judge(judges, raw.tolist()).z, "computed"
    else:
        z = np.array([np.nan if r.z_given is None else r.z_given for r in rows], dtype=np.float64)
        source = "given"
    return AspectData(
        aspect=aspect,
        systems=[r.system for r in rows],
        segments=[r.segment_id for r in rows],
        judges=judges,
        kinds=[r.kind for r in rows],
        raw=raw,
        z=z,
        z_source=source,
    )


# ---------------------------------------------------------------- levels


@dataclass(frozen=True)
class Categories:
    """Ordered level labels (worst first) and the category index of each score."""

    labels: list[str]
    index: list[int]


def scale_categories(scale: Mapping[str, Any], raw: FloatArray) -> Categories:
    """Put raw scores into the scale's levels or bins (module docstring); nan scores get -1."""
    kind = scale.get("kind", "auto")
    values = raw[~np.isnan(raw)]
    if kind == "levels" and scale.get("values"):
        levels = [float(v) for v in scale["values"]]
        extra = sorted(set(values.tolist()) - set(levels))
        return _by_value(sorted(levels + extra), raw)
    if kind == "mqm":
        labels = [label for label, _, _ in reversed(MQM_BINS)]
        return Categories(labels, [_mqm_bin(value) for value in raw.tolist()])
    if kind == "da":
        labels = [f"{low}–{low + 9}" if low < 90 else "90–100" for low in range(0, 100, 10)]
        index = [-1 if math.isnan(v) else min(max(int(v // 10), 0), 9) for v in raw.tolist()]
        return Categories(labels, index)
    distinct = sorted(set(values.tolist()))
    if len(distinct) <= 12:
        return _by_value(distinct, raw)
    return _equal_bins(float(values.min()), float(values.max()), raw)


def scale_levels(scale: Mapping[str, Any]) -> list[float] | None:
    """The declared levels of a scale (EvalTrans classes, campaign scales), or None for a scale
    without levels (DA, MQM, unknown), whose scores are treated as continuous."""
    if scale.get("kind") == "levels" and scale.get("values"):
        return sorted(float(value) for value in scale["values"])
    return None


def _by_value(levels: list[float], raw: FloatArray) -> Categories:
    position = {value: number for number, value in enumerate(levels)}
    labels = [f"{value:g}" for value in levels]
    return Categories(labels, [position.get(v, -1) for v in raw.tolist()])


def _mqm_bin(value: float) -> int:
    if math.isnan(value):
        return -1
    for number, (_, low, high) in enumerate(MQM_BINS):
        if (value == 0.0 and high == 0.0 and low == 0.0) or (low < value <= high and low != high):
            return len(MQM_BINS) - 1 - number
    return len(MQM_BINS) - 1  # a positive score (bonus) counts as no error


def _equal_bins(low: float, high: float, raw: FloatArray, count: int = 10) -> Categories:
    width = (high - low) / count or 1.0
    labels = [f"{low + k * width:.3g}–{low + (k + 1) * width:.3g}" for k in range(count)]
    index = [-1 if math.isnan(v) else min(int((v - low) / width), count - 1) for v in raw.tolist()]
    return Categories(labels, index)


# ---------------------------------------------------------------- judges


@dataclass
class JudgeSummary:
    """One judge's numbers for one aspect, for the bias panel's table."""

    judge: str
    n: int
    raw_mean: float | None
    raw_sd: float | None
    z_mean: float
    level_counts: list[int]
    normalizable: bool
    outlier: bool = False
    flags: list[str] = field(default_factory=list)


def judge_summaries(data: AspectData, categories: Categories) -> list[JudgeSummary]:
    """Per judge: n, raw mean and sample sd, counts per level, QC flags and the outlier mark."""
    rows: dict[str, list[int]] = defaultdict(list)
    for position, judge in enumerate(data.judges):
        rows[judge].append(position)
    summaries = []
    for judge in sorted(rows):
        index = np.array(rows[judge])
        raw = data.raw[index]
        counts = Counter(categories.index[i] for i in rows[judge])
        known = raw[~np.isnan(raw)]
        sd = float(np.std(known, ddof=1)) if len(known) > 1 else None
        summaries.append(
            JudgeSummary(
                judge=judge,
                n=len(index),
                raw_mean=float(known.mean()) if len(known) else None,
                raw_sd=sd,
                z_mean=float(np.nanmean(data.z[index])) if len(index) else 0.0,
                level_counts=[counts.get(k, 0) for k in range(len(categories.labels))],
                normalizable=bool(sd) if data.z_source == "computed" else True,
            )
        )
    _mark_outliers(summaries)
    _flag(summaries, data, rows)
    return summaries


def _mark_outliers(summaries: list[JudgeSummary]) -> None:
    outliers = mean_outliers([summary.raw_mean for summary in summaries])
    for summary, outlier in zip(summaries, outliers, strict=True):
        if outlier:
            summary.outlier = True
            summary.flags.append(FLAG_OUTLIER)


def _flag(summaries: list[JudgeSummary], data: AspectData, rows: dict[str, list[int]]) -> None:
    consistency = {
        row.judge: row for row in _repeat_consistency(data, scores=data.z).judges if row.n_pairs
    }
    for summary in summaries:
        pairs = consistency.get(summary.judge)
        summary.flags += imported_judge_flags(
            n=summary.n,
            level_counts=summary.level_counts,
            normalizable=summary.normalizable,
            repeat_pairs=pairs.n_pairs if pairs is not None else None,
            repeat_mean_z=pairs.mean_absolute_difference if pairs is not None else math.nan,
            bad_ref_z=[data.z[i] for i in rows[summary.judge] if data.kinds[i] == KIND_BAD_REF],
        )


# ---------------------------------------------------------------- agreement


@dataclass(frozen=True)
class Estimate:
    """A statistic with its confidence interval (bounds None when there is none)."""

    value: float | None
    low: float | None
    high: float | None
    n: int

    def as_dict(self) -> dict[str, float | int | None]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


@dataclass
class Agreement:
    """Everything the agreement panel shows for one aspect and one unit."""

    unit: str
    judges: list[str]
    r_raw: list[list[float | None]]
    r_normalized: list[list[float | None]]
    n_common: list[list[int]]
    iac_raw: Estimate
    iac_normalized: Estimate
    alpha_interval: Estimate
    alpha_ordinal: Estimate
    kappa: Estimate
    kappa_pairs: list[dict[str, Any]]
    repeats: list[dict[str, Any]]
    repeats_pooled: dict[str, Any] | None
    shared_items: int
    alpha_scale: str = "raw"
    """``"raw"``, or ``"z"`` when the file gives no raw scores."""
    notes: list[str] = field(default_factory=list)
    """Why a statistic is not shown or is computed otherwise, for the panel."""


def agreement(
    data: AspectData,
    *,
    unit: str = "candidate",
    seed: int = DEFAULT_SEED,
    scale: Mapping[str, Any] | None = None,
) -> Agreement:
    """Judge x judge Pearson's r (raw and normalized), pooled inter-annotator correlation,
    Krippendorff's alpha, quadratic-weighted Cohen's kappa and intra-judge consistency.

    Args:
        data: one aspect's judgments.
        unit: ``"candidate"`` compares judges on the same (system, segment) (thesis Table 8.1);
            ``"system"`` on their mean score of each system (for sets where no two judges saw
            the same candidate, like the WMT21 TED MQM ratings).
        seed: seed of the bootstrap intervals.
        scale: the aspect's scale (``{"kind": "levels", "values": [...]}``, ``{"kind":
            "da"}``, ...). Kappa uses its declared levels as categories and is not computed for
            a scale without levels (module docstring).
    """
    scored = [i for i, kind in enumerate(data.kinds) if kind == KIND_SYSTEM]
    if unit == "system":
        items: list[Hashable] = [data.systems[i] for i in scored]
    else:
        items = [(data.systems[i], data.segments[i]) for i in scored]
    judges = [data.judges[i] for i in scored]
    raw = data.raw[scored]
    z = data.z[scored]
    names = sorted(set(judges))
    r_raw: list[list[float | None]] = []
    r_norm: list[list[float | None]] = []
    n_common: list[list[int]] = []
    if len(names) <= MAX_MATRIX_JUDGES:
        r_raw, n_common = _judge_matrix(names, items, judges, raw if data.has_raw else None)
        r_norm, _ = _judge_matrix(names, items, judges, z)
    rng = np.random.default_rng(seed)
    result = Agreement(
        unit=unit,
        judges=names,
        r_raw=r_raw,
        r_normalized=r_norm,
        n_common=n_common,
        iac_raw=_iac(items, raw) if data.has_raw and unit == "candidate" else _none(),
        iac_normalized=_iac(items, z) if unit == "candidate" else _none(),
        alpha_interval=_none(),
        alpha_ordinal=_none(),
        kappa=_none(),
        kappa_pairs=[],
        repeats=[],
        repeats_pooled=None,
        shared_items=_shared(items, judges),
    )
    if len(names) > MAX_MATRIX_JUDGES:
        pairs = len(names) * (len(names) - 1) // 2
        result.notes.append(
            JUDGE_MATRIX_SKIPPED.format(limit=MAX_MATRIX_JUDGES, count=len(names), pairs=pairs)
        )
    if not data.has_raw:
        result.alpha_interval = _alpha(items, judges, z, "interval", rng)
        result.alpha_scale = "z"
        result.notes.append(ALPHA_ON_Z)
        _repeats(result, data)
        return result
    result.alpha_interval = _alpha(items, judges, raw, "interval", rng)
    if unit == "candidate":
        result.alpha_ordinal = _alpha(items, judges, raw, "ordinal", rng)
        levels = scale_levels(scale or {})
        if levels is None:
            kind = (scale or {}).get("kind", "")
            name = SCALE_NAMES.get(kind, "scores of a scale without declared levels")
            result.notes.append(KAPPA_CONTINUOUS.format(scale=name))
        else:
            # Values off the declared scale (not expected) keep their place rather than fail.
            categories = sorted(set(levels) | set(raw.tolist()))
            result.kappa, result.kappa_pairs = _kappas(items, judges, raw, categories, rng)
    else:
        result.notes.append(KAPPA_NEEDS_CANDIDATES)
    _repeats(result, data)
    return result


def _none() -> Estimate:
    return Estimate(None, None, None, 0)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _shared(items: Sequence[Hashable], judges: Sequence[str]) -> int:
    seen: dict[Hashable, set[str]] = defaultdict(set)
    for item, judge in zip(items, judges, strict=True):
        seen[item].add(judge)
    return sum(1 for names in seen.values() if len(names) > 1)


def _judge_matrix(
    names: list[str],
    items: Sequence[Hashable],
    judges: Sequence[str],
    scores: FloatArray | None,
) -> tuple[list[list[float | None]], list[list[int]]]:
    size = len(names)
    r: list[list[float | None]] = [[None] * size for _ in range(size)]
    n = [[0] * size for _ in range(size)]
    for k in range(size):
        r[k][k] = 1.0
    if scores is None:
        return r, n
    position = {name: k for k, name in enumerate(names)}
    for pair in pairwise_judge_correlations(items, judges, scores.tolist(), min_common=1):
        a, b = position[pair.judge_a], position[pair.judge_b]
        n[a][b] = n[b][a] = pair.n_common
        if pair.n_common >= MIN_COMMON_ITEMS:
            r[a][b] = r[b][a] = _finite(pair.r)
    return r, n


def _iac(items: Sequence[Hashable], scores: FloatArray) -> Estimate:
    correlation = inter_annotator_correlation(items, scores.tolist())
    if not math.isfinite(correlation.r):
        return Estimate(None, None, None, correlation.n)
    # Each item's pairs are counted in both orders: the CI uses the number of unordered pairs.
    interval = fisher_interval(correlation.r, correlation.n // 2)
    low, high = interval if interval else (None, None)
    return Estimate(correlation.r, low, high, correlation.n // 2)


def _alpha(
    items: Sequence[Hashable],
    judges: Sequence[str],
    scores: FloatArray,
    level: str,
    rng: np.random.Generator,
) -> Estimate:
    matrix = item_values(items, judges, scores.tolist())  # not judges x items: see its doc
    pairable = matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]
    columns = int(pairable.shape[1])
    if columns < 2:
        return Estimate(None, None, None, columns)
    value = krippendorff_alpha(pairable, level=level).alpha
    picks = rng.integers(0, columns, size=(AGREEMENT_BOOTSTRAP, columns))
    samples = [a for a in alpha_resampled(pairable, picks, level=level) if math.isfinite(a)]
    return _with_percentiles(value, samples, columns)


def _with_percentiles(value: float, samples: list[float], n: int) -> Estimate:
    if not math.isfinite(value):
        return Estimate(None, None, None, n)
    if len(samples) < 10:
        return Estimate(value, None, None, n)
    low, high = np.quantile(samples, [0.025, 0.975])
    return Estimate(value, float(low), float(high), n)


def _first_score_per_judge(
    items: Sequence[Hashable], judges: Sequence[str], scores: FloatArray
) -> dict[Hashable, list[tuple[str, float]]]:
    """Per item, each judge's first score, in input order."""
    by_item: dict[Hashable, list[tuple[str, float]]] = defaultdict(list)
    for item, judge, score in zip(items, judges, scores.tolist(), strict=True):
        if all(judge != seen for seen, _ in by_item[item]):
            by_item[item].append((judge, score))
    return by_item


def _kappas(
    items: Sequence[Hashable],
    judges: Sequence[str],
    scores: FloatArray,
    categories: list[float],
    rng: np.random.Generator,
) -> tuple[Estimate, list[dict[str, Any]]]:
    """Pooled quadratic kappa of (first, second judge) per item, and per judge pair, over the
    scale's ``categories`` (positions in sorted order give the weights)."""
    by_item = _first_score_per_judge(items, judges, scores)
    pooled = [(v[0][1], v[1][1]) for v in by_item.values() if len(v) >= 2]
    estimate = _kappa_estimate(pooled, categories, rng)
    per_pair: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for values in by_item.values():
        for (ja, a), (jb, b) in itertools.combinations(sorted(values), 2):
            per_pair[(ja, jb)].append((a, b))
    rows = []
    ranked = sorted(per_pair.items(), key=lambda item: (-len(item[1]), item[0]))
    for (ja, jb), pairs in ranked[:MAX_PAIR_ROWS]:
        if len(pairs) < MIN_COMMON_ITEMS:
            break
        rows.append({"a": ja, "b": jb, **_kappa_estimate(pairs, categories, rng).as_dict()})
    return estimate, rows


def _kappa_estimate(
    pairs: list[tuple[float, float]], categories: list[float], rng: np.random.Generator
) -> Estimate:
    if len(pairs) < 2:
        return Estimate(None, None, None, len(pairs))
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    value = cohen_kappa(a, b, weights="quadratic", categories=categories).kappa
    picks = rng.integers(0, len(pairs), size=(AGREEMENT_BOOTSTRAP, len(pairs)))
    samples = [k for k in kappa_resampled(a, b, picks, categories) if math.isfinite(k)]
    return _with_percentiles(value, samples, len(pairs))


def _repeat_consistency(data: AspectData, *, scores: FloatArray) -> Any:
    order = [i for i, k in enumerate(data.kinds) if k == KIND_SYSTEM]
    # Originals first: intra_judge_consistency pairs each later score with the first one.
    order += [i for i, k in enumerate(data.kinds) if k == KIND_REPEAT]
    return intra_judge_consistency(
        [(data.systems[i], data.segments[i]) for i in order],
        [data.judges[i] for i in order],
        scores[order].tolist(),
    )


def _repeats(result: Agreement, data: AspectData) -> None:
    if KIND_REPEAT not in data.kinds:
        return
    scores = data.raw if data.has_raw else data.z
    consistency = _repeat_consistency(data, scores=scores)
    result.repeats = [
        {
            "judge": row.judge,
            "n_pairs": row.n_pairs,
            "mad": _finite(row.mean_absolute_difference),
            "r": _finite(row.r),
        }
        for row in consistency.judges
    ]
    pooled = consistency.pooled
    result.repeats_pooled = {
        "n_pairs": pooled.n_pairs,
        "mad": _finite(pooled.mean_absolute_difference),
        "r": _finite(pooled.r),
        "scale": "raw" if data.has_raw else "z",
    }
