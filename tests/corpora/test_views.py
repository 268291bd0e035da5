"""Corpus pages: who may see what, the upload form, escaping, search and pagination."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from evaltrans.corpora.forms import SYSTEM_NAME_COUNT, TOO_LARGE
from evaltrans.corpora.models import Segment, TestSet
from tests.conftest import make_user

from .bad_inputs import (
    BAD_INPUTS,
    SIZE_LIMIT,
    VALID,
    BadInput,
    CorpusFiles,
    database_counts,
    stored_texts,
)
from .conftest import REF_A, SOURCE, SYS_X, SYS_Y

pytestmark = pytest.mark.django_db


def upload(name: str, lines: list[str]) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, ("\n".join(lines) + "\n").encode("utf-8"))


def post_text_corpus(client, name: str = "web-toy", **overrides):
    data = {
        "name": name,
        "format": "text",
        "source_lang": "de",
        "target_lang": "en",
        "encoding": "utf-8",
        "reference_systems": "ref",
        "source": upload("src.de", SOURCE),
        "references": [upload("ref.en", REF_A)],
        "systems": [upload("sysX.en", SYS_X), upload("sysY.en", SYS_Y)],
    }
    data.update(overrides)
    return client.post(reverse("corpora:test_set_import"), data)


@pytest.fixture
def stored_test_set(client, admin_user) -> TestSet:
    client.force_login(admin_user)
    response = post_text_corpus(client)
    assert response.status_code == 302, response.content.decode()[:2000]
    client.logout()
    return TestSet.objects.get(name="web-toy")


def page_urls(test_set: TestSet) -> list[str]:
    return [
        reverse("corpora:test_set_list"),
        reverse("corpora:test_set_detail", args=[test_set.pk]),
        reverse("corpora:test_set_import"),
        reverse("corpora:test_set_export", args=[test_set.pk, "text"]),
    ]


def test_anonymous_users_are_sent_to_login_from_every_page(client, stored_test_set):
    for url in [reverse("corpora:home"), *page_urls(stored_test_set)]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.url.startswith(reverse("login")), url


def test_login_page_is_public(client):
    assert client.get(reverse("login")).status_code == 200


def test_judges_see_no_corpus_page(client, judge_user, stored_test_set):
    client.force_login(judge_user)
    for url in page_urls(stored_test_set):
        assert client.get(url).status_code == 403, url
    response = client.get(reverse("corpora:home"))
    assert response.status_code == 302
    assert response.url == reverse("judging:my_assignments")


def test_users_without_a_role_see_no_corpus_page(client, db):
    client.force_login(make_user("nobody"))
    assert client.get(reverse("corpora:test_set_list")).status_code == 403
    assert "no role yet" in client.get(reverse("corpora:home")).content.decode()


def test_viewers_browse_but_cannot_import_or_export(client, viewer_user, stored_test_set):
    client.force_login(viewer_user)
    list_url, detail_url, import_url, export_url = page_urls(stored_test_set)
    assert client.get(list_url).status_code == 200
    assert client.get(detail_url).status_code == 200
    assert client.get(import_url).status_code == 403
    assert client.get(export_url).status_code == 403
    assert post_text_corpus(client, name="sneaky").status_code == 403
    assert not TestSet.objects.filter(name="sneaky").exists()


def test_upload_form_imports_with_labels_and_file_names(stored_test_set):
    assert stored_test_set.segments.count() == 3
    assert sorted(stored_test_set.systems.values_list("name", flat=True)) == ["sysX", "sysY"]
    assert stored_test_set.metadata["reference_labels"] == ["A"]


def post_files(client, files: CorpusFiles, name: str = "web-corpus", encoding: str = ""):
    """Post one corpus through the upload form, every file as a fresh upload."""
    data = {
        "name": name,
        "format": files.format,
        "source_lang": files.source_lang,
        "target_lang": files.target_lang,
        "encoding": encoding,
        "reference_systems": "ref",
        "system_names": ",".join(files.system_names),
    }
    if files.source is not None:
        data["source"] = SimpleUploadedFile(*files.source)
    if files.file is not None:
        data["file"] = SimpleUploadedFile(*files.file)
    data["references"] = [SimpleUploadedFile(*named) for named in files.references]
    data["systems"] = [SimpleUploadedFile(*named) for named in files.systems]
    return client.post(reverse("corpora:test_set_import"), data)


@pytest.mark.parametrize(
    ("import_format", "segments"),
    [("text", 3), ("sgml", 3), ("wmt-xml", 4), ("evaltrans-xml", 1), ("mqm-tsv", 3)],
)
def test_valid_upload_of_every_format_is_stored(client, admin_user, import_format, segments):
    """The bad inputs below differ from these by one fault each."""
    client.force_login(admin_user)
    response = post_files(client, VALID[import_format])
    assert response.status_code == 302, response.context["form"].errors
    test_set = TestSet.objects.get(name="web-corpus")
    assert (test_set.import_format, test_set.segments.count()) == (import_format, segments)


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda case: case.id)
def test_bad_upload_is_a_form_error_naming_the_file_and_stores_nothing(
    client, admin_user, settings, case: BadInput
):
    settings.CORPUS_UPLOAD_MAX_BYTES = SIZE_LIMIT
    client.force_login(admin_user)
    nothing = database_counts()

    response = post_files(client, case.files)

    expected = case.message or TOO_LARGE.format(
        name=case.oversized, size=case.files.size_of(case.oversized), limit=SIZE_LIMIT
    )
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [expected]
    assert escape(expected) in response.content.decode()
    assert database_counts() == nothing
    if case.encoding:  # the form's Encoding field, as the message says, makes the files import
        response = post_files(client, case.files, encoding=case.encoding)
        assert response.status_code == 302, response.context["form"].errors
        assert case.decoded in stored_texts()


def test_system_names_must_match_the_system_files(client, admin_user):
    client.force_login(admin_user)
    response = post_text_corpus(client, system_names="X,Y,Z")
    assert response.context["form"].non_field_errors() == [
        SYSTEM_NAME_COUNT.format(names=3, files=2)
    ]
    assert TestSet.objects.count() == 0


def test_mt_output_is_shown_escaped(client, viewer_user, stored_test_set):
    client.force_login(viewer_user)
    html = client.get(
        reverse("corpora:test_set_detail", args=[stored_test_set.pk])
    ).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Das ist &lt;b&gt;gut&lt;/b&gt;." in html


def test_search_finds_text_in_candidates_and_highlights_escaped(
    client, viewer_user, stored_test_set
):
    client.force_login(viewer_user)
    url = reverse("corpora:test_set_detail", args=[stored_test_set.pk])
    html = client.get(url, {"q": "script"}).content.decode()
    assert "1 segment matching" in html
    assert "&lt;<mark>script</mark>&gt;alert(1)" in html
    assert "Guten Morgen" not in html


def test_system_filter_shows_only_chosen_systems(client, viewer_user, stored_test_set):
    client.force_login(viewer_user)
    url = reverse("corpora:test_set_detail", args=[stored_test_set.pk])
    html = client.get(url, {"system": "sysY"}).content.decode()
    assert "Good tomorrow." in html
    assert "How is it going?" not in html


def test_pagination_and_document_boundaries(client, viewer_user):
    test_set = TestSet.objects.create(
        name="long", content_hash="x" * 64, source_lang="en", target_lang="de", import_format="text"
    )
    Segment.objects.bulk_create(
        Segment(test_set=test_set, index=i, doc_id=f"doc{i // 15}", source=f"sentence {i}")
        for i in range(45)
    )
    client.force_login(viewer_user)
    url = reverse("corpora:test_set_detail", args=[test_set.pk])
    first = client.get(url).content.decode()
    assert "Page 1 of 3" in first
    assert first.count('class="doc-boundary"') == 2  # doc0 from the top, doc1 at segment 16
    second = client.get(url, {"page": 2}).content.decode()
    assert "sentence 20" in second and "sentence 19" not in second


def test_admin_exports_a_zip(client, admin_user, stored_test_set):
    client.force_login(admin_user)
    response = client.get(reverse("corpora:test_set_export", args=[stored_test_set.pk, "text"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert b"".join(response.streaming_content)[:2] == b"PK"
