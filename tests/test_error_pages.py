"""Error pages in the site's style: 403, 404 and 405 inside the site's layout, and a 500 page
that needs neither a request context nor the database."""

from __future__ import annotations

import pytest
from django.contrib.auth.decorators import login_not_required
from django.template import Context
from django.template.loader import get_template
from django.urls import path

from evaltrans import urls as project_urls


@login_not_required
def explode(request):
    raise RuntimeError("boom")


urlpatterns = [path("explode/", explode), *project_urls.urlpatterns]


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


def test_the_500_page_needs_no_request_and_no_database():
    # No db fixture, so a query would fail the test; an empty Context is what Django's
    # server_error renders it with.
    template = get_template("500.html").template
    assert "{%" not in template.source
    assert "Something went wrong" in template.render(Context())


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
