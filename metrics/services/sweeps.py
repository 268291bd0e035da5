"""Settings sweeps: start the run that computes the values of a swept option not yet stored."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from judging.humanscores.selectors import HumanSource
from metrics.measure_choices import RunError
from metrics.models import MetricRun
from metrics.selectors import sweep as sweep_selectors
from metrics.services.runs import metric_run_start

NOTHING_MISSING = "every value of {option!r} is already computed"


def sweep_run_start(
    *,
    source: HumanSource,
    measure: str,
    option: str,
    values: Sequence[str] = (),
    user: AbstractBaseUser | AnonymousUser | None = None,
) -> MetricRun:
    """One run over every system of the test set for the values whose signature is not stored
    (stored ones are reused by signature anyway, so nothing is computed twice).

    Raises:
        MetaEvaluationError: bad measure, option or values.
        RunError: nothing is missing, or the run cannot be created.
    """
    chosen, rows = sweep_selectors.sweep_values(
        source=source, measure=measure, option=option, values=values
    )
    stored = sweep_selectors.stored_signatures(test_set=source.test_set)
    missing = [value for value, signature, _ in rows if signature not in stored]
    if not missing:
        raise RunError(NOTHING_MISSING.format(option=option))
    return metric_run_start(
        test_set=source.test_set,
        systems=list(source.test_set.systems.all()),
        measures=sweep_selectors.sweep_choices(measure=measure, option=option, values=missing),
        comment=f"Settings sweep of {measure} {option}: {', '.join(missing)}",
        user=user if user is not None and user.is_authenticated else None,
    )
