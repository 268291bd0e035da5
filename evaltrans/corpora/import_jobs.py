"""Writes on import jobs (``CorpusImport``): uploaded files stored, then parsed and stored as a
test set, in the web request (small uploads) or by a Celery worker (large ones).

:func:`corpus_import_execute` is the one function that does the work in both cases: it reads
the stored files, parses them (:func:`~evaltrans.corpora.parsing.parse_corpus`, the one
validation of every import) and stores the corpus (:func:`~evaltrans.corpora.services.
testset_import`, one transaction: nothing is stored on error). Whether the request runs it or
a worker does is decided by the total size of the upload against
``CORPUS_BACKGROUND_IMPORT_BYTES`` (default 5 MB; 0 sends every upload to a worker). The
uploaded files wait in the default storage (``MEDIA_ROOT``, ``var/media`` by default) under
``corpus-imports/<pk>/`` and are deleted when the import ends, done or failed. Workers on other
machines need that storage shared (an NFS folder, or an object store as the default storage).

Progress: parsing has no count (every file is checked whole before anything is stored); storing counts
segments, batch by batch. Storing is one transaction, so its counts cannot go through the
database: on SQLite that transaction holds the write lock, and on any database its rows are
invisible to others until it commits. They go to ``progress.json`` beside the uploaded files,
which :func:`~evaltrans.corpora.selectors.corpus_import_progress` reads while the import runs.

The task is sent by name (``dispatch.IMPORT_TASK``) once the transaction that created the job
commits, so this module never imports ``evaltrans.corpora.tasks``: the dependency points one
way, as in ``metrics.services.dispatch``.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files import File
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import KombuError

from . import dispatch
from .dispatch import IMPORT_TASK, SEND_RETRY_POLICY
from .formats.base import CorpusFormatError, InputFile
from .models import CorpusImport
from .parsing import CorpusInputError, CorpusInputs, max_segments, parse_corpus
from .services import CorpusImportError, testset_import

logger = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.5
DEFAULT_BACKGROUND_BYTES = 5 * 1024 * 1024

PHASE_PARSING = "parsing"
PHASE_STORING = "storing"
ROLES = ("source", "reference", "system", "docs", "file")

QUEUE_DOWN = (
    "the task queue (Celery broker) cannot be reached ({error}); nothing was imported, "
    "import again when it is back"
)
FILE_GONE = "the uploaded file {name} is no longer stored; nothing was imported, upload it again"


@dataclass(frozen=True)
class Upload:
    """One uploaded file and its part in the import.

    ``label``: the system name of a system file; None otherwise (references are labelled by
    the parser: A, B, … for text, the file's refid for SGML).
    """

    role: str
    file: File
    label: str | None = None


def background_threshold() -> int:
    """``CORPUS_BACKGROUND_IMPORT_BYTES``: uploads of at least this many bytes together are
    imported by a worker, smaller ones in the request."""
    return getattr(settings, "CORPUS_BACKGROUND_IMPORT_BYTES", DEFAULT_BACKGROUND_BYTES)


def corpus_import_create(
    *,
    name: str,
    import_format: str,
    options: dict[str, Any],
    uploads: Sequence[Upload],
    user: AbstractBaseUser | None = None,
) -> CorpusImport:
    """Store the uploaded files and a queued import job for them.

    ``options`` (JSON): ``source_lang``, ``target_lang``, ``encoding``, ``reference_systems``.
    """
    total = sum(upload.file.size or 0 for upload in uploads)
    job = CorpusImport.objects.create(
        name=name,
        import_format=import_format,
        options=options,
        total_bytes=total,
        background=total >= background_threshold(),
        created_by=user if user is not None and user.is_authenticated else None,
    )
    files: list[dict[str, Any]] = []
    try:
        for position, upload in enumerate(uploads):
            if upload.role not in ROLES:
                raise ValueError(f"unknown upload role {upload.role!r}")
            upload.file.seek(0)
            path = default_storage.save(
                f"{job.storage_folder}/{position:03d}-{upload.role}", upload.file
            )
            files.append(
                {
                    "role": upload.role,
                    "label": upload.label,
                    "name": PurePath(upload.file.name or "upload").name,
                    "path": path,
                    "size": upload.file.size or 0,
                }
            )
    except BaseException:
        job.files = files
        _delete_files(job)
        job.delete()
        raise
    job.files = files
    job.save(update_fields=["files"])
    return job


def corpus_import_start(*, corpus_import: CorpusImport) -> CorpusImport:
    """Run a small import now, or send a large one to a worker once the transaction commits.

    Returns the job as it is after this call (done or failed when run now).
    """
    if not corpus_import.background:
        try:
            return corpus_import_execute(import_id=corpus_import.pk)
        except Exception as error:  # no retry in a request: the job must not stay running
            reason = f"{type(error).__name__}: {error}"
            corpus_import_fail(import_id=corpus_import.pk, reason=reason)
            raise
    import_id = corpus_import.pk
    transaction.on_commit(lambda: _send(import_id))
    return CorpusImport.objects.get(pk=import_id)


def _send(import_id: int) -> None:
    try:
        dispatch.task(IMPORT_TASK).apply_async(
            args=[import_id], retry=True, retry_policy=dict(SEND_RETRY_POLICY)
        )
    except (KombuError, OSError) as error:
        logger.warning("import %s: broker unavailable: %s", import_id, error)
        text = (str(error).strip() or type(error).__name__).splitlines()[0][:200]
        corpus_import_fail(import_id=import_id, reason=QUEUE_DOWN.format(error=text))


def corpus_import_execute(*, import_id: int) -> CorpusImport:
    """Parse the stored files of a job and store them as a test set, recording progress.

    Refusals of the input (``CorpusFormatError``, ``CorpusInputError``, ``CorpusImportError``:
    messages with file and line) fail the job with their message; nothing is stored. Other
    errors (the database away) propagate to the caller (the task retries them) and leave the
    job running. A job that is already done or failed is returned as it is, so a task
    delivered twice does nothing.
    """
    claimed = CorpusImport.objects.filter(
        pk=import_id, status__in=[CorpusImport.Status.QUEUED, CorpusImport.Status.RUNNING]
    ).update(status=CorpusImport.Status.RUNNING, phase=PHASE_PARSING, started_at=timezone.now())
    job = CorpusImport.objects.select_related("created_by").get(pk=import_id)
    if not claimed:
        return job
    try:
        corpus = parse_corpus(job.import_format, _inputs(job))
        total = len(corpus.segments)
        CorpusImport.objects.filter(pk=job.pk).update(phase=PHASE_STORING, done=0, total=total)
        reporter = _ProgressFile(job)
        result = testset_import(
            corpus=corpus,
            name=job.name,
            import_format=job.import_format,
            user=job.created_by,
            progress=reporter,
        )
    except (CorpusFormatError, CorpusInputError, CorpusImportError) as error:
        return corpus_import_fail(import_id=import_id, reason=str(error))
    CorpusImport.objects.filter(pk=job.pk).update(
        status=CorpusImport.Status.DONE,
        phase="",
        done=total,
        total=total,
        test_set=result.test_set,
        message=result.summary,
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    _delete_files(job)
    return job


def corpus_import_fail(*, import_id: int, reason: str) -> CorpusImport:
    """Mark a job failed with ``reason`` (unless it is done) and delete its files."""
    CorpusImport.objects.filter(pk=import_id).exclude(status=CorpusImport.Status.DONE).update(
        status=CorpusImport.Status.FAILED, phase="", message=reason, finished_at=timezone.now()
    )
    job = CorpusImport.objects.get(pk=import_id)
    _delete_files(job)
    return job


def _inputs(job: CorpusImport) -> CorpusInputs:
    """The parser inputs of a job, read back from the storage."""
    by_role: dict[str, list[tuple[str | None, InputFile]]] = {role: [] for role in ROLES}
    for entry in job.files:
        by_role[entry["role"]].append((entry["label"], _stored_file(entry)))
    options = job.options

    def single(role: str) -> InputFile | None:
        return by_role[role][0][1] if by_role[role] else None

    return CorpusInputs(
        source=single("source"),
        references=[(None, file) for _, file in by_role["reference"]],
        systems=[(label or file.name, file) for label, file in by_role["system"]],
        file=single("file"),
        docs=single("docs"),
        source_lang=options.get("source_lang", ""),
        target_lang=options.get("target_lang", ""),
        encoding=options.get("encoding") or None,
        reference_systems=tuple(options.get("reference_systems") or ("ref",)),
        max_bytes=settings.CORPUS_UPLOAD_MAX_BYTES,
        max_segments=max_segments(),
    )


def _stored_file(entry: dict[str, Any]) -> InputFile:
    """An uploaded file of a job: by its path where the storage is a local folder (plain text
    then streams it), else its bytes."""
    try:
        local = Path(default_storage.path(entry["path"]))
    except NotImplementedError:  # not a local storage
        local = None
    try:
        if local is not None:
            local.open("rb").close()
            return InputFile(name=entry["name"], path=local)
        with default_storage.open(entry["path"], "rb") as stored:
            return InputFile(name=entry["name"], data=stored.read())
    except OSError:
        raise CorpusImportError(FILE_GONE.format(name=entry["name"])) from None


class _ProgressFile:
    """``progress(stored, total)`` for ``testset_import``: writes the counts to the job's
    progress file at most every ``PROGRESS_EVERY_S`` seconds, and at the end."""

    def __init__(self, job: CorpusImport) -> None:
        self.path = job.progress_file
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        payload = json.dumps({"phase": PHASE_STORING, "done": done, "total": total})
        try:
            default_storage.delete(self.path)
            default_storage.save(self.path, ContentFile(payload.encode("utf-8")))
        except OSError:  # progress is a courtesy: never fail an import for it
            logger.warning("could not write %s", self.path, exc_info=True)


def _delete_files(job: CorpusImport) -> None:
    """Delete the uploaded files and the progress file of a job, and its folder if empty."""
    for path in [entry["path"] for entry in job.files] + [job.progress_file]:
        try:
            default_storage.delete(path)
        except OSError:
            logger.warning("could not delete %s", path, exc_info=True)
    try:
        os.rmdir(default_storage.path(job.storage_folder))
    except (NotImplementedError, OSError):  # not a local storage, or not empty
        pass
