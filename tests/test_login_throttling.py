"""Login throttling (django-axes): repeated failures lock an account and an address out, on the
site's login page and the admin's, until the cool-off has passed or an admin unlocks it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.management import call_command
from django.test import RequestFactory, override_settings

from evaltrans.throttling import client_ip
from tests.conftest import make_user

HOME = "10.0.0.1"
ELSEWHERE = "10.0.0.2"


def attempt(client, username: str, password: str, *, address: str = HOME, url: str = "/login/"):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address)


def fail(client, username: str, times: int, *, address: str = HOME, url: str = "/login/"):
    for _ in range(times):
        response = attempt(client, username, "wrong-password", address=address, url=url)
        assert response.status_code in (200, 429)


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.fixture
def users(db):
    return {name: make_user(name) for name in ("alice", "bob", "mallory")}


def test_the_right_password_is_refused_after_too_many_wrong_ones(client, users):
    fail(client, "alice", settings.AXES_FAILURE_LIMIT)

    response = attempt(client, "alice", "pw-alice")

    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many failed logins" in text
    assert "15\xa0minutes" in text
    assert not logged_in(client)


def test_below_the_limit_the_right_password_still_works(client, users):
    fail(client, "alice", settings.AXES_FAILURE_LIMIT - 1)
    response = attempt(client, "alice", "pw-alice")
    assert response.status_code == 302
    assert logged_in(client)


def test_the_admin_login_is_throttled_too(client, db):
    make_user("root", staff=True)
    fail(client, "root", settings.AXES_FAILURE_LIMIT, url="/admin/login/")

    response = attempt(client, "root", "pw-root", url="/admin/login/")

    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert not logged_in(client)


def test_one_address_is_throttled_for_every_account(client, users):
    # A few guesses at many accounts, each below the limit on its own.
    for name in ("alice", "bob"):
        fail(client, name, settings.AXES_FAILURE_LIMIT // 2)
    fail(client, "nobody", settings.AXES_FAILURE_LIMIT - 2 * (settings.AXES_FAILURE_LIMIT // 2))

    assert attempt(client, "mallory", "pw-mallory").status_code == 429
    assert not logged_in(client)
    # The same account from another address is not blocked by this address's failures.
    assert attempt(client, "mallory", "pw-mallory", address=ELSEWHERE).status_code == 302


def test_one_account_is_throttled_from_every_address(client, users):
    for number in range(settings.AXES_FAILURE_LIMIT):
        fail(client, "alice", 1, address=f"10.1.0.{number + 1}")

    assert attempt(client, "alice", "pw-alice", address=ELSEWHERE).status_code == 429
    assert not logged_in(client)
    assert attempt(client, "bob", "pw-bob", address=ELSEWHERE).status_code == 302


def test_a_successful_login_resets_nothing(client, users):
    """An attacker holding one valid account cannot clear the count between guesses."""
    fail(client, "alice", settings.AXES_FAILURE_LIMIT - 2)
    assert attempt(client, "mallory", "pw-mallory").status_code == 302
    client.logout()
    fail(client, "alice", 2)

    assert attempt(client, "alice", "pw-alice").status_code == 429
    assert attempt(client, "mallory", "pw-mallory").status_code == 429


def test_the_lockout_ends_after_the_cool_off(client, users):
    fail(client, "alice", settings.AXES_FAILURE_LIMIT)
    last = AccessAttempt.objects.get(username="alice").attempt_time
    AccessAttempt.objects.update(
        attempt_time=last - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    )

    assert attempt(client, "alice", "pw-alice").status_code == 302


def test_an_admin_unlocks_an_account(client, users):
    fail(client, "alice", settings.AXES_FAILURE_LIMIT, address=ELSEWHERE)
    assert attempt(client, "alice", "pw-alice").status_code == 429

    call_command("axes_reset_username", "alice")

    assert attempt(client, "alice", "pw-alice").status_code == 302


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "203.0.113.9", "127.0.0.9"),
        (1, "203.0.113.9", "203.0.113.9"),
        # The client wrote the left entry itself; only the proxy's own entry counts.
        (1, "6.6.6.6, 203.0.113.9", "203.0.113.9"),
        (2, "6.6.6.6, 203.0.113.9, 10.0.0.5", "203.0.113.9"),
        (1, "", "127.0.0.9"),
    ],
)
def test_client_address_behind_trusted_proxies(proxies, forwarded, expected):
    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    with override_settings(TRUSTED_PROXY_COUNT=proxies):
        assert client_ip(request) == expected
