"""Logging out ends the session in every web process, not only in the one that served the logout.

Two real ``runserver`` processes with the production settings share one database, as gunicorn's
workers do: a cookie used on both, then logged out on one, must be refused by both.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection

from tests.conftest import make_user

PROJECT = Path(__file__).resolve().parent.parent
PASSWORD = "pw-sam"
STARTUP_SECONDS = 60


def free_ports(count: int) -> list[int]:
    # Held open together, so that the system cannot hand out the same port twice.
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


class Server:
    """One web process on its own port, speaking plain HTTP with the cookies handled by hand
    (the production cookies are Secure, which a cookie jar would keep off plain HTTP)."""

    def __init__(self, env: dict[str, str], port: int, log: Path) -> None:
        self.port = port
        self.log = log
        self.process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "runserver",
                "--noreload",
                "--skip-checks",
                f"127.0.0.1:{self.port}",
            ],
            cwd=PROJECT,
            env=env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"server exited:\n{self.log.read_text()}")
            try:
                # Our own server answers its login page; anything else on the port would not.
                if self.request("GET", "/login/", {}).status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        pytest.fail(f"server did not start:\n{self.log.read_text()}")

    def request(
        self, method: str, path: str, cookies: dict[str, str], form: dict[str, str] | None = None
    ) -> http.client.HTTPResponse:
        headers = {"Host": "127.0.0.1"}
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        client.request(method, path, body=body, headers=headers)
        response = client.getresponse()
        response.text = response.read().decode("utf-8", "replace")
        client.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    cookies.pop(name, None)
                else:
                    cookies[name] = morsel.value
        return response

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def server_environment(tmp_path: Path) -> dict[str, str]:
    """Production settings on this test's database: a SQLite copy, or the PostgreSQL test
    database itself."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "evaltrans.settings.prod",
            "SECRET_KEY": "sessions-test-" + "x" * 50,
            "SECURE_SSL_REDIRECT": "false",
            "LOG_LEVEL": "WARNING",
            "EVALTRANS_VAR_DIR": str(tmp_path / "var"),
        }
    )
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        (tmp_path / "var").mkdir()
        # The test database lives in memory; the servers get a file copy of it.
        target = sqlite3.connect(tmp_path / "var" / "db.sqlite3")
        connection.ensure_connection()
        connection.connection.backup(target)
        target.close()
        env.pop("DATABASE_URL", None)
    elif connection.vendor == "postgresql":
        credentials = quote(settings["USER"] or "")
        if settings["PASSWORD"]:
            credentials += ":" + quote(settings["PASSWORD"])
        host = f"{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}"
        env["DATABASE_URL"] = f"postgres://{credentials}@{host}/{settings['NAME']}"
    else:
        pytest.skip(f"no server set-up for {connection.vendor}")
    return env


@pytest.fixture
def servers(transactional_db, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    user = make_user("sam", staff=True)
    # The test settings hash with MD5, which the production settings do not accept; a cheap
    # PBKDF2 hash keeps the login fast.
    user.password = PBKDF2PasswordHasher().encode(PASSWORD, "sessionsalt", iterations=1000)
    user.save()
    env = server_environment(tmp_path)
    started = [
        Server(env, port, tmp_path / f"server{number}.log")
        for number, port in enumerate(free_ports(2), 1)
    ]
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        for server in started:
            server.wait_ready(deadline)
        yield started[0], started[1]
    finally:
        for server in started:
            server.stop()


def log_in(server: Server, cookies: dict[str, str]) -> None:
    page = server.request("GET", "/login/", cookies)
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert match, f"{page.status} {page.text[:2000]}"
    token = match.group(1)
    form = {"username": "sam", "password": PASSWORD, "csrfmiddlewaretoken": token}
    response = server.request("POST", "/login/", cookies, form)
    assert response.status == 302, response.text
    assert "sessionid" in cookies


def log_out(server: Server, cookies: dict[str, str]) -> None:
    response = server.request(
        "POST", "/logout/", cookies, {"csrfmiddlewaretoken": cookies["csrftoken"]}
    )
    assert response.status == 302, response.text


def test_logout_ends_the_session_in_every_process(servers):
    first, second = servers
    cookies: dict[str, str] = {}
    log_in(first, cookies)
    # Both processes read the session while it is valid, so each could have kept a copy.
    for server in servers:
        assert server.request("GET", "/test-sets/", dict(cookies)).status == 200
    stolen = dict(cookies)

    log_out(first, cookies)

    for _ in range(5):
        for server in (first, second):
            response = server.request("GET", "/test-sets/", dict(stolen))
            assert response.status == 302, f"old cookie accepted on port {server.port}"
            assert response.getheader("Location").startswith("/login/")
