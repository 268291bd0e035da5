"""Login throttling hooks for django-axes: the client's address and the lockout page.

Settings in ``evaltrans.settings.base`` (``AXES_*``, ``TRUSTED_PROXY_COUNT``); an admin lifts a
lockout with ``manage.py axes_reset_username NAME`` (see docs/operations.md).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.timesince import timeuntil
from django.utils.timezone import now


def client_ip(request: HttpRequest) -> str | None:
    """The address throttled per address: ``REMOTE_ADDR``, or, behind ``TRUSTED_PROXY_COUNT``
    proxies, the X-Forwarded-For entry the outermost proxy appended.

    Entries left of it come from the client and could be forged, so they are never used.
    """
    count = settings.TRUSTED_PROXY_COUNT
    if count > 0:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if len(hops) >= count:
            return hops[-count]
    return request.META.get("REMOTE_ADDR")


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """The lockout page, for the site's login and the admin's alike (axes' lockout callable)."""
    start = now()
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "wait": timeuntil(start + settings.AXES_COOLOFF_TIME, start),
    }
    return render(
        request, "registration/lockout.html", context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
