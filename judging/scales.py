"""Judging scales as data: the LDC 5-point fluency and adequacy scales, WMT's 0-100 direct
assessment sliders, and their validation.

A scale is a dict ``{"name", "label", "question", "needs_reference", "kind", "levels",
"perfect"}``. ``kind`` is :data:`KIND_LEVELS` (categorical: the judge picks one of ``levels``,
which run from best to worst as ``{"value": int, "text": str}``) or :data:`KIND_SLIDER` (direct
assessment: any integer from the lowest to the highest value of ``levels``, which are then the
slider's labelled anchors, e.g. 0 and 100). A campaign may define its own scales in the same
shape (e.g. NESPOLE!'s 4 grades, ALPAC's 9-point intelligibility).
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

KIND_LEVELS = "levels"
KIND_SLIDER = "slider"
KIND_SPANS = "spans"
"""An MQM error-span aspect: the judge marks spans; the score is computed from them
(``judging.spans``), never given directly."""
KIND_POSTEDIT = "postedit"
"""A post-editing aspect: the judge edits the candidate into a correct translation; the text is
stored (``judging.models.PostEdit``), the judgment's score is always 0 (no score)."""
KINDS = (KIND_LEVELS, KIND_SLIDER, KIND_SPANS, KIND_POSTEDIT)

# WMT direct assessment (Graham et al. 2013, 2017; Appraise's segment-level DA): a 0-100
# slider per aspect. Adequacy is source-based (bilingual judges, WMT since 2019) or
# reference-based (monolingual judges, WMT 2016-2018 into English); fluency needs neither.
DA_MIN = 0
DA_MAX = 100
DA_ADEQUACY_SOURCE = {
    "name": "adequacy",
    "label": "Adequacy",
    "question": "How accurately does the translation convey the meaning of the source?",
    "needs_reference": False,
    "kind": KIND_SLIDER,
    "levels": [
        {"value": DA_MAX, "text": "All meaning preserved"},
        {"value": DA_MIN, "text": "No meaning preserved"},
    ],
    "perfect": DA_MAX,
}
DA_ADEQUACY_REFERENCE = {
    **DA_ADEQUACY_SOURCE,
    "question": "How accurately does the translation express the meaning of the reference?",
    "needs_reference": True,
}
DA_FLUENCY = {
    "name": "fluency",
    "label": "Fluency",
    "question": "How fluent is the translation?",
    "needs_reference": False,
    "kind": KIND_SLIDER,
    "levels": [
        {"value": DA_MAX, "text": "Perfectly fluent"},
        {"value": DA_MIN, "text": "Incomprehensible"},
    ],
    "perfect": DA_MAX,
}
DA_ASPECTS = ("adequacy", "fluency")
DA_BASES = ("source", "reference")

# Relative ranking (WMT 2007-2016): each candidate of a screen gets a rank from 1 (best) to 5
# (worst), ties allowed; the digit keys give the rank. ``perfect`` (the reference level) is 1.
RANK_BEST = 1
RANK_WORST = 5
RANK_NAME = "rank"
RANK = {
    "name": RANK_NAME,
    "label": "Rank",
    "question": "Rank the translations from best (1) to worst (5); ties are allowed.",
    "needs_reference": True,
    "kind": KIND_LEVELS,
    "levels": [
        {"value": 1, "text": "Best"},
        {"value": 2, "text": "2nd"},
        {"value": 3, "text": "3rd"},
        {"value": 4, "text": "4th"},
        {"value": 5, "text": "Worst"},
    ],
    "perfect": RANK_BEST,
}

# Error spans (MQM, ESA): the judge marks error spans of the candidate. MQM's one aspect is
# scored from the spans (``judging.spans.mqm_score``: minus the sum of the importer's MQM
# weights; stored x100 as an integer, 0 = no error); ESA (Kocmi et al. 2024) adds, after the
# spans, a 0-100 overall score on a slider, which is the ESA judgment's score.
MQM_NAME = "mqm"
MQM = {
    "name": MQM_NAME,
    "label": "MQM",
    "question": "Mark every error of the translation, with its category and severity.",
    "needs_reference": False,
    "kind": KIND_SPANS,
    "levels": [{"value": 0, "text": "No errors"}],
    "perfect": 0,
}
ESA_NAME = "esa"
ESA = {
    "name": ESA_NAME,
    "label": "Overall quality",
    "question": "After marking the errors: how good is the translation overall?",
    "needs_reference": False,
    "kind": KIND_SLIDER,
    "levels": [
        {"value": DA_MAX, "text": "Perfect meaning and grammar"},
        {"value": 66, "text": "Most meaning preserved, few grammar mistakes"},
        {"value": 33, "text": "Some meaning preserved, major grammar mistakes"},
        {"value": DA_MIN, "text": "No meaning preserved"},
    ],
    "perfect": DA_MAX,
}


# Post-editing: the one aspect of a post-editing campaign. It has no score of its own (the
# judgment's score is always 0); what counts is the post-edited text and the active time.
POSTEDIT_NAME = "post-edit"
POSTEDIT = {
    "name": POSTEDIT_NAME,
    "label": "Post-edit",
    "question": "Edit the translation into a correct one, changing as little as needed.",
    "needs_reference": False,
    "kind": KIND_POSTEDIT,
    "levels": [{"value": 0, "text": "Post-edited"}],
    "perfect": 0,
}


def _one_aspect(template: dict[str, Any], *, reference: bool) -> list[dict[str, Any]]:
    """The one aspect of a single-aspect protocol, a fresh copy, with the reference shown or
    not."""
    return [{**copy.deepcopy(template), "needs_reference": reference}]


def postedit_scales(*, reference: bool = False) -> list[dict[str, Any]]:
    """The one aspect of a post-editing campaign, with the reference shown or not (a fresh
    copy)."""
    return _one_aspect(POSTEDIT, reference=reference)


def mqm_scales(*, reference: bool = False) -> list[dict[str, Any]]:
    """The one aspect of an MQM campaign, judged with the reference shown or not (WMT MQM:
    source only) (a fresh copy)."""
    return _one_aspect(MQM, reference=reference)


def esa_scales(*, reference: bool = False) -> list[dict[str, Any]]:
    """The one aspect of an ESA campaign: the 0-100 overall score given after the spans, with
    the anchors of Kocmi et al. (2024), judged with the reference shown or not (a fresh copy)."""
    return _one_aspect(ESA, reference=reference)


# Digit keys pick a level, so a scale has at most ten levels, with values 0..9.
MAX_LEVELS = 10
# Lengths of the Aspect columns that store a scale (judging.models.Aspect).
MAX_NAME_LENGTH = 50
MAX_LABEL_LENGTH = 100
MAX_QUESTION_LENGTH = 300
ERROR_SCALE_SHAPE = "A scale needs a name, a label and 2 to 10 levels with distinct values 0-9."
ERROR_SLIDER_SHAPE = (
    "A slider scale needs a name, a label and 2 to 11 labelled anchors with distinct integer "
    "values from 0 to 1000 (the lowest and highest are its ends)."
)
ERROR_SCALE_KIND = "The kind of a scale is 'levels' or 'slider'."
ERROR_SPANS_SCALE = "An error-span (MQM) scale is the built-in one; it takes no levels of its own."
ERROR_POSTEDIT_SCALE = "A post-editing scale is the built-in one; it takes no levels of its own."
ERROR_SCALE_PERFECT = "The perfect level of a scale must be one of its values."
ERROR_SCALE_TOO_LONG = (
    "The {field} of scale {name!r} is {length} characters long; the limit is {limit}."
)


MAX_ANCHORS = 11
MAX_SLIDER_VALUE = 1000


def default_scales() -> list[dict[str, Any]]:
    """Fluency then adequacy on the LDC 5-point scales (fresh copies, safe to change)."""
    return [copy.deepcopy(FLUENCY), copy.deepcopy(ADEQUACY)]


def da_scales(
    *, aspects: tuple[str, ...] | list[str] = ("adequacy",), basis: str = "source"
) -> list[dict[str, Any]]:
    """WMT direct-assessment sliders (0-100): fluency first (judged without the reference),
    then adequacy against the source or the reference (fresh copies).

    Raises:
        ValueError: an aspect other than adequacy or fluency, or a basis other than source or
            reference.
    """
    if not aspects or set(aspects) - set(DA_ASPECTS) or basis not in DA_BASES:
        raise ValueError(f"DA judges {' and '.join(DA_ASPECTS)} against the source or reference.")
    adequacy = DA_ADEQUACY_SOURCE if basis == "source" else DA_ADEQUACY_REFERENCE
    chosen = [DA_FLUENCY] if "fluency" in aspects else []
    chosen += [adequacy] if "adequacy" in aspects else []
    return [copy.deepcopy(scale) for scale in chosen]


def ranking_scales(*, reference: bool = True) -> list[dict[str, Any]]:
    """The one scale of a ranking campaign: ranks 1 (best) to 5 (worst), ties allowed, judged
    with the reference shown (WMT 2012-2016) or without it (a fresh copy)."""
    return _one_aspect(RANK, reference=reference)


def is_rank_scale(scale: dict[str, Any]) -> bool:
    """Whether a (cleaned) scale is the ranking scale, with or without the reference."""
    return {**scale, "needs_reference": True} == {**RANK, "needs_reference": True}


def scale_range(scale: dict[str, Any]) -> tuple[int, int]:
    """Lowest and highest value of a scale (a slider's ends)."""
    values = [int(level["value"]) for level in scale["levels"]]
    return min(values), max(values)


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
            "kind": str(scale.get("kind") or KIND_LEVELS),
            "levels": levels,
            "perfect": int(scale.get("perfect", max(level["value"] for level in levels))),
        }
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(ERROR_SCALE_SHAPE) from error
    if cleaned["kind"] not in KINDS:
        raise ValueError(ERROR_SCALE_KIND)
    values = [level["value"] for level in levels]
    if cleaned["kind"] == KIND_SPANS:
        if {**cleaned, "needs_reference": False} != {**MQM, "needs_reference": False}:
            raise ValueError(ERROR_SPANS_SCALE)
    elif cleaned["kind"] == KIND_POSTEDIT:
        if {**cleaned, "needs_reference": False} != {**POSTEDIT, "needs_reference": False}:
            raise ValueError(ERROR_POSTEDIT_SCALE)
    elif cleaned["kind"] == KIND_SLIDER:
        _check_slider(cleaned, values)
    elif (
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


def _check_slider(scale: dict[str, Any], values: list[int]) -> None:
    if (
        not scale["name"].replace("-", "").replace("_", "").isalnum()
        or not 2 <= len(values) <= MAX_ANCHORS
        or len(set(values)) != len(values)
        or not all(0 <= value <= MAX_SLIDER_VALUE for value in values)
        or not all(level["text"] for level in scale["levels"])
    ):
        raise ValueError(ERROR_SLIDER_SHAPE)


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
