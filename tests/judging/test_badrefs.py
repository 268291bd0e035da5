"""WMT's bad-reference recipe: phrase length by candidate length, one embedded phrase replaced
by a phrase of the same length from another segment, the same output for the same seed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judging.badrefs import bad_reference, degrade, is_character_based, phrase_length

WORDS = st.text(alphabet="abcdefgh", min_size=1, max_size=6)


@pytest.mark.parametrize(
    ("tokens", "length"),
    [(1, 1), (2, 2), (5, 2), (6, 3), (8, 3), (9, 4), (15, 4), (16, 5), (20, 5), (21, 6), (80, 6)],
)
def test_phrase_length_follows_the_wmt_table(tokens, length):
    assert phrase_length(tokens) == length
    assert phrase_length(tokens, character_based=True) == 2 * length


def test_chinese_and_japanese_are_character_based():
    assert is_character_based("zh") and is_character_based("ja-JP") and is_character_based("zho")
    assert not is_character_based("en") and not is_character_based("de")


@given(
    text=st.lists(WORDS, min_size=2, max_size=40),
    donor=st.lists(st.text(alphabet="XYZ", min_size=1, max_size=3), min_size=7, max_size=30),
    seed=st.integers(0, 2**32),
)
def test_one_phrase_of_the_table_length_is_replaced_by_a_donor_phrase(text, donor, seed):
    length = phrase_length(len(text))
    degraded = degrade(" ".join(text), " ".join(donor), random.Random(seed)).split(" ")
    # Same length; the donor's letters never occur in the text, so every token of the
    # replaced phrase differs and the phrase is found exactly.
    assert len(degraded) == len(text)
    start = next(k for k, token in enumerate(degraded) if token != text[k])
    phrase = degraded[start : start + length]
    assert degraded[:start] == text[:start] and degraded[start + length :] == text[start + length :]
    assert any(donor[k : k + length] == phrase for k in range(len(donor) - length))
    # The last token (usually the full stop) is never replaced when the text is longer
    # than the phrase; nor is the donor's last token used.
    if len(text) > length:
        assert degraded[-1] == text[-1]
        assert donor[-1] not in phrase or donor.count(donor[-1]) > 1


def test_a_short_donor_is_inserted_whole():
    assert degrade("a b c d e f", "X", random.Random(1)).split(" ").count("X") == 1


def test_bad_references_are_deterministic_and_come_from_other_segments():
    donors = [(1, "the house is red ."), (2, "a green tree stands there ."), (3, "it rains .")]
    text = "the small dog sleeps in the sun ."
    options = {"text": text, "segment": 1, "donors": donors, "key": "k"}
    first = bad_reference(seed=5, **options)
    assert first == bad_reference(seed=5, **options)
    assert first != text
    # Only segments 2 and 3 give phrases: no word of segment 1's own reference comes in.
    new_words = set(first.split()) - set(text.split())
    assert new_words and new_words <= set("a green tree stands there it rains".split())
    variants = {bad_reference(seed=seed, **options) for seed in range(20)}
    assert len(variants) > 3


def test_no_bad_reference_without_another_segment():
    assert (
        bad_reference(text="a b c .", segment=1, donors=[(1, "x y z .")], seed=1, key="k") is None
    )
