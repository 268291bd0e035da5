"""Template context shared by every page."""

from django.http import HttpRequest

from .roles import can_browse, is_admin, is_judge


def roles(request: HttpRequest) -> dict[str, bool]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_admin": False, "is_judge": False, "can_browse": False}
    return {"is_admin": is_admin(user), "is_judge": is_judge(user), "can_browse": can_browse(user)}
