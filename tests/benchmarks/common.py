"""Helpers shared by the benchmark modules: timing and the result table."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class BenchRow:
    """One measured task. ``oracle`` is empty when no external tool does the same job."""

    task: str
    ours_s: float
    oracle: str = ""
    oracle_s: float | None = None
    target: str = ""
    note: str = ""

    @property
    def speedup(self) -> float | None:
        if self.oracle_s is None or self.ours_s <= 0:
            return None
        return self.oracle_s / self.ours_s


def timed(function: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls, and the last result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def format_table(rows: list[BenchRow]) -> str:
    header = ("task", "ours (s)", "oracle", "oracle (s)", "speed-up", "target", "note")
    lines = [header]
    for row in rows:
        speedup = row.speedup
        lines.append(
            (
                row.task,
                f"{row.ours_s:.3f}",
                row.oracle,
                "" if row.oracle_s is None else f"{row.oracle_s:.3f}",
                "" if speedup is None else f"{speedup:.1f}x",
                row.target,
                row.note,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for number, line in enumerate(lines):
        out.append("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
        if number == 0:
            out.append("  ".join("-" * width for width in widths))
    return "\n".join(out)
