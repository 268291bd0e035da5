"""The embedded SQLite database lets pages read while a big import or a run writes: WAL journal
and a busy timeout instead of "database is locked"."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.db.backends.sqlite3.base import DatabaseWrapper

pytestmark = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the embedded default only (DATABASE_URL is set)"
)


@pytest.fixture
def file_connection(tmp_path: Path, django_db_blocker):
    """A connection with the project's settings to a database file (the test database itself
    is in memory, where SQLite has no WAL)."""
    wrapper = DatabaseWrapper(
        {**connection.settings_dict, "NAME": str(tmp_path / "db.sqlite3")}, alias="file-check"
    )
    with django_db_blocker.unblock():
        yield wrapper
        wrapper.close()


def pragma(wrapper: DatabaseWrapper, name: str):
    with wrapper.cursor() as cursor:
        cursor.execute(f"PRAGMA {name}")
        return cursor.fetchone()[0]


def test_the_database_file_is_in_wal_mode_with_a_busy_timeout(file_connection):
    assert pragma(file_connection, "journal_mode") == "wal"
    assert pragma(file_connection, "busy_timeout") >= 10_000
    assert file_connection.transaction_mode == "IMMEDIATE"
