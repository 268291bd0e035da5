"""Writes on judgment sets: importing external judgments (parse → validate → store).

Every import parses and validates the whole input first (the parsers in ``judging.formats``
raise ``CorpusFormatError`` naming file and line) and stores in one transaction, so bad input
changes nothing, as for corpus imports.

Attaching to a test set (``test_set=``) is checked, never assumed: every system must be a system
or a reference label of the test set, every segment id one of its segment ids, and where the file
carries the source sentences (MQM TSV, EvalTrans XML) each must equal the test set's source of
that segment. Where that does not hold, the judgments are still imported, as a stand-alone set
keyed by system and segment id, and the set's ``attachment_note`` (printed by the command and
shown on the panels) says why it was not attached. A WMT DA file carries no text, so its ids
cannot be checked (the WMT21 file numbers segments in an order of its own): it is always kept
stand-alone.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction

from evaltrans.corpora.bulk import insert_rows
from evaltrans.corpora.formats.base import CorpusData, InputFile
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml
from evaltrans.corpora.formats.reading import is_blank, unstorable_problem
from evaltrans.corpora.models import RawEvaluation, Reference, Segment, TestSet
from evaltrans.corpora.selectors import testset_corpus_data
from judging.formats import FieldLimits, JudgmentRecord, check_records, check_unique
from judging.formats.evaltrans import control_classes, levels_from_metadata, records_from_corpus
from judging.formats.mqm import ASPECTS as MQM_ASPECTS
from judging.formats.mqm import mqm_records, parse_mqm_errors, strip_spans
from judging.formats.wmt_da import parse_wmt_da_csv
from judging.models import Campaign
from metrics.core.human_scores import HumanScoresError

from .dispatch import panels_warm_send
from .models import ExternalJudgment, JudgmentSet
from .selectors import (
    SOURCE_SET,
    agreement_panel,
    human_source_get,
    judge_bias_panel,
    ranking_panel,
)

IMPORT_FORMATS = tuple(choice.value for choice in JudgmentSet.SourceFormat)

NAME_REQUIRED = "a judgment set needs a name"
NAME_TOO_LONG = "the judgment set name has {length:,} characters; at most {limit:,} can be stored"
BAD_NAME = "judgment set name {name!r}: {problem}"
NAME_TAKEN = "a judgment set named {name!r} exists already; nothing was imported"
NAME_IS_CAMPAIGN = (
    "{name!r} is the name of a campaign (its judgments are a judgment set already); "
    "choose another name"
)
UNKNOWN_FORMAT = "unknown judgments format {format!r} (known: {known})"
FILE_REQUIRED = "{format} needs a FILE"
JUDGE_STATS_ONLY_DA = "a judge-stats file (--judge-stats) belongs to wmt-da-csv only"
NO_RECORDS = "{file}: no judgments found; nothing was imported"
DA_NOT_ATTACHABLE = (
    "{file}: WMT DA rows carry no source text, so their segment ids cannot be checked against it"
)
NOT_ATTACHED = "not attached to test set {test_set}: {reason}"
ATTACHED_CHECKED = "ids and source sentences checked against the test set"
ATTACHED_OWN = "the test set's own <eval> judgments"
NOTE_LENGTH = 300
NO_EVALUATIONS = "test set {test_set} has no EvalTrans <eval> judgments to import"
NOT_EVALTRANS = (
    "test set {test_set} was imported from {format}, not evaltrans-xml; give the EvalTrans XML FILE"
)
AMBIGUOUS_IDS = (
    "test set {test_set} has no unique segment ids (id {seg_id!r} is used {count} times), so "
    "judgments cannot be attached to it"
)
UNKNOWN_SEGMENT = "segment id {seg_id!r} is not a segment of test set {test_set}"
UNKNOWN_SYSTEM = "system {system!r} is neither a system nor a reference of test set {test_set}"
SOURCE_DIFFERS = (
    "segment {seg_id}: the source differs from test set {test_set}'s segment {seg_id} "
    "({ours!r} vs {theirs!r}); the file does not belong to that test set"
)

BULK_BATCH = 2000
# Scales the panels bin raw scores by (see analysis.scale_categories).
SCALE_DA = {"kind": "da", "low": 0, "high": 100}
SCALE_MQM = {"kind": "mqm"}


class JudgmentImportError(ValueError):
    """Import refused; ``str(error)`` is the message for the user."""


class AttachmentError(JudgmentImportError):
    """The judgments do not match the test set; they are imported without attaching."""


@dataclass(frozen=True)
class JudgmentImportResult:
    judgment_set: JudgmentSet
    count: int
    requested_test_set: TestSet | None = None

    @property
    def attachment_refused(self) -> bool:
        """A test set was asked for, but the judgments did not match it."""
        return self.requested_test_set is not None and self.judgment_set.test_set is None

    @property
    def summary(self) -> str:
        meta = self.judgment_set.metadata
        text = (
            f"Imported judgment set {self.judgment_set.name!r}: {self.count} judgments by "
            f"{meta['judges']} judges of {meta['systems']} systems on {meta['segments']} "
            f"segments (aspects: {', '.join(meta['aspects'])})"
        )
        if self.judgment_set.test_set is not None:
            return f"{text}; attached to test set {self.judgment_set.test_set}."
        if self.judgment_set.attachment_note:
            return f"{text}; {self.judgment_set.attachment_note}."
        return f"{text}; not attached to a test set."


@dataclass(frozen=True)
class _Parsed:
    """Records of a file plus what attaching and the panels need."""

    records: list[JudgmentRecord]
    sources: dict[str, str]
    scales: dict[str, dict[str, Any]]
    judge_seconds: dict[str, float]


def judgment_limits() -> FieldLimits:
    """The longest system, segment id, judge and aspect an external judgment stores."""

    def longest(name: str) -> int:
        return ExternalJudgment._meta.get_field(name).max_length

    # EvalTrans references are judged under their label, so labels are system names here.
    return FieldLimits(
        seg_id=longest("segment_key"),
        system=longest("system"),
        reference=longest("system"),
        judge=longest("judge"),
        aspect=longest("aspect"),
    )


# ---------------------------------------------------------------- entry points


def judgmentset_import_file(
    *,
    import_format: str,
    file: InputFile,
    name: str,
    test_set: TestSet | None = None,
    judge_stats: InputFile | None = None,
    user: AbstractBaseUser | None = None,
) -> JudgmentImportResult:
    """Parse one judgments file and store it as a judgment set.

    Args:
        import_format: ``wmt-da-csv``, ``mqm-tsv`` or ``evaltrans-xml``.
        file: the file (name for messages, bytes).
        name: the new set's unique name.
        test_set: attach to this test set where the ids are known to match (module
            docstring); otherwise the set is kept stand-alone with a note saying why.
        judge_stats: WMT DA ``*-trk-mean-sd.txt``, giving raw scores.
        user: who imports (kept on the set).

    Raises:
        CorpusFormatError: bad input, naming file and line.
        JudgmentImportError: name taken, unknown format, and the like.
    """
    _check_name(name)
    if judge_stats is not None and import_format != "wmt-da-csv":
        raise JudgmentImportError(JUDGE_STATS_ONLY_DA)
    unattachable = None
    limits = judgment_limits()
    if import_format == "wmt-da-csv":
        unattachable = DA_NOT_ATTACHABLE.format(file=file.name)
        parsed = _parse_da(file, judge_stats)
    elif import_format == "mqm-tsv":
        parsed = _parse_mqm(file)
    elif import_format == "evaltrans-xml":
        parsed = _parse_evaltrans(
            parse_evaltrans_xml(file=file, source_lang="", target_lang="", limits=limits),
            file.name,
        )
    else:
        known = ", ".join(IMPORT_FORMATS)
        raise JudgmentImportError(UNKNOWN_FORMAT.format(format=import_format, known=known))
    check_records(file, parsed.records, limits)
    check_unique(file, parsed.records)
    return _store(
        name=name.strip(),
        import_format=import_format,
        file_name=file.name + (f" + {judge_stats.name}" if judge_stats else ""),
        parsed=parsed,
        test_set=test_set,
        note=ATTACHED_CHECKED,
        unattachable=unattachable,
        user=user,
    )


def judgmentset_import_test_set(
    *, test_set: TestSet, name: str, user: AbstractBaseUser | None = None
) -> JudgmentImportResult:
    """Store the ``<eval>`` judgments kept with a test set imported from EvalTrans XML.

    The test set's RawEvaluation rows and ``metadata["levels"]`` are the source; the set is
    attached to that test set by construction.

    Raises:
        CorpusFormatError: a value above its class' last level.
        JudgmentImportError: not an EvalTrans test set, no evaluations, name taken.
    """
    _check_name(name)
    if test_set.import_format != "evaltrans-xml":
        raise JudgmentImportError(
            NOT_EVALTRANS.format(test_set=test_set, format=test_set.import_format)
        )
    if not RawEvaluation.objects.filter(segment__test_set=test_set).exists():
        raise JudgmentImportError(NO_EVALUATIONS.format(test_set=test_set))
    source_name = f"test set {test_set}"
    parsed = _parse_evaltrans(testset_corpus_data(test_set=test_set), source_name)
    check_records(InputFile(source_name, b""), parsed.records, judgment_limits())
    check_unique(InputFile(source_name, b""), parsed.records)
    return _store(
        name=name.strip(),
        import_format="evaltrans-xml",
        file_name="",
        parsed=parsed,
        test_set=test_set,
        note=ATTACHED_OWN,
        user=user,
    )


# ---------------------------------------------------------------- parsing


def _parse_da(file: InputFile, judge_stats: InputFile | None) -> _Parsed:
    records = parse_wmt_da_csv(file, judge_stats=judge_stats)
    # WMT gives the time of a whole HIT on each of its rows: a judge's time is the sum over
    # their distinct HITs.
    hits: dict[str, dict[str, float]] = defaultdict(dict)
    for record in records:
        hit, seconds = record.extra.get("HITId"), _float(record.extra.get("time"))
        if hit is not None and seconds is not None:
            hits[record.judge][str(hit)] = seconds
    seconds_by_judge = {judge: sum(times.values()) for judge, times in hits.items()}
    # Stored as JSON, which (like PostgreSQL's jsonb) has no inf: a sum that overflowed is unknown.
    seconds_by_judge = {judge: s for judge, s in seconds_by_judge.items() if math.isfinite(s)}
    scales = {aspect: dict(SCALE_DA) for aspect in {record.aspect for record in records}}
    return _Parsed(records, {}, scales, seconds_by_judge)


def _parse_mqm(file: InputFile) -> _Parsed:
    errors = parse_mqm_errors(file)
    sources = {}
    for error in errors:
        if error.source:
            sources.setdefault(error.seg_id, strip_spans(error.source))
    scales = {aspect: dict(SCALE_MQM) for aspect in MQM_ASPECTS}
    return _Parsed(mqm_records(errors), sources, scales, {})


def _parse_evaltrans(corpus: CorpusData, source_name: str) -> _Parsed:
    levels = levels_from_metadata(corpus.metadata.get("levels"), source_name=source_name)
    records = records_from_corpus(corpus, levels=levels, source_name=source_name)
    sources = {
        segment.seg_id or str(position): segment.source
        for position, segment in enumerate(corpus.segments, 1)
    }
    control = control_classes(levels)
    scales = {
        name: {"kind": "levels", "values": list(range(level.firstvalid, level.count))}
        for name, level in levels.items()
        if name not in control
    }
    return _Parsed(records, sources, scales, {})


def _float(value: object) -> float | None:
    """The finite number ``value`` gives, else None (``nan`` and ``inf`` are no durations)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# ---------------------------------------------------------------- storing


def _check_name(name: str) -> None:
    name = name.strip()
    if is_blank(name):
        raise JudgmentImportError(NAME_REQUIRED)
    # The command line passes names unchecked: refuse what the database could not store.
    limit = JudgmentSet._meta.get_field("name").max_length
    if len(name) > limit:
        raise JudgmentImportError(NAME_TOO_LONG.format(length=len(name), limit=limit))
    problem = unstorable_problem(name)
    if problem is not None:
        raise JudgmentImportError(BAD_NAME.format(name=name, problem=problem))
    if JudgmentSet.objects.filter(name=name).exists():
        raise JudgmentImportError(NAME_TAKEN.format(name=name))
    if Campaign.objects.filter(name=name).exists():
        raise JudgmentImportError(NAME_IS_CAMPAIGN.format(name=name))


def _store(
    *,
    name: str,
    import_format: str,
    file_name: str,
    parsed: _Parsed,
    test_set: TestSet | None,
    note: str,
    user: AbstractBaseUser | None,
    unattachable: str | None = None,
) -> JudgmentImportResult:
    records = parsed.records
    if not records:
        raise JudgmentImportError(NO_RECORDS.format(file=file_name or name))
    attached_to, segments, note = _attachment(
        test_set=test_set,
        records=records,
        sources=parsed.sources,
        file_name=file_name or f"test set {test_set}",
        note=note,
        unattachable=unattachable,
    )
    with transaction.atomic():
        judgment_set = JudgmentSet(
            name=name,
            source_format=import_format,
            file_name=file_name[:255],
            test_set=attached_to,
            attachment_note=note,
            metadata=_metadata(records, parsed),
            created_by=user if user is not None and user.is_authenticated else None,
        )
        try:
            judgment_set.full_clean()
        except ValidationError as error:
            raise JudgmentImportError("; ".join(error.messages)) from None
        judgment_set.save()
        _insert_judgments(judgment_set.pk, records, segments)
        panels_warm_send(judgment_set_id=judgment_set.pk)
    return JudgmentImportResult(judgment_set, len(records), requested_test_set=test_set)


JUDGMENT_COLUMNS = (
    "judgment_set_id",
    "system",
    "segment_key",
    "segment_id",
    "judge",
    "aspect",
    "raw",
    "z_given",
    "kind",
    "extra",
)


def _insert_judgments(
    set_pk: int, records: list[JudgmentRecord], segments: Mapping[str, Segment]
) -> None:
    """Store the records as ``ExternalJudgment`` rows, ``BULK_BATCH`` at a time, as plain
    tuples (:func:`~evaltrans.corpora.bulk.insert_rows`: ``COPY`` on PostgreSQL, one
    ``executemany`` on SQLite). The rows are what ``bulk_create`` of model instances stored
    (``extra`` as the JSON text of ``json.dumps``, Django's encoding of a ``JSONField``), at a
    fraction of the time and without 500,000 model instances in memory at once."""
    segment_pks = {key: segment.pk for key, segment in segments.items()}
    rows = iter(records)
    while batch := list(islice(rows, BULK_BATCH)):
        insert_rows(
            ExternalJudgment,
            JUDGMENT_COLUMNS,
            [
                (
                    set_pk,
                    record.system,
                    record.segment_id,
                    segment_pks.get(record.segment_id),
                    record.judge,
                    record.aspect,
                    None if record.raw is None else float(record.raw),
                    None if record.z_given is None else float(record.z_given),
                    record.kind,
                    json.dumps(record.extra),
                )
                for record in batch
            ],
        )


def _attachment(
    *,
    test_set: TestSet | None,
    records: list[JudgmentRecord],
    sources: Mapping[str, str],
    file_name: str,
    note: str,
    unattachable: str | None,
) -> tuple[TestSet | None, Mapping[str, Segment], str]:
    """The test set to attach to (None where the ids are not known to match), the segment of
    each segment id, and the set's attachment note."""
    if test_set is None:
        return None, {}, ""
    try:
        if unattachable is not None:
            raise AttachmentError(unattachable)
        segments = segments_match(
            test_set=test_set, records=records, sources=sources, file_name=file_name
        )
    except AttachmentError as error:
        reason = NOT_ATTACHED.format(test_set=test_set, reason=error)
        if len(reason) > NOTE_LENGTH:
            reason = reason[: NOTE_LENGTH - 1] + "…"
        return None, {}, reason
    return test_set, segments, note


def _metadata(records: list[JudgmentRecord], parsed: _Parsed) -> dict[str, Any]:
    aspects = sorted({record.aspect for record in records})
    return {
        "aspects": aspects,
        "judges": len({record.judge for record in records}),
        "systems": len({record.system for record in records}),
        "segments": len({record.segment_id for record in records}),
        "judgments": len(records),
        "scales": {aspect: parsed.scales.get(aspect, {"kind": "auto"}) for aspect in aspects},
        "judge_seconds": parsed.judge_seconds,
    }


def segments_match(
    *,
    test_set: TestSet,
    records: Iterable[JudgmentRecord],
    sources: Mapping[str, str],
    file_name: str,
) -> dict[str, Segment]:
    """The test set's segment of each record's segment id, after checking that the ids,
    system names and (where known) source sentences are the test set's.

    A segment's id is its ``seg_id``, or its 1-based position when it has none (as the
    EvalTrans reader numbers segments).

    Raises:
        AttachmentError: ambiguous ids in the test set, or a record that does not match.
    """
    by_key: dict[str, Segment] = {}
    counts: dict[str, int] = defaultdict(int)
    for segment in Segment.objects.filter(test_set=test_set).only(
        "pk", "index", "seg_id", "source"
    ):
        key = segment.seg_id or str(segment.index + 1)
        counts[key] += 1
        by_key[key] = segment
    for key, count in counts.items():
        if count > 1:
            raise AttachmentError(AMBIGUOUS_IDS.format(test_set=test_set, seg_id=key, count=count))
    targets = set(test_set.systems.values_list("name", flat=True))
    targets |= set(
        Reference.objects.filter(segment__test_set=test_set).values_list("label", flat=True)
    )
    for record in records:
        if record.segment_id not in by_key:
            _refuse(
                file_name,
                record,
                UNKNOWN_SEGMENT.format(seg_id=record.segment_id, test_set=test_set),
            )
        if record.system not in targets:
            _refuse(
                file_name, record, UNKNOWN_SYSTEM.format(system=record.system, test_set=test_set)
            )
    for key, source in sources.items():
        theirs = by_key[key].source if key in by_key else None
        if theirs is not None and theirs.strip() != source.strip():
            message = SOURCE_DIFFERS.format(
                seg_id=key, test_set=test_set, ours=source[:60], theirs=theirs[:60]
            )
            raise AttachmentError(f"{file_name}: {message}")
    return by_key


def _refuse(file_name: str, record: JudgmentRecord, message: str) -> None:
    line = record.extra.get("line")
    where = f"{file_name}, line {line}" if isinstance(line, int) else file_name
    raise AttachmentError(f"{where}: {message}")


DEMO_RATINGS_NAME = "WMT21 TED MQM en-de ratings"


def judgmentset_import_demo_ratings(
    *, test_set: TestSet, file: InputFile
) -> JudgmentImportResult | None:
    """The demo's MQM ratings (the same TSV as the demo corpus) as a judgment set attached to
    the demo test set; None when that set exists already (load_demo may run again)."""
    if JudgmentSet.objects.filter(name=DEMO_RATINGS_NAME).exists():
        return None
    return judgmentset_import_file(
        import_format="mqm-tsv", file=file, name=DEMO_RATINGS_NAME, test_set=test_set
    )


def judgmentset_panels_warm(*, judgment_set_id: int) -> list[str]:
    """Compute and cache the panels of an imported set as its pages first show them (the first
    aspect; the ranking's default weighting; agreement per candidate), so the first viewer
    does not wait for them: 4-19 s each at WMT size. Returns the panels computed; none for a
    set deleted meanwhile."""
    try:
        source = human_source_get(kind=SOURCE_SET, pk=judgment_set_id)
    except JudgmentSet.DoesNotExist:
        return []
    if not source.records:
        return []
    warmed = []
    if source.aspects:
        judge_bias_panel(source=source, aspect=source.aspects[0])
        agreement_panel(source=source, aspect=source.aspects[0], unit=None)
        warmed += ["judges", "agreement"]
    if source.score_aspects:
        try:
            ranking_panel(
                source=source, aspect=source.score_aspects[0], weighting=source.default_weighting
            )
        except HumanScoresError:  # the page shows the same message, computed again
            return warmed
        warmed.append("ranking")
    return warmed
