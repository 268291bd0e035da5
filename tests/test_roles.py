"""Roles: admins are staff, judges and viewers are groups; groups are read once per request."""

from __future__ import annotations

import pytest

from evaltrans.roles import JUDGES_GROUP, VIEWERS_GROUP, can_browse, is_admin, is_judge
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def test_group_names_are_queried_once_per_user_object(django_assert_num_queries):
    user = make_user("both", group=JUDGES_GROUP)
    fresh = type(user).objects.get(pk=user.pk)
    with django_assert_num_queries(1):
        assert is_judge(fresh)
        assert not can_browse(fresh)
        assert is_judge(fresh)


@pytest.mark.parametrize(
    ("staff", "group", "expected"),
    [
        (True, None, (True, False, True)),
        (False, JUDGES_GROUP, (False, True, False)),
        (False, VIEWERS_GROUP, (False, False, True)),
        (False, None, (False, False, False)),
    ],
)
def test_roles(staff, group, expected):
    user = make_user("someone", staff=staff, group=group)
    user = type(user).objects.get(pk=user.pk)
    assert (is_admin(user), is_judge(user), can_browse(user)) == expected
