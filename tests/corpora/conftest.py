"""Fixtures for corpus tests: small text corpora on disk and users of each role."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from evaltrans.roles import JUDGES_GROUP, VIEWERS_GROUP

SOURCE = ["Guten Morgen.", "Wie geht es dir?", "Das ist <b>gut</b>."]
REF_A = ["Good morning.", "How are you?", "That is <b>good</b>."]
REF_B = ["Morning!", "How are you doing?", "This is good."]
SYS_X = ["Good morning .", "How is it going?", "<script>alert(1)</script>"]
SYS_Y = ["Good tomorrow.", "How goes it you?", "That is good."]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def text_corpus(tmp_path: Path) -> dict[str, Path]:
    """A three-segment German-English corpus with two references and two systems."""
    return {
        "source": write_lines(tmp_path / "src.de", SOURCE),
        "ref_a": write_lines(tmp_path / "ref.A.en", REF_A),
        "ref_b": write_lines(tmp_path / "ref.B.en", REF_B),
        "sys_x": write_lines(tmp_path / "sysX.en", SYS_X),
        "sys_y": write_lines(tmp_path / "sysY.en", SYS_Y),
    }


def make_user(name: str, *, staff: bool = False, group: str | None = None):
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
    return make_user("jude", group=JUDGES_GROUP)


@pytest.fixture
def viewer_user(db):
    return make_user("vera", group=VIEWERS_GROUP)
