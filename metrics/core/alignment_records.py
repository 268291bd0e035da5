"""The JSON records of ``python -m metrics.core align``: one segment's alignment or explanation.

docs/alignments.md describes the record. Edit measures (``align_refs``) give the operations
whose costs add up to ``distance``, word spans after the measure's preprocessing (half-open,
null where an operation consumes no word of that side), and the measure's extras; BLEU, NIST
and chrF (``explain``) give their n-gram tables instead. Pure: no Django, no files.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from .alignment import Alignment, EditOp, transposed
from .base import Measure, MeasureError
from .registry import METRICS

OPERATION_NAMES = {
    "match": "identity",
    "substitute": "substitution",
    "insert": "insertion",
    "delete": "deletion",
    "jump": "jump",
    "shift": "shift",
    "inversion": "inversion",
    "penalty": "penalty",
}
"""``EditOp.kind`` -> the ``op`` the command line prints."""

HIDDEN_EXTRAS = ("reference", "reference_length", "tree")
"""Extras printed elsewhere in the record (reference) or in another form (INVWER's tree is
printed as ``blocks``)."""


def can_align(measure: Measure | type[Measure]) -> bool:
    """Whether the measure has an alignment (``align_refs``) or an explanation (``explain``)."""
    return hasattr(measure, "align_refs") or hasattr(measure, "explain")


def check_alignable(measure: Measure, grid: bool = False, all_paths: bool = False) -> None:
    """Raise MeasureError unless the measure can be aligned as asked."""
    if not can_align(measure):
        names = ", ".join(name for name in METRICS if can_align(METRICS[name]))
        raise MeasureError(f"measure {measure.name} has no alignment (measures with one: {names})")
    align = getattr(measure, "align", None)
    if all_paths and (align is None or "all_paths" not in inspect.signature(align).parameters):
        raise MeasureError(f"--all-paths: measure {measure.name} has no grid of paths (wer, cder)")
    if grid and not hasattr(measure, "align_refs"):
        raise MeasureError(f"--grid: measure {measure.name} has no grid")


def operation_record(op: EditOp, nodes: bool = False) -> dict[str, Any]:
    """``{"op", "hyp", "ref", "cost"}`` plus the operation's details; ``source``/``target``
    grid nodes (i, l) for long jumps, and for every edge with ``nodes``."""
    hyp, ref = op.spans()
    record: dict[str, Any] = {
        "op": OPERATION_NAMES[op.kind],
        "hyp": None if hyp is None else list(hyp),
        "ref": None if ref is None else list(ref),
        "cost": op.cost,
    }
    if (nodes or op.kind == "jump") and op.source is not None and op.target is not None:
        record["source"], record["target"] = list(op.source), list(op.target)
    for key, value in (op.detail or {}).items():
        record.setdefault(key, value)
    return record


def extras_record(alignment: Alignment) -> dict[str, Any]:
    """The measure's extras as the command line prints them."""
    extras = {
        key: value
        for key, value in alignment.as_dict()["extras"].items()
        if key not in HIDDEN_EXTRAS
    }
    if "optimal_edges" in extras:
        extras["optimal_edges"] = [
            operation_record(op, nodes=True) for op in alignment.extras["optimal_edges"]
        ]
    if "backward" in extras:  # CDER's second direction: its numbers (its path is charged)
        backward = extras["backward"]
        summary = {"distance": backward["distance"]}
        summary.update(
            {
                key: value
                for key, value in backward["extras"].items()
                if key in ("cdcd_distance", "penalty", "coverage")
            }
        )
        if "optimal_edges" in backward["extras"]:
            summary["optimal_edges"] = [
                operation_record(transposed(_edit_op(op)), nodes=True)
                for op in backward["extras"]["optimal_edges"]
            ]
        extras["backward"] = summary
    return extras


def _edit_op(data: dict[str, Any]) -> EditOp:
    """An EditOp back from its ``as_dict`` form (tuples came back as lists)."""
    fields = {
        key: tuple(value) if isinstance(value, list) else value for key, value in data.items()
    }
    return EditOp(**fields)


def alignment_record(
    measure: Measure,
    hyp: str,
    refs: Sequence[str],
    context: Any,
    *,
    line: int,
    signature: str,
    score: float | None,
    grid: bool = False,
    all_paths: bool = False,
) -> dict[str, Any]:
    """The record of one segment.

    Args:
        measure: an edit measure (``align_refs``) or BLEU/NIST/chrF (``explain``).
        hyp, refs: the segment's texts. context: the test set's ``measure.context``.
        line: 1-based segment number. signature: the measure's signature.
        score: the sentence score as ``score --sentences`` prints it (from the statistics).
        grid, all_paths: add the DP grid, or every co-optimal grid edge.
    """
    record: dict[str, Any] = {
        "line": line,
        "measure": measure.name,
        "signature": signature,
        "score": score,
    }
    explain = getattr(measure, "explain", None)
    if explain is not None:
        explanation = explain(hyp, refs, context).as_dict()
        orders = explanation.pop("orders")
        values = explanation.pop("values")
        record.update(
            reference=explanation["reference"],
            reference_length=explanation["reference_length"],
            hyp_length=explanation["hyp_length"],
            brevity_penalty=explanation["brevity_penalty"],
            hyp_tokens=explanation["hyp"],
            all_ref_tokens=explanation["refs"],
            **values,
            orders=[_order_record(order) for order in orders],
        )
        return record
    options: dict[str, Any] = {"grid": grid}
    if all_paths:
        options["all_paths"] = True
    alignment: Alignment = measure.align_refs(hyp, refs, **options)  # type: ignore[attr-defined]
    record.update(
        distance=alignment.distance,
        reference_length=alignment.extras["reference_length"],
        reference=alignment.extras["reference"],
        hyp_tokens=alignment.hyp,
        ref_tokens=alignment.ref,
        operations=[operation_record(op) for op in alignment.costed_operations()],
    )
    record.update(extras_record(alignment))
    if grid:
        record["grid"] = alignment.as_dict()["grid"]
    return record


def _order_record(order: dict[str, Any]) -> dict[str, Any]:
    """One order of an explanation: its numbers first, then its n-gram tables (rows without
    a weight lose the null ``weight``)."""
    record = {"order": order["order"], "kind": order["kind"], **order["values"]}
    for table in ("matched", "unmatched", "missing"):
        record[table] = [
            {key: value for key, value in row.items() if not (key == "weight" and value is None)}
            for row in order[table]
        ]
    return record
