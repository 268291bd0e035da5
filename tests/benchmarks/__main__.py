"""``make bench``: run every benchmark module and print one table, the oracle's time beside ours.

Each module ``tests/benchmarks/bench_*.py`` defines ``run() -> list[BenchRow]``. A module whose
data is absent returns no rows and says why. Pass module names to run only those:
``python -m tests.benchmarks edit ngram``.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

from tests.benchmarks.common import BenchRow, format_table


def main(argv: list[str]) -> int:
    package = importlib.import_module("tests.benchmarks")
    names = sorted(
        info.name[len("bench_") :]
        for info in pkgutil.iter_modules(package.__path__)
        if info.name.startswith("bench_")
    )
    chosen = [name for name in names if not argv or name in argv]
    rows: list[BenchRow] = []
    started = time.perf_counter()
    for name in chosen:
        module = importlib.import_module(f"tests.benchmarks.bench_{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows.extend(module.run())
    print(format_table(rows))
    print(f"\ntotal benchmark time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
