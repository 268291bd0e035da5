"""What the fault tests share: when they run, the processes they start, and a plain HTTP client.

The tests run only on PostgreSQL + Redis (the second CI stage); elsewhere every test is skipped
by its ``skipif`` mark, before any fixture (so before any database set-up).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

PROJECT = Path(__file__).resolve().parents[2]
CELERY = str(Path(sys.executable).with_name("celery"))


def celery_worker_command(name: str, concurrency: int) -> list[str]:
    """A real Celery worker of the project, quiet towards other workers (the tests' own)."""
    return [
        CELERY,
        "-A",
        "evaltrans",
        "worker",
        "--loglevel=INFO",
        "-n",
        f"{name}@%h",
        f"--concurrency={concurrency}",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]


GUNICORN = str(Path(sys.executable).with_name("gunicorn"))

_DATABASE_URL = os.environ.get("DATABASE_URL", "")
_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
READY = _DATABASE_URL.startswith(("postgres://", "postgresql://", "pgsql://")) and (
    _BROKER_URL.startswith("redis://")
)
SKIP_REASON = (
    "fault tests run on PostgreSQL + Redis only: set DATABASE_URL=postgres://… and "
    "CELERY_BROKER_URL=redis://… (the second CI stage does)"
)
FAULT_MARKS = [pytest.mark.faults, pytest.mark.skipif(not READY, reason=SKIP_REASON)]

# Redis database of the workers started here (test_worker_integration uses 13); flushed before
# and after each test.
REDIS_TEST_DB = 12
STARTUP_S = 60


def wait_for(predicate: Callable[[], object], timeout: float, what: str, step: float = 0.05):
    """Poll ``predicate`` until it returns something true (returned); fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


class Processes:
    """Server and worker processes, each in its own process group, all killed by ``close``."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env = env
        self.folder = folder
        self.started: list[tuple[subprocess.Popen, Path]] = []

    def _start(self, name: str, command: list[str], **env: str) -> subprocess.Popen:
        log = self.folder / f"{name}.log"
        process = subprocess.Popen(
            command,
            cwd=PROJECT,
            env={**self.env, **env},
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the pool's children die with it
        )
        self.started.append((process, log))
        return process

    def worker(self, name: str, concurrency: int = 2, **env: str) -> subprocess.Popen:
        return self._start(name, celery_worker_command(name, concurrency), **env)

    def web(self, port: int) -> subprocess.Popen:
        # gunicorn as in production: one sync worker keeps its database connection between
        # requests (CONN_MAX_AGE), so a restart of the database hits a connection in use.
        return self._start(
            "web",
            [
                GUNICORN,
                "evaltrans.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--timeout",
                "60",
                "--graceful-timeout",
                "2",
                "--no-control-socket",  # a shared path in $HOME otherwise
            ],
        )

    def log(self, process: subprocess.Popen) -> str:
        for started, log in self.started:
            if started is process:
                return log.read_text(errors="replace")
        return ""

    def kill(self, process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)

    def close(self) -> None:
        for process, _ in self.started:
            if process.poll() is None:
                self.kill(process)
            else:  # the group may outlive its leader (pool children)
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass


class Response:
    def __init__(self, status: int, headers: http.client.HTTPMessage, text: str) -> None:
        self.status = status
        self.headers = headers
        self.text = text

    def json(self) -> dict:
        return json.loads(self.text)


class Browser:
    """Plain HTTP to one server with cookies handled by hand (as the judging page's fetch)."""

    def __init__(self, port: int, cookies: dict[str, str]) -> None:
        self.port = port
        self.cookies = dict(cookies)

    def request(
        self,
        method: str,
        path: str,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        sent = {"Host": "127.0.0.1", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            client.request(method, path, body=body, headers=sent)
            raw = client.getresponse()
            text = raw.read().decode("utf-8", "replace")
        finally:
            client.close()
        for header in raw.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return Response(raw.status, raw.headers, text)

    def wait_ready(self, process: subprocess.Popen, log: Callable[[], str]) -> None:
        def answers() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"the server exited:\n{log()}")
            try:
                return self.request("GET", "/login/").status == 200
            except OSError:
                return False

        try:
            wait_for(answers, STARTUP_S, "the server to start", step=0.1)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{log()}") from None
