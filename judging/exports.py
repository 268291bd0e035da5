"""Reads that shape a campaign's judgments as WMT's files: direct assessment, relative ranking,
and MQM error annotations (:func:`campaign_mqm_tsv_export`).

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

import csv
import io
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from evaltrans.corpora.formats.mqm_tsv import COLUMNS as MQM_TSV_COLUMNS
from evaltrans.corpora.models import Segment

from .models import Campaign, Item
from .selectors import campaign_judgment_rows
from .spans import SEVERITY_LABELS, marked_target

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


# ---------------------------------------------------------------- relative ranking

WMT_RANKING_SLOTS = 5
"""WMT's ranking files have five candidate slots; a screen with fewer leaves the rest blank."""
WMT_RANKING_HEADER = (
    "srclang",
    "trglang",
    "srcIndex",
    "documentId",
    "segmentId",
    "judgeId",
    *(
        name
        for slot in range(1, WMT_RANKING_SLOTS + 1)
        for name in (f"system{slot}Number", f"system{slot}Id")
    ),
    *(f"system{slot}rank" for slot in range(1, WMT_RANKING_SLOTS + 1)),
)


def campaign_wmt_ranking_export(*, campaign: Campaign) -> str:
    """A ranking campaign as WMT's relative-ranking CSV (``wmt12.RNK_results.txt``, and the
    ``srclang,trglang,srcIndex,…`` files Appraise wrote for WMT 2013-2016): one row per judge
    and screen, with the columns of :data:`WMT_RANKING_HEADER`.

    ``srclang``/``trglang`` are the test set's language codes; ``srcIndex`` the segment's
    1-based position; ``documentId``/``segmentId`` its document and segment ids; ``judgeId``
    the judge's user name. Slot *k* is the *k*-th candidate as the judge saw it:
    ``systemkNumber`` the system's 1-based place among the campaign's systems (names sorted),
    ``systemkId`` its name and ``systemkrank`` the rank given (1 best). A candidate that stands
    for several systems (identical outputs) names them joined by ``+``, as Appraise did for
    WMT16's collapsed outputs; unused slots are blank with rank ``-1`` (WMT's "left blank").
    Planted repeats are rows like the others (WMT's files kept them too; intra-annotator
    agreement is computed from them).
    """
    rows = [
        row
        for row in campaign_judgment_rows(campaign=campaign)
        if row["protocol"] == Campaign.Protocol.RANKING
    ]
    names = sorted(
        {row["system"] for row in rows} | set(campaign.systems.values_list("name", flat=True))
    )
    number = {name: str(place) for place, name in enumerate(names, start=1)}
    screens: dict[tuple[str, int], dict[int, dict[str, Any]]] = defaultdict(dict)
    for row in rows:
        slot = screens[(row["judge"], row["screen"])].setdefault(
            row["item"], {**row, "systems": []}
        )
        slot["systems"].append(row["system"])
    test_set = campaign.test_set
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(WMT_RANKING_HEADER)
    for (judge, _screen), items in sorted(screens.items(), key=_screen_order):
        shown = sorted(items.values(), key=lambda slot: slot["position"])
        first = shown[0]
        pairs, ranks = [], []
        for slot in shown[:WMT_RANKING_SLOTS]:
            systems = sorted(slot["systems"])
            pairs += ["+".join(number[name] for name in systems), "+".join(systems)]
            ranks.append(str(slot["score"]))
        for _ in range(WMT_RANKING_SLOTS - len(ranks)):
            pairs += ["", ""]
            ranks.append("-1")
        writer.writerow(
            [
                test_set.source_lang,
                test_set.target_lang,
                str(first["segment_index"] + 1),
                first["doc_id"],
                first["seg_id"],
                judge,
                *pairs,
                *ranks,
            ]
        )
    return buffer.getvalue()


def _screen_order(entry: tuple[tuple[str, int], dict[int, dict[str, Any]]]) -> tuple:
    (judge, screen), items = entry
    first = next(iter(items.values()))
    return (first["segment_index"], judge, screen)


MQM_TSV_HEADER = MQM_TSV_COLUMNS
"""WMT's MQM TSV columns, as the corpus importer defines them (the judgment importer reads
the same file)."""
NO_ERROR = "No-error"


def campaign_mqm_tsv_export(*, campaign: Campaign) -> str:
    """The campaign's error spans as WMT's MQM TSV (google/wmt-mqm-human-evaluation; read back by
    ``judging.formats.mqm``): one row per span of each (system, segment, judge), the span
    marked ``<v>…</v>`` in ``target``, severity ``Major``/``Minor``, the note as ``comment``; a
    judge who marked no error gives one ``No-error`` row. ``doc`` is the segment's document,
    ``doc_id`` its number in the test set's order of documents (1-based), ``seg_id`` the
    segment id (the 1-based position without one). Planted repeats and bad references are left
    out. Tabs and line breaks inside a text become spaces (the format has no quoting).
    Empty for a campaign without spans."""
    if not campaign.has_spans:
        return ""
    rows = [
        row
        for row in campaign_judgment_rows(campaign=campaign)
        if not row["is_repeat"] and row["kind"] != Item.Kind.BAD_REFERENCE
    ]
    segments = Segment.objects.filter(test_set=campaign.test_set).order_by("index")
    sources: dict[int, str] = {}
    doc_numbers: dict[str, int] = {}
    for index, doc_id, source in segments.values_list("index", "doc_id", "source"):
        sources[index] = source
        doc_numbers.setdefault(doc_id, len(doc_numbers) + 1)
    buffer = io.StringIO()
    buffer.write("\t".join(MQM_TSV_HEADER) + "\n")
    for row in rows:
        seg_id = row["seg_id"] or str(row["segment_index"] + 1)
        first = [
            row["system"],
            row["doc_id"],
            str(doc_numbers.get(row["doc_id"], "")),
            seg_id,
            row["judge"],
            sources.get(row["segment_index"], ""),
        ]
        if not row["spans"]:
            lines = [[row["text"], NO_ERROR, NO_ERROR, ""]]
        else:
            lines = [
                [
                    marked_target(row["text"], span),
                    span["category"],
                    SEVERITY_LABELS[span["severity"]],
                    span["note"],
                ]
                for span in row["spans"]
            ]
        for rest in lines:
            buffer.write("\t".join(_tsv_field(value) for value in first + rest) + "\n")
    return buffer.getvalue()


def _tsv_field(value: object) -> str:
    return " ".join(str(value).replace("\t", " ").splitlines()) if value else ""
