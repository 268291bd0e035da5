"""Settings: production refuses to start without a secret key and passes Django's deploy checks;
the environment variables give the embedded defaults, and the cache is shared."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from evaltrans.settings.base import cache_settings

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
        "s.CORPUS_UPLOAD_MAX_BYTES, s.AXES_FAILURE_LIMIT, s.CACHES['default']['LOCATION'])",
        **empty,
    )
    assert result.returncode == 0, result.stderr
    var_dir, broker, engine, upload, failures, cache = result.stdout.splitlines()[-1].split()
    assert var_dir == str(PROJECT_DIR / "var")
    assert cache == str(PROJECT_DIR / "var" / "cache")
    assert broker == "filesystem://localhost//"
    assert engine.endswith("sqlite3")
    assert int(upload) == 50 * 1024 * 1024 and int(failures) == 10


def test_the_embedded_broker_connects_without_kombus_missing_host_warning(tmp_path):
    # Every command that queues a task (import_corpus, evaluate, ...) printed this warning.
    result = run_manage(
        "shell",
        "--settings=evaltrans.settings.dev",
        "-c",
        # A message no worker reads: the broker folder is the test's own.
        "from evaltrans.celery import app\n"
        "app.send_task('metrics.runs_resume')\n"
        "transport = app.connection_for_write().transport\n"
        "print(type(transport).__module__, transport.driver_type)",
        CELERY_BROKER_URL="",
        EVALTRANS_VAR_DIR=str(tmp_path / "var"),
        LOG_LEVEL="WARNING",  # kombu's warning is shown, whatever the test run's own level
    )
    assert result.returncode == 0, result.stderr
    # kombu's filesystem transport, writing each message whole (evaltrans.broker)
    assert result.stdout.split()[-2:] == ["evaltrans.broker", "filesystem"]
    queued = [path.name for path in (tmp_path / "var" / "broker" / "queue").iterdir()]
    assert len(queued) == 1 and queued[0].endswith(".celery.msg")  # whole, under its name
    assert "No hostname" not in result.stdout + result.stderr


def test_the_cache_is_shared_by_the_processes_of_a_machine_or_by_redis():
    """Computed panels (up to 20 s on a WMT-sized set) are cached once for every web process:
    files under var/cache by default, Redis with CACHE_URL; a wrong URL is refused by name."""
    var = Path("/srv/var")
    files = cache_settings("", var)["default"]
    assert files["BACKEND"].endswith("FileBasedCache") and files["LOCATION"] == "/srv/var/cache"
    redis = cache_settings("redis://cache.example.org:6379/1", var)["default"]
    assert redis == {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://cache.example.org:6379/1",
    }
    assert cache_settings("locmem://", var)["default"]["BACKEND"].endswith("LocMemCache")
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL must be .*'memcached://x'"):
        cache_settings("memcached://x", var)
