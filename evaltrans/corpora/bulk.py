"""Fast inserts of many plain rows, for the import of large test sets.

Django's ``bulk_create`` builds a model instance per row and an SQL statement per batch; for
the 2 million candidates of a 100,000-segment × 20-system import that is most of the time.
Here rows are plain tuples: PostgreSQL takes them through ``COPY … FROM STDIN`` (psycopg 3),
every other database through the driver's ``executemany`` of one parameterized ``INSERT``.
Both run on the current connection, inside the caller's transaction, so a failure rolls back
with everything else, and both raise Django's database errors (``IntegrityError`` …). No model
``save()``, signals or field defaults: the caller gives every column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection
from django.db.models import Model


def insert_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Insert ``rows`` (tuples in the order of ``columns``, database column names) into the
    table of ``model``."""
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    names = ", ".join(quote(column) for column in columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # psycopg's own cursor: its errors become Django's here, as executemany's do.
            with connection.wrap_database_errors:
                with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            return
        marks = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)
