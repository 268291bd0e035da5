"""Writes on corpora: importing a parsed corpus as a test set, exporting one to files or a zip.

Parsing and validation happen before anything is written (``evaltrans.corpora.formats``);
storing is one transaction, so bad input or a failure half-way changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Max

from .bulk import insert_rows
from .dispatch import words_index_send
from .formats import FORMATS
from .formats.base import CorpusData, SegmentData
from .formats.reading import is_blank, unstorable_problem
from .models import Candidate, RawEvaluation, Reference, Segment, SegmentWords, System, TestSet
from .selectors import testset_corpus_data
from .text_index import index_available, segment_words

DUPLICATE_CONTENT = (
    "this content is already stored as test set '{name}' version {version}; nothing was imported"
)
VERSION_TAKEN = (
    "test set '{name}' version {version} was stored by another import at the same time; "
    "nothing was imported, import again to make the next version"
)
EMPTY_CORPUS = "the corpus has no segments; nothing was imported"
NAME_REQUIRED = "a test set needs a name"
NAME_TOO_LONG = "the test set name has {length:,} characters; at most {limit:,} can be stored"
BAD_NAME = "test set name {name!r}: {problem}"
NO_WRITER = "format {format!r} cannot be exported"

BULK_BATCH = 2000
EXPORT_SPOOL_BYTES = 8 * 1024 * 1024

Progress = Callable[[int, int], None]
"""``progress(segments stored, segments in all)``."""


class CorpusImportError(ValueError):
    """Import refused; ``str(error)`` is the message for the user."""


@dataclass(frozen=True)
class ImportResult:
    test_set: TestSet
    new_version_of_existing: bool

    @property
    def summary(self) -> str:
        test_set = self.test_set
        counts = ", ".join(
            _count(number, noun)
            for number, noun in (
                (test_set.segments.count(), "segment"),
                (test_set.systems.count(), "system"),
                (len(test_set.metadata.get("reference_labels", [])), "reference"),
            )
        )
        what = "new version" if self.new_version_of_existing else "new test set"
        return f"Imported {test_set} ({what}): {counts}."


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def corpus_content_hash(corpus: CorpusData) -> str:
    """SHA-256 of every text, id and language of a corpus, independent of how it was imported.

    The hash of the compact JSON ``{"source_lang", "target_lang", "segments": [[doc_id,
    seg_id, source, sorted references, sorted candidates], …]}``, fed segment by segment so a
    streamed corpus is never held whole (the same bytes as dumping the whole structure).
    """

    def dumps(value: object) -> bytes:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    digest = hashlib.sha256()
    head = {"source_lang": corpus.source_lang, "target_lang": corpus.target_lang}
    digest.update(dumps(head)[:-1] + b',"segments":[')
    separator = b""
    for segment in corpus.segments:
        digest.update(separator)
        digest.update(
            dumps(
                [
                    segment.doc_id,
                    segment.seg_id,
                    segment.source,
                    sorted(segment.references.items()),
                    sorted(segment.candidates.items()),
                ]
            )
        )
        separator = b","
    digest.update(b"]}")
    return digest.hexdigest()


@transaction.atomic
def testset_import(
    *,
    corpus: CorpusData,
    name: str,
    import_format: str,
    user: AbstractBaseUser | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    """Store a parsed corpus as a test set (a new version if the name exists with other content).

    ``progress(stored, total)`` is called after each batch of segments is stored (inside the
    transaction: it must not write through this database connection what others should read).

    Raises:
        CorpusImportError: empty corpus, no name or one that cannot be stored, identical
            content already stored, or a concurrent import that stored the same content or name
            and version first.
    """
    name = name.strip()
    _check_name(name)
    if not corpus.segments:
        raise CorpusImportError(EMPTY_CORPUS)
    content_hash = corpus_content_hash(corpus)
    existing = TestSet.objects.filter(content_hash=content_hash).first()
    if existing is not None:
        raise CorpusImportError(
            DUPLICATE_CONTENT.format(name=existing.name, version=existing.version)
        )
    latest = TestSet.objects.filter(name=name).aggregate(latest=Max("version"))["latest"]
    metadata = dict(corpus.metadata)
    metadata["reference_labels"] = corpus.reference_labels
    if corpus.name:
        metadata.setdefault("original_name", corpus.name)
    test_set = TestSet(
        name=name,
        version=(latest or 0) + 1,
        content_hash=content_hash,
        source_lang=corpus.source_lang,
        target_lang=corpus.target_lang,
        import_format=import_format,
        metadata=metadata,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    # Uniqueness is left to the database: a concurrent import that stores the same content or
    # name and version after the checks above then fails the insert, reported below.
    try:
        test_set.full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError as error:  # callers that did not parse through parse_corpus
        raise CorpusImportError("; ".join(error.messages)) from None
    try:
        with transaction.atomic():  # a savepoint: after a failed insert the winner can be read
            test_set.save()
    except IntegrityError as error:  # a concurrent import stored its test set after our checks
        raise CorpusImportError(_collision_message(test_set)) from error
    _store_texts(test_set, corpus, progress)
    words_index_send(test_set_id=test_set.pk)
    return ImportResult(test_set=test_set, new_version_of_existing=latest is not None)


def _check_name(name: str) -> None:
    """Refuse a name that is blank, too long for its field or holds a character the database
    (PostgreSQL: NUL) or the exports cannot take; the command line passes names unchecked."""
    if is_blank(name):
        raise CorpusImportError(NAME_REQUIRED)
    limit = TestSet._meta.get_field("name").max_length
    if len(name) > limit:
        raise CorpusImportError(NAME_TOO_LONG.format(length=len(name), limit=limit))
    problem = unstorable_problem(name)
    if problem is not None:
        raise CorpusImportError(BAD_NAME.format(name=name, problem=problem))


def _collision_message(test_set: TestSet) -> str:
    """Which unique key a concurrent import took first: the content, or the name and version."""
    same_content = TestSet.objects.filter(content_hash=test_set.content_hash).first()
    if same_content is not None:
        return DUPLICATE_CONTENT.format(name=same_content.name, version=same_content.version)
    return VERSION_TAKEN.format(name=test_set.name, version=test_set.version)


def _store_texts(test_set: TestSet, corpus: CorpusData, progress: Progress | None) -> None:
    """Store the texts in batches of ``BULK_BATCH`` segments (with their references, candidates
    and evaluations), calling ``progress(stored, total)`` after each batch.

    The segments are read from ``corpus.segments`` one batch at a time (a streamed corpus is
    never held whole) and written as plain rows (:func:`~evaltrans.corpora.bulk.insert_rows`:
    ``COPY`` on PostgreSQL), one query per batch reading back the new segment ids.
    """
    systems = {
        name: System.objects.create(test_set=test_set, name=name).pk for name in corpus.system_names
    }
    total = len(corpus.segments)
    segments = iter(corpus.segments)
    start = 0
    with _sqlite_bulk_cache():
        while batch := list(islice(segments, BULK_BATCH)):
            insert_rows(
                Segment,
                ("test_set_id", "index", "doc_id", "seg_id", "source"),
                [
                    (test_set.pk, index, segment.doc_id, segment.seg_id, segment.source)
                    for index, segment in enumerate(batch, start=start)
                ],
            )
            ids = list(
                test_set.segments.filter(index__gte=start, index__lt=start + len(batch))
                .order_by("index")
                .values_list("pk", flat=True)
            )
            _store_batch(ids, batch, systems)
            start += len(batch)
            if progress is not None:
                progress(start, total)
    _analyze_after_bulk()


SQLITE_IMPORT_CACHE_KIB = 64 * 1024


@contextmanager
def _sqlite_bulk_cache() -> Iterator[None]:
    """On SQLite, a page cache of ``SQLITE_IMPORT_CACHE_KIB`` for this connection while the
    texts are stored (SQLite's default is 2 MB): the indexes of millions of new rows then stay
    in memory instead of being re-read from the file for every batch (a third of the time of
    a 2 M-candidate import). The pages are taken only as used; the old size comes back after."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        previous = cursor.fetchone()[0]
        cursor.execute(f"PRAGMA cache_size = -{SQLITE_IMPORT_CACHE_KIB}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size = {int(previous)}")


def _analyze_after_bulk() -> None:
    """On PostgreSQL, refresh the planner's statistics of the text tables (a sample of 30,000
    rows each; well under a second). Right after an import of millions of rows autovacuum has
    not analyzed them yet, and the browser's search would be planned for empty tables: a scan
    of every candidate text instead of a look-up by segment. Committed with the import."""
    if connection.vendor == "postgresql":
        tables = ", ".join(
            connection.ops.quote_name(model._meta.db_table)
            for model in (Segment, Reference, Candidate)
        )
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {tables}")


def _store_batch(ids: list[int], batch: list[SegmentData], systems: dict[str, int]) -> None:
    references, candidates, evaluations = [], [], []
    for segment_id, segment in zip(ids, batch, strict=True):
        for label, text in segment.references.items():
            references.append((segment_id, label, text))
        for system_name, text in segment.candidates.items():
            candidates.append((systems[system_name], segment_id, text))
        for position, evaluation in enumerate(segment.evaluations):
            evaluations.append(
                RawEvaluation(
                    segment_id=segment_id,
                    position=position,
                    target_kind=evaluation.target_kind,
                    target_name=evaluation.target_name,
                    aspect=evaluation.aspect,
                    value=evaluation.value,
                    attributes=evaluation.attributes,
                )
            )
    insert_rows(Reference, ("segment_id", "label", "text"), references)
    insert_rows(Candidate, ("system_id", "segment_id", "text"), candidates)
    RawEvaluation.objects.bulk_create(evaluations, batch_size=BULK_BATCH)


def testset_words_index(*, test_set_id: int) -> int:
    """Store the ``SegmentWords`` of every segment of a test set (the search's text index),
    ``BULK_BATCH`` segments per transaction, then mark the set indexed. Returns the number of
    segments indexed by this call (0: the set is gone or already indexed, or the database has
    no text index: SQLite without FTS5).

    Each batch commits on its own, so the SQLite write lock is never held for long (an import
    or a judge's submission waits for one batch at most), and an interrupted build goes on
    after the last stored batch. Two builds of one set at once: the second finds the first's
    rows (a conflict), starts again after them, and the set is marked indexed once.
    """
    test_set = TestSet.objects.filter(pk=test_set_id).first()
    if test_set is None or test_set.words_indexed or not index_available():
        return 0
    indexed = 0
    while True:
        try:
            indexed += _index_words_after(test_set, _words_indexed_until(test_set))
            break
        except IntegrityError:  # another build stored the same batch first
            continue
    TestSet.objects.filter(pk=test_set.pk).update(words_indexed=True)
    return indexed


def _words_indexed_until(test_set: TestSet) -> int:
    """The index where the build goes on: the end of the last batch stored, batches being
    whole and stored in index order."""
    last = SegmentWords.objects.filter(segment__test_set=test_set).aggregate(
        last=Max("segment__index")
    )["last"]
    return 0 if last is None else (last // BULK_BATCH + 1) * BULK_BATCH


def _index_words_after(test_set: TestSet, start: int) -> int:
    indexed = 0
    while True:
        stop = start + BULK_BATCH
        texts = {
            pk: [source]
            for pk, source in test_set.segments.filter(index__gte=start, index__lt=stop)
            .order_by()
            .values_list("pk", "source")
        }
        if not texts:
            return indexed
        for model in (Reference, Candidate):
            rows = model.objects.filter(
                segment__test_set=test_set, segment__index__gte=start, segment__index__lt=stop
            )
            for segment_id, text in rows.order_by().values_list("segment_id", "text"):
                texts[segment_id].append(text)
        with transaction.atomic():
            insert_rows(
                SegmentWords,
                ("segment_id", "words"),
                [(pk, segment_words(segment_texts)) for pk, segment_texts in texts.items()],
            )
        indexed += len(texts)
        start = stop


def testset_export(*, test_set: TestSet, export_format: str, out_dir: Path) -> list[Path]:
    """Write a test set in ``export_format`` into ``out_dir``; returns the files written."""
    spec = FORMATS[export_format]
    if spec.write is None:
        raise CorpusImportError(NO_WRITER.format(format=export_format))
    out_dir.mkdir(parents=True, exist_ok=True)
    return list(spec.write(testset_corpus_data(test_set=test_set), out_dir))


def testset_export_archive(*, test_set: TestSet, export_format: str) -> BinaryIO:
    """The export of a test set as a zip archive in a temporary file, rewound for reading.

    The writers run first, into a temporary folder, so a corpus a format cannot hold raises
    :class:`CorpusFormatError` here, before anything is sent. The archive stays in memory up to
    ``EXPORT_SPOOL_BYTES`` and goes to a temporary file on disk beyond, so a large export does
    not hold its archive in memory; the caller streams it and closes it.
    """
    archive_file = tempfile.SpooledTemporaryFile(max_size=EXPORT_SPOOL_BYTES)
    try:
        with tempfile.TemporaryDirectory() as folder:
            out_dir = Path(folder)
            files = testset_export(test_set=test_set, export_format=export_format, out_dir=out_dir)
            with zipfile.ZipFile(archive_file, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in files:
                    archive.write(path, path.relative_to(out_dir).as_posix())
    except BaseException:
        archive_file.close()
        raise
    archive_file.seek(0)
    return archive_file  # type: ignore[return-value]
