"""Benchmark of EDPM on the demo corpus, MQM TED en-de (14 systems x 529 segments).

Rows: spaCy sentences per second (greedy and beam of 50) over the references; then every
system scored, cold (an empty parse cache: every unique sentence parsed) and warm (a new
cache object on the same file, as a re-run in another worker process: nothing parsed), for
n = 1 and for EDPM's n = 50, and the parser-free DPM{1g,2g}; BLEU's time on the same data
beside them. The model loads once before the timed rows (about 1 s per process).

The hypotheses are German: the English pipeline parses them badly, which changes the numbers,
not the time (spaCy's cost is per token and per beam state).
"""

from __future__ import annotations

import csv
import gzip
import io
import tempfile
import time
from pathlib import Path

from metrics.core import METRICS
from metrics.core.edpm import parsing
from metrics.core.edpm.cache import ParseCache
from tests.benchmarks.common import BenchRow, timed

DEMO = (
    Path(__file__).resolve().parents[2] / "evaltrans" / "corpora" / "demo" / "mqm_ted_ende.tsv.gz"
)


def _load() -> tuple[list[list[str]], list[list[str]]]:
    cells: dict[tuple[str, int], str] = {}
    text = gzip.decompress(DEMO.read_bytes()).decode("utf-8")
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    next(reader)
    for row in reader:
        cells[(row[0], int(row[3]))] = row[6].replace("<v>", "").replace("</v>", "")
    ids = sorted({k for s, k in cells if s == "ref"})
    names = sorted({s for s, _ in cells})  # the reference scored as a system too, as the demo
    return [[cells[("ref", k)]] for k in ids], [[cells.get((s, k), "") for k in ids] for s in names]


def _score_all(options: dict, refs, systems, cache: ParseCache) -> list[float]:
    parsing.parse_cache = lambda: cache  # type: ignore[assignment]
    measure = METRICS["edpm"](**options)
    context = measure.context(refs)
    return [measure.aggregate(measure.statistics(h, refs, context)).score for h in systems]


def run() -> list[BenchRow]:
    reason = parsing.unavailable_reason(parsing.DEFAULT_MODEL)
    if reason is not None:
        print(f"edpm: skipped ({reason})")
        return []
    refs, systems = _load()
    size = f"{len(systems)} systems x {len(refs)} segments"
    unique = len(
        {parsing.normalise(t) for t in [r[0] for r in refs] + [h for s in systems for h in s]}
    )
    nlp = parsing.load_pipeline(parsing.DEFAULT_MODEL, parsing.DEFAULT_MODEL_VERSION)
    bleu_s, _ = timed(lambda: [METRICS["bleu"]().corpus_score(h, refs) for h in systems])
    rows = []
    sample = [parsing.normalise(r[0]) for r in refs]
    for mode, parse in (("greedy", parsing._greedy), ("beam 50", parsing._beam)):
        seconds, _ = timed(lambda parse=parse: list(parse(nlp, sample)))
        rows.append(
            BenchRow(
                f"edpm: spaCy {mode} parse, {len(sample)} references",
                seconds,
                note=f"{len(sample) / seconds:.0f} sentences/s",
            )
        )
    original = parsing.parse_cache
    try:
        for label, options in (
            ("DPM{1g,2g}", {"kinds": "1g,2g"}),
            ("DPM n=1", {"n": 1}),
            ("EDPM n=50", {}),
        ):
            with tempfile.TemporaryDirectory() as directory:
                cold = ParseCache(Path(directory))
                started = time.perf_counter()
                _score_all(options, refs, systems, cold)
                cold_s = time.perf_counter() - started
                warm = ParseCache(Path(directory))
                warm_s, _ = timed(
                    lambda options=options, warm=warm: _score_all(options, refs, systems, warm)
                )
            note = f"{unique} unique sentences, {cold.counts.parsed} parsed cold, {warm.counts.parsed} warm"
            rows.append(
                BenchRow(
                    f"edpm: {label}, {size}, cold cache", cold_s, "BLEU (ours)", bleu_s, note=note
                )
            )
            rows.append(
                BenchRow(f"edpm: {label}, {size}, warm cache", warm_s, "BLEU (ours)", bleu_s)
            )
    finally:
        parsing.parse_cache = original  # type: ignore[assignment]
    return rows
