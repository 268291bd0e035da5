"""The measures the segment pages show, their display names, and whether a measure's method
takes a keyword (the core adds keywords over time)."""

from __future__ import annotations

import inspect
from typing import Any

GRID_MEASURES = ("wer", "per", "cder", "ter", "invwer", "ljwer")
"""The measures of the grid view, in the order of its switch."""
EXPLAIN_MEASURES = ("bleu", "nist", "chrf")
MEASURE_NAMES = {
    "wer": "WER",
    "per": "PER",
    "cder": "CDER",
    "ter": "TER",
    "invwer": "INVWER",
    "ljwer": "LJWER",
    "bleu": "BLEU",
    "nist": "NIST",
    "chrf": "chrF",
}


def _accepts(function: Any, name: str) -> bool:
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
