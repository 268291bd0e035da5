"""python manage.py delta_correlate --human NAME --test-set NAME --unit document|sentence …

The EDPM paper's experiment 2 (spec edpm-and-protocols §A10): Pearson r of each stored
measure's differences between two systems with the humans' differences, per document or per
length-weighted sentence, over every pair of systems. A table, or with --json the JSON of
docs/measures.md. The human source and test set are resolved as ``manage.py correlate`` does.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from metrics.core.correlation import format_value
from metrics.management.commands import correlate
from metrics.selectors.correlation import human_side, measure_results
from metrics.selectors.delta import LENGTH_TOKENIZER, UNITS, DeltaTable, delta_table


class Command(correlate.Command):
    help = (
        "How well each stored measure's differences between systems predict the humans' "
        "(EDPM paper, experiment 2: predicting ΔHTER)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--human", required=True, help="Judgment set or campaign name.")
        parser.add_argument(
            "--aspect", help="Human aspect (default: the first; 'adequacy+fluency' for A+F)."
        )
        parser.add_argument(
            "--normalized", action="store_true", help="Per-judge normalized scores (default raw)."
        )
        parser.add_argument(
            "--test-set", required=True, help="Test set name (latest version); all its results."
        )
        parser.add_argument("--measures", default="", help="Only these measures (comma list).")
        parser.add_argument(
            "--unit",
            required=True,
            choices=UNITS,
            help="Points per (document, system pair) or per (sentence, system pair), the "
            "latter scaled by the reference length.",
        )
        parser.add_argument(
            "--include-human-systems",
            action="store_true",
            help="Keep human translations judged as systems (left out by default).",
        )
        parser.add_argument("--json", action="store_true", help="Print JSON.")

    def render(self, table: Any) -> str:
        return format_table(table)

    def _table(self, options: dict[str, Any]) -> DeltaTable:
        source, aspect, test_set, _ = correlate.resolve_inputs(options)
        human = human_side(source=source, aspect=aspect, normalized=options["normalized"])
        results = measure_results(test_set=test_set, measures=correlate._names(options["measures"]))
        return delta_table(
            test_set=test_set,
            human=human,
            results=results,
            unit=options["unit"],
            include_human_systems=options["include_human_systems"],
        )


def _number(value: float | None) -> str:
    return format_value(value, missing="n/a")


def format_table(table: DeltaTable) -> str:
    """One row per measure setting: r [95 % CI], n points, points with Δhuman = 0."""
    inputs = table.inputs
    human = inputs.human
    header = ["measure", "r", "95% CI", "n", "Δhuman=0"]
    best = max((row.value for row in table.rows if row.value is not None), default=None)
    rows = [
        [
            row.label + (" (negated)" if row.negated else ""),
            _number(row.value) + ("*" if row.value is not None and row.value == best else ""),
            f"[{_number(row.ci[0])}, {_number(row.ci[1])}]" if row.ci else "",
            str(row.n),
            str(row.human_ties),
        ]
        for row in table.rows
    ]
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in [header, ["-" * width for width in widths], *rows]
    ]
    unit = (
        f"sentence level, points scaled by the first reference's length ({LENGTH_TOKENIZER} tokens)"
        if table.unit == "sentence"
        else "document level, measures aggregated from summed statistics, humans by mean"
    )
    lines += [
        "",
        f"Δ prediction, {unit}; human: {human.name!r}, {human.aspect} ({human.view}"
        + (", negated" if human.negated else "")
        + f", {human.judgments} judgments)",
        f"{len(inputs.systems)} systems, {table.pairs} pairs, {table.units} "
        f"{table.unit}s; every pair oriented so that Δhuman ≥ 0 (Δhuman = 0 kept as is); "
        "error measures negated so that positive = agreement; * = best",
    ]
    lines += [f"{row.label}: {row.note}" for row in table.rows if row.note]
    if inputs.excluded:
        lines.append(
            "left out: "
            + ", ".join(f"{name} ({why})" for name, why in sorted(inputs.excluded.items()))
        )
    return "\n".join(lines)
