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


def group_names(user: AbstractBaseUser | AnonymousUser) -> frozenset[str]:
    """The user's group names, read once per user object (that is, once per request)."""
    if not user.is_authenticated:
        return frozenset()
    cached = getattr(user, "_evaltrans_group_names", None)
    if cached is None:
        cached = frozenset(user.groups.values_list("name", flat=True))
        user._evaltrans_group_names = cached  # type: ignore[union-attr]
    return cached


def in_group(user: AbstractBaseUser | AnonymousUser, group: str) -> bool:
    return group in group_names(user)


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
