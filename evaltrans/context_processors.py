"""Template context shared by every page."""

from django.http import HttpRequest


def roles(request: HttpRequest) -> dict[str, bool]:
    user = getattr(request, "user", None)
    is_admin = bool(user and user.is_authenticated and user.is_staff)
    return {"is_admin": is_admin}
