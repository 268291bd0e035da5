"""Imports in the background with progress (``import_jobs``), and streamed exports.

``CORPUS_BACKGROUND_IMPORT_BYTES = 0`` sends every upload to the (eager) Celery task; the
default keeps the small test files in the request. Both go through the same service.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.messages import get_messages
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.http import FileResponse
from django.urls import reverse
from django.utils.html import escape
from kombu.exceptions import OperationalError as KombuOperationalError

from evaltrans.corpora import dispatch, import_jobs, services, tasks, views
from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.models import (
    Candidate,
    CorpusImport,
    RawEvaluation,
    Reference,
    Segment,
    System,
    TestSet,
)
from evaltrans.corpora.services import testset_export, testset_import
from evaltrans.corpora.text_index import index_available

from .bad_inputs import BAD_INPUTS, VALID, BadInput, database_counts
from .test_views import post_files

pytestmark = pytest.mark.django_db

BAD_CASES = [case for case in BAD_INPUTS if case.message][:6]


def rows() -> dict[str, list[tuple]]:
    """Every stored row of the corpus tables, without ids (a test set is re-imported)."""
    return {
        "test_sets": list(
            TestSet.objects.values_list(
                "name", "version", "content_hash", "source_lang", "target_lang", "import_format",
                "metadata",
            )
        ),
        "segments": list(
            Segment.objects.order_by("index").values_list("index", "doc_id", "seg_id", "source")
        ),
        "references": list(
            Reference.objects.order_by("pk").values_list("segment__index", "label", "text")
        ),
        "systems": list(System.objects.order_by("pk").values_list("name", flat=True)),
        "candidates": list(
            Candidate.objects.order_by("pk").values_list("segment__index", "system__name", "text")
        ),
        "evaluations": list(
            RawEvaluation.objects.order_by("pk").values_list(
                "segment__index", "position", "target_kind", "target_name", "aspect", "value",
                "attributes",
            )
        ),
    }  # fmt: skip


def stored_upload_files() -> list[str]:
    root = Path(default_storage.location) / "corpus-imports"
    return sorted(str(path) for path in root.rglob("*")) if root.exists() else []


@pytest.mark.parametrize("import_format", sorted(VALID))
def test_background_import_stores_the_same_rows_as_the_request(
    client, admin_user, settings, django_capture_on_commit_callbacks, import_format
):
    client.force_login(admin_user)
    response = post_files(client, VALID[import_format])
    assert response.status_code == 302
    in_request = CorpusImport.objects.get()
    assert not in_request.background
    assert response.url == in_request.test_set.get_absolute_url()
    expected = rows()
    TestSet.objects.all().delete()
    assert rows()["segments"] == []

    settings.CORPUS_BACKGROUND_IMPORT_BYTES = 0
    with django_capture_on_commit_callbacks(execute=True) as sent:
        response = post_files(client, VALID[import_format])
    job = CorpusImport.objects.exclude(pk=in_request.pk).get()
    # The import's task, then (registered by the import) the search index's.
    assert (job.background, len(sent)) == (True, 2)
    assert response.status_code == 302
    assert response.url == job.get_absolute_url()
    job.refresh_from_db()
    assert job.status == CorpusImport.Status.DONE, job.message
    assert rows() == expected
    assert job.test_set.words_indexed == index_available()
    assert stored_upload_files() == []  # the uploaded files are deleted after the import


def test_progress_json_moves_from_queued_to_done(
    client, admin_user, settings, django_capture_on_commit_callbacks, monkeypatch
):
    settings.CORPUS_BACKGROUND_IMPORT_BYTES = 0
    monkeypatch.setattr(services, "BULK_BATCH", 2)
    monkeypatch.setattr(import_jobs, "PROGRESS_EVERY_S", 0)
    written: list[dict] = []
    original_save = default_storage.save

    def spy(name, content, *args, **kwargs):
        if name.endswith("progress.json"):
            written.append(json.loads(content.read()))
            content.seek(0)
        return original_save(name, content, *args, **kwargs)

    monkeypatch.setattr(default_storage, "save", spy)
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=False) as pending:
        response = post_files(client, VALID["wmt-xml"])  # 4 segments
    job = CorpusImport.objects.get()
    url = reverse("corpora:import_progress", args=[job.pk])
    queued = client.get(url).json()
    assert (queued["status"], queued["percent"], queued["test_set_url"]) == ("queued", 0, "")
    page = client.get(response.url).content.decode()
    assert 'data-active="1"' in page and "import-progress-data" in page

    for callback in pending:
        callback()

    assert written == [
        {"phase": "storing", "done": 2, "total": 4},
        {"phase": "storing", "done": 4, "total": 4},
    ]
    done = client.get(url).json()
    test_set = TestSet.objects.get()
    assert done["status"] == "done"
    assert (done["done"], done["total"], done["percent"]) == (4, 4, 100.0)
    assert done["test_set_url"] == test_set.get_absolute_url()
    assert done["message"].startswith(f"Imported {test_set} (new test set): 4 segments")
    page = client.get(response.url).content.decode()
    assert 'data-active="0"' in page
    assert f'href="{test_set.get_absolute_url()}"' in page


def test_progress_of_the_store_step_comes_from_the_progress_file(client, admin_user):
    """The store step is one transaction: its counts are read from the file it writes."""
    job = CorpusImport.objects.create(
        name="big", import_format="text", status="running", phase="storing", total=10
    )
    default_storage.save(job.progress_file, ContentFile(b'{"done": 6000, "total": 8000}'))
    client.force_login(admin_user)
    data = client.get(reverse("corpora:import_progress", args=[job.pk])).json()
    assert (data["done"], data["total"], data["percent"]) == (6000, 8000, 75.0)
    assert data["phase_label"] == "Storing segments"
    default_storage.delete(job.progress_file)
    data = client.get(reverse("corpora:import_progress", args=[job.pk])).json()
    assert (data["done"], data["total"]) == (0, 10)  # the file is gone: the row's counts


@pytest.mark.parametrize("case", BAD_CASES, ids=lambda case: case.id)
def test_a_bad_file_in_the_background_shows_its_message_and_stores_nothing(
    client, admin_user, settings, django_capture_on_commit_callbacks, case: BadInput
):
    settings.CORPUS_BACKGROUND_IMPORT_BYTES = 0
    client.force_login(admin_user)
    nothing = database_counts()
    with django_capture_on_commit_callbacks(execute=True):
        response = post_files(client, case.files)
    job = CorpusImport.objects.get()
    assert response.url == job.get_absolute_url()
    job.refresh_from_db()
    assert (job.status, job.message, job.test_set) == ("failed", case.message, None)
    assert database_counts() == nothing
    assert stored_upload_files() == []
    page = client.get(job.get_absolute_url()).content.decode()
    assert escape(case.message) in page
    assert client.get(reverse("corpora:import_progress", args=[job.pk])).json()["message"] == (
        case.message
    )


def test_the_import_page_lists_recent_imports(client, admin_user, settings):
    client.force_login(admin_user)
    post_files(client, VALID["text"], name="first")
    html = client.get(reverse("corpora:test_set_import")).content.decode()
    job = CorpusImport.objects.get()
    assert 'id="recent-imports"' in html
    assert job.get_absolute_url() in html
    assert job.test_set.get_absolute_url() in html


def test_a_broker_that_cannot_be_reached_fails_the_job_with_a_message(
    client, admin_user, settings, django_capture_on_commit_callbacks, monkeypatch
):
    class Unreachable:
        def apply_async(self, *args, **kwargs):
            raise KombuOperationalError("connection refused")

    monkeypatch.setattr(dispatch, "task", lambda name: Unreachable())
    settings.CORPUS_BACKGROUND_IMPORT_BYTES = 0
    client.force_login(admin_user)
    with django_capture_on_commit_callbacks(execute=True):
        post_files(client, VALID["text"])
    job = CorpusImport.objects.get()
    assert job.status == "failed"
    assert job.message == import_jobs.QUEUE_DOWN.format(error="connection refused")
    assert stored_upload_files() == []


def test_a_task_past_its_time_limit_fails_the_job(
    client, admin_user, settings, django_capture_on_commit_callbacks, monkeypatch
):
    def too_slow(*, import_id):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(import_jobs, "corpus_import_execute", too_slow)
    settings.CORPUS_BACKGROUND_IMPORT_BYTES = 0
    client.force_login(admin_user)
    with pytest.raises(SoftTimeLimitExceeded), django_capture_on_commit_callbacks(execute=True):
        post_files(client, VALID["text"])
    job = CorpusImport.objects.get()
    assert job.status == "failed"
    assert job.message == tasks.TIME_LIMIT_MESSAGE.format(limit=tasks.time_limit_s())
    assert database_counts()["TestSet"] == 0


def test_a_job_already_done_is_not_imported_again(admin_user):
    job = CorpusImport.objects.create(name="x", import_format="text", status="done")
    assert import_jobs.corpus_import_execute(import_id=job.pk).status == "done"
    assert TestSet.objects.count() == 0


# --- exports -----------------------------------------------------------------------------


def generated_test_set(segments: int) -> TestSet:
    corpus = CorpusData(
        "de",
        "en",
        [
            SegmentData(
                source=f"Satz Nummer {i}.",
                doc_id=f"doc{i // 100}",
                seg_id=str(i % 100 + 1),
                references={"A": f"Sentence number {i}."},
                candidates={"sysX": f"Sentence {i}.", "sysY": f"Number {i} sentence."},
            )
            for i in range(segments)
        ],
    )
    return testset_import(corpus=corpus, name="generated", import_format="text").test_set


def members(archive: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return {name: opened.read(name) for name in opened.namelist()}


def in_memory_export(test_set: TestSet, export_format: str, folder: Path) -> bytes:
    """The export as the view built it before it streamed: every file zipped in memory."""
    buffer = io.BytesIO()
    files = testset_export(test_set=test_set, export_format=export_format, out_dir=folder)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


@pytest.mark.parametrize("export_format", ["text", "sgml", "wmt-xml", "evaltrans-xml", "mqm-tsv"])
def test_exports_stream_the_same_archive_as_before(client, admin_user, tmp_path, export_format):
    test_set = generated_test_set(40)
    client.force_login(admin_user)
    response = client.get(reverse("corpora:test_set_export", args=[test_set.pk, export_format]))
    assert response.status_code == 200
    assert response.streaming
    streamed = b"".join(response.streaming_content)
    old = in_memory_export(test_set, export_format, tmp_path)
    assert members(streamed) == members(old)
    assert response["Content-Length"] == str(len(streamed))


def test_a_large_export_streams_in_blocks_from_a_file(client, admin_user, monkeypatch):
    """Above the spool size the archive is a file on disk, sent block by block."""
    monkeypatch.setattr(services, "EXPORT_SPOOL_BYTES", 1024)
    monkeypatch.setattr(views, "EXPORT_BLOCK_BYTES", 4096)
    archives = []

    def archive(**kwargs):
        archives.append(services.testset_export_archive(**kwargs))
        return archives[-1]

    monkeypatch.setattr(views, "testset_export_archive", archive)
    test_set = generated_test_set(3000)
    client.force_login(admin_user)
    response = client.get(reverse("corpora:test_set_export", args=[test_set.pk, "wmt-xml"]))
    assert isinstance(response, FileResponse)
    assert response.streaming
    assert archives[0]._rolled  # on disk, not in memory
    blocks = list(response.streaming_content)
    assert len(blocks) > 1
    assert all(len(block) <= response.block_size for block in blocks)
    (name,) = members(b"".join(blocks))
    assert name.endswith(".xml")
    response.close()


def test_an_export_the_format_cannot_hold_is_a_message_not_an_error(client, admin_user):
    corpus = CorpusData(
        "de",
        "en",
        [SegmentData("Ein\tTab.", seg_id="1", references={"ref": "A tab."})],
    )
    test_set = testset_import(corpus=corpus, name="tabs", import_format="text").test_set
    client.force_login(admin_user)
    response = client.get(reverse("corpora:test_set_export", args=[test_set.pk, "mqm-tsv"]))
    assert response.status_code == 302
    assert response.url == test_set.get_absolute_url()
    (message,) = [str(m) for m in get_messages(response.wsgi_request)]
    assert message.startswith("This test set cannot be exported as mqm-tsv: ")
    assert "contains a tab or line break, which TSV cannot hold" in message
    page = client.get(response.url).content.decode()
    assert escape(message) in page


def test_an_unexpected_error_in_the_request_fails_the_job(client, admin_user, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(import_jobs, "testset_import", broken)
    client.force_login(admin_user)
    with pytest.raises(RuntimeError):
        post_files(client, VALID["text"])
    job = CorpusImport.objects.get()
    assert (job.status, job.message) == ("failed", "RuntimeError: disk on fire")
    assert stored_upload_files() == []
