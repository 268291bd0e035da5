"""Error pages in the site's style: 403, 404 and 405 inside the site's layout, and a 500 page
that needs neither a request context nor the database."""

from __future__ import annotations

import pytest
from django.contrib.auth.decorators import login_not_required
from django.db import OperationalError
from django.template import Context
from django.template.loader import get_template
from django.urls import path

from evaltrans import urls as project_urls


@login_not_required
def explode(request):
    raise RuntimeError("boom")


@login_not_required
def database_away(request):
    raise OperationalError("connection refused")


urlpatterns = [
    path("explode/", explode),
    path("database-away/", database_away),
    *project_urls.urlpatterns,
]
handler500 = project_urls.handler500


@pytest.mark.urls(__name__)
def test_an_exception_gives_the_500_page(client, settings):
    settings.DEBUG = False
    client.raise_request_exception = False

    response = client.get("/explode/")

    assert response.status_code == 500
    text = response.content.decode()
    assert "Something went wrong" in text
    assert "try again" in text.lower()
    assert "boom" not in text


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("accept", ["text/html", "application/json"])
def test_a_database_fault_outside_any_view_gives_a_503_to_retry(client, settings, accept):
    settings.DEBUG = False
    client.raise_request_exception = False

    response = client.get("/database-away/", headers={"Accept": accept})

    assert response.status_code == 503
    assert response["Retry-After"] == "2"
    if accept == "application/json":
        assert "database is unavailable" in response.json()["error"]
    else:
        assert "The database is not answering" in response.content.decode()


@pytest.mark.parametrize(
    "name, text",
    [
        ("500.html", "Something went wrong"),
        ("503.html", "The database is not answering"),
        ("judging/save_failed.html", "Could not save your answer"),
    ],
)
def test_the_standalone_error_pages_need_no_request_and_no_database(name, text):
    # No db fixture, so a query would fail the test; an empty Context is what Django's
    # server_error renders 500.html with. No tag library, no URL lookup.
    template = get_template(name).template
    assert "{% load" not in template.source and "{% url" not in template.source
    assert text in template.render(Context())


def test_unknown_page_gives_the_404_page(client, viewer_user):
    client.force_login(viewer_user)
    response = client.get("/test-sets/987654/")
    assert response.status_code == 404
    text = response.content.decode()
    assert "Page not found" in text
    assert "evaltrans.css" in text


def test_forbidden_page_gives_the_403_page(client, judge_user):
    client.force_login(judge_user)
    response = client.get("/test-sets/")
    assert response.status_code == 403
    assert "No access" in response.content.decode()


def test_wrong_method_gives_the_405_page_with_its_allow_header(client, viewer_user):
    client.force_login(viewer_user)
    response = client.post("/test-sets/")
    assert response.status_code == 405
    assert response["Allow"] == "GET"
    text = response.content.decode()
    assert "Method not allowed" in text
    assert "does not accept a POST request; it takes GET" in text
