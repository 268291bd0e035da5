"""Reliability figures (issue 15): what the suite proves about access, hostile input and faults,
with how long each proof takes.

* the permission matrix: every named URL × five users × GET/POST checked against its rule;
* fuzzing: every importer and every measure option fed random and mutated input under the
  suite's hypothesis profile (``HYPOTHESIS_PROFILE=fuzz``, as ``make fuzz`` sets, for more);
* fault tests: database, broker and worker faults during judging and runs (PostgreSQL + Redis
  only: set ``DATABASE_URL`` and ``CELERY_BROKER_URL``; skipped otherwise).

Each row runs the tests in a fresh process and reports their outcome; a failure is a row whose
note says FAILED, never a silent pass.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.benchmarks.common import BenchRow

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = re.compile(r"(\d+) (passed|failed|skipped|error|errors)")


def _pytest(paths: list[str], *extra: str) -> tuple[float, dict[str, int]]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    counts = {kind: int(number) for number, kind in SUMMARY.findall(tail)}
    if done.returncode not in (0, 5):  # 5: nothing collected
        counts["failed"] = counts.get("failed", 0) or 1
    return seconds, counts


def _note(counts: dict[str, int], what: str) -> str:
    failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    if failed:
        return f"FAILED: {failed} of {what}"
    return f"{counts.get('passed', 0)} tests passed, {counts.get('skipped', 0)} skipped; 0 failures"


def _matrix_row() -> BenchRow:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evaltrans.settings.test")
    django.setup()  # the rules table names models
    from tests.test_permission_matrix import METHODS, ROLES, RULES

    cells = len(RULES) * len(ROLES) * len(METHODS)
    seconds, counts = _pytest(["tests/test_permission_matrix.py"])
    return BenchRow(
        f"permission matrix: {len(RULES)} URLs x {len(ROLES)} users x {len(METHODS)} methods "
        f"= {cells} cells",
        seconds,
        note=_note(counts, "the matrix tests"),
    )


def _fuzz_row() -> BenchRow:
    modules = sorted(str(path.relative_to(ROOT)) for path in ROOT.glob("tests/**/test_fuzz_*.py"))
    modules.append("tests/metrics/core/test_option_bounds.py")
    profile = os.environ.get("HYPOTHESIS_PROFILE", "default")
    seconds, counts = _pytest(modules)
    return BenchRow(
        f"fuzzing: importers and measure options ({len(modules)} modules, profile {profile})",
        seconds,
        note=_note(counts, "the fuzz tests"),
    )


def _fault_row() -> BenchRow | None:
    database = os.environ.get("DATABASE_URL", "")
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not (database.startswith("postgres") and broker.startswith("redis")):
        print("reliability: fault tests need DATABASE_URL=postgres… and CELERY_BROKER_URL=redis…")
        return None
    seconds, counts = _pytest(["tests/faults"], "-m", "faults")
    return BenchRow(
        "fault tests: database, broker and worker faults (PostgreSQL + Redis)",
        seconds,
        note=_note(counts, "the fault tests"),
    )


def run() -> list[BenchRow]:
    rows = [_matrix_row(), _fuzz_row()]
    fault = _fault_row()
    return rows + ([fault] if fault else [])
