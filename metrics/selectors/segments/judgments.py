"""Human judgments of one segment for the segment page: every judgment from every judgment set
and campaign attached to the test set, raw and normalized per judge, one table per source and
aspect (systems × judges); a campaign may hide its judges' names from viewers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaltrans.corpora.models import Segment, TestSet
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from judging.humanscores.selectors import CAMPAIGN_KINDS, campaign_records
from judging.models import Campaign
from metrics.core.human_scores import (
    SCORED_KINDS,
    HumanScoresError,
    normalize_by_judge,
    sentence_statistic,
)


@dataclass
class JudgeCell:
    """One judge's judgments of one candidate for one aspect (usually one; repeats add more)."""

    values: list[dict[str, Any]]


@dataclass
class HumanRow:
    system: str
    cells: list[JudgeCell]
    raw: float | None
    normalized: float | None
    n: int
    is_system: bool


@dataclass
class HumanTable:
    """The judgments of one aspect of one source for this segment: systems × judges."""

    kind: str
    pk: int
    name: str
    label: str
    aspect: str
    judges: list[str]
    rows: list[HumanRow]
    z_source: str
    names_hidden: bool


def campaign_hides_judges(campaign: Campaign) -> bool:
    """Viewers see "judge 1, judge 2, …" for a campaign set to anonymous (admins see names)."""
    return campaign.anonymous_judges


@dataclass
class _Judgment:
    system: str
    judge: str
    aspect: str
    raw: float | None
    z: float | None
    kind: str
    here: bool


def segment_judgments(
    *, test_set: TestSet, segment: Segment, reveal_judges: bool
) -> list[HumanTable]:
    """Every judgment of the segment, per source and aspect, with its per-judge z-score.

    A judge's z-score needs all of that judge's judgments of the aspect (thesis §5.5), so
    those are read too, but only for the judges of this segment.
    """
    tables: list[HumanTable] = []
    for judgment_set in JudgmentSet.objects.filter(test_set=test_set).order_by("name"):
        tables.extend(_set_tables(judgment_set, segment))
    campaigns = Campaign.objects.filter(test_set=test_set).order_by("name")
    for campaign in campaigns:
        hidden = campaign_hides_judges(campaign) and not reveal_judges
        tables.extend(_campaign_tables(campaign, segment, hidden))
    return tables


_RECORD_FIELDS = ("system", "judge", "aspect", "raw", "z_given", "kind", "segment_id")


def _set_tables(judgment_set: JudgmentSet, segment: Segment) -> list[HumanTable]:
    mine = ExternalJudgment.objects.filter(judgment_set=judgment_set)
    here = list(mine.filter(segment=segment).values_list("judge", "aspect"))
    if not here:
        return []
    judges = {judge for judge, _ in here}
    aspects = sorted({aspect for _, aspect in here})
    rows = mine.filter(judge__in=judges, aspect__in=aspects).values_list(*_RECORD_FIELDS)
    # z_source "auto" of human_scores: computed when every judgment of the aspect has a raw score.
    without_raw = set(
        mine.filter(aspect__in=aspects, raw__isnull=True)
        .order_by()
        .values_list("aspect", flat=True)
        .distinct()
    )
    by_aspect: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for row in rows:
        by_aspect[row[2]].append(row)
    tables = []
    for aspect in aspects:
        records = by_aspect[aspect]
        computed = aspect not in without_raw
        judgments = _normalized(
            [(r[0], r[1], r[2], r[3], r[4], r[5], r[6] == segment.pk) for r in records], computed
        )
        tables.append(
            _table(
                "set",
                judgment_set.pk,
                judgment_set.name,
                judgment_set.get_source_format_display(),
                aspect,
                judgments,
                SCORED_KINDS,
                "computed" if computed else "given",
                {},
            )
        )
    return tables


def _campaign_tables(campaign: Campaign, segment: Segment, hidden: bool) -> list[HumanTable]:
    key = segment.seg_id or str(segment.index + 1)
    records = campaign_records(campaign=campaign)
    if not any(record.segment_id == key for record in records):
        return []
    pseudonyms: dict[str, str] = {}
    if hidden:
        order = list(campaign.judges.order_by("pk").values_list("username", flat=True))
        for name in sorted({record.judge for record in records} - set(order)):
            order.append(name)
        pseudonyms = {name: f"judge {number}" for number, name in enumerate(order, start=1)}
    tables = []
    for aspect in sorted({record.aspect for record in records if record.segment_id == key}):
        judgments = _normalized(
            [
                (r.system, r.judge, r.aspect, r.raw, r.z_given, r.kind, r.segment_id == key)
                for r in records
                if r.aspect == aspect
            ],
            True,
        )
        tables.append(
            _table(
                "campaign",
                campaign.pk,
                campaign.name,
                "Campaign",
                aspect,
                judgments,
                CAMPAIGN_KINDS,
                "computed",
                pseudonyms,
            )
        )
    return tables


def _normalized(rows: list[tuple[Any, ...]], computed: bool) -> list[_Judgment]:
    """The judgments of one aspect with their z-scores (computed per judge, or as given); only
    those of this segment are kept."""
    if computed and rows:
        z_values = normalize_by_judge([row[1] for row in rows], [row[3] for row in rows]).z
        z_list: list[float | None] = [float(z) for z in z_values]
    else:
        z_list = [row[4] for row in rows]
    return [
        _Judgment(row[0], row[1], row[2], row[3], z, row[5], True)
        for row, z in zip(rows, z_list, strict=True)
        if row[6]
    ]


def _table(
    kind: str,
    pk: int,
    name: str,
    label: str,
    aspect: str,
    judgments: list[_Judgment],
    scored: Sequence[str],
    z_source: str,
    pseudonyms: Mapping[str, str],
) -> HumanTable:
    judges = sorted({j.judge for j in judgments}, key=lambda judge: pseudonyms.get(judge, judge))
    by_system: dict[str, list[_Judgment]] = defaultdict(list)
    for judgment in judgments:
        by_system[judgment.system].append(judgment)
    rows = []
    for system in sorted(by_system):
        own = by_system[system]
        counted = [j for j in own if j.kind in scored]
        raws = [j.raw for j in counted]
        zs = [j.z for j in counted]
        cells = [
            JudgeCell(
                [
                    {"raw": j.raw, "z": j.z, "kind": j.kind, "counted": j.kind in scored}
                    for j in own
                    if j.judge == judge
                ]
            )
            for judge in judges
        ]
        rows.append(
            HumanRow(
                system=system,
                cells=cells,
                raw=_mean(raws),
                normalized=_mean(zs),
                n=len(counted),
                is_system=bool(counted),
            )
        )
    return HumanTable(
        kind=kind,
        pk=pk,
        name=name,
        label=label,
        aspect=aspect,
        judges=[pseudonyms.get(judge, judge) for judge in judges],
        rows=rows,
        z_source=z_source,
        names_hidden=bool(pseudonyms),
    )


def _mean(values: Sequence[float | None]) -> float | None:
    """The sentence score as ``human_scores`` combines judgments (the mean), or None."""
    if not values or any(value is None for value in values):
        return None
    try:
        return sentence_statistic([float(value) for value in values if value is not None])
    except HumanScoresError:
        return None
