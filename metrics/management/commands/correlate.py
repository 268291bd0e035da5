"""python manage.py correlate --human NAME (--run ID | --test-set NAME) --level system|segment …

How well each stored measure result agrees with the human scores of a judgment set or campaign:
a table (best per column marked) or, with --json, the JSON contract of docs/correlation.md.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.corpora.models import TestSet
from judging.humanscores.selectors import HumanSourceError, human_source_by_name
from metrics.core.correlation import COEFFICIENTS, GROUPINGS, format_value
from metrics.core.human_scores import WEIGHTING_CHOICES
from metrics.core.resampling import DEFAULT_SEED
from metrics.models import MetricRun
from metrics.selectors.correlation import (
    AGGREGATIONS,
    DEFAULT_COEFFICIENTS,
    LEVELS,
    CorrelationTable,
    MetaEvaluationError,
    correlation_inputs,
    correlation_table,
    human_side,
    measure_results,
)
from metrics.selectors.preferences import NOT_SCORES, SEGMENT_COEFFICIENTS, correlation_aspects
from metrics.selectors.texts import testset_by_name

NO_RUN = "no run with id {pk}"
NO_TEST_SET = "no test set named {name!r}"
OTHER_TEST_SET = "{human!r} scores test set {theirs!r}, not {ours!r}"
NO_JUDGMENTS = "{name!r} has no judgments"
UNKNOWN_ASPECT = "{name!r} has no aspect {aspect!r} (it has: {known})"


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def resolve_inputs(
    options: dict[str, Any], rankings: bool = False
) -> tuple[Any, str, TestSet, MetricRun | None]:
    """The human source, its aspect, the test set and the run (if ``--run``) the options name.

    Shared by the commands that correlate a measure with the humans; raises
    :class:`MetaEvaluationError` with one line for a name, aspect or test set that is wrong.
    A ranking campaign (aspect ``rank``) is refused unless ``rankings``.
    """
    source = human_source_by_name(name=options["human"])
    if source.is_ranking and not rankings:
        raise MetaEvaluationError(NOT_SCORES.format(name=source.name))
    if not source.records and not source.is_ranking:
        raise MetaEvaluationError(NO_JUDGMENTS.format(name=source.name))
    aspects = correlation_aspects(source)
    aspect = options["aspect"] or aspects[0]
    if aspect not in aspects:
        raise MetaEvaluationError(
            UNKNOWN_ASPECT.format(name=source.name, aspect=aspect, known=", ".join(aspects))
        )
    run = None
    if options.get("run") is not None:
        run = MetricRun.objects.select_related("test_set").filter(pk=options["run"]).first()
        if run is None:
            raise MetaEvaluationError(NO_RUN.format(pk=options["run"]))
        test_set = run.test_set
    else:
        test_set = testset_by_name(name=options["test_set"])
        if test_set is None:
            raise MetaEvaluationError(NO_TEST_SET.format(name=options["test_set"]))
    if source.test_set is not None and source.test_set.pk != test_set.pk:
        raise MetaEvaluationError(
            OTHER_TEST_SET.format(
                human=source.name, theirs=str(source.test_set), ours=str(test_set)
            )
        )
    return source, aspect, test_set, run


class Command(BaseCommand):
    help = "Correlation of stored measure results with human scores (meta-evaluation)."
    # A report reads and writes nothing else: Django's system checks (1.5 s of a 10 s command
    # here) are left to ``check``, ``migrate`` and the server.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--human", required=True, help="Judgment set or campaign name.")
        parser.add_argument(
            "--aspect", help="Human aspect (default: the first; 'adequacy+fluency' for A+F)."
        )
        parser.add_argument(
            "--normalized", action="store_true", help="Per-judge normalized scores (default raw)."
        )
        parser.add_argument(
            "--weighting",
            choices=WEIGHTING_CHOICES,
            help="Human system-score weights, as for human_scores (default: reference length).",
        )
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--run", type=int, help="Correlate the measures of this run.")
        which.add_argument(
            "--test-set", help="Correlate every stored result of this test set (latest version)."
        )
        parser.add_argument("--measures", default="", help="Only these measures (comma list).")
        parser.add_argument("--level", required=True, choices=LEVELS)
        parser.add_argument("--grouping", default="none", choices=GROUPINGS)
        parser.add_argument(
            "--coefficients",
            help=f"Comma list of: {', '.join(COEFFICIENTS)} (default: "
            f"{','.join(DEFAULT_COEFFICIENTS)}; for a ranking campaign at segment level: "
            f"{','.join(SEGMENT_COEFFICIENTS)}).",
        )
        parser.add_argument("--aggregation", default="corpus", choices=AGGREGATIONS)
        parser.add_argument(
            "--include-human-systems",
            action="store_true",
            help="Keep human translations judged as systems (left out by default).",
        )
        parser.add_argument(
            "--bootstrap", type=int, default=0, help="Bootstrap resamples for every interval."
        )
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
        parser.add_argument("--json", action="store_true", help="Print JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            table = self._table(options)
        except (MetaEvaluationError, HumanSourceError) as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(table.as_dict(), indent=2))
        else:
            self.stdout.write(self.render(table))

    def render(self, table: Any) -> str:
        """The table as text (commands built on this one print their own tables)."""
        return format_table(table)

    def _table(self, options: dict[str, Any]) -> CorrelationTable:
        source, aspect, test_set, run = resolve_inputs(options, rankings=True)
        human = human_side(
            source=source,
            aspect=aspect,
            normalized=options["normalized"],
            weighting=options["weighting"],
            test_set=test_set,
        )
        results = measure_results(test_set=test_set, run=run, measures=_names(options["measures"]))
        inputs = correlation_inputs(
            test_set=test_set,
            human=human,
            results=results,
            aggregation=options["aggregation"],
            include_human_systems=options["include_human_systems"],
        )
        return correlation_table(
            inputs,
            level=options["level"],
            grouping=options["grouping"],
            coefficients=_names(options["coefficients"])
            if options["coefficients"]
            else list(
                SEGMENT_COEFFICIENTS
                if source.is_ranking and options["level"] == "segment"
                else DEFAULT_COEFFICIENTS
            ),
            bootstrap=options["bootstrap"],
            seed=options["seed"],
        )


def _number(value: float | None) -> str:
    return format_value(value, missing="n/a")


def format_table(table: CorrelationTable) -> str:
    """One row per measure setting, one column per coefficient (value [CI]), * = best."""
    inputs = table.inputs
    human = inputs.human
    header = ["measure", *table.coefficients]
    rows = []
    for measure in inputs.measures:
        row = [measure.label + (" (negated)" if measure.negated else "")]
        for coefficient in table.coefficients:
            cell = table.cell(measure.signature, coefficient)
            text = _number(cell.value) + ("*" if cell.best else "")
            if cell.ci:
                text += f" [{_number(cell.ci[0])}, {_number(cell.ci[1])}]"
            row.append(text)
        rows.append(row)
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in [header, ["-" * width for width in widths], *rows]
    ]
    grouping = f", grouping {table.grouping}" if table.level == "segment" else ""
    skipped = max((cell.groups_skipped for cell in table.cells), default=0)
    lines += [
        "",
        f"{table.level} level{grouping}; measures aggregated by {table.aggregation}; "
        f"human: {human.name!r}, {human.aspect} ({human.view}"
        + (", negated" if human.negated else "")
        + f", {human.judgments} judgments)",
        f"{len(inputs.systems)} systems"
        + ("" if human.stand_alone else f", {len(inputs.items)} judged segments")
        + "; * = best per column; error measures negated so that positive = agreement",
    ]
    if human.preferences is not None:
        lines.append(
            "ranking campaign: system level = Expected Wins (WMT 2013); segment level = WMT "
            "2014-2016 Kendall's tau over the human preferences (human ties left out, metric "
            f"ties discordant; {len(human.preferences)} preferences, n = pairs counted)"
        )
    if human.stand_alone:
        lines.append(
            "stand-alone set (not attached to the test set): its system scores, matched to the "
            "measures' systems by name"
        )
    if skipped:
        lines.append(f"groups skipped (fewer than 2 judged cells or constant): up to {skipped}")
    if inputs.excluded:
        lines.append(
            "left out: "
            + ", ".join(f"{name} ({why})" for name, why in sorted(inputs.excluded.items()))
        )
    return "\n".join(lines)
