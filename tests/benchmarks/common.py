"""Helpers shared by the benchmark modules: timing and the result table."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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


def manage_env(
    var: Path, database_url: str | None, *, upload_bytes: int, upload_total_bytes: int
) -> dict[str, str]:
    """The environment of a benchmark's ``manage.py`` child: a private ``EVALTRANS_VAR_DIR``
    (SQLite file, filesystem broker) or ``database_url``, quiet logs, and upload caps raised to
    the benchmark's file sizes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    for key in ("DATABASE_URL", "CELERY_BROKER_URL"):
        env.pop(key, None)
    if database_url:
        env["DATABASE_URL"] = database_url
    env.update(
        EVALTRANS_VAR_DIR=str(var),
        DJANGO_SETTINGS_MODULE="evaltrans.settings.dev",
        DEBUG="false",
        LOG_LEVEL="WARNING",
        CORPUS_UPLOAD_MAX_BYTES=str(upload_bytes),
        CORPUS_UPLOAD_MAX_TOTAL_BYTES=str(upload_total_bytes),
    )
    return env


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
