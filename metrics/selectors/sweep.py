"""Reads for the settings sweep (ablation): one measure, one option, every value — which are
stored, and how each correlates with one human column (thesis tables 8.8–8.21 in one view)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaltrans.corpora.models import TestSet
from judging.humanscores.selectors import HumanSource
from metrics.core import METRICS, MeasureError
from metrics.core.base import Option
from metrics.measure_choices import MeasureChoice
from metrics.models import SystemScore
from metrics.selectors.correlation import (
    MetaEvaluationError,
    correlation_inputs,
    correlation_table,
    human_side,
    measure_results,
)
from metrics.selectors.texts import testset_reference_count

SWEEP_BOOTSTRAP = 200
MAX_SWEEP_VALUES = 12
INTEGER_SPAN = 6
UNKNOWN_MEASURE = "unknown measure {name!r}"
UNKNOWN_OPTION = "measure {measure!r} has no option {option!r} (it has: {known})"
NO_VALUES = "give the values to try for {option!r}, comma-separated (it takes any {kind})"
TOO_MANY_VALUES = "at most {limit} values at once"


def sweepable_options(measure: str) -> dict[str, Option]:
    """The options of ``measure`` a sweep can try (every option but files: a web user names
    no server file, and a file's text is uploaded on the run form; numbers need values given
    unless they are integers with a small range)."""
    if measure not in METRICS:
        raise MetaEvaluationError(UNKNOWN_MEASURE.format(name=measure))
    return {key: option for key, option in METRICS[measure].options.items() if not option.file}


def default_values(option: Option) -> list[str]:
    """What a sweep tries when no values are given: every choice, both booleans, or the
    integers from the minimum (at most ``INTEGER_SPAN`` of them); none for free strings and
    floats."""
    if option.choices:
        return list(option.choices)
    if option.kind is bool:
        return ["false", "true"]
    if option.kind is int:
        low = int(option.minimum if option.minimum is not None else max(0, option.default - 3))
        high = low + INTEGER_SPAN - 1
        if option.maximum is not None:
            high = min(high, int(option.maximum))
        return [str(value) for value in range(low, high + 1)]
    return []


@dataclass(frozen=True)
class SweepValue:
    """One value of the swept option: its signature, and its correlation once stored."""

    value: str
    signature: str
    stored: bool
    correlation: float | None = None
    ci: tuple[float, float] | None = None
    n: int = 0
    is_default: bool = False


def sweep_choices(*, measure: str, option: str, values: Sequence[str]) -> list[MeasureChoice]:
    """The measure settings a sweep needs (for starting a run of the missing ones)."""
    return [MeasureChoice(measure, {option: value}) for value in values]


def sweep_values(
    *, source: HumanSource, measure: str, option: str, values: Sequence[str] = ()
) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """(values, [(value, signature, is_default)]) for a sweep; raises MetaEvaluationError for an
    unknown measure or option, a bad value, or no values for a free option."""
    options = sweepable_options(measure)
    if option not in options:
        raise MetaEvaluationError(
            UNKNOWN_OPTION.format(measure=measure, option=option, known=", ".join(options))
        )
    spec = options[option]
    chosen = [value.strip() for value in values if value.strip()] or default_values(spec)
    if not chosen:
        raise MetaEvaluationError(NO_VALUES.format(option=option, kind=spec.kind.__name__))
    if len(chosen) > MAX_SWEEP_VALUES:
        raise MetaEvaluationError(TOO_MANY_VALUES.format(limit=MAX_SWEEP_VALUES))
    n_refs = testset_reference_count(test_set=source.test_set)
    rows = []
    for value in chosen:
        try:
            built = METRICS[measure](**{option: value})
        except MeasureError as error:
            raise MetaEvaluationError(str(error)) from None
        is_default = built.values[option] == spec.default
        rows.append((value, str(built.signature(n_refs)), is_default))
    return chosen, rows


def sweep(
    *,
    source: HumanSource,
    measure: str,
    option: str,
    values: Sequence[str] = (),
    aspect: str,
    view: str = "raw",
    level: str = "segment",
    grouping: str = "none",
    coefficient: str = "pearson",
    aggregation: str = "corpus",
) -> dict[str, Any]:
    """Every value of the option with its correlation (and a 95 % interval: Fisher-z for pooled
    Pearson, else a seeded bootstrap of ``SWEEP_BOOTSTRAP`` resamples) where it is stored.

    Raises:
        MetaEvaluationError: bad measure, option, values or correlation request.
    """
    if source.test_set is None:
        raise MetaEvaluationError(f"{source.name!r} is not attached to a test set")
    chosen, rows = sweep_values(source=source, measure=measure, option=option, values=values)
    wanted = {signature for _, signature, _ in rows}
    try:
        stored = [
            result
            for result in measure_results(test_set=source.test_set, measures=[measure])
            if result.signature in wanted
        ]
    except MetaEvaluationError:
        stored = []  # nothing of this measure stored yet: every value is missing
    cells = {}
    systems: list[str] = []
    if stored:
        human = human_side(source=source, aspect=aspect, normalized=view == "normalized")
        inputs = correlation_inputs(
            test_set=source.test_set, human=human, results=stored, aggregation=aggregation
        )
        systems = inputs.systems
        pooled_pearson = coefficient == "pearson" and (level == "system" or grouping == "none")
        table = correlation_table(
            inputs,
            level=level,
            grouping=grouping if level == "segment" else "none",
            coefficients=[coefficient],
            bootstrap=0 if pooled_pearson else SWEEP_BOOTSTRAP,
        )
        cells = {cell.signature: cell for cell in table.cells}
    stored_set = {r.signature for r in stored}
    result = []
    for value, signature, is_default in rows:
        cell = cells.get(signature)
        result.append(
            SweepValue(
                value=value,
                signature=signature,
                stored=signature in stored_set,
                correlation=cell.value if cell else None,
                ci=cell.ci if cell else None,
                n=cell.n if cell else 0,
                is_default=is_default,
            )
        )
    finite = [row.correlation for row in result if row.correlation is not None]
    best = max(finite) if finite else None  # table cells are finite or None
    return {
        "measure": measure,
        "option": option,
        "values": result,
        "missing": [row.value for row in result if not row.stored],
        "best": best,
        "systems": systems,
        "chosen": chosen,
    }


def stored_signatures(*, test_set: TestSet) -> set[str]:
    """Every signature with stored results on the test set."""
    return set(
        SystemScore.objects.filter(test_set=test_set).values_list("signature", flat=True).distinct()
    )


def sweep_numbers(data: dict[str, Any]) -> dict[str, Any]:
    """The numbers of a sweep, for its JSON download."""
    return {
        "measure": data["measure"],
        "option": data["option"],
        "values": [
            {
                "value": row.value,
                "signature": row.signature,
                "default": row.is_default,
                "stored": row.stored,
                "correlation": row.correlation,
                "ci": list(row.ci) if row.ci else None,
                "n": row.n,
            }
            for row in data["values"]
        ],
    }
