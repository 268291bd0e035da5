"""Site-wide middleware of evaltrans."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class MethodNotAllowedPageMiddleware:
    """Gives the empty 405 of ``require_http_methods`` and class-based views a page in the
    site's style (Django has no ``405.html`` handler of its own)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or response.streaming or response.content:
            return response
        allowed = response.get("Allow", "")
        page = render(
            request,
            "405.html",
            {"method": request.method, "allowed": " or ".join(allowed.split(", "))},
            status=405,
        )
        page["Allow"] = allowed
        return page
