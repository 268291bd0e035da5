"""Every number option is bounded, and option conversion refuses hostile values with a
MeasureError (never OverflowError, MemoryError or a hang): values reach the measures from web
forms, sweeps and the command line."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tests.fuzzing  # noqa: F401 - loads the hypothesis profile before @given runs
from metrics.core import METRICS
from metrics.core.base import FILE_MAX_BYTES, MeasureError, Option

NUMBER_OPTIONS = [
    (name, key, option)
    for name, measure in METRICS.items()
    for key, option in measure.options.items()
    if option.kind in (int, float)
]
ALL_OPTIONS = [(name, key) for name, measure in METRICS.items() for key in measure.options]


def test_the_registry_has_number_options() -> None:
    assert len(NUMBER_OPTIONS) >= 10  # the walk below must not pass by finding nothing


@pytest.mark.parametrize(("name", "key", "option"), NUMBER_OPTIONS)
def test_every_number_option_declares_finite_bounds_around_its_default(
    name: str, key: str, option: Option
) -> None:
    assert option.minimum is not None, f"{name} {key} has no minimum"
    assert option.maximum is not None, f"{name} {key} has no maximum"
    assert math.isfinite(option.minimum) and math.isfinite(option.maximum)
    assert option.minimum <= option.default <= option.maximum


@pytest.mark.parametrize("measure", ["bleu", "nist", "mper", "wnm"])
def test_ngram_orders_stop_at_20(measure: str) -> None:
    assert METRICS[measure].options["max-ngram"].maximum == 20
    assert METRICS[measure](max_ngram="20").values["max-ngram"] == 20
    with pytest.raises(MeasureError, match="max-ngram: '21' is above 20"):
        METRICS[measure](max_ngram="21")


INT = Option(4, "an order", kind=int, minimum=1, maximum=20)
FLOAT = Option(1.0, "a weight", kind=float, minimum=0.0, maximum=100.0)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("99999999999999999999", "'99999999999999999999' is above 20"),
        (10**30, "is above 20"),
        pytest.param(10**5000, "an integer of thousands of digits is above 20", id="10**5000"),
        pytest.param("9" * 5000, "expected a whole number", id="5000 nines"),
        ("1e20", "expected a whole number, got '1e20'"),
        (1e20, "is above 20"),
        (float("inf"), "expected a whole number"),
        (float("nan"), "expected a whole number"),
        (2.5, "expected a whole number, got 2.5"),
        (True, "expected a whole number, got True"),
        ("0", "'0' is below 1"),
        (None, "expected a whole number"),
    ],
)
def test_int_options_refuse_hostile_values(value: object, message: str) -> None:
    with pytest.raises(MeasureError, match=message):
        INT.convert("n", value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nan", "expected a finite number, got 'nan'"),
        (float("nan"), "expected a finite number"),
        ("inf", "expected a finite number"),
        ("-inf", "expected a finite number"),
        ("1e400", "expected a finite number"),
        (10**400, "expected a number"),
        ("1" * 500, "expected a number"),
        ("1e3", "'1e3' is above 100"),
        (-0.5, "-0.5 is below 0"),
    ],
)
def test_float_options_refuse_hostile_values(value: object, message: str) -> None:
    with pytest.raises(MeasureError, match=message):
        FLOAT.convert("w", value)


@pytest.mark.parametrize(("value", "expected"), [("3", 3), (" 7 ", 7), (5.0, 5), (20, 20)])
def test_int_options_take_whole_numbers_in_any_spelling(value: object, expected: int) -> None:
    converted = INT.convert("n", value)
    assert converted == expected and type(converted) is int


def test_a_content_option_is_capped() -> None:
    content = Option("", "a file's text", file="content")
    with pytest.raises(MeasureError, match="larger than"):
        content.convert("text", "x" * (FILE_MAX_BYTES + 1))


def test_an_unknown_file_role_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="Option.file"):
        Option("", "bad", file="url")


HOSTILE_VALUES = st.one_of(
    st.integers(),
    st.integers(min_value=10**15, max_value=10**4000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(),
    st.text(alphabet="0123456789", min_size=15, max_size=6000),
    st.from_regex(r"\A[-+]?(\d{1,40}(\.\d*)?|nan|inf|infinity)([eE][-+]?\d{1,4})?\Z"),
)


@given(target=st.sampled_from(ALL_OPTIONS), value=HOSTILE_VALUES)
def test_any_option_value_builds_the_measure_or_is_a_measure_error(
    target: tuple[str, str], value: object
) -> None:
    name, key = target
    option = METRICS[name].options[key]
    if option.file == "path" and isinstance(value, str) and value.startswith("/dev/"):
        return  # opening some devices has effects of its own; /dev/zero is tested by name
    try:
        measure = METRICS[name](**{key: value})
    except MeasureError:
        return
    converted = measure.values[key]
    if option.kind in (int, float):
        assert option.minimum <= converted <= option.maximum
        assert math.isfinite(converted)
