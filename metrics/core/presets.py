"""Named option presets: preset name -> measure name -> option values.

``default`` is every measure's own defaults (BLEU and chrF as sacreBLEU, NIST as mteval-v13a
``-c``, the others at the thesis' settings). ``thesis`` switches every measure to the settings
the thesis found best at system level (Table 8.3 in human-eval-and-correlation §4.2, measures
spec §20.1–20.2), BLEU and NIST included:

* mteval tokenization with abbreviations and contractions (``mteval-contractions``), case kept
  (system level "use case");
* distance measures: reference length ``lowestError`` ("best relative sentence"), constant
  substitution costs; CDER forward, boundaries ``both``, no miscoverage penalty;
* BIGRAM-PER and skip-bigram PER (skip 4) with boundaries ``both`` (Table 8.13 = B.13 "+ both");
* BLEU-S with boundaries ``both``, M = 4; reference length ``average``: the rule behind Table
  8.4's BLEU default is not determinable, average fits it and is what thesis §8.5 recommends
  for TIDES (the smoothing and boundary experiments used minimumNearest);
* NIST: M = 5, no boundaries, ``average`` reference length (Table 8.4 = 8.12 "avg length" =
  8.16 "no boundaries"), information weights by Eq. 3.8 as written (``clean``).

TER, chrF, WNM and ASW are not thesis measures: ``thesis`` keeps their defaults, except that
TER keeps case like every thesis measure at system level. No preset names the opt-in
measures (``registry.OPT_IN``: EDPM); they run only when named.
"""

from __future__ import annotations

from typing import Any

from .base import MeasureError

_TEXT = {"tokenize": "mteval-contractions", "lowercase": False}
_DISTANCE = {**_TEXT, "ref-length-rule": "lowestError"}

PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "default": {},
    "thesis": {
        "wer": {**_DISTANCE, "substitution-cost-rule": "none"},
        "per": {**_DISTANCE, "substitution-cost-rule": "none"},
        "msder": dict(_DISTANCE),
        "cder": {
            **_DISTANCE,
            "substitution-cost-rule": "none",
            "pad-rule": "both",
            "direction": "forward",
            "coverage-rule": "none",
        },
        "ljwer": dict(_DISTANCE),
        "invwer": {**_DISTANCE, "transposition-costs": "1,1,1,1,1"},
        "ter": {"case-sensitive": True},
        "bleu": {
            **_TEXT,
            "max-ngram": 4,
            "smoothing": "bleu-s",
            "effective-order": "never",
            "pad-rule": "both",
            "ref-length-rule": "average",
        },
        "nist": {
            **_TEXT,
            "max-ngram": 5,
            "pad-rule": "none",
            "ref-length-rule": "average",
            "formula": "clean",
        },
        "chrf": {},
        "mper": {
            **_DISTANCE,
            "min-ngram": 2,
            "max-ngram": 2,
            "pad-rule": "both",
            "choose-references-separately": False,
        },
        "skipper": {**_DISTANCE, "max-bigram-skip": 4, "pad-rule": "both"},
        "wnm": {},
        "asw": {},
    },
    # WMT standard: sacreBLEU 2.x signatures BLEU nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp,
    # chrF2 (char order 6, word order 0, beta 2) and TER defaults (metric runs, issue 6).
    "wmt": {
        "bleu": {
            "tokenize": "13a",
            "lowercase": False,
            "max-ngram": 4,
            "smoothing": "exp",
            "effective-order": "sentence",
            "pad-rule": "none",
            "ref-length-rule": "minimumNearest",
        },
        "chrf": {"char-order": 6, "word-order": 0, "beta": 2.0, "lowercase": False},
        "ter": {
            "normalized": False,
            "no-punct": False,
            "asian-support": False,
            "case-sensitive": False,
        },
    },
}


def preset_options(preset: str, measure: str) -> dict[str, Any]:
    """The option values ``preset`` gives ``measure`` (empty: the measure's own defaults).

    Raises MeasureError for an unknown preset; the message lists the known ones.
    """
    if preset not in PRESETS:
        raise MeasureError(f"unknown preset {preset!r} (known: {', '.join(sorted(PRESETS))})")
    return dict(PRESETS[preset].get(measure, {}))
