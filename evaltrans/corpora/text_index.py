"""The search's text index: per segment, the distinct words of its texts, asked by trigrams.

A search for a word found in no segment of a 2 M-candidate set read every text (2 s on SQLite,
5.7 s on PostgreSQL). Indexing the texts themselves cost the import ten times its time
(tokenizing 282 MB, or keeping three GIN indexes current); so a worker indexes a smaller
document after the import, outside its transaction: one ``SegmentWords`` row per segment
holding the distinct words of its source, references and candidates (the 20 translations of a
sentence share most of their words). PostgreSQL indexes ``UPPER(words)`` by trigrams (GIN,
``pg_trgm``), SQLite through an FTS5 trigram table (migration ``0005``).

The index is only a prefilter. A text containing the query contains each of the query's
words (split on whitespace, as here) inside one of its own words, so a segment the index
does not return for one of those words cannot match; the search then checks the segments it
does return, and shows only true matches. Words of fewer than three characters have no
trigram and are not asked.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from .models import Segment, SegmentWords, TestSet

MIN_WORD = 3  # characters: one trigram
FTS_TABLE = "corpora_segmentwords_fts"


def segment_words(texts: Iterable[str]) -> str:
    """The distinct whitespace-separated words of ``texts``, one space apart, first seen first."""
    return " ".join(dict.fromkeys(word for text in texts for word in text.split()))


def query_words(query: str) -> list[str]:
    """The words of ``query`` the index can be asked for (at least ``MIN_WORD`` characters)."""
    return [word for word in dict.fromkeys(query.split()) if len(word) >= MIN_WORD]


def index_available() -> bool:
    """Whether this database has the text index (SQLite without FTS5 has none)."""
    if connection.vendor == "postgresql":
        return True
    if connection.vendor != "sqlite":
        return False
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", [FTS_TABLE]
        )
        return cursor.fetchone() is not None


def indexed_matches(
    test_set: TestSet, words: list[str], low: int, high: int, cap: int
) -> list[tuple[int, int]] | None:
    """(index, id) of the segments with ``low <= index < high`` whose texts hold every one of
    ``words`` (any case) according to the index, in index order; None if there are more than
    ``cap`` (the caller reads window by window instead)."""
    if connection.vendor == "postgresql":
        matches = SegmentWords.objects.filter(
            segment__test_set=test_set, segment__index__gte=low, segment__index__lt=high
        )
        for word in words:
            matches = matches.filter(words__icontains=word)
        found = list(matches.order_by().values_list("segment__index", "segment_id")[: cap + 1])
    else:
        found = _fts_matches(test_set, words, low, high, cap)
    if len(found) > cap:
        return None
    return sorted(found)


def _fts_matches(
    test_set: TestSet, words: list[str], low: int, high: int, cap: int
) -> list[tuple[int, int]]:
    # Each word a quoted FTS5 string: the trigram tokenizer matches it as a substring.
    expression = " AND ".join('"' + word.replace('"', '""') + '"' for word in words)
    segment = connection.ops.quote_name(Segment._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT s."index", s.id FROM {FTS_TABLE} AS f CROSS JOIN {segment} AS s '
            f"ON s.id = f.rowid WHERE {FTS_TABLE} MATCH %s AND s.test_set_id = %s "
            f'AND s."index" >= %s AND s."index" < %s LIMIT %s',
            [expression, test_set.pk, low, high, cap + 1],
        )
        return cursor.fetchall()
