"""The three roles of evaltrans and the view decorators that enforce them.

* admin: staff users; import corpora, run campaigns, see everything.
* judge: members of the ``judges`` group; see only their own judging assignments.
* viewer: members of the ``viewers`` group; browse corpora, scores and dashboards.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

JUDGES_GROUP = "judges"
VIEWERS_GROUP = "viewers"

View = Callable[..., HttpResponse]


def is_admin(user: AbstractBaseUser | AnonymousUser) -> bool:
    return bool(user.is_authenticated and user.is_staff)


def in_group(user: AbstractBaseUser | AnonymousUser, group: str) -> bool:
    return bool(user.is_authenticated and user.groups.filter(name=group).exists())


def is_judge(user: AbstractBaseUser | AnonymousUser) -> bool:
    return in_group(user, JUDGES_GROUP)


def can_browse(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Admins and viewers read corpora and scores; judges do not (references would bias them)."""
    return is_admin(user) or in_group(user, VIEWERS_GROUP)


def _require(check: Callable[[Any], bool]) -> Callable[[View], View]:
    def decorator(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not check(request.user):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


admin_required = _require(is_admin)
browser_required = _require(can_browse)
