"""Relative-ranking campaigns as a human source of meta-evaluation (WMT 2013-2016 metrics tasks).

A ranking campaign gives no absolute human score per segment (a rank only holds among the
candidates it was given with), so ``metrics.selectors.correlation`` asks this module for:

* the **system level**: the campaign's Expected Wins (WMT 2013; ``judging.ranking`` computes
  them for the campaign page, ``judging.selectors.ranking_wins_panel``), the human system
  score against which Pearson, Spearman, Kendall, accuracy work as for any other source;
* the **segment level**: the human pairwise preferences
  (``judging.selectors.campaign_ranking_pairs``: one per judge's non-tie comparison, planted
  repeats left out), scored with WMT 2014-2016's Kendall's τ-like
  (``metrics.core.correlation.preference_tau``: metric ties Discordant), reported as the
  ``kendall-like`` coefficient. No other segment-level coefficient is defined.

Its per-(system, segment) values (the share of the system's decided comparisons on the segment
that it won, 0.5 when they were all ties) only say which segments a system was ranked on — for
the ``sentence-mean`` aggregation and the judged-segment count; nothing correlates with them.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from evaltrans.corpora.models import Segment
from judging.humanscores.selectors import HumanSource
from judging.models import Campaign, Judgment
from judging.selectors import (
    campaign_ranking_comparisons,
    campaign_ranking_pairs,
    ranking_wins_panel,
)
from metrics.core.correlation import Correlations, preference_tau
from metrics.core.resampling import DEFAULT_SEED

if TYPE_CHECKING:
    from metrics.selectors.correlation import CorrelationInputs

FloatArray = npt.NDArray[np.float64]

RANKING_ASPECT = "rank"
"""The aspect a ranking campaign stores its ranks under (``judging.scales.ranking_scales``)."""
SEGMENT_COEFFICIENTS = ("kendall-like",)
"""The only segment-level coefficient of a ranking campaign: WMT's τ over its preferences."""
METRIC_TIES = "discordant"
"""WMT 2014-2016's rule (and WMT 2012's, and DARR's): a metric tie is Discordant."""


def correlation_aspects(source: HumanSource) -> list[str]:
    """The aspects a source correlates on: ``rank`` for a ranking campaign (its ranks are not
    score aspects), else its score aspects."""
    return [RANKING_ASPECT] if source.is_ranking else list(source.score_aspects)


NOT_SCORES = (
    "{name!r} is a ranking campaign: its judgments are pairwise preferences, not scores "
    "(manage.py correlate takes it: Expected Wins at system level, Kendall-like at segment level)"
)
NO_RANKINGS = "{name!r} has no rankings yet"
PAIRWISE_ONLY = (
    "{name!r} is a ranking campaign: it gives pairwise preferences only, so at segment level "
    "only kendall-like (WMT's Kendall's tau over the preferences) is defined, not {names}"
)
GROUPING_POOLED = (
    "{name!r} is a ranking campaign: WMT's Kendall's tau pools every preference, so its "
    "segment level takes grouping 'none' only, not {grouping!r}"
)
NEEDS_SEGMENT_SCORES = (
    "{name!r} is a ranking campaign: {names} needs human segment scores, and a ranking gives "
    "pairwise preferences only"
)
NOT_NORMALIZED = (
    "{name!r} is a ranking campaign: its system scores are Expected Wins, which have no "
    "normalized view; drop --normalized"
)
MATRIX_NOTE = (
    "a ranking campaign gives pairwise preferences only: its segment-level column has "
    "kendall-like (WMT's Kendall's tau over the preferences) and nothing else"
)
UNKNOWN_ASPECT = "{name!r} is a ranking campaign: its only aspect is {aspect!r}, not {asked!r}"


class RankingError(ValueError):
    """A ranking campaign cannot give what was asked; the message is for the user."""


Preference = tuple[int, str, str, str]
"""(0-based segment index, better system, worse system, judge): one human preference."""


@dataclass(frozen=True)
class RankingHuman:
    """What a ranking campaign gives the correlation machinery.

    ``systems``: Expected Wins per system (systems without a decided comparison left out);
    ``segments``: (system, segment index) → the share of its decided comparisons there that it
    won (0.5 when all were ties) — only which segments were ranked matters (module docstring);
    ``preferences``: every human preference (ties and planted repeats left out);
    ``comparisons``: every pairwise comparison, ties included, repeats left out.
    """

    systems: dict[str, float]
    segments: dict[tuple[str, int], float]
    preferences: tuple[Preference, ...]
    comparisons: int


def ranking_human(*, source: HumanSource) -> RankingHuman:
    """Expected Wins and preferences of a ranking campaign, keyed like ``human_sides``.

    Raises:
        RankingError: the campaign has no ranking yet.
    """
    campaign = Campaign.objects.select_related("test_set").get(pk=source.pk)
    index_by_key = {
        seg_id or str(index + 1): index
        for index, seg_id in Segment.objects.filter(test_set=campaign.test_set).values_list(
            "index", "seg_id"
        )
    }
    comparisons = campaign_ranking_comparisons(campaign=campaign)  # read once, used thrice
    panel = ranking_wins_panel(campaign=campaign, comparisons=comparisons)
    if not panel.comparisons:
        raise RankingError(NO_RANKINGS.format(name=source.name))
    systems = {
        row.system: float(row.expected_wins)
        for row in panel.systems
        if row.expected_wins is not None and math.isfinite(row.expected_wins)
    }
    won: dict[tuple[str, int], float] = defaultdict(float)
    decided: dict[tuple[str, int], int] = defaultdict(int)
    for comparison in comparisons:
        index = index_by_key.get(comparison.segment_id)
        if comparison.is_repeat or index is None:
            continue
        for system in (comparison.better, comparison.worse):
            decided.setdefault((system, index), 0)
        if not comparison.tie:
            won[(comparison.better, index)] += 1
            decided[(comparison.better, index)] += 1
            decided[(comparison.worse, index)] += 1
    segments = {key: won[key] / count if count else 0.5 for key, count in decided.items()}
    preferences = tuple(
        (index_by_key[pair.segment_id], pair.better, pair.worse, pair.judge)
        for pair in campaign_ranking_pairs(campaign=campaign, comparisons=comparisons)
        if pair.segment_id in index_by_key
    )
    return RankingHuman(
        systems=systems,
        segments=segments,
        preferences=preferences,
        comparisons=panel.comparisons,
    )


def ranking_fingerprint(*, source: HumanSource) -> str:
    """Changes whenever a rank of the campaign does (``HumanSource.fingerprint`` covers
    score records, which a ranking campaign has none of): a digest of its judgments."""
    digest = hashlib.blake2b(digest_size=16)
    rows = (
        Judgment.objects.filter(assigned_item__assignment__campaign_id=source.pk)
        .order_by("pk")
        .values_list("pk", "score", "updated_at")
    )
    for pk, score, updated in rows.iterator(chunk_size=2000):
        digest.update(f"{pk}:{score}:{updated.isoformat()}\n".encode())
    return digest.hexdigest()


def ranking_request_error(
    *, name: str, level: str, grouping: str, coefficients: Sequence[str]
) -> str | None:
    """Why a ranking campaign cannot answer this request (one line), or None."""
    if level == "segment":
        if grouping != "none":
            return GROUPING_POOLED.format(name=name, grouping=grouping)
        other = [c for c in coefficients if c not in SEGMENT_COEFFICIENTS]
        if other:
            return PAIRWISE_ONLY.format(name=name, names=", ".join(other))
    elif "pce" in coefficients:
        return NEEDS_SEGMENT_SCORES.format(name=name, names="pce")
    return None


def preference_correlations(
    inputs: CorrelationInputs,
    *,
    bootstrap: int = 0,
    seed: int = DEFAULT_SEED,
) -> tuple[Correlations, FloatArray | None, FloatArray | None]:
    """WMT's Kendall's τ-like of every measure of ``inputs`` over the human preferences of its
    ranking side: the result as ``correlate`` gives it (``n`` = Concordant + Discordant) and the
    bootstrap interval over segments (None without ``bootstrap``).

    Preferences involving a system left out of ``inputs`` (a human translation, no measure
    scores) are left out.
    """
    preferences = inputs.human.preferences or ()
    row = {name: k for k, name in enumerate(inputs.systems)}
    column = {index: k for k, index in enumerate(inputs.items)}
    used = [
        (column[index], row[better], row[worse])
        for index, better, worse, _judge in preferences
        if better in row and worse in row and index in column
    ]
    segment, better, worse = (
        np.array([pair[k] for pair in used], dtype=np.int64) for k in range(3)
    )
    tau = preference_tau(
        inputs.measure_segments,
        segment,
        better,
        worse,
        metric_ties=METRIC_TIES,
        bootstrap=bootstrap,
        seed=seed,
    )
    defined = np.isfinite(tau.values).astype(np.int64)
    result = Correlations(
        coefficient=SEGMENT_COEFFICIENTS[0],
        grouping="none",
        values=tau.values,
        n=tau.n,
        groups_used=defined,
        groups_skipped=np.zeros_like(defined),
    )
    return result, tau.low, tau.high
