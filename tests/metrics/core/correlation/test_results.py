"""The text form of a coefficient shared by the table, the figures and the downloads."""

from __future__ import annotations

import math

import pytest

from metrics.core.correlation import format_value


@pytest.mark.parametrize(
    "value, text",
    [(0.1234, "0.123"), (-0.1236, "-0.124"), (-0.0004, "0.000"), (0.0, "0.000"),
     (None, ""), (math.nan, ""), (math.inf, "")],
)  # fmt: skip
def test_values_keep_three_decimals_and_never_print_minus_zero(value, text):
    assert format_value(value) == text


def test_digits_and_missing_text_are_options():
    assert format_value(-0.00004, digits=4) == "0.0000"
    assert format_value(None, missing="n/a") == "n/a"
