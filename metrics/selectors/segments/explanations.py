"""The n-gram breakdown of BLEU, NIST and chrF for the grid view: each measure's
``explain(hyp, refs, context)`` where it has one, shaped for the page (:func:`explanations_for`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evaltrans.corpora.models import TestSet
from metrics.core import get_metric
from metrics.core.base import Measure, MeasureError
from metrics.selectors.segments.measures import EXPLAIN_MEASURES, MEASURE_NAMES, _accepts
from metrics.selectors.texts import testset_references


def explanations_for(
    candidate: str, references: Sequence[str], test_set: TestSet | None = None
) -> list[dict[str, Any]]:
    """The n-gram breakdown of BLEU, NIST and chrF for the candidate against every reference,
    where the measure has ``explain(hyp, refs, context)``; else marked unavailable. NIST gets
    the test set's context, so its information weights are those the sentence was scored
    with."""
    results = []
    for name in EXPLAIN_MEASURES:
        entry: dict[str, Any] = {
            "measure": name,
            "label": MEASURE_NAMES.get(name, name),
            "available": False,
            "error": "",
            "explanation": None,
            "parts": [],
        }
        try:
            measure = get_metric(name)()
        except (MeasureError, KeyError, ImportError):
            results.append(entry)
            continue
        explain = getattr(measure, "explain", None)
        if callable(explain) and references:
            try:
                context = _context(measure, test_set) if name == "nist" and test_set else None
                raw = _call_explain(explain, candidate, list(references), context)
                as_dict = getattr(raw, "as_dict", None)
                result = as_dict() if callable(as_dict) else _jsonable(raw)
                entry["available"] = True
                if isinstance(result, Mapping) and isinstance(result.get("orders"), list):
                    entry["explanation"] = explanation_display(result)
                else:
                    entry["parts"] = displayable(result)
            except Exception as problem:  # noqa: BLE001 - an unfinished explain must not break the page
                entry["error"] = f"{type(problem).__name__}: {problem}"
        results.append(entry)
    return results


_CONTEXTS: dict[tuple[str, int, str], Any] = {}
"""NIST contexts (information weights of a whole test set) by measure, test set and content."""


def _context(measure: Measure, test_set: TestSet) -> Any:
    key = (str(measure.signature(1)), test_set.pk, test_set.content_hash)
    if key not in _CONTEXTS:
        if len(_CONTEXTS) >= 4:
            _CONTEXTS.pop(next(iter(_CONTEXTS)))
        _CONTEXTS[key] = measure.context(testset_references(test_set=test_set))
    return _CONTEXTS[key]


def _call_explain(explain: Any, candidate: str, references: list[str], context: Any) -> Any:
    if context is not None and _accepts(explain, "context"):
        return explain(candidate, references, context=context)
    return explain(candidate, references)


ORDER_VALUES = (
    ("precision", "precision"),
    ("info", "Σ matched·Info"),
    ("term", "term"),
    ("reference_total", "reference m-grams"),
    ("recall", "recall"),
    ("f_score", "F"),
)
"""Per-order numbers an explanation may give, with their column headings, in table order."""
SUMMARY_VALUES = {
    "score_unpenalized": "score before the brevity penalty",
    "precision": "precision",
    "recall": "recall",
    "beta": "β",
}


def explanation_display(result: Mapping[str, Any]) -> dict[str, Any]:
    """An ``Explanation`` (as a dict) for the page: the score's factors, one table row per
    order, and per order the matched m-grams, those clipped away and the reference's missing
    ones (``hyp_count``/``ref_count`` shown as clip counts)."""
    measure = str(result.get("measure", ""))
    percent = measure in ("bleu", "chrf")
    facts: list[tuple[str, str]] = [("sentence score", _number_text(result.get("score")))]
    if result.get("brevity_penalty") is not None:
        facts.append(("brevity penalty", _number_text(result["brevity_penalty"])))
    facts.append(("candidate length", _number_text(result.get("hyp_length"))))
    facts.append(("reference length", _number_text(result.get("reference_length"))))
    if result.get("reference") is not None:
        facts.append(("reference used", f"#{int(result['reference']) + 1}"))
    for key, value in (result.get("values") or {}).items():
        facts.append((SUMMARY_VALUES.get(key, key), _number_text(value)))
    orders = [order for order in result["orders"] if isinstance(order, Mapping)]
    present = [
        (key, label)
        for key, label in ORDER_VALUES
        if any(key in (order.get("values") or {}) for order in orders)
    ]
    rows = []
    for order in orders:
        values = order.get("values") or {}
        rows.append(
            {
                "label": f"{order.get('order')}-{'char' if order.get('kind') == 'char' else 'gram'}",
                "matches": _number_text(values.get("matches")),
                "total": _number_text(values.get("total")),
                "values": [_number_text(values.get(key)) for key, _ in present],
                **_grams(order),
            }
        )
    return {
        "facts": facts,
        "columns": [label for _, label in present],
        "rows": rows,
        "percent": percent,
    }


MAX_GRAMS = 150
"""m-grams listed per order and kind (chrF's character orders have hundreds)."""


def _grams(order: Mapping[str, Any]) -> dict[str, Any]:
    """The order's matched, unmatched and missing m-grams for the page (numbers as text, at
    most ``MAX_GRAMS`` of each, with the count of the rest)."""
    result: dict[str, Any] = {}
    for kind in ("matched", "unmatched", "missing"):
        grams = list(order.get(kind) or [])
        result[kind] = [_gram(gram) for gram in grams[:MAX_GRAMS]]
        result[f"{kind}_more"] = max(0, len(grams) - MAX_GRAMS)
    return result


def _gram(gram: Mapping[str, Any]) -> dict[str, str]:
    hyp, ref, matched = gram.get("hyp_count", 0), gram.get("ref_count", 0), gram.get("matched", 0)
    weight = gram.get("weight")
    return {
        "ngram": str(gram.get("ngram", "")),
        "hyp": str(hyp),
        "ref": str(ref),
        "matched": str(matched),
        "left": str((hyp or 0) - (matched or 0)),
        "weight": "" if weight is None else f"{weight:.3f}",
    }


def _number_text(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            return "–"
        return str(int(number)) if number.is_integer() else f"{number:.4g}"
    return str(value)


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
