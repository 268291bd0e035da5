"""Reads for the segment page and the grid view (issue 18: why did each measure score this
sentence as it did?).

* :func:`segment_page`: one segment of a test set with its document context, references, every
  system's candidate with every stored sentence score of that segment (read from the one chunk
  that holds it, not the whole test set) and every human judgment of it, raw and normalized
  per judge, from every judgment set and campaign attached to the test set.
* :func:`grid_page`: one candidate against every reference under the string measures (WER, PER,
  CDER, TER, INVWER, LJWER), as plain alignment views for ``metrics.charts.alignment``; CDER
  once per direction and pad rule, so the page switches between them without a request; and
  the n-gram breakdown of BLEU, NIST and chrF where those measures have ``explain``.

The alignments come from ``metrics.core``; fields that the core adds later (more ``extras``)
are read when present and ignored otherwise.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from judging.humanscores.selectors import CAMPAIGN_KINDS, campaign_records
from judging.models import Campaign
from metrics.core import METRICS, get_metric
from metrics.core.alignment import Alignment, EditOp, grid_and_path, unit_substitution_matrix
from metrics.core.base import Measure, MeasureError, format_signature_value
from metrics.core.human_scores import (
    SCORED_KINDS,
    HumanScoresError,
    normalize_by_judge,
    sentence_statistic,
)
from metrics.core.ter import perform_shift
from metrics.models import SegmentStatistics, SystemScore, unpack_floats
from metrics.selectors.correlation import signature_label

GRID_MEASURES = ("wer", "per", "cder", "ter", "invwer", "ljwer")
"""The measures of the grid view, in the order of its switch."""
EXPLAIN_MEASURES = ("bleu", "nist", "chrf")
CDER_DIRECTIONS = ("forward", "backward")
CDER_PADS = ("both", "none", "left", "right")
DEFAULT_MEASURE = "wer"
HIDDEN_JUDGES_FIELD = "anonymous_judges"
"""The Campaign field that hides judge names from viewers (admins always see them). The model
has no such field yet; while it is absent every campaign shows its judges' names."""

OPTION_PREFIX = "option."


# ------------------------------------------------------------------------- the segment


def test_set_segment(*, test_set_pk: int, number: int) -> tuple[TestSet, Segment]:
    """The test set and its segment ``number`` (1-based).

    Raises:
        TestSet.DoesNotExist, Segment.DoesNotExist: no such test set or segment.
    """
    test_set = TestSet.objects.get(pk=test_set_pk)
    segment = Segment.objects.get(test_set=test_set, index=number - 1)
    return test_set, segment


@dataclass
class ScoreColumn:
    """One stored measure setting of the test set."""

    measure: str
    signature: str
    label: str
    higher_is_better: bool
    grid_options: dict[str, str] | None
    """Options for the grid view (``option.KEY`` values) when the grid draws this measure."""


@dataclass
class ScoreCell:
    value: float | None
    best: bool = False


@dataclass
class CandidateRow:
    system: System
    text: str | None
    scores: list[ScoreCell]


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


@dataclass
class SegmentPage:
    test_set: TestSet
    segment: Segment
    count: int
    previous: Segment | None
    next: Segment | None
    context_before: Segment | None
    context_after: Segment | None
    references: list[Reference]
    columns: list[ScoreColumn]
    rows: list[CandidateRow]
    human: list[HumanTable] = field(default_factory=list)


def segment_page(*, test_set: TestSet, segment: Segment, reveal_judges: bool) -> SegmentPage:
    """Everything the segment page shows. ``reveal_judges``: show judge names even where a
    campaign hides them (admins)."""
    index = segment.index
    neighbours = {
        s.index: s
        for s in Segment.objects.filter(test_set=test_set, index__in=(index - 1, index + 1))
    }
    previous, following = neighbours.get(index - 1), neighbours.get(index + 1)
    count = Segment.objects.filter(test_set=test_set).count()
    references = list(Reference.objects.filter(segment=segment).order_by("label"))
    references = _in_label_order(references, test_set.metadata.get("reference_labels"))
    systems = list(System.objects.filter(test_set=test_set).order_by("name"))
    texts = dict(Candidate.objects.filter(segment=segment).values_list("system_id", "text"))
    columns = score_columns(test_set=test_set)
    values = stored_sentence_scores(test_set=test_set, index=index)
    rows = [
        CandidateRow(
            system=system,
            text=texts.get(system.pk),
            scores=[ScoreCell(values.get((system.pk, column.signature))) for column in columns],
        )
        for system in systems
    ]
    _mark_best(rows, columns)
    return SegmentPage(
        test_set=test_set,
        segment=segment,
        count=count,
        previous=previous,
        next=following,
        context_before=previous if previous and previous.doc_id == segment.doc_id else None,
        context_after=following if following and following.doc_id == segment.doc_id else None,
        references=references,
        columns=columns,
        rows=rows,
        human=segment_judgments(test_set=test_set, segment=segment, reveal_judges=reveal_judges),
    )


def _in_label_order(references: list[Reference], labels: Sequence[str] | None) -> list[Reference]:
    if not labels:
        return references
    rank = {label: position for position, label in enumerate(labels)}
    return sorted(references, key=lambda ref: (rank.get(ref.label, len(rank)), ref.label))


def score_columns(*, test_set: TestSet) -> list[ScoreColumn]:
    """Every measure setting with stored results on the test set, in registry order."""
    rows = (
        SystemScore.objects.filter(test_set=test_set)
        .order_by()
        .values_list("measure", "signature", "higher_is_better")
        .distinct()
    )
    order = {name: position for position, name in enumerate(METRICS)}
    return [
        ScoreColumn(
            measure=measure,
            signature=signature,
            label=signature_label(measure, signature),
            higher_is_better=bool(higher),
            grid_options=signature_options(measure, signature)
            if measure in GRID_MEASURES
            else None,
        )
        for measure, signature, higher in sorted(
            set(rows), key=lambda row: (order.get(row[0], 99), row[1])
        )
    ]


def stored_sentence_scores(*, test_set: TestSet, index: int) -> dict[tuple[int, str], float | None]:
    """(system id, signature) -> the stored sentence score of segment ``index`` (None: NaN).

    Reads only the chunks that hold the segment (one query); the numbers are those
    ``segment_arrays`` assembles for the whole test set.
    """
    rows = SegmentStatistics.objects.filter(
        test_set=test_set, start__lte=index, stop__gt=index
    ).values_list("system_id", "signature", "start", "sentence_scores")
    scores: dict[tuple[int, str], float | None] = {}
    for system_id, signature, start, blob in rows:
        value = float(unpack_floats(blob)[index - start])
        scores[(system_id, signature)] = value if math.isfinite(value) else None
    return scores


def _mark_best(rows: list[CandidateRow], columns: list[ScoreColumn]) -> None:
    for position, column in enumerate(columns):
        values = [row.scores[position].value for row in rows]
        known = [value for value in values if value is not None]
        if len(known) < 2 or min(known) == max(known):
            continue
        best = max(known) if column.higher_is_better else min(known)
        for row in rows:
            cell = row.scores[position]
            cell.best = cell.value is not None and cell.value == best


def signature_options(measure: str, signature: str) -> dict[str, str]:
    """The options of a stored signature that differ from the measure's defaults, as the grid
    view's ``option.KEY`` values (empty for an unknown measure or an unreadable signature)."""
    try:
        options = METRICS[measure].options
    except KeyError:
        return {}
    by_short = {(option.short or key): (key, option) for key, option in options.items()}
    result: dict[str, str] = {}
    for part in signature.split("|")[1:]:
        short, _, value = part.partition(":")
        if short not in by_short:
            continue
        key, option = by_short[short]
        if value == format_signature_value(option.default):
            continue
        if option.kind is bool:
            value = "true" if value == "yes" else "false"
        result[key] = value
    return result


# ------------------------------------------------------------------------- human judgments


def campaign_hides_judges(campaign: Campaign) -> bool:
    return bool(getattr(campaign, HIDDEN_JUDGES_FIELD, False))


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


# ------------------------------------------------------------------------- the grid view


@dataclass
class GridRequest:
    system: str
    measure: str
    reference: str
    options: dict[str, str]


class GridError(ValueError):
    """Bad options for the grid view; the message is for the user."""


def grid_request(
    query: Mapping[str, str], *, systems: Sequence[str], labels: Sequence[str]
) -> GridRequest:
    """The grid view's choices from its query string (unknown values fall back to the first)."""
    system = query.get("system", "")
    measure = query.get("measure", DEFAULT_MEASURE)
    reference = query.get("reference", "")
    options = {
        key[len(OPTION_PREFIX) :]: value
        for key, value in query.items()
        if key.startswith(OPTION_PREFIX) and value != ""
    }
    return GridRequest(
        system=system if system in systems else (systems[0] if systems else ""),
        measure=measure if measure in GRID_MEASURES else DEFAULT_MEASURE,
        reference=reference if reference in labels else (labels[0] if labels else ""),
        options=options,
    )


@dataclass
class GridPage:
    test_set: TestSet
    segment: Segment
    count: int
    request: GridRequest
    systems: list[str]
    candidate: str | None
    references: list[Reference]
    views: dict[str, Any]
    """variant key -> alignment view (see :func:`alignment_view`)."""
    variants: list[dict[str, str]]
    """One entry per variant key: measure, reference, direction, pad."""
    initial: str
    explanations: list[dict[str, Any]]
    error: str = ""


def variant_key(measure: str, reference: str, direction: str = "", pad: str = "") -> str:
    return "|".join((measure, reference, direction, pad))


def grid_page(*, test_set: TestSet, segment: Segment, query: Mapping[str, str]) -> GridPage:
    """Alignment views of one candidate against every reference under every grid measure."""
    systems = list(System.objects.filter(test_set=test_set).order_by("name"))
    references = _in_label_order(
        list(Reference.objects.filter(segment=segment).order_by("label")),
        test_set.metadata.get("reference_labels"),
    )
    request = grid_request(
        query, systems=[s.name for s in systems], labels=[r.label for r in references]
    )
    system = next((s for s in systems if s.name == request.system), None)
    candidate = (
        Candidate.objects.filter(segment=segment, system=system)
        .values_list("text", flat=True)
        .first()
        if system is not None
        else None
    )
    error = ""
    options: dict[str, dict[str, str]] = {name: {} for name in GRID_MEASURES}
    try:
        get_metric(request.measure)(**request.options)
        options[request.measure] = dict(request.options)
    except MeasureError as problem:
        error = f"{problem} — showing the default options instead."
    cder_base = {k: v for k, v in options["cder"].items() if k not in ("direction", "pad-rule")}
    views: dict[str, Any] = {}
    variants: list[dict[str, str]] = []
    if candidate is not None:
        for reference in references:
            for name in GRID_MEASURES:
                if name == "cder":
                    for direction in CDER_DIRECTIONS:
                        for pad in CDER_PADS:
                            key = variant_key(name, reference.label, direction, pad)
                            chosen = {**cder_base, "direction": direction, "pad-rule": pad}
                            views[key] = alignment_view(name, chosen, candidate, reference.text)
                            variants.append(_variant(key, name, reference.label, direction, pad))
                else:
                    key = variant_key(name, reference.label)
                    views[key] = alignment_view(name, options[name], candidate, reference.text)
                    variants.append(_variant(key, name, reference.label))
    initial = _initial_key(request, options["cder"])
    explanations = (
        explanations_for(candidate, [r.text for r in references]) if candidate is not None else []
    )
    return GridPage(
        test_set=test_set,
        segment=segment,
        count=Segment.objects.filter(test_set=test_set).count(),
        request=request,
        systems=[s.name for s in systems],
        candidate=candidate,
        references=references,
        views=views,
        variants=variants,
        initial=initial if initial in views else next(iter(views), ""),
        explanations=explanations,
        error=error,
    )


def _variant(
    key: str, measure: str, reference: str, direction: str = "", pad: str = ""
) -> dict[str, str]:
    return {
        "key": key,
        "measure": measure,
        "reference": reference,
        "direction": direction,
        "pad": pad,
    }


def _initial_key(request: GridRequest, cder_options: Mapping[str, str]) -> str:
    if request.measure != "cder":
        return variant_key(request.measure, request.reference)
    direction = cder_options.get("direction", "forward")
    pad = cder_options.get("pad-rule", "both")
    return variant_key(
        "cder",
        request.reference,
        direction if direction in CDER_DIRECTIONS else "forward",
        pad if pad in CDER_PADS else "both",
    )


# ------------------------------------------------------------------------- alignment views


def alignment_view(measure: str, options: Mapping[str, Any], hyp: str, ref: str) -> dict[str, Any]:
    """The plain data ``metrics.charts.alignment`` draws for one measure and one pair.

    Keys: ``measure``, ``options`` (the non-default ones), ``hyp``/``ref`` (the words after
    preprocessing; TER's ``hyp`` is the shifted candidate and ``original_hyp`` the unshifted
    one), ``x_words``/``y_words`` (along the axes: candidate and reference, swapped for backward
    CDER) with ``x_side``/``y_side``, ``grid`` (DP costs ``grid[l][i]`` or None) and
    ``grid_note``, ``steps`` (the path's edges in grid nodes, each with its kind in candidate →
    reference terms and its cost), ``optimal`` (every edge on some co-optimal path, where the
    measure lists them), ``coverage``, ``shifts``/``shift_positions`` (TER), ``matching`` (PER,
    INVWER leaves), ``tree`` (INVWER), ``blocks`` (LJWER), ``distance``, ``path_cost`` (Σ of the
    costed operations: equals ``distance``), ``penalty``, ``shift_cost``, ``ref_length``,
    ``rate``, ``approximate`` and ``notes``.
    """
    instance: Measure = get_metric(measure)(**dict(options))
    align = instance.align  # type: ignore[attr-defined]
    extra_arguments = {"all_paths": True} if _accepts(align, "all_paths") else {}
    alignment: Alignment = align(hyp, ref, grid=True, **extra_arguments)
    extras = alignment.extras or {}
    defaults = {key: option.default for key, option in instance.options.items()}
    view: dict[str, Any] = {
        "measure": measure,
        "options": {
            key: _plain(value)
            for key, value in instance.values.items()
            if key in defaults and value != defaults[key]
        },
        "hyp": list(alignment.hyp),
        "ref": list(alignment.ref),
        "x_words": list(alignment.hyp),
        "y_words": list(alignment.ref),
        "x_side": "candidate",
        "y_side": "reference",
        "grid": _grid(alignment.grid),
        "grid_note": "",
        "steps": [],
        "optimal": [],
        "coverage": None,
        "coverage_side": "",
        "shifts": [],
        "shift_positions": [],
        "original_hyp": list(alignment.hyp),
        "matching": [],
        "tree": None,
        "blocks": [],
        "distance": float(alignment.distance),
        "penalty": 0.0,
        "shift_cost": 0.0,
        "ref_length": len(alignment.ref),
        "approximate": bool(extras.get("approximate", False)),
        "notes": [],
    }
    if measure == "per":
        _per_view(view, alignment)
    elif measure == "ter":
        _ter_view(view, alignment, extras)
    elif measure == "invwer":
        _invwer_view(view, alignment, extras)
    else:
        backward = measure == "cder" and extras.get("direction") == "backward"
        if backward:
            view.update(
                x_words=list(alignment.ref),
                y_words=list(alignment.hyp),
                x_side="reference",
                y_side="candidate",
            )
        view["steps"] = [_step(op, view, backward) for op in alignment.operations]
        if "optimal_edges" in extras:
            view["optimal"] = [
                [list(op.source), list(op.target)]
                for op in extras["optimal_edges"]
                if op.source is not None and op.target is not None
            ]
        if measure == "cder":
            _cder_view(view, extras, backward)
        if measure == "ljwer":
            view["blocks"] = [dict(block) for block in extras.get("blocks", [])]
            if view["grid"] is not None:
                view["grid_note"] = "Levenshtein costs (the sentence is beyond the exact search)"
    if view["grid"] is None and measure in ("wer", "cder") and view["steps"]:
        view["grid_note"] = "no DP grid returned"
    view["path_cost"] = _path_cost(alignment, view)
    length = view["ref_length"]
    view["rate"] = 100.0 * view["distance"] / length if length else None
    if extras.get("approximate"):
        view["notes"].append(
            "approximate: the sentence is longer than the exact search allows, so the distance "
            "is the Levenshtein upper bound"
        )
    return view


def _accepts(function: Any, name: str) -> bool:
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _path_cost(alignment: Alignment, view: Mapping[str, Any]) -> float:
    """Σ cost of every operation the distance is made of: ``Alignment.cost()`` where the core
    has it, else the path plus TER's shifts and CDER's penalty."""
    if hasattr(alignment, "cost") and callable(alignment.cost):
        return float(alignment.cost())
    total = math.fsum(op.cost for op in alignment.operations)
    return float(total + view["shift_cost"] + view["penalty"])


def _plain(value: Any) -> Any:
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _grid(grid: Sequence[Sequence[float]] | None) -> list[list[float | None]] | None:
    if grid is None:
        return None
    return [[_number(value) for value in row] for row in grid]


def _number(value: Any) -> float | int | None:
    """A JSON-friendly cost: integers without ``.0``, None for infinity and NaN."""
    number = float(value)
    if not math.isfinite(number):
        return None
    return int(number) if number.is_integer() else round(number, 4)


_SWAPPED = {"insert": "delete", "delete": "insert"}


def _step(op: EditOp, view: Mapping[str, Any], backward: bool) -> dict[str, Any]:
    """One path edge in grid nodes; kind, hyp_index and ref_index in candidate → reference
    terms (a backward CDER grid has reference columns and candidate rows)."""
    kind, hyp_index, ref_index = op.kind, op.hyp_index, op.ref_index
    if backward:
        kind = _SWAPPED.get(kind, kind)
        hyp_index, ref_index = ref_index, hyp_index
    hyp, ref = view["hyp"], view["ref"]
    return {
        "kind": kind,
        "source": list(op.source) if op.source is not None else None,
        "target": list(op.target) if op.target is not None else None,
        "cost": float(op.cost),
        "hyp_index": hyp_index,
        "ref_index": ref_index,
        "hyp_word": hyp[hyp_index] if hyp_index is not None and hyp_index < len(hyp) else None,
        "ref_word": ref[ref_index] if ref_index is not None and ref_index < len(ref) else None,
    }


def _cder_view(view: dict[str, Any], extras: Mapping[str, Any], backward: bool) -> None:
    if "coverage" in extras:
        view["coverage"] = [int(count) for count in extras["coverage"]]
        view["coverage_side"] = "reference" if backward else "candidate"
    if "penalty" in extras:
        view["penalty"] = float(extras["penalty"])
    if backward:
        view["notes"].append(
            "backward: the candidate is covered instead of the reference, so the axes swap"
        )


def _word_pairs(view: Mapping[str, Any], operations: Iterable[EditOp]) -> list[dict[str, Any]]:
    hyp, ref = view["hyp"], view["ref"]
    return [
        {
            "kind": op.kind,
            "hyp_index": op.hyp_index,
            "ref_index": op.ref_index,
            "cost": float(op.cost),
            "hyp_word": hyp[op.hyp_index] if op.hyp_index is not None else None,
            "ref_word": ref[op.ref_index] if op.ref_index is not None else None,
        }
        for op in operations
        if op.kind in ("match", "substitute", "insert", "delete")
    ]


def _per_view(view: dict[str, Any], alignment: Alignment) -> None:
    view["matching"] = _word_pairs(view, alignment.operations)
    view["grid_note"] = "PER has no DP grid: it pairs words whatever their position"


def _ter_view(view: dict[str, Any], alignment: Alignment, extras: Mapping[str, Any]) -> None:
    original = list(alignment.hyp)
    shifts = [_shift_dict(shift) for shift in extras.get("shifts", [])]
    shifted = list(extras.get("shifted_hyp", original))
    if "shifted_positions" in extras:
        origin = [int(k) for k in extras["shifted_positions"]]
    else:
        origin = list(range(len(original)))
        for shift in shifts:
            origin = perform_shift(origin, shift["start"], shift["length"], shift["target"])
    positions = [0] * len(original)
    for new, old in enumerate(origin):
        positions[old] = new
    view.update(
        x_words=shifted,
        hyp=shifted,
        original_hyp=original,
        shifts=shifts,
        shift_positions=positions,
        shift_cost=float(len(shifts)),
    )
    view["steps"] = [_step(op, view, False) for op in alignment.operations]
    if shifted and alignment.ref:
        sub = unit_substitution_matrix(shifted, alignment.ref)
        _, table, _ = grid_and_path(shifted, alignment.ref, sub)
        view["grid"] = _grid(table.tolist())
        view["grid_note"] = (
            "Levenshtein costs of the shifted candidate; the path is tercom's beam search"
        )


def _shift_dict(shift: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(shift) and not isinstance(shift, type):
        data = dataclasses.asdict(shift)
    else:
        data = dict(shift)
    return {
        "start": int(data["start"]),
        "length": int(data["length"]),
        "target": int(data["target"]),
        "words": [str(word) for word in data.get("words", [])],
    }


def _invwer_view(view: dict[str, Any], alignment: Alignment, extras: Mapping[str, Any]) -> None:
    denominator = float(extras.get("cost_denominator", 1) or 1)
    tree = extras.get("tree")
    view["tree"] = _scaled_tree(tree, denominator) if isinstance(tree, Mapping) else None
    view["matching"] = _word_pairs(view, alignment.operations)
    view["grid_note"] = "INVWER has no DP grid: rectangles are the blocks of its BTG parse"


def _scaled_tree(node: Mapping[str, Any], denominator: float) -> dict[str, Any]:
    result = {
        "hyp_span": [int(v) for v in node.get("hyp_span", [0, 0])],
        "ref_span": [int(v) for v in node.get("ref_span", [0, 0])],
        "cost": float(node.get("cost", 0)) / denominator,
        "type": str(node.get("type", "")),
    }
    if node.get("children"):
        result["children"] = [_scaled_tree(child, denominator) for child in node["children"]]
    return result


# ------------------------------------------------------------------------- n-gram measures


def explanations_for(candidate: str, references: Sequence[str]) -> list[dict[str, Any]]:
    """The n-gram breakdown of BLEU, NIST and chrF for the candidate, where the measure has an
    ``explain`` method (given the candidate and every reference); else marked unavailable."""
    results = []
    for name in EXPLAIN_MEASURES:
        entry: dict[str, Any] = {"measure": name, "available": False, "error": "", "parts": []}
        try:
            measure = get_metric(name)()
        except (MeasureError, KeyError, ImportError):
            results.append(entry)
            continue
        explain = getattr(measure, "explain", None)
        if callable(explain) and references:
            try:
                result = _call_explain(explain, candidate, list(references))
                entry.update(available=True, parts=displayable(_jsonable(result)))
            except Exception as problem:  # noqa: BLE001 - an unfinished explain must not break the page
                entry["error"] = f"{type(problem).__name__}: {problem}"
        results.append(entry)
    return results


def _call_explain(explain: Any, candidate: str, references: list[str]) -> Any:
    try:
        return explain(candidate, references)
    except (TypeError, AttributeError, ValueError):
        return explain(candidate, references[0])


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable(dataclasses.asdict(value))
    if hasattr(value, "as_dict") and callable(value.as_dict):
        return _jsonable(value.as_dict())
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def displayable(value: Any, title: str = "") -> list[dict[str, Any]]:
    """Turn an explanation into display parts: ``facts`` (name → value pairs), ``table``
    (columns and rows, from a list of records) and ``text``."""
    if isinstance(value, Mapping):
        facts = [(key, item) for key, item in value.items() if not isinstance(item, dict | list)]
        parts: list[dict[str, Any]] = []
        if facts:
            parts.append({"kind": "facts", "title": title, "items": facts})
        for key, item in value.items():
            if isinstance(item, dict | list):
                parts.extend(displayable(item, key if not title else f"{title} · {key}"))
        return parts
    if isinstance(value, list):
        if value and all(isinstance(item, Mapping) for item in value):
            columns: list[str] = []
            for item in value:
                columns.extend(key for key in item if key not in columns)
            rows = [[_cell(item.get(column)) for column in columns] for item in value]
            return [{"kind": "table", "title": title, "columns": columns, "rows": rows}]
        return [{"kind": "text", "title": title, "text": ", ".join(_cell(item) for item in value)}]
    return [{"kind": "text", "title": title, "text": _cell(value)}]


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return " ".join(_cell(item) for item in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{key}: {_cell(item)}" for key, item in value.items())
    return "" if value is None else str(value)
