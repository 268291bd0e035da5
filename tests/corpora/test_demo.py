"""load_demo_corpus: demo users with their roles and the MQM TED demo corpus, once."""

from __future__ import annotations

import gzip
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from evaltrans.corpora.management.commands.load_demo_corpus import (
    DEMO_FILE,
    DEMO_NAME,
    NOT_IN_PRODUCTION,
)
from evaltrans.corpora.models import TestSet
from evaltrans.roles import can_browse, is_admin, is_judge

pytestmark = pytest.mark.django_db


def expected_demo_counts() -> tuple[int, set[str]]:
    """Segments and system names counted straight from the shipped TSV."""
    rows = gzip.decompress(DEMO_FILE.read_bytes()).decode("utf-8").split("\n")[1:]
    fields = [row.split("\t") for row in rows if row]
    return len({f[3] for f in fields}), {f[0] for f in fields}


def test_demo_loads_users_and_corpus_once(settings):
    settings.DEBUG = False
    call_command("load_demo_corpus", "--force", stdout=StringIO())
    settings.DEBUG = True  # the development settings of `make run`; a second run adds nothing
    call_command("load_demo_corpus", stdout=StringIO())
    test_set = TestSet.objects.get(name=DEMO_NAME)
    segments, systems = expected_demo_counts()
    assert test_set.segments.count() == segments == 529
    assert set(test_set.systems.values_list("name", flat=True)) == systems - {"ref"}
    assert test_set.metadata["reference_labels"] == ["ref"]
    users = {user.username: user for user in get_user_model().objects.all()}
    assert is_admin(users["admin"]) and not is_judge(users["admin"])
    assert is_judge(users["judge1"]) and not can_browse(users["judge1"])
    assert can_browse(users["viewer"]) and not is_admin(users["viewer"])
    assert users["admin"].check_password("admin-demo")


def test_demo_is_refused_when_debug_is_off_without_force(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError) as refused:
        call_command("load_demo_corpus", stdout=StringIO())
    assert str(refused.value) == NOT_IN_PRODUCTION
    assert "--force" in str(refused.value)
    assert not get_user_model().objects.exists()
    assert not TestSet.objects.exists()
