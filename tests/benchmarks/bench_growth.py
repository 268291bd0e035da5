"""Growth curves: how the time and memory of each path grow with the work, at 1×, 10× and 100×
the demo (529 segments × 14 systems).

A deterministic corpus is generated from WMT17 en-de as ``bench_import`` generates it (segment
``i`` takes line ``i mod 3004``, repetitions rotated and numbered; never committed), with the
first 14 systems, and MQM ratings of every (segment, system) by one of 7 raters, with more
errors the less of the reference's words the candidate has (seeded noise; so humans and
measures are related, as in real data). Each step runs as a
whole ``manage.py`` process on a fresh SQLite database, timed with its peak resident memory:

* ``import_corpus text``: the corpus;
* ``evaluate --eager``: 7 measures (BLEU, chrF, TER, WER, PER, CDER, NIST), the run machinery
  in one process (chunk tasks, stored statistics, aggregation);
* ``import_judgments mqm-tsv``: the ratings, attached to the test set;
* ``human_scores --json``: normalization and system scores of the set;
* ``correlate --level segment`` and ``--level system`` (Pearson, Spearman, Kendall τ-b, no
  resampling) over the stored results.

For each path the table gives the time and peak memory at each scale and the fitted growth
exponent: the least-squares slope of log time on log size over the three scales (1 is
linear), of the time less the start-up of a ``manage.py`` process that does nothing (measured
too; a constant that would flatten the curves). The chart draws the same net times.
Set ``EVALTRANS_BENCH_GROWTH_BASE`` (segments at 1×, default 529) to run a smaller curve, and
``EVALTRANS_BENCH_GROWTH_SVG=path`` to also draw the curves (log-log) into an SVG file, as in
``docs/performance.md``. Run ``python -m tests.benchmarks growth`` (about 10 minutes on the
2-core project machine at the default size).
"""

from __future__ import annotations

import math
import os
import random
import tempfile
from pathlib import Path

from tests.benchmarks.bench_import import _data_root, _env, _import_args, _manage, generate
from tests.benchmarks.common import BenchRow

DEMO_SEGMENTS = 529
SYSTEMS = 14
JUDGES = 7
SCALES = (1, 10, 100)
MEASURES = "bleu,chrf,ter,wer,per,cder,nist"
NAME = "growth-x{scale}"
HUMANS = "growth-x{scale} MQM"


def _overlap(candidate: str, reference: str) -> float:
    """A cheap stand-in for a measure: the share of the reference's words the candidate has."""
    words = set(candidate.split())
    reference_words = reference.split()
    if not reference_words:
        return 0.0
    return sum(word in words for word in reference_words) / len(reference_words)


def write_judgments(path: Path, files: dict[str, object], segments: int) -> int:
    """MQM ratings in the google/wmt-mqm-human-evaluation TSV layout (they carry segment ids
    the import checks against the test set, so the set is attached): per (segment, system),
    one of 7 raters marks Major and Minor errors, more of them the less of the reference's
    words the candidate has (seeded noise), or one No-error row. Returns the number of rows."""
    references = Path(str(files["reference"])).read_text(encoding="utf-8").split("\n")
    systems = files["systems"][:SYSTEMS]  # type: ignore[index]
    rng = random.Random(17)
    rows = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.write("system\tseg_id\trater\tcategory\tseverity\n")
        for number, (system, system_path) in enumerate(systems):
            lines = Path(str(system_path)).read_text(encoding="utf-8").split("\n")
            for index in range(segments):
                rater = f"rater{(index + number) % JUDGES}"
                badness = 1.0 - _overlap(lines[index], references[index]) + rng.gauss(0, 0.15)
                errors = [("Accuracy/Mistranslation", "Major")] * int(max(badness, 0) * 3)
                errors += [("Fluency/Grammar", "Minor")] * rng.randint(0, 2)
                for category, severity in errors or [("No-error", "No-error")]:
                    out.write(f"{system}\t{index + 1}\t{rater}\t{category}\t{severity}\n")
                    rows += 1
    return rows


def exponent(sizes: list[float], values: list[float]) -> float:
    """Least-squares slope of log(value) on log(size)."""
    xs = [math.log(size) for size in sizes]
    ys = [math.log(max(value, 1e-9)) for value in values]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def _net(seconds: float, start_up: float) -> float:
    """The time of the work: a process's time less the start-up of any process."""
    return max(seconds - start_up, 0.01)


def _steps(scale: int, files: dict[str, object], judgments: Path) -> list[tuple[str, list[str]]]:
    name, humans = NAME.format(scale=scale), HUMANS.format(scale=scale)
    files = {**files, "systems": files["systems"][:SYSTEMS]}  # type: ignore[index]
    correlate = ["correlate", "--human", humans, "--test-set", name, "--json"]
    return [
        ("import_corpus text", _import_args(files, name)),
        ("evaluate --eager, 7 measures", ["evaluate", "--test-set", name, "--measures", MEASURES,
                                          "--eager", "--json"]),
        ("import_judgments mqm-tsv", ["import_judgments", "mqm-tsv", str(judgments),
                                         "--name", humans, "--test-set", name]),
        ("human_scores --json", ["human_scores", "--name", humans, "--json"]),
        ("correlate --level segment", [*correlate, "--level", "segment"]),
        ("correlate --level system", [*correlate, "--level", "system"]),
    ]  # fmt: skip


def draw_svg(path: Path, sizes: list[int], curves: dict[str, list[float]]) -> None:
    """A log-log chart of seconds against candidates, one line per path (no dependency)."""
    width, height, left, bottom, top, right = 800, 420, 70, 50, 20, 300
    low_x, high_x = math.log10(min(sizes)), math.log10(max(sizes))
    values = [value for series in curves.values() for value in series]
    low_y = math.floor(math.log10(max(min(values), 1e-3)))
    high_y = math.ceil(math.log10(max(values)))
    high_y += high_y == low_y

    def x(size: float) -> float:
        return left + (math.log10(size) - low_x) / (high_x - low_x) * (width - left - right)

    def y(seconds: float) -> float:
        share = (math.log10(max(seconds, 1e-3)) - low_y) / (high_y - low_y)
        return height - bottom - share * (height - top - bottom)

    colours = ["#1f5fbf", "#d0501a", "#1a8a4a", "#8a3ab9", "#b8860b", "#555555"]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for power in range(low_y, high_y + 1):
        level = y(10**power)
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{level:.1f}" y2="{level:.1f}" '
            f'stroke="#ddd"/><text x="{left - 8}" y="{level + 4:.1f}" text-anchor="end">'
            f"{10**power:g} s</text>"
        )
    for size in sizes:
        parts.append(
            f'<text x="{x(size):.1f}" y="{height - bottom + 18}" text-anchor="middle">'
            f"{size:,}</text>"
        )
    parts.append(
        f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">'
        "candidates (segments × systems), log scale</text>"
    )
    for number, (label, series) in enumerate(curves.items()):
        colour = colours[number % len(colours)]
        points = " ".join(f"{x(s):.1f},{y(v):.1f}" for s, v in zip(sizes, series, strict=True))
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        parts.extend(
            f'<circle cx="{x(s):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"/>'
            for s, v in zip(sizes, series, strict=True)
        )
        legend = top + 16 + number * 20
        slope = exponent(sizes, series)
        parts.append(
            f'<line x1="{width - right + 12}" x2="{width - right + 32}" y1="{legend - 4}" '
            f'y2="{legend - 4}" stroke="{colour}" stroke-width="2"/><text x="'
            f'{width - right + 38}" y="{legend}">{label} (size^{slope:.2f})</text>'
        )
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")


def run() -> list[BenchRow]:
    root = _data_root()
    if not (root / "newstest2017-ende-ref.de.gz").exists():
        print("bench_growth: shared data wmt17-en-de-sacrebleu absent (set EVALTRANS_SHARED_DATA)")
        return []
    base = int(os.environ.get("EVALTRANS_BENCH_GROWTH_BASE") or DEMO_SEGMENTS)
    measured: dict[str, list[tuple[float, float]]] = {}
    sizes: list[int] = []
    with tempfile.TemporaryDirectory(prefix="bench-growth-") as folder:
        env = _env(Path(folder) / "var", None)
        _manage(env, "migrate", "--noinput")
        # Every step is a whole process: its start (Django, the apps) is a constant that would
        # flatten the curves; it is measured once and taken off before fitting.
        start_up = min(_manage(env, "shell", "-v", "0", "-c", "pass")[0] for _ in range(3))
        for scale in SCALES:
            segments = base * scale
            files = generate(Path(folder) / f"x{scale}", segments, root)
            judgments = Path(folder) / f"x{scale}-mqm.tsv"
            write_judgments(judgments, files, segments)
            sizes.append(segments * SYSTEMS)
            for label, args in _steps(scale, files, judgments):
                seconds, peak, _ = _manage(env, *args)
                measured.setdefault(label, []).append((seconds, peak))
    rows = [BenchRow("growth: a manage.py process that does nothing (start-up)", start_up)]
    for label, points in measured.items():
        slope = exponent(sizes, [_net(seconds, start_up) for seconds, _ in points])
        for size, scale, (seconds, peak) in zip(sizes, SCALES, points, strict=True):
            rows.append(
                BenchRow(
                    f"growth: {label}, {size // SYSTEMS:,} x {SYSTEMS} ({scale}x)",
                    seconds,
                    target="exponent <= 1.1" if scale == SCALES[-1] else "",
                    note=f"peak RSS {peak:.0f} MB"
                    + (
                        f"; time less start-up ~ size^{slope:.2f} (fit over 1x-100x)"
                        if scale == SCALES[-1]
                        else ""
                    ),
                )
            )
    svg = os.environ.get("EVALTRANS_BENCH_GROWTH_SVG")
    if svg:
        curves = {label: [_net(s, start_up) for s, _ in p] for label, p in measured.items()}
        draw_svg(Path(svg), sizes, curves)
    return rows
