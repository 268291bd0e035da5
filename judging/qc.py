"""Quality control of one judge from plain judgment rows (no database access).

Flags, each with the campaign's thresholds:

* **too fast**: the median active time per item is below ``min_seconds_per_item``;
* **same level**: one level makes up ``same_level_share`` or more of an aspect's scores
  (straight-lining);
* **inconsistent repeats**: a planted repeat differs from the first judgment of the same item by
  ``REPEAT_MAX_MEAN_DIFF`` levels or more on average;
* **reference scored low**: the reference judged as a system gets a lower mean than the MT
  candidates.

Each flag waits for enough evidence (``qc_min_judgments`` scores, ``MIN_PAIRS`` repeats or
reference items) so a judge is not flagged on their first screens.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

REPEAT_MAX_MEAN_DIFF = 1.0
MIN_PAIRS = 3

FLAG_TOO_FAST = "too fast"
FLAG_SAME_LEVEL = "same level"
FLAG_INCONSISTENT = "inconsistent repeats"
FLAG_REFERENCE_LOW = "reference scored low"


@dataclass
class JudgeQuality:
    median_seconds: float | None = None
    top_level_share: dict[str, float] = field(default_factory=dict)
    repeat_pairs: int = 0
    repeat_exact: int = 0
    repeat_mean_diff: float | None = None
    reference_mean: float | None = None
    candidate_mean: float | None = None
    flags: list[str] = field(default_factory=list)


def judge_quality(*, campaign: Any, judgments: Iterable[dict[str, Any]]) -> JudgeQuality:
    """QC numbers and flags of one judge.

    Args:
        campaign: anything with ``min_seconds_per_item``, ``same_level_share`` and
            ``qc_min_judgments`` (a Campaign).
        judgments: the judge's judgments as dicts with the keys ``assigned_item__item_id``,
            ``assigned_item__is_repeat``, ``assigned_item__item__kind``, ``aspect__name``,
            ``score`` and ``active_ms``.
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
    _repeats(quality, scores)
    _reference(quality, rows)
    return quality


def _same_level(quality: JudgeQuality, rows: list[dict[str, Any]], campaign: Any) -> None:
    by_aspect: dict[str, Counter[int]] = defaultdict(Counter)
    for row in rows:
        if not row["assigned_item__is_repeat"]:
            by_aspect[row["aspect__name"]][row["score"]] += 1
    for aspect, counts in sorted(by_aspect.items()):
        total = sum(counts.values())
        share = counts.most_common(1)[0][1] / total
        quality.top_level_share[aspect] = share
        if total >= campaign.qc_min_judgments and share >= campaign.same_level_share:
            if FLAG_SAME_LEVEL not in quality.flags:
                quality.flags.append(FLAG_SAME_LEVEL)


def _repeats(quality: JudgeQuality, scores: dict[tuple[int, bool, str], int]) -> None:
    differences = [
        abs(score - scores[(item, False, aspect)])
        for (item, is_repeat, aspect), score in scores.items()
        if is_repeat and (item, False, aspect) in scores
    ]
    quality.repeat_pairs = len(differences)
    quality.repeat_exact = sum(1 for difference in differences if difference == 0)
    if differences:
        quality.repeat_mean_diff = statistics.fmean(differences)
        if len(differences) >= MIN_PAIRS and quality.repeat_mean_diff >= REPEAT_MAX_MEAN_DIFF:
            quality.flags.append(FLAG_INCONSISTENT)


def _reference(quality: JudgeQuality, rows: list[dict[str, Any]]) -> None:
    reference = [
        row["score"]
        for row in rows
        if row["assigned_item__item__kind"] == "reference" and not row["assigned_item__is_repeat"]
    ]
    candidate = [
        row["score"]
        for row in rows
        if row["assigned_item__item__kind"] != "reference" and not row["assigned_item__is_repeat"]
    ]
    if reference:
        quality.reference_mean = statistics.fmean(reference)
    if candidate:
        quality.candidate_mean = statistics.fmean(candidate)
    if (
        len(reference) >= MIN_PAIRS
        and candidate
        and quality.reference_mean is not None
        and quality.reference_mean < quality.candidate_mean
    ):
        quality.flags.append(FLAG_REFERENCE_LOW)
