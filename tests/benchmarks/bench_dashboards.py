"""Correlation dashboards on the demo: how long the matrix takes to serve, cold, and how long
``manage.py correlate --json`` takes as a whole process.

Set-up (not timed): a fresh SQLite database in a temporary folder gets the demo corpus, its MQM
ratings and 20 stored measure settings (the demo run plus 13 variants). The matrix has 14 − 1
systems × 529 segments × 20 settings × 12 human columns (3 MQM aspects × raw/normalized × system
and pooled segment level). Targets: matrix < 1 s cold, server time; correlate < 3 s; the
segment page of a long segment (64/70 words, 13 systems) < 0.3 s, and its alignment grids.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.common import BenchRow

PROJECT = Path(__file__).resolve().parents[2]
DEMO = "WMT21 TED MQM en-de"
RATINGS = "WMT21 TED MQM en-de ratings"
VARIANTS = [
    ("cder,bleu,nist,per", ["cder.pad-rule=none", "bleu.smoothing=none", "nist.pad-rule=both",
                            "per.ref-length-rule=average"]),
    ("wer,per,cder,bleu,chrf", ["lowercase=true"]),
    ("wer,ter,bleu,chrf", ["wer.tokenize=none", "ter.case-sensitive=true", "bleu.max-ngram=2",
                           "chrf.word-order=2"]),
]  # fmt: skip

TIME_MATRIX = """
import time
from django.test.utils import setup_test_environment
setup_test_environment()  # keeps the response's template context, for the sizes printed
from django.core.cache import cache
from django.test import Client
from django.contrib.auth import get_user_model
from judging.humanscores.models import JudgmentSet
user = get_user_model().objects.get(username="admin")
client = Client(SERVER_NAME="localhost")
client.force_login(user)
pk = JudgmentSet.objects.get(name={ratings!r}).pk
# A server process has served pages before: warm its imports and templates on another
# dashboard (the scatter page), then time the matrix with an empty cache.
client.get(f"/correlation/set/{{pk}}/scatter/")
for coefficient in ("pearson", "kendall-b"):
    cache.clear()
    start = time.perf_counter()
    response = client.get(f"/correlation/set/{{pk}}/", {{"coefficient": coefficient}})
    seconds = time.perf_counter() - start
    assert response.status_code == 200, response.status_code
    matrix = response.context["matrix"]
    print("MATRIX", coefficient, seconds, len(matrix.rows), len(matrix.columns))
from evaltrans.corpora.models import TestSet
test_set = TestSet.objects.get(name={demo!r})
for name, path in (("page", f"/segments/{{test_set.pk}}/23/"),
                   ("grid", f"/segments/{{test_set.pk}}/23/grid/?system=Online-W")):
    client.get(path)
    best = 1e9
    for _ in range(3):
        start = time.perf_counter()
        assert client.get(path).status_code == 200
        best = min(best, time.perf_counter() - start)
    print("SEGMENT", name, best)
"""


def _manage(env: dict[str, str], *args: str, timeout: int = 900) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed: {result.stderr[-2000:]}")
    return result.stdout


def run() -> list[BenchRow]:
    with tempfile.TemporaryDirectory(prefix="bench-dashboards-") as folder:
        env = {
            **os.environ,
            "EVALTRANS_VAR_DIR": folder,
            "DJANGO_SETTINGS_MODULE": "evaltrans.settings.dev",
        }
        env.pop("DATABASE_URL", None)
        started = time.perf_counter()
        _manage(env, "migrate", "--noinput", "-v0")
        _manage(env, "load_demo")
        _manage(env, "load_demo_runs")
        for measures, options in VARIANTS:
            option_args = [part for option in options for part in ("--option", option)]
            _manage(
                env, "evaluate", "--test-set", DEMO, "--measures", measures, *option_args, "--eager"
            )
        print(f"bench_dashboards: set-up in {time.perf_counter() - started:.1f} s", file=sys.stderr)

        rows = []
        out = _manage(env, "shell", "-c", TIME_MATRIX.format(ratings=RATINGS, demo=DEMO))
        for line in out.splitlines():
            if line.startswith("MATRIX"):
                _, coefficient, seconds, settings, columns = line.split()
                note = f"{settings} settings x {columns} columns, 13 systems x 529 segments"
                if coefficient == "pearson":
                    note += "; Williams clusters"
                rows.append(
                    BenchRow(
                        f"correlation matrix, {coefficient}, cache cold (server time)",
                        float(seconds),
                        target="< 1 s",
                        note=note,
                    )
                )
        targets = {"page": "< 0.3 s", "grid": ""}
        for line in out.splitlines():
            if line.startswith("SEGMENT"):
                _, name, seconds = line.split()
                rows.append(
                    BenchRow(
                        f"segment {name}, 64/70-word segment, 13 systems (server time)",
                        float(seconds),
                        target=targets[name],
                        note="demo segment 23; every stored setting; 22k judgments",
                    )
                )
        start = time.perf_counter()
        _manage(env, "correlate", "--human", RATINGS, "--test-set", DEMO, "--level", "segment",
                "--grouping", "item", "--json")  # fmt: skip
        rows.append(
            BenchRow(
                "manage.py correlate --json, whole process",
                time.perf_counter() - start,
                target="< 3 s",
                note="20 settings, segment level, item grouping",
            )
        )
        return rows
