"""Fixtures of the fault tests: proxies in front of PostgreSQL and Redis, and a ``site`` whose
processes (gunicorn, Celery workers) reach both only through those proxies.

The processes use pytest-django's test database (the tests are transactional, so what the test
process writes is committed and visible to them) and Redis database ``REDIS_TEST_DB``.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote, urlparse, urlunparse

import pytest

from tests.faults.proxy import TcpProxy
from tests.faults.support import REDIS_TEST_DB, SKIP_REASON, Processes


class Site:
    """The proxies, the environment of the processes, and the processes started."""

    def __init__(self, folder: Path, database: dict, broker_url: str) -> None:
        self.folder = folder
        broker = urlparse(broker_url)
        self.redis_url = urlunparse(broker._replace(path=f"/{REDIS_TEST_DB}"))
        self.db_proxy = TcpProxy(int(database["PORT"] or 5432), database["HOST"] or "127.0.0.1")
        self.broker_proxy = TcpProxy(broker.port or 6379, broker.hostname or "127.0.0.1")
        credentials = quote(database["USER"] or "")
        if database["PASSWORD"]:
            credentials += ":" + quote(database["PASSWORD"])
        proxied_broker = broker._replace(
            netloc=f"{broker.netloc.rpartition('@')[0]}@127.0.0.1:{self.broker_proxy.port}"
            if "@" in broker.netloc
            else f"127.0.0.1:{self.broker_proxy.port}",
            path=f"/{REDIS_TEST_DB}",
        )
        env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "tests.faults.settings",
                "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
                "DATABASE_URL": (
                    f"postgres://{credentials}@127.0.0.1:{self.db_proxy.port}/{database['NAME']}"
                ),
                "CELERY_BROKER_URL": urlunparse(proxied_broker),
                "EVALTRANS_VAR_DIR": str(folder / "var"),
                "LOG_LEVEL": "WARNING",
                "PYTHONUNBUFFERED": "1",
                "FAULTS_HEARTBEAT_S": "0.5",
            }
        )
        self.processes = Processes(env, folder)

    def redis_flush(self) -> int:
        """Empty the workers' Redis database; returns how many queued messages it held."""
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=10)
        try:
            queued = sum(
                client.llen(key)
                for key in client.scan_iter("celery*")
                if client.type(key) == b"list"
            )
            client.flushdb()
            return queued
        finally:
            client.close()

    def close(self) -> None:
        self.processes.close()
        self.db_proxy.close()
        self.broker_proxy.close()


@pytest.fixture
def site(transactional_db, tmp_path: Path) -> Iterator[Site]:
    from django.db import connection

    if connection.vendor != "postgresql":  # the skipif mark should have caught it
        pytest.skip(SKIP_REASON)
    site = Site(tmp_path, connection.settings_dict, os.environ["CELERY_BROKER_URL"])
    try:
        site.redis_flush()
        yield site
    finally:
        site.close()
        site.redis_flush()


FIGURES = pytest.StashKey[list[tuple[str, str]]]()


@pytest.fixture
def figures(request) -> Callable[[str, object], None]:
    """Record a measured figure; all are printed at the end of the run (``Fault figures``)."""
    stash = request.config.stash.setdefault(FIGURES, [])

    def record(what: str, value: object) -> None:
        stash.append((request.node.name, f"{what}: {value}"))

    return record


def pytest_terminal_summary(terminalreporter, config) -> None:
    recorded = config.stash.get(FIGURES, [])
    if not recorded:
        return
    terminalreporter.section("Fault figures")
    for test, line in recorded:
        terminalreporter.write_line(f"{test}: {line}")


@pytest.fixture
def free_port() -> int:
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
    finally:
        probe.close()
