"""Quality control of judges: every flag, its threshold and its rule (no database access).

Flags of a campaign's judge (:func:`judge_quality`, with the campaign's thresholds):

* **too fast**: the median active time per item is below ``min_seconds_per_item``;
* **same level**: one level makes up ``same_level_share`` or more of an aspect's scores
  (straight-lining);
* **inconsistent repeats**: a planted repeat differs from the first judgment of the same item by
  :data:`REPEAT_MAX_MEAN_DIFF` levels or more on average;
* **reference scored low**: the reference judged as a system gets a lower mean than the MT
  candidates (bad references left out; in relative ranking, a higher mean rank);
* **bad references not detected** (WMT DA quality control): the one-sided Wilcoxon rank-sum
  test (Mann-Whitney U, ``alternative="greater"``) of the judge's z-scores of the candidates
  that got a bad reference against the z-scores of those bad references gives
  ``p >= BAD_REF_ALPHA`` (0.05), i.e. the judge's bad references are not significantly
  lower. WMT (Graham et al. 2017; Appraise's ``stat_reliable_testing``) keeps only judges with
  p < 0.05. The z are the judge's own (per aspect, over all their scores, sample sd); a rank
  test gives the same p on raw scores, since z is an increasing function of them per judge and
  aspect; pairs of several aspects are pooled (each on its own z).

For a direct-assessment campaign (0-100 sliders) a planted repeat is compared on the judge's
z (:data:`REPEAT_MAX_MEAN_Z`, as for imported DA), since a 1-point difference means nothing
on a slider.

Flags of an imported judgment set's judge (:func:`imported_judge_flags`, per aspect; the
human-score panels show them with the judge's statistics):

* **not normalizable**: a single or constant score, so no z can be computed;
* **same level**: as above, with :data:`SAME_LEVEL_SHARE` and :data:`QC_MIN_JUDGMENTS`;
* **inconsistent repeats**: repeats differ from the first score by :data:`REPEAT_MAX_MEAN_Z`
  judge standard deviations or more on average;
* **degraded references not lower**: WMT's BAD_REF items are not scored below the judge's mean;
* **outlier mean**: the judge's raw mean lies more than :data:`OUTLIER_MADS` scaled median
  absolute deviations from the median of the judges' means (robust, so the outlier does not
  hide itself; needs :data:`OUTLIER_MIN_JUDGES` judges).

Each flag waits for enough evidence (``qc_min_judgments`` scores, :data:`MIN_PAIRS` repeats or
reference items) so a judge is not flagged on their first screens.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

REPEAT_MAX_MEAN_DIFF = 1.0
"""Mean |repeat - first| in levels from which a campaign's judge is inconsistent."""
REPEAT_MAX_MEAN_Z = 1.0
"""Mean |repeat - first| in z (judge standard deviations) from which an imported judge is
inconsistent."""
MIN_PAIRS = 3
"""Repeats, reference items or degraded references needed before their flag is raised."""
SAME_LEVEL_SHARE = 0.9
"""Share of one level from which a judge is straight-lining (a campaign's default)."""
QC_MIN_JUDGMENTS = 10
"""Scores of an aspect needed before the same-level flag is raised (a campaign's default)."""
BAD_REF_ALPHA = 0.05
"""A judge whose bad references are not lower at this significance level is flagged (WMT)."""
BAD_REF_MIN_PAIRS = 5
"""(candidate, bad reference) pairs needed before the Wilcoxon flag. With 3 pairs no outcome
of the exact one-sided test reaches p < 0.05 (the smallest p is 1/20), with 4 only a (near)
perfect separation does (1/70, 2/70): a careful judge would be flagged for want of evidence."""
OUTLIER_MADS = 2.5
OUTLIER_MIN_JUDGES = 4
MAD_SCALE = 1.4826
"""Makes the median absolute deviation a consistent estimate of a normal standard deviation."""

FLAG_TOO_FAST = "too fast"
FLAG_SAME_LEVEL = "same level"
FLAG_INCONSISTENT = "inconsistent repeats"
FLAG_REFERENCE_LOW = "reference scored low"
FLAG_NOT_NORMALIZABLE = "not normalizable"
FLAG_BAD_REF = "degraded references not lower"
FLAG_OUTLIER = "outlier mean"
FLAG_BAD_REF_NOT_DETECTED = "bad references not detected"

KIND_BAD_REFERENCE = "bad_reference"
"""``Item.Kind.BAD_REFERENCE`` (the judging models import this module, not the reverse)."""
DIRECT_ASSESSMENT = "direct-assessment"
"""``Campaign.Protocol.DIRECT_ASSESSMENT``."""
CONTINUOUS_PROTOCOLS = (DIRECT_ASSESSMENT, "mqm", "esa")
RANKING = "ranking"
"""Relative ranking: the score is a rank, 1 best."""
"""Protocols whose scores are continuous (DA and ESA 0-100, MQM penalties): repeats are
compared on the judge's z-scores, so the limit does not depend on the scale's units."""


def bad_reference_test(original: Sequence[float], degraded: Sequence[float]) -> float | None:
    """One-sided p of the Wilcoxon rank-sum test that the candidates' scores are greater than
    their bad references' (``scipy.stats.mannwhitneyu``, ``alternative="greater"``; exact for
    small samples without ties, else the normal approximation with continuity correction);
    None with fewer than :data:`BAD_REF_MIN_PAIRS` bad references."""
    if len(degraded) < BAD_REF_MIN_PAIRS or not original:
        return None
    # Imported here: scipy.stats takes a second to import, and every process of the site
    # imports this module with the judging models.
    from scipy import stats

    return float(stats.mannwhitneyu(original, degraded, alternative="greater").pvalue)


def judge_z(values: Sequence[float]) -> list[float]:
    """A judge's z-scores of one aspect: sample sd, as ``metrics.core.human_scores`` does by
    default; all 0 when the scores do not vary (the judge cannot be normalized)."""
    array = np.asarray(values, dtype=float)
    if len(array) < 2 or float(np.std(array, ddof=1)) == 0.0:
        return [0.0] * len(array)
    return ((array - array.mean()) / np.std(array, ddof=1)).tolist()


def is_same_level(top_count: int, total: int, *, min_judgments: int, share: float) -> bool:
    """Straight-lining: the most used level has ``share`` of ``total`` scores, and there are
    at least ``min_judgments`` of them."""
    return total >= min_judgments and top_count / total >= share


def is_inconsistent(pairs: int, mean_difference: float, *, limit: float) -> bool:
    """Repeats differ from the first scores by ``limit`` or more on average, over enough pairs."""
    return pairs >= MIN_PAIRS and mean_difference >= limit


def imported_judge_flags(
    *,
    n: int,
    level_counts: Sequence[int],
    normalizable: bool,
    repeat_pairs: int | None,
    repeat_mean_z: float,
    bad_ref_z: Sequence[float],
) -> list[str]:
    """The flags of one judge of an imported set for one aspect (all but the outlier flag,
    which compares judges: :func:`mean_outliers`).

    Args:
        n: the judge's judgments of the aspect (every kind).
        level_counts: how many of them fall on each level or bin of the scale.
        normalizable: whether the judge's raw scores vary.
        repeat_pairs: (first, repeat) pairs on the z scale, None without repeats.
        repeat_mean_z: their mean absolute difference.
        bad_ref_z: the judge's z of WMT's degraded references (BAD_REF).
    """
    flags = []
    if not normalizable:
        flags.append(FLAG_NOT_NORMALIZABLE)
    if n >= QC_MIN_JUDGMENTS and is_same_level(
        max(level_counts), n, min_judgments=QC_MIN_JUDGMENTS, share=SAME_LEVEL_SHARE
    ):
        flags.append(FLAG_SAME_LEVEL)
    if repeat_pairs is not None and is_inconsistent(
        repeat_pairs, repeat_mean_z, limit=REPEAT_MAX_MEAN_Z
    ):
        flags.append(FLAG_INCONSISTENT)
    if len(bad_ref_z) >= MIN_PAIRS and float(np.mean(bad_ref_z)) >= 0.0:
        flags.append(FLAG_BAD_REF)
    return flags


def mean_outliers(means: Sequence[float | None]) -> list[bool]:
    """Which judges' means are outliers (module docstring); None means no mean (never one)."""
    known = np.array([mean for mean in means if mean is not None])
    if len(known) < OUTLIER_MIN_JUDGES:
        return [False] * len(means)
    median = float(np.median(known))
    mad = MAD_SCALE * float(np.median(np.abs(known - median)))
    if mad <= 0:
        return [False] * len(means)
    return [mean is not None and abs(mean - median) > OUTLIER_MADS * mad for mean in means]


@dataclass
class JudgeQuality:
    median_seconds: float | None = None
    top_level_share: dict[str, float] = field(default_factory=dict)
    repeat_pairs: int = 0
    repeat_exact: int = 0
    repeat_mean_diff: float | None = None
    reference_mean: float | None = None
    candidate_mean: float | None = None
    bad_ref_pairs: int = 0
    bad_ref_p: float | None = None
    bad_ref_mean_z: float | None = None
    original_mean_z: float | None = None
    flags: list[str] = field(default_factory=list)


def judge_quality(*, campaign: Any, judgments: Iterable[dict[str, Any]]) -> JudgeQuality:
    """QC numbers and flags of one judge.

    Args:
        campaign: anything with ``min_seconds_per_item``, ``same_level_share`` and
            ``qc_min_judgments`` (a Campaign).
        judgments: the judge's judgments as dicts with the keys ``assigned_item__item_id``,
            ``assigned_item__is_repeat``, ``assigned_item__item__kind``, ``aspect__name``,
            ``score`` and ``active_ms``, and for bad references
            ``assigned_item__item__degraded_from_id`` (the candidate they degrade).
    """
    rows = list(judgments)
    quality = JudgeQuality()
    per_item_ms: dict[tuple[int, bool], int] = defaultdict(int)
    scores: dict[tuple[int, bool, str], int] = {}
    for row in rows:
        key = (row["assigned_item__item_id"], row["assigned_item__is_repeat"])
        per_item_ms[key] += row["active_ms"]
        scores[(*key, row["aspect__name"])] = row["score"]
    if per_item_ms:
        quality.median_seconds = statistics.median(per_item_ms.values()) / 1000
        if (
            len(per_item_ms) >= campaign.qc_min_judgments
            and quality.median_seconds < campaign.min_seconds_per_item
        ):
            quality.flags.append(FLAG_TOO_FAST)
    _same_level(quality, rows, campaign)
    z = _z_scores(rows)
    if getattr(campaign, "protocol", "") in CONTINUOUS_PROTOCOLS:
        _repeats(quality, z, limit=REPEAT_MAX_MEAN_Z)
    else:
        _repeats(quality, scores)
    _reference(quality, rows, ranks=getattr(campaign, "protocol", "") == RANKING)
    _bad_references(quality, rows, z)
    return quality


def _z_scores(rows: list[dict[str, Any]]) -> dict[tuple[int, bool, str], float]:
    """(item, is repeat, aspect) -> the judge's z of that score (per aspect, every score)."""
    by_aspect: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_aspect[row["aspect__name"]].append(row)
    z: dict[tuple[int, bool, str], float] = {}
    for aspect, own in by_aspect.items():
        for row, value in zip(own, judge_z([row["score"] for row in own]), strict=True):
            z[(row["assigned_item__item_id"], row["assigned_item__is_repeat"], aspect)] = value
    return z


def _bad_references(
    quality: JudgeQuality, rows: list[dict[str, Any]], z: dict[tuple[int, bool, str], float]
) -> None:
    original, degraded = [], []
    for row in rows:
        source = row.get("assigned_item__item__degraded_from_id")
        if row["assigned_item__item__kind"] != KIND_BAD_REFERENCE or source is None:
            continue
        pair = (source, False, row["aspect__name"])
        if pair in z and not row["assigned_item__is_repeat"]:
            original.append(z[pair])
            degraded.append(z[(row["assigned_item__item_id"], False, row["aspect__name"])])
    quality.bad_ref_pairs = len(degraded)
    if degraded:
        quality.bad_ref_mean_z = statistics.fmean(degraded)
        quality.original_mean_z = statistics.fmean(original)
    quality.bad_ref_p = bad_reference_test(original, degraded)
    if quality.bad_ref_p is not None and quality.bad_ref_p >= BAD_REF_ALPHA:
        quality.flags.append(FLAG_BAD_REF_NOT_DETECTED)


def _same_level(quality: JudgeQuality, rows: list[dict[str, Any]], campaign: Any) -> None:
    by_aspect: dict[str, Counter[int]] = defaultdict(Counter)
    for row in rows:
        if not row["assigned_item__is_repeat"]:
            by_aspect[row["aspect__name"]][row["score"]] += 1
    for aspect, counts in sorted(by_aspect.items()):
        total = sum(counts.values())
        top = counts.most_common(1)[0][1]
        quality.top_level_share[aspect] = top / total
        same = is_same_level(
            top, total, min_judgments=campaign.qc_min_judgments, share=campaign.same_level_share
        )
        if same and FLAG_SAME_LEVEL not in quality.flags:
            quality.flags.append(FLAG_SAME_LEVEL)


def _repeats(
    quality: JudgeQuality,
    scores: dict[tuple[int, bool, str], int] | dict[tuple[int, bool, str], float],
    *,
    limit: float = REPEAT_MAX_MEAN_DIFF,
) -> None:
    differences = [
        abs(score - scores[(item, False, aspect)])
        for (item, is_repeat, aspect), score in scores.items()
        if is_repeat and (item, False, aspect) in scores
    ]
    quality.repeat_pairs = len(differences)
    quality.repeat_exact = sum(1 for difference in differences if difference == 0)
    if differences:
        quality.repeat_mean_diff = statistics.fmean(differences)
        if is_inconsistent(len(differences), quality.repeat_mean_diff, limit=limit):
            quality.flags.append(FLAG_INCONSISTENT)


def _reference(quality: JudgeQuality, rows: list[dict[str, Any]], *, ranks: bool) -> None:
    """The reference-scored-low flag; with ``ranks`` (relative ranking: 1 is best) a mean
    rank above the candidates' is the low one."""
    reference = [
        row["score"]
        for row in rows
        if row["assigned_item__item__kind"] == "reference" and not row["assigned_item__is_repeat"]
    ]
    candidate = [
        row["score"]
        for row in rows
        if row["assigned_item__item__kind"] not in ("reference", KIND_BAD_REFERENCE)
        and not row["assigned_item__is_repeat"]
    ]
    if reference:
        quality.reference_mean = statistics.fmean(reference)
    if candidate:
        quality.candidate_mean = statistics.fmean(candidate)
    if (
        len(reference) >= MIN_PAIRS
        and candidate
        and quality.reference_mean is not None
        and quality.candidate_mean is not None
        and (
            quality.reference_mean > quality.candidate_mean
            if ranks
            else quality.reference_mean < quality.candidate_mean
        )
    ):
        quality.flags.append(FLAG_REFERENCE_LOW)
