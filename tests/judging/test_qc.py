"""Quality control of one judge from plain judgment rows: each flag on both sides of its
thresholds (the campaign's ``min_seconds_per_item``, ``same_level_share`` and
``qc_min_judgments``; the module's ``MIN_PAIRS`` and ``REPEAT_MAX_MEAN_DIFF``)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import cycle, islice

import pytest

from judging.qc import (
    FLAG_INCONSISTENT,
    FLAG_REFERENCE_LOW,
    FLAG_SAME_LEVEL,
    FLAG_TOO_FAST,
    MIN_PAIRS,
    REPEAT_MAX_MEAN_DIFF,
    judge_quality,
)


@dataclass
class Thresholds:
    """The QC fields of a Campaign, with its defaults."""

    min_seconds_per_item: float = 3.0
    same_level_share: float = 0.9
    qc_min_judgments: int = 10
    protocol: str = "categorical"


def row(item, score, *, ms=5000, aspect="fluency", repeat=False, kind="candidate"):
    return {
        "assigned_item__item_id": item,
        "assigned_item__is_repeat": repeat,
        "assigned_item__item__kind": kind,
        "aspect__name": aspect,
        "score": score,
        "active_ms": ms,
    }


def varied(count, *, ms=5000, start=0):
    """``count`` items scored 1, 2, 3, 4, 5, 1, … (no straight-lining)."""
    scores = islice(cycle([1, 2, 3, 4, 5]), count)
    return [row(start + number, score, ms=ms) for number, score in enumerate(scores)]


def flags(rows, **thresholds):
    return judge_quality(campaign=Thresholds(**thresholds), judgments=rows).flags


# ---------------------------------------------------------------- too fast


@pytest.mark.parametrize(("ms", "flagged"), [(2999, True), (3000, False)])
def test_too_fast_is_a_median_below_the_minimum_seconds(ms, flagged):
    assert (FLAG_TOO_FAST in flags(varied(10, ms=ms))) is flagged


def test_too_fast_uses_the_median_not_the_mean():
    # Six quick items and four very slow ones: mean 40.6 s, median 1 s.
    rows = varied(6, ms=1000) + varied(4, ms=100_000, start=6)
    quality = judge_quality(campaign=Thresholds(), judgments=rows)
    assert quality.median_seconds == 1.0
    assert FLAG_TOO_FAST in quality.flags


@pytest.mark.parametrize(("count", "flagged"), [(9, False), (10, True)])
def test_too_fast_waits_for_qc_min_judgments_items(count, flagged):
    assert (FLAG_TOO_FAST in flags(varied(count, ms=500))) is flagged


def test_an_items_time_is_the_sum_over_its_aspects():
    # 2 s of fluency + 2 s of adequacy = 4 s per item: not too fast for a 3 s minimum.
    rows = [
        row(item, 1 + item % 5, ms=2000, aspect=aspect)
        for item in range(10)
        for aspect in ("fluency", "adequacy")
    ]
    quality = judge_quality(campaign=Thresholds(), judgments=rows)
    assert quality.median_seconds == 4.0 and FLAG_TOO_FAST not in quality.flags


# ---------------------------------------------------------------- same level


@pytest.mark.parametrize(("same", "flagged"), [(8, False), (9, True)])
def test_same_level_is_a_share_of_at_least_the_threshold(same, flagged):
    rows = [row(item, 4) for item in range(same)]
    rows += [row(item, 2) for item in range(same, 10)]
    quality = judge_quality(campaign=Thresholds(), judgments=rows)
    assert quality.top_level_share["fluency"] == same / 10
    assert (FLAG_SAME_LEVEL in quality.flags) is flagged


@pytest.mark.parametrize(("count", "flagged"), [(9, False), (10, True)])
def test_same_level_waits_for_qc_min_judgments_per_aspect(count, flagged):
    rows = [row(item, 5) for item in range(count)]
    assert (FLAG_SAME_LEVEL in flags(rows)) is flagged


def test_same_level_is_judged_per_aspect_and_ignores_repeats():
    # Adequacy always 3; fluency varied; planted repeats of fluency at 3 do not count.
    rows = varied(10) + [row(item, 3, aspect="adequacy") for item in range(10)]
    rows += [row(item, 3, repeat=True) for item in range(10)]
    quality = judge_quality(campaign=Thresholds(), judgments=rows)
    assert quality.top_level_share == {"adequacy": 1.0, "fluency": 0.2}
    assert quality.flags.count(FLAG_SAME_LEVEL) == 1


# ---------------------------------------------------------------- inconsistent repeats


def repeats(differences, start=0):
    """Originals scored 3 and their repeats scored 3 + difference."""
    rows = []
    for item, difference in enumerate(differences, start=start):
        rows += [row(item, 3), row(item, 3 + difference, repeat=True)]
    return rows


@pytest.mark.parametrize(
    ("differences", "flagged"),
    [
        ([1] * MIN_PAIRS, True),  # mean difference exactly REPEAT_MAX_MEAN_DIFF
        ([1, 1, 0], False),  # mean 2/3
        ([2] * (MIN_PAIRS - 1), False),  # large, but too few pairs
        ([2] + [0] * (MIN_PAIRS - 1) + [2], True),  # mean 1 over MIN_PAIRS + 1 pairs
    ],
)
def test_inconsistent_repeats_need_min_pairs_and_the_mean_difference(differences, flagged):
    quality = judge_quality(campaign=Thresholds(), judgments=repeats(differences))
    assert quality.repeat_pairs == len(differences)
    assert quality.repeat_exact == differences.count(0)
    assert quality.repeat_mean_diff == pytest.approx(sum(differences) / len(differences))
    assert (FLAG_INCONSISTENT in quality.flags) is flagged
    assert REPEAT_MAX_MEAN_DIFF == 1.0  # the cases above are built on this threshold


def test_a_repeat_is_compared_aspect_by_aspect_and_differences_are_absolute():
    rows = []
    for item in range(MIN_PAIRS):
        rows += [row(item, 4), row(item, 3, repeat=True)]  # fluency: 1 lower
        rows += [row(item, 2, aspect="adequacy"), row(item, 2, aspect="adequacy", repeat=True)]
    quality = judge_quality(campaign=Thresholds(), judgments=rows)
    assert quality.repeat_pairs == 2 * MIN_PAIRS and quality.repeat_exact == MIN_PAIRS
    assert quality.repeat_mean_diff == 0.5 and FLAG_INCONSISTENT not in quality.flags


def test_a_repeat_without_its_original_is_no_pair():
    rows = [row(item, 1, repeat=True) for item in range(5)]
    quality = judge_quality(campaign=Thresholds(), judgments=rows)
    assert quality.repeat_pairs == 0 and quality.repeat_mean_diff is None
    assert FLAG_INCONSISTENT not in quality.flags


# ---------------------------------------------------------------- reference scored low


def with_reference(reference_scores, candidate_scores):
    rows = [
        row(100 + number, score, kind="reference") for number, score in enumerate(reference_scores)
    ]
    return rows + [row(number, score) for number, score in enumerate(candidate_scores)]


@pytest.mark.parametrize(
    ("reference", "candidates", "flagged"),
    [
        ([3] * MIN_PAIRS, [4, 4], True),  # reference below the MT mean
        ([4] * MIN_PAIRS, [4, 4], False),  # equal means: not lower
        ([1] * (MIN_PAIRS - 1), [5, 5], False),  # too few reference items
    ],
)
def test_reference_scored_low_compares_the_means(reference, candidates, flagged):
    quality = judge_quality(campaign=Thresholds(), judgments=with_reference(reference, candidates))
    assert quality.reference_mean == sum(reference) / len(reference)
    assert quality.candidate_mean == sum(candidates) / len(candidates)
    assert (FLAG_REFERENCE_LOW in quality.flags) is flagged


@pytest.mark.parametrize(
    ("reference", "candidates", "flagged"),
    [
        ([1] * MIN_PAIRS, [2, 3], False),  # the reference ranked best: as it should be
        ([3] * MIN_PAIRS, [1, 2], True),  # ranked below the MT: flagged
    ],
)
def test_in_relative_ranking_a_higher_mean_rank_is_the_low_one(reference, candidates, flagged):
    ranking = Thresholds(protocol="ranking")
    quality = judge_quality(campaign=ranking, judgments=with_reference(reference, candidates))
    assert (FLAG_REFERENCE_LOW in quality.flags) is flagged


def test_reference_repeats_do_not_count_towards_the_reference_mean():
    rows = with_reference([5] * MIN_PAIRS, [4, 4])
    rows += [row(100, 1, kind="reference", repeat=True)]
    quality = judge_quality(campaign=Thresholds(), judgments=rows)
    assert quality.reference_mean == 5.0 and FLAG_REFERENCE_LOW not in quality.flags


def test_no_reference_items_no_reference_flag():
    quality = judge_quality(campaign=Thresholds(), judgments=varied(20))
    assert quality.reference_mean is None and FLAG_REFERENCE_LOW not in quality.flags


# ---------------------------------------------------------------- together


def test_a_careful_judge_has_no_flags_and_an_empty_judge_has_no_numbers():
    assert flags(varied(30) + repeats([0, 0, 1], start=30)) == []
    empty = judge_quality(campaign=Thresholds(), judgments=[])
    assert empty.median_seconds is None and empty.top_level_share == {} and empty.flags == []


def test_thresholds_come_from_the_campaign():
    rows = varied(4, ms=4000)
    assert flags(rows) == []
    assert flags(rows, qc_min_judgments=4, min_seconds_per_item=5.0) == [FLAG_TOO_FAST]
    straight = [row(item, 2) for item in range(4)] + [row(4, 5)]
    assert flags(straight, qc_min_judgments=5, same_level_share=0.8) == [FLAG_SAME_LEVEL]
    assert flags(straight, qc_min_judgments=5, same_level_share=0.81) == []
