"""Password rules: the weak passwords of the hardening issue are refused, a decent one is not."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError

EMAIL = "judge3@uni-example.org"


@pytest.fixture
def judge3(db):
    return get_user_model().objects.create_user("judge3", email=EMAIL)


@pytest.mark.parametrize("password", ["judge3judge3", EMAIL, "93847561"])
def test_weak_passwords_are_refused(judge3, password):
    with pytest.raises(ValidationError):
        validate_password(password, user=judge3)


def test_a_long_unrelated_password_is_accepted(judge3):
    validate_password("correct-horse-battery-staple", user=judge3)


def test_the_admin_forms_refuse_the_weak_passwords(judge3):
    from django.contrib.auth.forms import SetPasswordForm

    form = SetPasswordForm(
        judge3, {"new_password1": "judge3judge3", "new_password2": "judge3judge3"}
    )
    assert not form.is_valid()
    assert "too similar" in str(form.errors)
