"""The measures users can pick, by name, and the module and class that implement each.

The names are what the command line, web forms and stored runs use; the order below is the
order in which lists show them. A measure's module is imported only when its class is first
asked for, so importing ``metrics.core`` or building one measure does not load every measure
(and with them numba and scipy.optimize).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from .base import Measure, MeasureError

MEASURES: dict[str, tuple[str, str]] = {
    "wer": ("metrics.core.wer", "WER"),
    "per": ("metrics.core.per", "PER"),
    "msder": ("metrics.core.per", "MSDER"),
    "cder": ("metrics.core.cder", "CDER"),
    "ljwer": ("metrics.core.ljwer", "LJWER"),
    "invwer": ("metrics.core.invwer", "INVWER"),
    "ter": ("metrics.core.ter", "TER"),
    "hter": ("metrics.core.hter", "HTER"),
    "bleu": ("metrics.core.bleu", "BLEU"),
    "nist": ("metrics.core.nist", "NIST"),
    "chrf": ("metrics.core.chrf", "CHRF"),
    "mper": ("metrics.core.mper", "MPER"),
    "skipper": ("metrics.core.mper", "SkipBigramPER"),
    "wnm": ("metrics.core.wnm", "WNM"),
    "asw": ("metrics.core.complexity", "ASW"),
    "edpm": ("metrics.core.edpm", "EDPM"),
}
"""Measure name -> (module, class name)."""

OPT_IN: frozenset[str] = frozenset({"edpm", "hter"})
"""Measures a preset never adds by itself, only when they are named: EDPM parses every sentence
(minutes per test set where the others take seconds) and needs spaCy's model; HTER needs a
post-editing campaign to name."""


class MeasureRegistry(Mapping[str, type[Measure]]):
    """Read-only mapping of measure names to measure classes, in the order of ``places``;
    looking a class up imports its module the first time."""

    def __init__(self, places: Mapping[str, tuple[str, str]]) -> None:
        self._places = places
        self._classes: dict[str, type[Measure]] = {}

    def __getitem__(self, name: str) -> type[Measure]:
        measure = self._classes.get(name)
        if measure is None:
            module, class_name = self._places[name]  # KeyError for unknown names, as a dict
            measure = getattr(importlib.import_module(module), class_name)
            self._classes[name] = measure
        return measure

    def __contains__(self, name: object) -> bool:
        return name in self._places  # without importing the measure

    def __iter__(self) -> Iterator[str]:
        return iter(self._places)

    def __len__(self) -> int:
        return len(self._places)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self._places)})"


METRICS: Mapping[str, type[Measure]] = MeasureRegistry(MEASURES)


def get_metric(name: str) -> type[Measure]:
    try:
        return METRICS[name]
    except KeyError:
        known = ", ".join(sorted(METRICS))
        raise MeasureError(f"unknown measure {name!r} (known: {known})") from None
