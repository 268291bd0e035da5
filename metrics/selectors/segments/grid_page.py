"""Reads for the grid view (issue 18): one candidate against every reference under the string
measures (WER, PER, CDER, TER, INVWER, LJWER), as plain alignment views for
``metrics.charts.alignment``; CDER once per direction and pad rule, so the page switches between
them without a request; and the n-gram breakdown of BLEU, NIST and chrF where those measures
have ``explain``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaltrans.corpora.models import Candidate, Reference, Segment, System, TestSet
from metrics.core import get_metric
from metrics.core.base import MeasureError
from metrics.selectors.segments.alignment_views import alignment_view
from metrics.selectors.segments.explanations import _number_text, explanations_for
from metrics.selectors.segments.measures import GRID_MEASURES, MEASURE_NAMES
from metrics.selectors.segments.segment_page import _in_label_order

CDER_DIRECTIONS = ("forward", "backward")
CDER_PADS = ("both", "none", "left", "right")
PRECOMPUTED_PADS = ("both", "none")
"""CDER pad rules drawn for every page (the free and the fixed path ends); a page asked for
``left`` or ``right`` draws that one too."""
ALL_PATHS = frozenset({"wer"})
"""Measures whose co-optimal edges are drawn (CDER's would cost ~30 ms per 60-word grid)."""
DEFAULT_MEASURE = "wer"

OPTION_PREFIX = "option."


@dataclass
class GridRequest:
    system: str
    measure: str
    reference: str
    options: dict[str, str]


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
    pads: list[str]
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
    asked_pad = options["cder"].get("pad-rule", "both")
    pads = [*PRECOMPUTED_PADS, *([asked_pad] if asked_pad not in PRECOMPUTED_PADS else [])]
    views: dict[str, Any] = {}
    variants: list[dict[str, str]] = []
    if candidate is not None:
        for reference in references:
            for name in GRID_MEASURES:
                if name == "cder":
                    for direction in CDER_DIRECTIONS:
                        for pad in pads:
                            key = variant_key(name, reference.label, direction, pad)
                            chosen = {**cder_base, "direction": direction, "pad-rule": pad}
                            views[key] = alignment_view(name, chosen, candidate, reference.text)
                            variants.append(_variant(key, name, reference.label, direction, pad))
                else:
                    key = variant_key(name, reference.label)
                    views[key] = alignment_view(
                        name,
                        options[name],
                        candidate,
                        reference.text,
                        all_paths=name in ALL_PATHS,
                    )
                    variants.append(_variant(key, name, reference.label))
    if len(references) > 1:
        _mark_scored_reference(views, variants, [r.label for r in references], options, cder_base)
    initial = _initial_key(request, options["cder"])
    explanations = (
        explanations_for(candidate, [r.text for r in references], test_set)
        if candidate is not None
        else []
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
        pads=pads,
        initial=initial if initial in views else next(iter(views), ""),
        explanations=explanations,
        error=error,
    )


def _mark_scored_reference(
    views: dict[str, Any],
    variants: list[dict[str, str]],
    labels: list[str],
    options: Mapping[str, Mapping[str, str]],
    cder_base: Mapping[str, str],
) -> None:
    """With several references, note in each view which reference the measure's sentence score
    takes its distance from (``choose_reference``: the reference-length rule), where the core
    says so."""
    groups: dict[tuple[str, str, str], dict[str, str]] = defaultdict(dict)
    for variant in variants:
        group = (variant["measure"], variant["direction"], variant["pad"])
        groups[group][variant["reference"]] = variant["key"]
    for (measure, direction, pad), keys in groups.items():
        chosen = dict(options[measure])
        if measure == "cder":
            chosen = {**cder_base, "direction": direction, "pad-rule": pad}
        try:
            instance = get_metric(measure)(**chosen)
        except MeasureError:
            continue
        choose = getattr(instance, "choose_reference", None)
        if not callable(choose) or set(keys) != set(labels):
            continue
        distances = [views[keys[label]]["distance"] for label in labels]
        lengths = [views[keys[label]]["ref_length"] for label in labels]
        index, distance, length = choose(distances, lengths)
        rate = f" = {100 * distance / length:.2f} %" if length else ""
        note = (
            f"the sentence score takes its distance from reference {labels[index]}: "
            f"{_number_text(distance)} over a reference length of {_number_text(length)}{rate}"
        )
        for label in labels:
            views[keys[label]]["notes"].append(note)
            views[keys[label]]["scored_reference"] = labels[index]


def variant_title(view: Mapping[str, Any], *, system: str, reference: str) -> str:
    """``CDER (direction backward) · SYSTEM vs reference A``: what one view shows."""
    options = ", ".join(f"{key} {value}" for key, value in view["options"].items())
    name = MEASURE_NAMES.get(view["measure"], view["measure"])
    return f"{name}{f' ({options})' if options else ''} · {system} vs reference {reference}"


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
