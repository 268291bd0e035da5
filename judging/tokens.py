"""Signed screen tokens: each rendering of a judging screen carries one.

The token names the assignment and screen, the time of rendering and a nonce. The nonce makes
re-sent submissions recognisable (idempotent submits); the time caps the active time a page
can report at the wall time since it was rendered.
"""

from __future__ import annotations

import secrets
import time

from django.core import signing

TOKEN_SALT = "judging.screen"


class BadToken(ValueError):
    """The token is forged, damaged or belongs to another screen."""


def screen_token_new(*, assignment_id: int, screen: int) -> str:
    payload = {
        "a": assignment_id,
        "s": screen,
        "t": int(time.time() * 1000),
        "n": secrets.token_hex(12),
    }
    return signing.dumps(payload, salt=TOKEN_SALT, compress=False)


def screen_token_read(token: str, *, assignment_id: int, screen: int) -> tuple[str, int]:
    """The token's nonce and the milliseconds since its page was rendered."""
    try:
        payload = signing.loads(token, salt=TOKEN_SALT)
    except signing.BadSignature as error:
        raise BadToken(str(error)) from error
    if payload.get("a") != assignment_id or payload.get("s") != screen:
        raise BadToken("token of another screen")
    return str(payload["n"]), max(0, int(time.time() * 1000) - int(payload["t"]))
