"""Which measures a run computes, with which option values: a preset's, overridden by explicit ones.

No database and no Django: the run form, ``manage.py evaluate``, the run services and the
rebuilt command line (``metrics.command_line``) all resolve measures here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from metrics.core import METRICS, Measure, MeasureError, get_metric
from metrics.core.presets import PRESETS, preset_options
from metrics.core.registry import OPT_IN

NO_MEASURES = "choose at least one measure"


class RunError(ValueError):
    """A run cannot be created or changed; ``str(error)`` is the message for the user.

    Defined here, the lowest module that raises it, so that the option parsers stay free of
    Django while the run services raise the same error.
    """


@dataclass(frozen=True)
class MeasureChoice:
    """A measure as requested: registry name and option values (may be partial)."""

    name: str
    options: dict[str, Any]


def _preset_values(preset: str, name: str) -> dict[str, Any]:
    try:
        return preset_options(preset, name)
    except MeasureError as error:
        raise RunError(str(error)) from None


def preset_measures(*, preset: str) -> list[MeasureChoice]:
    """The measures a preset names, with its option values, in registry order.

    A preset that names no measure (``default``) means every registered measure at defaults,
    the opt-in ones (``OPT_IN``: parsed, slow) excepted.
    """
    named = PRESETS.get(preset, {})
    names = [name for name in METRICS if (name in named if named else name not in OPT_IN)]
    return [MeasureChoice(name, _preset_values(preset, name)) for name in names]


def measure_choices_resolve(
    *, names: Sequence[str], preset: str = "", options: dict[str, dict[str, Any]] | None = None
) -> list[MeasureChoice]:
    """Measures to run: ``names`` (or, when empty, the preset's), each with the preset's
    option values overridden by explicit ``options[name]``."""
    chosen = list(names)
    if preset and not chosen:
        chosen = [choice.name for choice in preset_measures(preset=preset)]
    explicit = options or {}
    return [
        MeasureChoice(
            name,
            {**(_preset_values(preset, name) if preset else {}), **explicit.get(name, {})},
        )
        for name in chosen
    ]


def measure_build(*, name: str, options: dict[str, Any]) -> Measure:
    """An instance of a registered measure; bad names or options raise RunError."""
    try:
        return get_metric(name)(**options)
    except MeasureError as error:
        raise RunError(str(error)) from None
