"""Production settings refuse to start without a secret key and pass Django's deploy checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # A deployment's environment: none of the test run's own switches.
    dropped = ("SECRET_KEY", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE")
    environment = {k: v for k, v in os.environ.items() if k not in dropped}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_refuse_to_start_without_secret_key():
    result = run_manage("check", "--settings=evaltrans.settings.prod")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_settings_pass_the_deploy_checks():
    secret = "k" * 20 + "-production-secret-" + "9Zx!" * 8
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        "--settings=evaltrans.settings.prod",
        SECRET_KEY=secret,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_env_example_as_shipped_gives_the_embedded_defaults():
    # Every variable of .env.example exported empty, as a process manager would from the file.
    names = [
        line.split("=", 1)[0]
        for line in (PROJECT_DIR / ".env.example").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    ]
    empty = {name: "" for name in names if name != "DJANGO_SETTINGS_MODULE"}
    result = run_manage(
        "shell",
        "--settings=evaltrans.settings.dev",
        "-c",
        "from django.conf import settings as s; "
        "print(s.VAR_DIR, s.CELERY_BROKER_URL, s.DATABASES['default']['ENGINE'], "
        "s.CORPUS_UPLOAD_MAX_BYTES, s.AXES_FAILURE_LIMIT)",
        **empty,
    )
    assert result.returncode == 0, result.stderr
    var_dir, broker, engine, upload, failures = result.stdout.splitlines()[-1].split()
    assert var_dir == str(PROJECT_DIR / "var")
    assert broker == "filesystem://"
    assert engine.endswith("sqlite3")
    assert int(upload) == 50 * 1024 * 1024 and int(failures) == 10
