"""Shared fixtures. Data from the shared folder beside the project is optional: tests that need
it skip with a reason where it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(
    os.environ.get("EVALTRANS_SHARED_DATA", PROJECT_DIR.parent / "shared" / "mt-eval-data")
)


def shared_path(*parts: str) -> Path:
    """Path of a file of the shared real data; skips the calling test when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {'/'.join(parts)} (set EVALTRANS_SHARED_DATA)")
    return path


@pytest.fixture
def shared_data() -> Path:
    """Root of the shared mt-eval-data folder; skips when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("shared mt-eval-data folder not available (set EVALTRANS_SHARED_DATA)")
    return SHARED_DATA


def make_user(name: str, *, staff: bool = False, group: str | None = None):
    """A user with password ``pw-<name>``: staff for admins, or in the judges/viewers group."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(username=name, password="pw-" + name)
    user.is_staff = staff
    user.save()
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.fixture
def admin_user(db):
    return make_user("boss", staff=True)


@pytest.fixture
def judge_user(db):
    from evaltrans.roles import JUDGES_GROUP

    return make_user("jude", group=JUDGES_GROUP)


@pytest.fixture
def viewer_user(db):
    from evaltrans.roles import VIEWERS_GROUP

    return make_user("vera", group=VIEWERS_GROUP)
