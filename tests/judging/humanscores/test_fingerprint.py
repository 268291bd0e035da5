"""A source's fingerprint keys the panel cache: it must be the same in every process (a cache
shared between processes, such as Redis, hits only then) and change with any judgment."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from judging.formats import JudgmentRecord
from judging.humanscores.selectors import HumanSource
from tests.conftest import PROJECT_DIR

ROWS = [
    ["sysA", "1", "ann", "adequacy", 4.0, None, "SYSTEM"],
    ["sysB", "1", "bob", "adequacy", None, 0.25, "REPEAT"],
    ["ref", "2", "ann", "fluency", 5.0, None, "REF"],
]
SCRIPT = """
import json, sys
import django
django.setup()
from judging.formats import JudgmentRecord
from judging.humanscores.selectors import HumanSource
records = [JudgmentRecord(*row) for row in json.loads(sys.argv[1])]
print(HumanSource("set", 1, "x", "", None, records, {}, {}).fingerprint)
"""


def _source(rows: list[list]) -> HumanSource:
    return HumanSource("set", 1, "x", "", None, [JudgmentRecord(*row) for row in rows], {}, {})


def _in_process(rows: list[list], hash_seed: int) -> str:
    env = {
        **os.environ,
        "PYTHONHASHSEED": str(hash_seed),
        "DJANGO_SETTINGS_MODULE": "evaltrans.settings.test",
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(rows)],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout.strip()


def test_fingerprint_is_the_same_in_every_process():
    """Two processes with different string-hash salts agree with each other and with this one."""
    first = _in_process(ROWS, 1)
    second = _in_process(ROWS, 2)
    assert first == second == _source(ROWS).fingerprint


def test_fingerprint_changes_with_any_judgment():
    changed = [list(row) for row in ROWS]
    changed[1][5] = 0.5
    fewer = ROWS[:2]
    fingerprints = {_source(rows).fingerprint for rows in (ROWS, changed, fewer)}
    assert len(fingerprints) == 3
