"""python manage.py evaluate: batch evaluation of a stored test set (see docs/runs.md).

The successor of EvalTrans' batch script (measures spec §15): the run goes through the same
Celery tasks as a run started on the web, through the workers by default, or inside this
process with ``--eager``. Prints the system × measure table (or JSON with ``--json``) and
writes the EvalTrans XML report with ``--report``.
"""

from __future__ import annotations

import json
import shlex
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaltrans.celery import app
from metrics.batch_options import BatchOptions, batch_options_parse
from metrics.measure_choices import RunError, measure_choices_resolve, preset_measures
from metrics.models import MetricRun
from metrics.reports import report_xml
from metrics.selectors.reports import run_report_data
from metrics.selectors.runs import ResultsTable, run_progress, run_results
from metrics.selectors.texts import testset_by_name
from metrics.services.dispatch import BrokerUnavailable, metric_run_dispatch
from metrics.services.runs import metric_run_create, metric_run_start

WAITING_HINT = (
    "no worker has picked the run up yet; start one with `celery -A evaltrans worker` "
    "(sharing EVALTRANS_VAR_DIR / the broker with this command), or use --eager"
)
TIMED_OUT = "gave up waiting after {seconds:g} s; run {run} continues on the workers"


def _split(values: list[str]) -> list[str]:
    """Comma-separated values, possibly given several times."""
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _command_line(options: dict[str, Any], version: int, systems: list[str]) -> str:
    """The canonical command line that reproduces this evaluation (for the report)."""
    parts = ["manage.py", "evaluate", "--test-set", options["test_set"]]
    parts += ["--test-set-version", str(version), "--systems", ",".join(systems)]
    if options["measures"]:
        parts += ["--measures", ",".join(_split(options["measures"]))]
    if options["preset"]:
        parts += ["--preset", options["preset"]]
    for pair in options["option"]:
        parts += ["--option", pair]
    for flag in ("sentences_in_detail", "include_sentences"):
        if options[flag]:
            parts.append("--" + flag.replace("_", "-"))
    if options["chunk_size"]:
        parts += ["--chunk-size", str(options["chunk_size"])]
    if options["report"]:
        parts += ["--report", str(options["report"])]
    return shlex.join(parts)


def _merge_batch_settings(options: dict[str, Any], batch: BatchOptions) -> None:
    """Run settings given as EvalTrans options (``output-file``, ``comment``, flags)."""
    given_as = (("report", "output-file", batch.report), ("comment", "comment", batch.comment))
    for key, evaltrans_key, given in given_as:
        if not given:
            continue
        current = options[key]
        if current and str(current) != given:
            raise CommandError(
                f"--{key} {str(current)!r} and --option {evaltrans_key}={given!r} disagree; "
                "give one of them"
            )
        options[key] = Path(given) if key == "report" else given
    options["sentences_in_detail"] = options["sentences_in_detail"] or batch.sentences_in_detail
    options["include_sentences"] = options["include_sentences"] or batch.include_sentences


@contextmanager
def _eager() -> Any:
    """Run the Celery tasks inside this process (the tasks are the same)."""
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


class Command(BaseCommand):
    help = "Evaluate systems of a stored test set with automatic measures (batch evaluation)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--test-set", required=True, help="Test set name.")
        parser.add_argument(
            "--test-set-version", type=int, help="Test set version (default: latest)."
        )
        parser.add_argument(
            "--systems",
            action="append",
            default=[],
            help="System names, comma-separated (default: all systems of the test set).",
        )
        parser.add_argument(
            "--measures",
            action="append",
            default=[],
            help="Measure names, comma-separated, e.g. wer,cder,bleu (default: the preset's).",
        )
        parser.add_argument(
            "--preset", default="", help="Option preset: thesis, wmt, default (metrics.core)."
        )
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="MEASURE.KEY=VALUE",
            help="A measure option; also KEY=VALUE for every chosen measure having KEY, and "
            "the EvalTrans batch options of measures spec §15 (cder-pad-rule=both, "
            "wer-ref-length-rule=average, nper-max-ngram=3, output-file=FILE, "
            "allow-long-jumps, ...; see docs/runs.md).",
        )
        parser.add_argument("--report", type=Path, help="Write the EvalTrans XML report here.")
        parser.add_argument(
            "--sentences-in-detail",
            action="store_true",
            help="Report: add scores for each candidate sentence.",
        )
        parser.add_argument(
            "--include-sentences",
            action="store_true",
            help="Report: add the candidate, source and reference texts (implies "
            "--sentences-in-detail).",
        )
        parser.add_argument("--comment", default="", help="Comment for the report.")
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")
        parser.add_argument(
            "--eager", action="store_true", help="Compute in this process instead of the workers."
        )
        parser.add_argument(
            "--chunk-size", type=int, help="Segments per task (default: METRICS_CHUNK_SEGMENTS)."
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=3600.0,
            help="Seconds to wait for the workers (default 3600).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        test_set = testset_by_name(name=options["test_set"], version=options["test_set_version"])
        if test_set is None:
            raise CommandError(f"no test set named {options['test_set']!r}")
        systems = list(test_set.systems.order_by("name"))
        wanted = _split(options["systems"])
        if wanted:
            by_name = {system.name: system for system in systems}
            unknown = [name for name in wanted if name not in by_name]
            if unknown:
                known = ", ".join(sorted(by_name))
                raise CommandError(f"no system {unknown[0]!r} in {test_set} (known: {known})")
            systems = [by_name[name] for name in wanted]
        try:
            names = _split(options["measures"])
            if not names and options["preset"]:
                names = [c.name for c in preset_measures(preset=options["preset"])]
            batch = batch_options_parse(pairs=options["option"], measures=names)
            _merge_batch_settings(options, batch)
            choices = measure_choices_resolve(
                names=batch.measures, preset=options["preset"], options=batch.options
            )
            command_line = _command_line(options, test_set.version, [s.name for s in systems])
            start = dict(
                test_set=test_set,
                systems=systems,
                measures=choices,
                preset=options["preset"],
                comment=options["comment"],
                command_line=command_line,
                chunk_size=options["chunk_size"],
            )
            if options["eager"]:
                with _eager():
                    run = self._start_eagerly(start)
            else:
                run = metric_run_start(**start)
                run = self._wait(run, options["timeout"])
        except BrokerUnavailable as error:
            raise CommandError(f"{error} (run {error.run.pk})") from None
        except RunError as error:
            raise CommandError(str(error)) from None
        if run.status != MetricRun.Status.DONE:
            raise CommandError(f"run {run.pk} {run.status}: {run.error or 'no reason recorded'}")
        table = run_results(run=run)
        self.stdout.write(self._json(run, table) if options["json"] else self._table(run, table))
        if options["report"]:
            data = run_report_data(
                run=run,
                sentences_in_detail=options["sentences_in_detail"] or options["include_sentences"],
                include_sentences=options["include_sentences"],
            )
            options["report"].write_text(report_xml(data), encoding="utf-8")
            self.stderr.write(f"report written to {options['report']}")

    def _start_eagerly(self, start: dict[str, Any]) -> MetricRun:
        run = metric_run_create(**start)
        try:
            metric_run_dispatch(run=run)
        except BrokerUnavailable:
            raise
        except Exception as error:  # the task recorded the failure; report it, not a traceback
            run.refresh_from_db()
            if run.status != MetricRun.Status.FAILED:
                raise CommandError(f"run {run.pk}: {type(error).__name__}: {error}") from None
        run.refresh_from_db()
        return run

    def _wait(self, run: MetricRun, timeout: float) -> MetricRun:
        began = time.monotonic()
        last_line = 0.0
        hinted = False
        interactive = self.stderr.isatty()
        while True:
            run.refresh_from_db()
            if not run.is_active:
                if interactive:
                    self.stderr.write("")
                return run
            now = time.monotonic()
            waited = now - began
            if waited > timeout:
                raise CommandError(TIMED_OUT.format(seconds=timeout, run=run.pk))
            if run.status == MetricRun.Status.QUEUED and waited > 10 and not hinted:
                self.stderr.write(WAITING_HINT)
                hinted = True
            if interactive or now - last_line >= 5:
                progress = run_progress(run=run)
                remaining = (
                    f", about {progress.remaining_s:.0f} s left"
                    if progress.remaining_s is not None
                    else ""
                )
                line = (
                    f"run {run.pk}: {progress.status_label.lower()} {progress.percent:5.1f}% "
                    f"({progress.done}/{progress.total} segment-measures){remaining}"
                )
                self.stderr.write(f"\r{line}" if interactive else line, ending="")
                if not interactive:
                    self.stderr.write("")
                last_line = now
            time.sleep(0.5)

    @staticmethod
    def _labels(table: ResultsTable) -> list[str]:
        counts: dict[str, int] = {}
        labels = []
        for column in table.columns:
            counts[column.measure] = counts.get(column.measure, 0) + 1
            number = counts[column.measure]
            labels.append(column.measure if number == 1 else f"{column.measure}#{number}")
        return labels

    def _table(self, run: MetricRun, table: ResultsTable) -> str:
        labels = self._labels(table)
        header = ["system", *labels]
        lines = [header]
        for row in table.rows:
            lines.append(
                [row.system.name]
                + [
                    ("—" if cell.score is None else f"{cell.score:.2f}")
                    + ("*" if cell.best else "")
                    for cell in row.cells
                ]
            )
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        out = []
        for number, line in enumerate(lines):
            cells = [
                cell.ljust(width) if i == 0 else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(line, widths, strict=True))
            ]
            out.append("  ".join(cells))
            if number == 0:
                out.append("  ".join("-" * width for width in widths))
        out.append("")
        out.append(f"run {run.pk} on {run.test_set}; * = best per measure; signatures:")
        out.extend(
            f"  {label}: {column.signature}"
            for label, column in zip(labels, table.columns, strict=True)
        )
        return "\n".join(out)

    def _json(self, run: MetricRun, table: ResultsTable) -> str:
        labels = self._labels(table)
        payload = {
            "run": run.pk,
            "test_set": {"name": run.test_set.name, "version": run.test_set.version},
            "measures": [
                {
                    "label": label,
                    "measure": column.measure,
                    "signature": column.signature,
                    "options": column.options,
                    "higher_is_better": column.higher_is_better,
                }
                for label, column in zip(labels, table.columns, strict=True)
            ],
            "systems": [
                {
                    "name": row.system.name,
                    "scores": {
                        label: cell.score for label, cell in zip(labels, row.cells, strict=True)
                    },
                }
                for row in table.rows
            ],
        }
        return json.dumps(payload, ensure_ascii=False, indent=2)
