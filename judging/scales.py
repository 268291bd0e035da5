"""Judging scales as data: the LDC 5-point fluency and adequacy scales, and their validation.

A scale is a dict ``{"name", "label", "question", "needs_reference", "levels", "perfect"}``;
``levels`` runs from best to worst as ``{"value": int, "text": str}``. A campaign may define
its own scales in the same shape (e.g. NESPOLE!'s 4 grades, ALPAC's 9-point intelligibility).
"""

from __future__ import annotations

import copy
from typing import Any

# LDC "Assessment of Fluency and Adequacy in Translations" (2005), Table 7.1 of Leusch (2005);
# the level texts are the IWSLT 2004 web form's wording of the same scale.
FLUENCY = {
    "name": "fluency",
    "label": "Fluency",
    "question": "How good is the language of the translation?",
    "needs_reference": False,
    "levels": [
        {"value": 5, "text": "Flawless"},
        {"value": 4, "text": "Good"},
        {"value": 3, "text": "Non-native"},
        {"value": 2, "text": "Disfluent"},
        {"value": 1, "text": "Incomprehensible"},
    ],
    "perfect": 5,
}
ADEQUACY = {
    "name": "adequacy",
    "label": "Adequacy",
    "question": "How much of the meaning of the reference is expressed in the translation?",
    "needs_reference": True,
    "levels": [
        {"value": 5, "text": "All of the meaning"},
        {"value": 4, "text": "Most of the meaning"},
        {"value": 3, "text": "Much of the meaning"},
        {"value": 2, "text": "Little meaning"},
        {"value": 1, "text": "None"},
    ],
    "perfect": 5,
}

# Digit keys pick a level, so a scale has at most ten levels, with values 0..9.
MAX_LEVELS = 10
# Lengths of the Aspect columns that store a scale (judging.models.Aspect).
MAX_NAME_LENGTH = 50
MAX_LABEL_LENGTH = 100
MAX_QUESTION_LENGTH = 300
ERROR_SCALE_SHAPE = "A scale needs a name, a label and 2 to 10 levels with distinct values 0-9."
ERROR_SCALE_PERFECT = "The perfect level of a scale must be one of its values."
ERROR_SCALE_TOO_LONG = (
    "The {field} of scale {name!r} is {length} characters long; the limit is {limit}."
)


def default_scales() -> list[dict[str, Any]]:
    """Fluency then adequacy on the LDC 5-point scales (fresh copies, safe to change)."""
    return [copy.deepcopy(FLUENCY), copy.deepcopy(ADEQUACY)]


def scale_validate(scale: dict[str, Any]) -> dict[str, Any]:
    """A cleaned copy of ``scale``; raises ValueError with a message for users when invalid."""
    try:
        levels = [
            {"value": int(level["value"]), "text": str(level["text"]).strip()}
            for level in scale["levels"]
        ]
        cleaned = {
            "name": str(scale["name"]).strip(),
            "label": str(scale.get("label") or scale["name"]).strip(),
            "question": str(scale.get("question", "")).strip(),
            "needs_reference": bool(scale.get("needs_reference", False)),
            "levels": levels,
            "perfect": int(scale.get("perfect", max(level["value"] for level in levels))),
        }
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(ERROR_SCALE_SHAPE) from error
    values = [level["value"] for level in levels]
    if (
        not cleaned["name"].replace("-", "").replace("_", "").isalnum()
        or not 2 <= len(values) <= MAX_LEVELS
        or len(set(values)) != len(values)
        or not all(0 <= value <= 9 for value in values)
        or not all(level["text"] for level in levels)
    ):
        raise ValueError(ERROR_SCALE_SHAPE)
    if cleaned["perfect"] not in values:
        raise ValueError(ERROR_SCALE_PERFECT)
    _check_lengths(cleaned)
    return cleaned


def _check_lengths(scale: dict[str, Any]) -> None:
    """Refuse texts longer than their database columns (PostgreSQL would fail on insert)."""
    limits = {"name": MAX_NAME_LENGTH, "label": MAX_LABEL_LENGTH, "question": MAX_QUESTION_LENGTH}
    for field, limit in limits.items():
        if len(scale[field]) > limit:
            raise ValueError(
                ERROR_SCALE_TOO_LONG.format(
                    field=field,
                    name=_shortened(scale["name"]),
                    length=len(scale[field]),
                    limit=limit,
                )
            )


def _shortened(text: str, keep: int = 30) -> str:
    return text if len(text) <= keep else text[:keep] + "…"
