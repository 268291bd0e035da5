"""Reads that shape a campaign's judgments as WMT's direct-assessment files.

WMT published crowd DA as two files per language pair (oracles-and-data spec §5.2 B; read back
by ``judging.formats.wmt_da``):

* ``ad-<pair>-good-stnd.csv``: whitespace-separated rows ``HITId WorkerId Input.src Input.trg
  Input.item hit sys_id rid type sid score time``, ``score`` being the judge's z-score and
  ``type`` SYSTEM, REPEAT, BAD_REF or REF;
* ``ad-<pair>-trk-mean-sd.txt``: each judge's mean and standard deviation of raw 0-100 scores
  in R's print format (7 significant digits), with which the z were computed, so
  ``z * sd + mean`` gives the raw score back.

Here one aspect of a campaign becomes such a pair: ``HITId`` is ``campaign<id>-<judge>``,
``hit`` the campaign id, ``rid`` the item id, ``sys_id`` the system name (spaces as ``_``)
with WMT's numeric suffix (its place among the campaign's systems), ``sid`` the segment id,
``time`` the judgment's active seconds. The mean and sample sd are taken over the judge's rows
of the aspect, quality-control rows included, one row per system an item stands for: the
numbers the human-score pages normalize with.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from .models import Campaign, Item
from .selectors import campaign_judgment_rows

HEADER = (
    "HITId",
    "WorkerId",
    "Input.src",
    "Input.trg",
    "Input.item",
    "hit",
    "sys_id",
    "rid",
    "type",
    "sid",
    "score",
    "time",
)
ITEM_NAMES = {"adequacy": "ad"}
"""Aspect -> WMT's ``Input.item`` (``ad`` is adequacy); other aspects keep their name."""


@dataclass(frozen=True)
class WmtDaExport:
    """The two files of one aspect: the per-judge rows and the judges' mean/sd."""

    rows: str
    judge_stats: str


def campaign_wmt_da_export(*, campaign: Campaign, aspect: str) -> WmtDaExport:
    """One aspect of a campaign as WMT's DA files (module docstring).

    Raises:
        LookupError: the campaign has no such aspect.
    """
    if not campaign.aspects.filter(name=aspect).exists():
        raise LookupError(f"campaign {campaign} has no aspect {aspect!r}")
    rows = [row for row in campaign_judgment_rows(campaign=campaign) if row["aspect"] == aspect]
    stats = _printed_stats(rows)
    names = sorted({row["system"] for row in rows})
    index = {name: number for number, name in enumerate(names)}
    test_set = campaign.test_set
    lines = [" ".join(HEADER)]
    for row in rows:
        mean, sd = stats[row["judge"]]
        z = (row["score"] - mean) / sd if sd > 0 else 0.0
        fields = (
            f"campaign{campaign.pk}-{row['judge']}",
            row["judge"],
            test_set.source_lang,
            test_set.target_lang,
            ITEM_NAMES.get(aspect, aspect),
            str(campaign.pk),
            f"{'_'.join(row['system'].split())}.{index[row['system']]}",
            str(row["item"]),
            _type(row),
            row["seg_id"] or str(row["segment_index"] + 1),
            f"{z:.15g}",
            f"{row['active_ms'] / 1000:.1f}",
        )
        lines.append(" ".join(fields))
    judge_stats = [
        line
        for judge in sorted(stats)
        for line in (f'[1] "{judge}"', f"[1] {_r(stats[judge][0])}", f"[1] {_r(stats[judge][1])}")
    ]
    return WmtDaExport(rows="\n".join(lines) + "\n", judge_stats="\n".join(judge_stats) + "\n")


def _type(row: dict[str, Any]) -> str:
    if row["is_repeat"]:
        return "REPEAT"
    if row["kind"] == Item.Kind.BAD_REFERENCE:
        return "BAD_REF"
    if row["kind"] == Item.Kind.REFERENCE:
        return "REF"
    return "SYSTEM"


def _printed_stats(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Judge -> (mean, sample sd) as R prints them (7 significant digits); WMT normalized with
    the printed values, and so does this export, so the raw scores come back exactly."""
    scores: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        scores[row["judge"]].append(float(row["score"]))
    result = {}
    for judge, values in scores.items():
        sd = statistics.stdev(values) if len(values) > 1 else 0.0
        result[judge] = (float(_r(statistics.fmean(values))), float(_r(sd)))
    return result


def _r(value: float) -> str:
    """A number as R's ``print`` shows it by default (7 significant digits)."""
    return f"{value:.7g}" if math.isfinite(value) else "NA"
