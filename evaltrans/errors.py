"""The site's handler for uncaught errors (``handler500``).

A database fault can strike before any view runs (the session lookup of the login check), so
the judging view's own 503 cannot catch it. Here it becomes a 503 with ``Retry-After``, which
the judging page retries and which tells a reader to try again; anything else is the plain 500.
Nothing here touches the request's user or the database: they may be what failed.
"""

from __future__ import annotations

import sys

from django.db import DatabaseError, InterfaceError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

RETRY_AFTER_S = 2
DATABASE_UNAVAILABLE = "The database is unavailable for a moment; nothing was changed. Try again."


def server_error(request: HttpRequest) -> HttpResponse:
    error = sys.exc_info()[1]
    if not isinstance(error, (DatabaseError, InterfaceError)):
        return HttpResponse(render_to_string("500.html"), status=500)
    if "application/json" in request.headers.get("Accept", ""):
        response: HttpResponse = JsonResponse({"error": DATABASE_UNAVAILABLE}, status=503)
    else:
        response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response
