"""Reads for human scores: judgments of a judgment set or a campaign as plain records, and
the data of the three panels (one query per source, then numpy; no per-row queries).

A *source* is an imported judgment set (:class:`~.models.JudgmentSet`) or a campaign of the
judging app, whose judgments come from ``judging.selectors.campaign_judgment_rows``. Names are
resolved imported sets first, then campaigns (import refuses a campaign's name).
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, overload

import numpy as np
from django.core.cache import cache
from django.db.models import Count, QuerySet

from evaltrans.corpora.models import Candidate, Reference, Segment, TestSet
from evaltrans.corpora.selectors import segment_browser_url
from judging import selectors as judging_selectors
from judging.formats.base import KIND_BAD_REF, KIND_REF, KIND_REPEAT, KIND_SYSTEM
from judging.models import Aspect, Campaign, Item
from judging.qc import judge_quality
from judging.scales import DA_MAX, DA_MIN
from judging.spans import SpanAgreement
from metrics.core.human_scores import (
    SCORED_KINDS,
    HumanScores,
    HumanScoresError,
    HumanSystemScore,
    JudgmentLike,
    Rounding,
    human_scores,
)
from metrics.core.resampling import DEFAULT_SEED, PairTest, paired_bootstraps

from . import analysis
from .models import ExternalJudgment, JudgmentSet

SOURCE_SET = "set"
SOURCE_CAMPAIGN = "campaign"
SOURCE_KINDS = (SOURCE_SET, SOURCE_CAMPAIGN)
CAMPAIGN_KINDS = (KIND_SYSTEM,)
"""Kinds scored for a campaign: its planted repeats only measure consistency (judging app)."""
PREFERRED_ASPECTS = ("adequacy+fluency", "adequacy", "mqm", "fluency")

UNKNOWN_SOURCE = "no judgment set or campaign named {name!r}"
NO_TEXTS_FOR_WEIGHTING = (
    "weighting {weighting!r} needs the texts of a test set, but {name!r} is not attached to "
    "one (its judgments are kept by system and segment id only); use weighting 'none'"
)
CACHE_SECONDS = 3600
JUDGE_BOX_POINTS_MAX = 50_000
"""Above this many judgments of an aspect the judge-bias boxes are drawn from summaries."""
CACHE_VERSION = 4
"""Part of the panel cache keys: raise it when the cached panel classes move or change, so a
shared cache never hands out objects pickled under the old names."""


class HumanSourceError(LookupError):
    """No such judgment set or campaign; the message is for the user."""


@dataclass
class HumanSource:
    """The judgments of one set or campaign, and what the panels need besides them."""

    kind: str
    pk: int
    name: str
    label: str
    test_set: TestSet | None
    records: Sequence[JudgmentLike]
    scales: dict[str, dict[str, Any]]
    judge_seconds: dict[str, float]
    judge_flags: dict[str, list[str]] = field(default_factory=dict)
    scored_kinds: tuple[str, ...] = SCORED_KINDS
    segment_links: Mapping[str, int] = field(default_factory=dict)
    attachment_note: str = ""
    """How the ids were matched to the test set, or why the set was not attached."""
    protocol: str = ""
    """A campaign's protocol ("" for an imported set). A ranking campaign has no records: a
    rank is not an absolute score; its panels read ``judging.selectors.ranking_wins_panel`` instead."""
    span_agreement: SpanAgreement | None = None
    """An MQM/ESA campaign's agreement of judges on error spans (character-level F1,
    ``judging.selectors.campaign_span_agreement``); None for other sources."""
    cache_token: str = ""
    """Names the state of the judgments without reading them (an imported set's id and
    revision); empty: :attr:`fingerprint` digests the judgments."""

    @property
    def is_ranking(self) -> bool:
        return self.protocol == Campaign.Protocol.RANKING

    @property
    def aspects(self) -> list[str]:
        if isinstance(self.records, SetJudgments):
            present = self.records.aspects()
        else:
            present = sorted({record.aspect for record in self.records})
        return sorted(present, key=_aspect_rank)

    @property
    def score_aspects(self) -> list[str]:
        """Aspects the ranking offers: A+F too when both parts are present."""
        aspects = self.aspects
        if "adequacy" in aspects and "fluency" in aspects:
            return ["adequacy+fluency", *aspects]
        return aspects

    @property
    def fingerprint(self) -> str:
        """Changes whenever a judgment does (a campaign's judges keep judging).

        The :attr:`cache_token` where there is one; otherwise a digest of the judgments' text form, so that it is the same in every process (the
        built-in ``hash`` of strings is salted per process, which would keep a cache shared
        between processes, such as Redis, from ever hitting).
        """
        if self.cache_token:
            return self.cache_token
        digest = hashlib.blake2b(digest_size=16)
        for record in self.records:
            fields = (record.system, record.segment_id, record.judge, record.aspect, record.raw)
            digest.update(repr((*fields, record.z_given, record.kind)).encode("utf-8"))
            digest.update(b"\n")
        return digest.hexdigest()

    def judge_records(self, judge: str) -> tuple[list[JudgmentLike], Mapping[str, int]]:
        """The judgments of one judge, in the order of :attr:`records`, and the segment links
        of their ids."""
        if isinstance(self.records, SetJudgments):
            return self.records.of_judge(judge)
        return [record for record in self.records if record.judge == judge], self.segment_links

    def raw_complete(self, aspect: str) -> bool:
        """Whether every judgment of ``aspect`` has a raw score (z is then computed)."""
        if isinstance(self.records, SetJudgments):
            return self.records.raw_complete(aspect)
        return all(record.raw is not None for record in self.records if record.aspect == aspect)

    @property
    def default_weighting(self) -> str:
        """Reference-length weighting (spec §1.4) where a test set gives lengths."""
        return "reference" if self.test_set is not None else "none"


def _aspect_rank(aspect: str) -> tuple[int, str]:
    rank = PREFERRED_ASPECTS.index(aspect) if aspect in PREFERRED_ASPECTS else 99
    return (rank, aspect)


# ---------------------------------------------------------------- sources


def human_source_list(*, test_set: TestSet | None = None) -> list[dict[str, Any]]:
    """Every judgment set and campaign (of ``test_set`` only, when given), for index pages.
    Post-editing campaigns are left out: a post-edit has no score, so they give no human
    scores (their HTER and time per word are on the campaign page)."""
    rows: list[dict[str, Any]] = []
    sets = JudgmentSet.objects.select_related("test_set")
    campaigns = Campaign.objects.select_related("test_set").exclude(
        protocol=Campaign.Protocol.POST_EDIT
    )
    if test_set is not None:
        sets, campaigns = sets.filter(test_set=test_set), campaigns.filter(test_set=test_set)
    for judgment_set in sets:
        rows.append(
            {
                "kind": SOURCE_SET,
                "pk": judgment_set.pk,
                "name": judgment_set.name,
                "origin": judgment_set.get_source_format_display(),
                "test_set": judgment_set.test_set,
                "judgments": judgment_set.metadata.get("judgments", 0),
                "judges": judgment_set.metadata.get("judges", 0),
                "aspects": judgment_set.metadata.get("aspects", []),
            }
        )
    campaigns = campaigns.annotate(judges_count=Count("judges", distinct=True))
    for campaign in campaigns:
        rows.append(
            {
                "kind": SOURCE_CAMPAIGN,
                "pk": campaign.pk,
                "name": campaign.name,
                "origin": "Campaign",
                "test_set": campaign.test_set,
                "judgments": None,
                "judges": campaign.judges_count,
                "aspects": list(campaign.aspects.values_list("name", flat=True)),
            }
        )
    return sorted(rows, key=lambda row: row["name"].lower())


def judgmentsets_for_test_set(*, test_set: TestSet) -> list[JudgmentSet]:
    """The judgment sets attached to a test set (for its page's links)."""
    return list(JudgmentSet.objects.filter(test_set=test_set).order_by("name"))


def human_source_get(*, kind: str, pk: int) -> HumanSource:
    """Load a source by kind and id.

    Raises:
        JudgmentSet.DoesNotExist, Campaign.DoesNotExist: no such source.
    """
    if kind == SOURCE_CAMPAIGN:
        return _campaign_source(Campaign.objects.select_related("test_set").get(pk=pk))
    return _set_source(JudgmentSet.objects.select_related("test_set").get(pk=pk))


def human_source_by_name(*, name: str) -> HumanSource:
    """Load a source by name: an imported set, else a campaign.

    Raises:
        HumanSourceError: neither exists.
    """
    judgment_set = JudgmentSet.objects.select_related("test_set").filter(name=name).first()
    if judgment_set is not None:
        return _set_source(judgment_set)
    campaign = Campaign.objects.select_related("test_set").filter(name=name).first()
    if campaign is not None:
        return _campaign_source(campaign)
    raise HumanSourceError(UNKNOWN_SOURCE.format(name=name))


def _set_source(judgment_set: JudgmentSet) -> HumanSource:
    meta = judgment_set.metadata
    judgments = SetJudgments(judgment_set)
    return HumanSource(
        kind=SOURCE_SET,
        pk=judgment_set.pk,
        name=judgment_set.name,
        label=judgment_set.get_source_format_display(),
        test_set=judgment_set.test_set,
        records=judgments,
        scales=dict(meta.get("scales", {})),
        judge_seconds={k: float(v) for k, v in meta.get("judge_seconds", {}).items()},
        segment_links=judgments.links,
        attachment_note=judgment_set.attachment_note,
        # The creation time tells apart sets that reuse an id (a database reset under a kept
        # cache, a rolled-back import).
        cache_token=(
            f"set{judgment_set.pk}.{judgment_set.created_at.timestamp():.6f}"
            f".r{judgment_set.revision}.t{judgment_set.test_set_id or 0}"
        ),
    )


class StoredJudgment(NamedTuple):
    """A judgment read back from the database: what the statistics read (``JudgmentLike``)
    in a tuple, which takes a tenth of the time of a parser's ``JudgmentRecord`` to make (2 s
    for the 500,000 judgments of a WMT year)."""

    system: str
    segment_id: str
    judge: str
    aspect: str
    raw: float | None
    z_given: float | None
    kind: str


STORED_COLUMNS = ("system", "segment_key", "judge", "aspect", "raw", "z_given", "kind")
"""The columns of an ``ExternalJudgment`` that make a :class:`StoredJudgment`, in its order."""


class SetJudgments(Sequence[StoredJudgment]):
    """An imported set's judgments, read from the database on first use: a cached panel needs
    only the set's row (its revision is the cache key), its aspects and whether it has any
    judgment, not the 500,000 rows of a WMT year (seconds to read)."""

    def __init__(self, judgment_set: JudgmentSet) -> None:
        self.judgment_set = judgment_set
        self._loaded = _LoadedSet(judgment_set)
        self.links = _SetLinks(self._loaded)

    @property
    def _records(self) -> list[StoredJudgment] | None:
        return self._loaded.records

    def loaded(self) -> tuple[list[StoredJudgment], dict[str, int]]:
        return self._loaded.load()

    def aspects(self) -> list[str]:
        if self._records is not None:
            return sorted({record.aspect for record in self._records})
        rows = self._rows().values_list("aspect", flat=True).distinct()
        return sorted(rows.order_by())

    def of_judge(self, judge: str) -> tuple[list[StoredJudgment], dict[str, int]]:
        """One judge's judgments in id order, and their segment links: through the (set,
        judge) index, not all 500,000 rows of a WMT year (2.5 s for a judge's page)."""
        rows = self._rows().filter(judge=judge).values_list(*STORED_COLUMNS, "segment_id")
        records = [StoredJudgment(*row[:-1]) for row in rows]
        links = {row[1]: row[-1] for row in rows if row[-1] is not None}
        return records, links

    def raw_complete(self, aspect: str) -> bool:
        return not self._rows().filter(aspect=aspect, raw__isnull=True).exists()

    def _rows(self) -> QuerySet[ExternalJudgment]:
        return ExternalJudgment.objects.filter(judgment_set=self.judgment_set)

    def __len__(self) -> int:
        if self._records is not None:
            return len(self._records)
        return self._rows().count()

    def __bool__(self) -> bool:
        return bool(self._records) if self._records is not None else self._rows().exists()

    @overload
    def __getitem__(self, index: int) -> StoredJudgment: ...

    @overload
    def __getitem__(self, index: slice) -> list[StoredJudgment]: ...

    def __getitem__(self, index: int | slice) -> StoredJudgment | list[StoredJudgment]:
        return self.loaded()[0][index]

    def __iter__(self) -> Iterator[StoredJudgment]:
        return iter(self.loaded()[0])


class _LoadedSet:
    """An imported set's judgments and segment links once read. Shared by
    :class:`SetJudgments` and its :class:`_SetLinks` without either holding the other: a
    reference cycle kept the 500,000 rows of a WMT year alive after each request until the
    cyclic garbage collector ran."""

    def __init__(self, judgment_set: JudgmentSet) -> None:
        self.judgment_set = judgment_set
        self.records: list[StoredJudgment] | None = None
        self.links: dict[str, int] = {}

    def load(self) -> tuple[list[StoredJudgment], dict[str, int]]:
        if self.records is None:
            self.records, self.links = _set_judgments(self.judgment_set)
        return self.records, self.links


class _SetLinks(Mapping[str, int]):
    """Segment id -> segment of an imported set, read with its judgments."""

    def __init__(self, loaded: _LoadedSet) -> None:
        self.loaded = loaded

    def __getitem__(self, key: str) -> int:
        return self.loaded.load()[1][key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.loaded.load()[1])

    def __len__(self) -> int:
        return len(self.loaded.load()[1])


def _set_judgments(judgment_set: JudgmentSet) -> tuple[list[StoredJudgment], dict[str, int]]:
    rows = ExternalJudgment.objects.filter(judgment_set=judgment_set).values_list(
        *STORED_COLUMNS, "segment_id"
    )
    records = []
    links: dict[str, int] = {}
    for system, key, judge, aspect, raw, z_given, kind, segment_pk in rows.iterator(
        chunk_size=5000
    ):
        records.append(StoredJudgment(system, key, judge, aspect, raw, z_given, kind))
        if segment_pk is not None:
            links[key] = segment_pk
    return records, links


def campaign_records(*, campaign: Campaign) -> list[StoredJudgment]:
    """A campaign's judgments as records: the segment id is the segment's ``seg_id`` (its
    1-based position without one); a planted repeat is REPEAT, the reference judged as a system
    is REF and a bad reference (a degraded candidate, DA) BAD_REF (quality control: they enter
    each judge's normalization statistics, as in WMT, but no score), the rest SYSTEM.

    A ranking campaign gives none: a rank says how a candidate compares with the others of its
    screen, not how good it is, so neither normalization nor the mean of sentence scores
    applies; its system scores are Expected Wins (``judging.selectors.ranking_wins_panel``) and its
    preferences ``judging.selectors.campaign_ranking_pairs``. A post-editing campaign gives
    none either: a post-edit has no score (its HTER and time per word are on the campaign
    page, ``judging.selectors.postedit_panel``)."""
    if campaign.protocol in (Campaign.Protocol.RANKING, Campaign.Protocol.POST_EDIT):
        return []
    return _campaign_records(judging_selectors.campaign_judgment_rows(campaign=campaign))


def _campaign_records(rows: list[dict[str, Any]]) -> list[StoredJudgment]:
    records = []
    for row in rows:
        kind = (
            KIND_REPEAT
            if row["is_repeat"]
            else KIND_REF
            if row["kind"] == Item.Kind.REFERENCE
            else KIND_BAD_REF
            if row["kind"] == Item.Kind.BAD_REFERENCE
            else KIND_SYSTEM
        )
        records.append(
            StoredJudgment(
                system=row["system"],
                segment_id=row["seg_id"] or str(row["segment_index"] + 1),
                judge=row["judge"],
                aspect=row["aspect"],
                raw=float(row["score"]),
                z_given=None,
                kind=kind,
            )
        )
    return records


def _campaign_source(campaign: Campaign) -> HumanSource:
    rows = judging_selectors.campaign_judgment_rows(campaign=campaign)
    ranking = campaign.protocol == Campaign.Protocol.RANKING
    records = [] if ranking else _campaign_records(rows)
    aspects = list(campaign.aspects.all())
    seconds: dict[str, float] = defaultdict(float)
    qc_rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen: set[tuple[Any, ...]] = set()
    for row in rows:
        # An item stands for every system with the same output: count its judgment once.
        key = (row["item"], row["judge"], row["aspect"], row["is_repeat"], row["reused"])
        if key in seen or row["reused"]:
            continue
        seen.add(key)
        seconds[row["judge"]] += row["active_ms"] / 1000.0
        qc_rows[row["judge"]].append(
            {
                "assigned_item__item_id": row["item"],
                "assigned_item__is_repeat": row["is_repeat"],
                "assigned_item__item__kind": row["kind"],
                "assigned_item__item__degraded_from_id": row["original_item"],
                "aspect__name": row["aspect"],
                "score": row["score"],
                "active_ms": row["active_ms"],
            }
        )
    flags = {
        judge: judge_quality(campaign=campaign, judgments=rows).flags
        for judge, rows in qc_rows.items()
    }
    keys = {
        seg_id or str(index + 1): pk
        for pk, index, seg_id in campaign.test_set.segments.values_list("pk", "index", "seg_id")
    }
    judged = {record.segment_id for record in records}
    if ranking:
        judged = {row["seg_id"] or str(row["segment_index"] + 1) for row in rows}
    return HumanSource(
        kind=SOURCE_CAMPAIGN,
        pk=campaign.pk,
        name=campaign.name,
        label="Campaign",
        test_set=campaign.test_set,
        records=records,
        scales={aspect.name: _campaign_scale(aspect) for aspect in aspects},
        judge_seconds=dict(seconds),
        judge_flags=flags,
        scored_kinds=CAMPAIGN_KINDS,
        segment_links={key: pk for key, pk in keys.items() if key in judged},
        protocol=campaign.protocol,
        span_agreement=judging_selectors.campaign_span_agreement(campaign=campaign, rows=rows),
    )


def _campaign_scale(aspect: Aspect) -> dict[str, Any]:
    """How the panels read an aspect: declared levels, or a DA slider (0-100: binned in tens,
    continuous for agreement: interval alpha, no kappa; ESA's overall score too); another
    slider range is continuous without fixed bins; an MQM span aspect as imported MQM
    penalties (its records' ``raw`` is the MQM score, ``judging.selectors.campaign_judgment_rows``
    having undone the x100 of its storage)."""
    if aspect.is_spans:
        # Scored from error spans by the MQM weights: read as an imported MQM set is.
        return {"kind": "mqm"}
    if not aspect.is_slider:
        return {"kind": "levels", "values": sorted(aspect.values)}
    if (aspect.minimum, aspect.maximum) == (DA_MIN, DA_MAX):
        return {"kind": "da"}
    return {"kind": "auto"}


# ---------------------------------------------------------------- scores


def reference_lengths(*, source: HumanSource) -> dict[str, float] | None:
    """Segment id -> mean reference length in words (whitespace tokens), for the segments of
    an attached source; None without a test set."""
    if source.test_set is None:
        return None
    by_segment: dict[int, list[int]] = defaultdict(list)
    references = Reference.objects.filter(segment__test_set=source.test_set).values_list(
        "segment_id", "text"
    )
    for segment_pk, text in references.iterator(chunk_size=5000):
        by_segment[segment_pk].append(len(text.split()))
    return {
        key: sum(by_segment[pk]) / len(by_segment[pk])
        for key, pk in source.segment_links.items()
        if by_segment.get(pk)
    }


def candidate_lengths(*, source: HumanSource) -> dict[tuple[str, str], float] | None:
    """(system, segment id) -> candidate length in words (whitespace tokens) for the judged
    segments of an attached source; a system named like a reference label (a reference judged
    as a system) gets that reference's length. None without a test set."""
    if source.test_set is None:
        return None
    keys = {pk: key for key, pk in source.segment_links.items()}
    lengths: dict[tuple[str, str], float] = {}
    references = Reference.objects.filter(segment__test_set=source.test_set).values_list(
        "label", "segment_id", "text"
    )
    candidates = Candidate.objects.filter(segment__test_set=source.test_set).values_list(
        "system__name", "segment_id", "text"
    )
    for rows in (references, candidates):
        for name, segment_pk, text in rows.iterator(chunk_size=5000):
            if segment_pk in keys:
                lengths[(name, keys[segment_pk])] = float(len(text.split()))
    return lengths


def source_human_scores(
    *,
    source: HumanSource,
    aspect: str,
    weighting: str | None = None,
    statistic: str = "mean",
    sd: str = "sample",
    z_source: str = "auto",
    rounding: Rounding | None = None,
    bootstrap_samples: int = 1000,
    seed: int = DEFAULT_SEED,
) -> HumanScores:
    """``human_scores`` of a source: reference or candidate lengths from its test set when
    weighted by them, the source's scored kinds.

    Raises:
        HumanScoresError: bad options, unknown aspect, a length weighting for a source without
            a test set, or lengths missing.
    """
    weighting = weighting or source.default_weighting
    if weighting in ("reference", "candidate") and source.test_set is None:
        raise HumanScoresError(NO_TEXTS_FOR_WEIGHTING.format(weighting=weighting, name=source.name))
    return human_scores(
        source.records,
        aspect=aspect,
        sentence_statistic=statistic,
        weighting=weighting,
        reference_lengths=reference_lengths(source=source) if weighting == "reference" else None,
        candidate_lengths=candidate_lengths(source=source) if weighting == "candidate" else None,
        sd=sd,
        z_source=z_source,
        rounding=rounding,
        kinds=source.scored_kinds,
        bootstrap_samples=bootstrap_samples,
        seed=seed,
    )


# ---------------------------------------------------------------- panels


def _judge_bias_panel(*, source: HumanSource, aspect: str) -> dict[str, Any]:
    """Per judge: counts per level (raw), z-scores, the statistics table with QC flags."""
    data = analysis.aspect_data(source.records, aspect)
    categories = analysis.scale_categories(source.scales.get(aspect, {}), data.raw)
    summaries = analysis.judge_summaries(data, categories)
    z_by_judge: dict[str, list[float]] = defaultdict(list)
    for judge, value in zip(data.judges, data.z.tolist(), strict=True):
        if math.isfinite(value):
            z_by_judge[judge].append(value)
    # Every point of a WMT year (500,000) would make a 23 MB page; its boxes are drawn from
    # their summaries instead.
    points = len(data.z) <= JUDGE_BOX_POINTS_MAX
    for summary in summaries:
        for flag in source.judge_flags.get(summary.judge, []):
            if flag not in summary.flags:
                summary.flags.append(flag)
    return {
        "aspect": aspect,
        "levels": categories.labels,
        "has_raw": data.has_raw,
        "z_source": data.z_source,
        "judges": [
            {
                "judge": s.judge,
                "n": s.n,
                "raw_mean": s.raw_mean,
                "raw_sd": s.raw_sd,
                "z_mean": s.z_mean,
                "z_median": _quantile(z_by_judge[s.judge], 0.5),
                "z_low": _quantile(z_by_judge[s.judge], 0.05),
                "z_high": _quantile(z_by_judge[s.judge], 0.95),
                "counts": s.level_counts,
                "z": z_by_judge[s.judge] if points else None,
                "box": box_summary(z_by_judge[s.judge]),
                "normalizable": s.normalizable,
                "outlier": s.outlier,
                "flags": s.flags,
                "seconds": source.judge_seconds.get(s.judge),
            }
            for s in summaries
        ],
    }


def judge_judgments(*, source: HumanSource, judge: str) -> list[dict[str, Any]]:
    """A judge's judgments with their z per aspect, ordered by segment, system, aspect."""
    records, links = source.judge_records(judge)
    rows = []
    for aspect in source.aspects:
        data = analysis.aspect_data(records, aspect, raw_complete=source.raw_complete(aspect))
        for k in range(len(data.judges)):  # all of them the judge's
            raw = float(data.raw[k])
            rows.append(
                {
                    "system": data.systems[k],
                    "segment": data.segments[k],
                    "aspect": aspect,
                    "raw": None if math.isnan(raw) else raw,
                    "z": float(data.z[k]),
                    "kind": data.kinds[k],
                    "segment_pk": links.get(data.segments[k]),
                }
            )
    rows.sort(key=lambda r: (_natural(r["segment"]), r["system"], r["aspect"], r["kind"]))
    return rows


def link_judgments_to_segments(*, source: HumanSource, rows: list[dict[str, Any]]) -> None:
    """Give each of ``rows`` (from :func:`judge_judgments`) the ``url`` of its segment in the
    test-set browser; one query for all rows. Nothing for a source without a test set."""
    if source.test_set is None:
        return
    pks = {row["segment_pk"] for row in rows if row["segment_pk"]}
    index = dict(Segment.objects.filter(pk__in=pks).values_list("pk", "index"))
    for row in rows:
        position = index.get(row["segment_pk"])
        if position is not None:
            row["url"] = segment_browser_url(test_set=source.test_set, index=position)
            row["number"] = position + 1


def _agreement_panel(*, source: HumanSource, aspect: str, unit: str | None) -> dict[str, Any]:
    """Agreement of one aspect; ``unit`` None picks candidates when two judges share one."""
    data = analysis.aspect_data(source.records, aspect)
    scale = source.scales.get(aspect, {})
    chosen = unit if unit in ("candidate", "system") else "candidate"
    result = analysis.agreement(data, unit=chosen, scale=scale)
    fallback = False
    if unit is None and result.shared_items == 0:
        result, fallback = analysis.agreement(data, unit="system", scale=scale), True
    return {"aspect": aspect, "agreement": result, "fallback": fallback, "has_raw": data.has_raw}


def _ranking_panel(*, source: HumanSource, aspect: str, weighting: str | None) -> dict[str, Any]:
    """Systems by human score (raw and normalized) with CIs, and paired significance tests."""
    scores = source_human_scores(source=source, aspect=aspect, weighting=weighting)
    used = weighting or source.default_weighting
    lengths = reference_lengths(source=source) if used == "reference" else None
    raw: dict[str, dict[str, float]] = defaultdict(dict)
    normalized: dict[str, dict[str, float]] = defaultdict(dict)
    for segment in scores.segments:
        normalized[segment.system][segment.segment_id] = segment.normalized
        if segment.raw is not None:
            raw[segment.system][segment.segment_id] = segment.raw
    segment_ids = {segment.segment_id for segment in scores.segments}
    weights = {seg: (lengths or {}).get(seg, 0.0) if lengths else 1.0 for seg in segment_ids}
    tests_normalized, *tests_raw = paired_bootstraps([normalized, *([raw] if raw else [])], weights)
    return {
        "aspect": aspect,
        "weighting": used,
        # The page shows systems only: some 300,000 segment scores would be unpickled on every
        # cached read.
        "scores": replace(scores, segments=[]),
        "tests_raw": tests_raw[0] if tests_raw else [],
        "tests_normalized": tests_normalized,
    }


def ranking_rows(
    systems: list[HumanSystemScore], view: str, tests: list[PairTest]
) -> list[dict[str, Any]]:
    """The ranking table of one view (``"raw"`` or ``"normalized"``): systems best first with
    their rank, CI and how many systems each beats significantly; empty when a system has no
    score in that view (raw scores missing)."""
    rows = []
    for score in systems:
        value = score.raw if view == "raw" else score.normalized
        if value is None:
            return []
        ci = score.raw_ci if view == "raw" else score.normalized_ci
        rows.append(
            {
                "system": score.system,
                "score": value,
                "low": ci.low if ci else None,
                "high": ci.high if ci else None,
                "n_segments": score.n_segments,
                "n_judgments": score.n_judgments,
                "beats": sum(1 for t in tests if t.significant and _winner(t) == score.system),
            }
        )
    rows.sort(key=lambda row: (-row["score"], row["system"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows


def _winner(test: PairTest) -> str:
    return test.a if test.difference > 0 else test.b


def _quantile(values: list[float], share: float) -> float | None:
    return float(np.quantile(values, share)) if values else None


def box_summary(values: list[float]) -> dict[str, float] | None:
    """A box plot's summary as plotly draws it from the points: quartiles (linear
    interpolation) and whiskers to the farthest points within 1.5 IQR of the box."""
    if not values:
        return None
    z = np.asarray(values)
    q1, median, q3 = (float(q) for q in np.quantile(z, [0.25, 0.5, 0.75]))
    reach = 1.5 * (q3 - q1)
    return {
        "q1": q1,
        "median": median,
        "q3": q3,
        "lowerfence": float(z[z >= q1 - reach].min()),
        "upperfence": float(z[z <= q3 + reach].max()),
    }


def _natural(segment_id: str) -> tuple[int, int | str]:
    return (0, int(segment_id)) if segment_id.isdigit() else (1, segment_id)


def _cached(source: HumanSource, panel: str, compute: Any, **params: Any) -> dict[str, Any]:
    """A panel's data from the cache, computed on a miss; keyed by the judgments themselves."""
    options = ",".join(f"{key}={value}" for key, value in sorted(params.items()))
    key = (
        f"humanscores:v{CACHE_VERSION}:{source.kind}:{source.pk}:{source.fingerprint}:{panel}:"
        f"{options}"
    )
    result = cache.get(key)
    if result is None:
        result = compute(source=source, **params)
        cache.set(key, result, CACHE_SECONDS)
    return result


def judge_bias_panel(*, source: HumanSource, aspect: str) -> dict[str, Any]:
    """Per judge: counts per level (raw), z-scores, the statistics table with QC flags."""
    return _cached(source, "bias", _judge_bias_panel, aspect=aspect)


def agreement_panel(*, source: HumanSource, aspect: str, unit: str | None) -> dict[str, Any]:
    """Agreement of one aspect; ``unit`` None picks candidates when two judges share one."""
    return _cached(source, "agreement", _agreement_panel, aspect=aspect, unit=unit)


def ranking_panel(*, source: HumanSource, aspect: str, weighting: str | None) -> dict[str, Any]:
    """Systems by human score (raw and normalized) with CIs, and paired significance tests."""
    return _cached(source, "ranking", _ranking_panel, aspect=aspect, weighting=weighting)
