"""The ``manage.py evaluate`` call that reproduces a run, rebuilt from what the run computes.

No database and no Django: it takes names and option values, so a report's
``<command-line>`` can be rebuilt from plain data.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from metrics.core.base import format_bool
from metrics.measure_choices import MeasureChoice, measure_build, measure_choices_resolve


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return format_bool(value)
    return str(value)


def evaluate_command_line(
    *,
    test_set_name: str,
    test_set_version: int,
    system_names: Sequence[str],
    measures: Sequence[MeasureChoice],
    preset: str = "",
    comment: str = "",
    chunk_size: int | None = None,
) -> str:
    """The ``manage.py evaluate`` call that computes the same run (same signatures).

    Used for runs started on the web, so their report's ``<command-line>`` reproduces them
    too. Only option values that differ from what ``--preset`` (or the defaults) gives are
    written, as ``--option MEASURE.KEY=VALUE``; an uploaded file is named by its hash
    (``Measure.command_line_values``), as no file of the web user's machine can be named.
    """
    names = list(dict.fromkeys(choice.name for choice in measures))
    parts = ["manage.py", "evaluate", "--test-set", test_set_name]
    parts += ["--test-set-version", str(test_set_version)]
    parts += ["--systems", ",".join(system_names)]
    parts += ["--measures", ",".join(names)]
    if preset:
        parts += ["--preset", preset]
    baseline = {
        choice.name: choice.options
        for choice in measure_choices_resolve(names=names, preset=preset)
    }
    for choice in measures:
        wanted = measure_build(name=choice.name, options=choice.options).command_line_values()
        baseline_measure = measure_build(name=choice.name, options=baseline.get(choice.name, {}))
        given = baseline_measure.command_line_values()
        for key, value in wanted.items():
            if value != given[key]:
                parts += ["--option", f"{choice.name}.{key}={_option_text(value)}"]
    if chunk_size:
        parts += ["--chunk-size", str(chunk_size)]
    if comment:
        parts += ["--comment", comment]
    return shlex.join(parts)
