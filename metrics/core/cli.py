"""Command line of metrics.core: score files with any measure, align them, list the measures.

    python -m metrics.core score --measure NAME --ref FILE [--ref FILE ...] --hyp FILE
        [--option KEY=VALUE ...] [--preset NAME] [--sentences]
    python -m metrics.core align --measure NAME --ref FILE [--ref FILE ...] --hyp FILE
        [--option KEY=VALUE ...] [--preset NAME] [--line N] [--grid] [--all-paths]
    python -m metrics.core list

``score`` prints one JSON object ``{"measure", "signature", "score", "sentences"}``
(``sentences`` only with ``--sentences``; undefined scores are null), plus the keys of
:data:`REPORTED_DETAILS` where the measure reports them. ``--ref`` is needed by every
measure except those of the candidate text alone (``asw``). ``--preset`` applies
``PRESETS[name][measure]`` first; explicit ``--option`` values win. Every usage or input
problem exits with status 2 and one line on stderr.

``align`` prints one JSON object per segment (only line N with ``--line N``, 1-based): why
the measure scored it as it did (:mod:`metrics.core.alignment_records`, docs/alignments.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import METRICS, get_metric
from .base import Measure, MeasureError, streams_to_segments
from .presets import preset_options

USAGE_ERROR = 2

REPORTED_DETAILS = ("approximated_segments", "complexity_factor")
"""Corpus details printed as extra keys when present: how many segments got a bound instead
of the exact distance (LJWER, INVWER), and the translation complexity factor C."""


class UsageError(Exception):
    """A problem with the command line or the input files; the message is printed as is."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m metrics.core", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    score = commands.add_parser("score", help="score a hypothesis file against references")
    score.add_argument("--measure", required=True, help="measure name (see `list`)")
    score.add_argument(
        "--ref", action="append", default=[], help="reference file (repeat; not for asw)"
    )
    score.add_argument("--hyp", required=True, help="hypothesis file")
    score.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    score.add_argument("--preset", help="named option preset (metrics.core.presets)")
    score.add_argument("--sentences", action="store_true", help="also print sentence scores")
    align = commands.add_parser(
        "align", help="print each segment's alignment or n-gram explanation as JSON lines"
    )
    align.add_argument("--measure", required=True, help="measure name (see `list`)")
    align.add_argument("--ref", action="append", default=[], help="reference file (repeat)")
    align.add_argument("--hyp", required=True, help="hypothesis file")
    align.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    align.add_argument("--preset", help="named option preset (metrics.core.presets)")
    align.add_argument("--line", type=int, metavar="N", help="only segment N (1-based)")
    align.add_argument("--grid", action="store_true", help="also print the DP grid")
    align.add_argument(
        "--all-paths", action="store_true", help="also print every co-optimal grid edge"
    )
    commands.add_parser("list", help="print every measure with its options as JSON")
    return parser


def read_lines(path: str) -> list[str]:
    """The lines of a UTF-8 text file (a final newline does not make an extra line)."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except UnicodeDecodeError as error:
        raise UsageError(
            f"{path}: not valid UTF-8 ({error.reason} at byte {error.start})"
        ) from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read ({error.strerror or error})") from None
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def measure_options(measure: str, preset: str | None, pairs: Sequence[str]) -> dict[str, Any]:
    """Preset values for the measure, overridden by KEY=VALUE pairs."""
    options: dict[str, Any] = {} if preset is None else preset_options(preset, measure)
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator or not key:
            raise UsageError(f"--option {pair!r}: expected KEY=VALUE")
        options[key] = value
    return options


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


def build_measure(args: argparse.Namespace) -> Measure:
    return get_metric(args.measure)(**measure_options(args.measure, args.preset, args.option))


def read_inputs(
    args: argparse.Namespace, measure: Measure
) -> tuple[list[str], list[list[str]], int]:
    """The hypotheses, the references per segment and the number of reference files of a
    ``score`` or ``align`` command line."""
    if not args.ref and measure.needs_references:
        raise UsageError(f"measure {measure.name} needs at least one --ref file")
    hypotheses = read_lines(args.hyp)
    streams = [read_lines(path) for path in args.ref]
    for path, stream in zip(args.ref, streams, strict=True):
        if len(stream) != len(hypotheses):
            raise UsageError(f"{path} has {len(stream)} lines but {args.hyp} has {len(hypotheses)}")
    references = streams_to_segments(streams) if streams else [[] for _ in hypotheses]
    return hypotheses, references, len(streams)


def score_command(args: argparse.Namespace) -> dict[str, Any]:
    measure = build_measure(args)
    hypotheses, references, n_refs = read_inputs(args, measure)
    score, sentences = measure.whole_score(hypotheses, references, n_refs, args.sentences)
    result: dict[str, Any] = {
        "measure": measure.name,
        "signature": str(score.signature),
        "score": _json_number(score.score),
    }
    if sentences is not None:
        result["sentences"] = [_json_number(x) for x in sentences]
    for key in REPORTED_DETAILS:
        if key in score.details:
            value = score.details[key]
            result[key] = _json_number(value) if isinstance(value, float) else value
    return result


def align_command(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One record per segment (or the ``--line``): see :func:`alignment_record`."""
    # Imported here: the alignment kernels load numba, which scoring BLEU or chrF never needs.
    from .alignment_records import alignment_record, check_alignable

    measure = build_measure(args)
    check_alignable(measure, grid=args.grid, all_paths=args.all_paths)
    hypotheses, references, n_refs = read_inputs(args, measure)
    lines = range(1, len(hypotheses) + 1)
    if args.line is not None:
        if not 1 <= args.line <= len(hypotheses):
            raise UsageError(
                f"--line {args.line} is out of range: {args.hyp} has {len(hypotheses)} lines"
            )
        lines = range(args.line, args.line + 1)
    context = measure.context(references)
    chosen = [references[n - 1] for n in lines]
    stats = measure.statistics([hypotheses[n - 1] for n in lines], chosen, context)
    scores = measure.sentence_scores(stats)
    signature = str(measure.signature(n_refs))
    return [
        alignment_record(
            measure,
            hypotheses[n - 1],
            references[n - 1],
            context,
            line=n,
            signature=signature,
            score=_json_number(float(score)),
            grid=args.grid,
            all_paths=args.all_paths,
        )
        for n, score in zip(lines, scores, strict=True)
    ]


def list_command() -> dict[str, Any]:
    return {name: METRICS[name].describe() for name in sorted(METRICS)}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "align":
            results = align_command(args)
        else:
            results = [score_command(args) if args.command == "score" else list_command()]
    except (UsageError, MeasureError) as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    for result in results:
        json.dump(result, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    return 0
