"""Alignment views: how one string measure aligned one candidate with one reference, as the
plain data ``metrics.charts.alignment`` draws (:func:`alignment_view`).

The alignments come from ``metrics.core``; fields that the core adds later (more ``extras``)
are read when present and ignored otherwise.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from metrics.core import get_metric
from metrics.core.alignment import Alignment, EditOp, grid_and_path, unit_substitution_matrix
from metrics.core.base import Measure
from metrics.core.ter import perform_shift
from metrics.selectors.segments.measures import _accepts


def alignment_view(
    measure: str, options: Mapping[str, Any], hyp: str, ref: str, *, all_paths: bool = False
) -> dict[str, Any]:
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
    ``rate``, ``approximate`` and ``notes``. ``all_paths``: ask the measure for every
    co-optimal edge too (cheap for WER; CDER's long jumps make it slow).
    """
    instance: Measure = get_metric(measure)(**dict(options))
    align = instance.align  # type: ignore[attr-defined]
    extra_arguments = {"all_paths": True} if all_paths and _accepts(align, "all_paths") else {}
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
        "moved": [],
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
    origin = list(range(len(original)))
    moved: set[int] = set()
    for shift in shifts:
        moved.update(origin[shift["start"] : shift["start"] + shift["length"]])
        origin = perform_shift(origin, shift["start"], shift["length"], shift["target"])
    if "shifted_positions" in extras:
        origin = [int(k) for k in extras["shifted_positions"]]
    positions = [0] * len(original)
    for new, old in enumerate(origin):
        positions[old] = new
    view.update(
        x_words=shifted,
        hyp=shifted,
        original_hyp=original,
        shifts=shifts,
        shift_positions=positions,
        moved=sorted(moved),
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
