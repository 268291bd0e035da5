"""The parse cache of EDPM: each unique sentence is parsed once per (text, parser key).

Two layers, both free of Django: a dict in the process (references are shared by every system
of a test set) and an optional SQLite file, so that re-runs, other worker processes and γ or n
sweeps re-parse nothing. The stored value is the whole n-best list (tokens, tags, every
distinct tree and its probability): the options applied after parsing (fragment kinds, n, γ,
labels, preposition re-attachment, case) never change what is stored.

The file lives in ``$EVALTRANS_PARSE_CACHE`` (a directory; ``off`` keeps the cache in memory
only), else in the directory given to :func:`configure_parse_cache` (the web app passes its
var directory), else in ``~/.cache/evaltrans/parses``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .fragments import Parse, ParsedSentence

ENV_VAR = "EVALTRANS_PARSE_CACHE"
FILE_NAME = "edpm-parses.sqlite3"
MEMORY_LIMIT = 200_000
"""Sentences kept in the process: about 0.5 GB at 50 parses of 20 words; past it the dict is
emptied (the file keeps everything)."""

_configured: Path | None = None


def configure_parse_cache(directory: Path | str | None) -> None:
    """Set the default cache directory (``$EVALTRANS_PARSE_CACHE`` still wins)."""
    global _configured, _default
    _configured = None if directory is None else Path(directory)
    _default = None


def cache_directory() -> Path | None:
    """The directory of the SQLite file, or None for a cache in memory only."""
    value = os.environ.get(ENV_VAR, "").strip()
    if value.lower() == "off":
        return None
    if value:
        return Path(value)
    if _configured is not None:
        return _configured
    return Path.home() / ".cache" / "evaltrans" / "parses"


@dataclass
class CacheCounts:
    """How many sentences were parsed, found in memory, found on disk (tests and benches)."""

    parsed: int = 0
    memory_hits: int = 0
    disk_hits: int = 0


class ParseCache:
    """Parsed sentences by (parser key, text); safe in threads and forked worker processes."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.memory: dict[tuple[str, str], ParsedSentence] = {}
        self.counts = CacheCounts()
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0

    def get_many(self, key: str, texts: Iterable[str]) -> dict[str, ParsedSentence]:
        """The cached parses among ``texts`` (memory first, then the file)."""
        found: dict[str, ParsedSentence] = {}
        missing: list[str] = []
        for text in dict.fromkeys(texts):
            hit = self.memory.get((key, text))
            if hit is None:
                missing.append(text)
            else:
                found[text] = hit
        self.counts.memory_hits += len(found)
        if missing and self.directory is not None:
            from_disk = self._read(key, missing)
            self.counts.disk_hits += len(from_disk)
            for text, parsed in from_disk.items():
                self._remember(key, text, parsed)
            found.update(from_disk)
        return found

    def put_many(self, key: str, parsed: dict[str, ParsedSentence]) -> None:
        self.counts.parsed += len(parsed)
        for text, sentence in parsed.items():
            self._remember(key, text, sentence)
        if parsed and self.directory is not None:
            self._write(key, parsed)

    def _remember(self, key: str, text: str, sentence: ParsedSentence) -> None:
        if len(self.memory) >= MEMORY_LIMIT:
            self.memory.clear()
        self.memory[(key, text)] = sentence

    # -- the SQLite file ------------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        # A connection is never shared with a forked child (Celery's prefork pool).
        if self._connection is None or self._pid != os.getpid():
            assert self.directory is not None
            self.directory.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.directory / FILE_NAME, timeout=60, check_same_thread=False
            )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(
                "CREATE TABLE IF NOT EXISTS parses (id TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            self._connection, self._pid = connection, os.getpid()
        return self._connection

    def _read(self, key: str, texts: Sequence[str]) -> dict[str, ParsedSentence]:
        ids = {_row_id(key, text): text for text in texts}
        found: dict[str, ParsedSentence] = {}
        with self._lock:
            db = self._db()
            names = list(ids)
            for start in range(0, len(names), 500):  # SQLite's bound-parameter limit
                part = names[start : start + 500]
                marks = ",".join("?" * len(part))
                query = f"SELECT id, value FROM parses WHERE id IN ({marks})"  # noqa: S608
                for row_id, value in db.execute(query, part):
                    found[ids[row_id]] = _decode(value)
        return found

    def _write(self, key: str, parsed: dict[str, ParsedSentence]) -> None:
        rows = [(_row_id(key, text), _encode(sentence)) for text, sentence in parsed.items()]
        with self._lock:
            db = self._db()
            with db:
                db.executemany("INSERT OR IGNORE INTO parses (id, value) VALUES (?, ?)", rows)


def _row_id(key: str, text: str) -> str:
    return hashlib.sha256(f"{key}\x00{text}".encode()).hexdigest()


def _encode(sentence: ParsedSentence) -> str:
    return json.dumps(
        {
            "tokens": sentence.tokens,
            "tags": sentence.tags,
            "pos": sentence.pos,
            "parses": [[p.prob, p.heads, p.labels] for p in sentence.parses],
        },
        ensure_ascii=False,
    )


def _decode(value: str) -> ParsedSentence:
    data = json.loads(value)
    return ParsedSentence(
        tuple(data["tokens"]),
        tuple(data["tags"]),
        tuple(data["pos"]),
        tuple(Parse(prob, tuple(heads), tuple(labels)) for prob, heads, labels in data["parses"]),
    )


_default: ParseCache | None = None


def parse_cache() -> ParseCache:
    """The process's cache (built on first use, for the directory in force then)."""
    global _default
    if _default is None or _default.directory != cache_directory():
        _default = ParseCache(cache_directory())
    return _default
