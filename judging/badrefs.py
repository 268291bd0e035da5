"""WMT's degraded "bad reference" items for direct assessment (no database access).

A bad reference is a candidate with one embedded phrase replaced by a phrase of the same length
taken from another segment of the test set (Graham et al. 2017, "Can machine translation
systems be evaluated by the crowd alone?"; WMT findings 2017-2022). A judge who reads the
translations scores it below the candidate it came from; a judge who scores both alike is not
reading (the Wilcoxon test of ``judging.qc``).

The recipe is Appraise's ``_create_bad_ref`` (AppraiseDev/Appraise, the WMT campaign scripts
``create_wmt*_tasks.py``), the one WMT ran:

* tokens are the text split on single spaces (characters for Chinese and Japanese, whose
  phrase length is then doubled and counted in characters);
* the phrase length depends on the candidate's length ``n`` in tokens (table
  :data:`PHRASE_LENGTHS`): ``n <= 1``: 1, ``n <= 5``: 2, ``n <= 8``: 3, ``n <= 15``: 4,
  ``n <= 20``: 5, longer: 6;
* the replaced phrase starts at a position drawn from ``0 … n - len - 1`` (so the last token,
  usually the final punctuation, is never replaced; position 0 only when ``n <= len``), and the
  donor phrase likewise from ``0 … m - len - 1`` of the donor's ``m`` tokens (0 when the donor is
  not longer than the phrase: then the whole donor is inserted);
* the donor is the reference of another segment, drawn at random (here: among the test set's
  segments other than the candidate's own; its other candidates when it has no reference).

Appraise's comment promises phrases that are neither sentence-initial nor final, but its code
draws from ``range(n - len)``, which allows the first token; the code is what WMT ran, so it is
what is implemented. Appraise draws from Python's global ``random`` seeded once per run; here
every bad reference has its own ``random.Random`` seeded from the campaign seed and the
candidate's text key, so it depends on nothing else (not on database ids, nor on which other
bad references were made).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

PHRASE_LENGTHS = ((1, 1), (5, 2), (8, 3), (15, 4), (20, 5))
"""(longest candidate length in tokens, phrase length); longer candidates get
:data:`LONGEST_PHRASE`."""
LONGEST_PHRASE = 6
CHARACTER_LANGUAGES = frozenset({"zh", "ja", "zho", "jpn", "cmn", "yue"})
"""Target languages written without spaces between words: tokens are characters."""


def phrase_length(tokens: int, *, character_based: bool = False) -> int:
    """How many tokens of a candidate of ``tokens`` tokens are replaced.

    >>> [phrase_length(n) for n in (1, 2, 5, 6, 8, 9, 15, 16, 20, 21, 60)]
    [1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    """
    length = next((size for longest, size in PHRASE_LENGTHS if tokens <= longest), LONGEST_PHRASE)
    return 2 * length if character_based else length


def is_character_based(language: str) -> bool:
    """Whether texts in ``language`` (a code such as ``zh`` or ``zh-TW``) have no word spaces."""
    return language.lower().replace("_", "-").split("-")[0] in CHARACTER_LANGUAGES


def degrade(text: str, donor: str, rng: random.Random, *, character_based: bool = False) -> str:
    """``text`` with one phrase replaced by a phrase of ``donor`` (module docstring).

    Args:
        text: the candidate.
        donor: a text of another segment (its reference).
        rng: the source of both random positions (two draws: candidate, then donor).
        character_based: tokens are characters (Chinese, Japanese).

    Returns:
        The degraded text, tokens joined as they were split.
    """
    tokens = list(text) if character_based else text.split(" ")
    donor_tokens = list(donor) if character_based else donor.split(" ")
    length = phrase_length(len(tokens), character_based=character_based)
    start = rng.randrange(len(tokens) - length) if len(tokens) > length else 0
    donor_start = rng.randrange(len(donor_tokens) - length) if len(donor_tokens) > length else 0
    degraded = (
        tokens[:start] + donor_tokens[donor_start : donor_start + length] + tokens[start + length :]
    )
    return ("" if character_based else " ").join(degraded)


def bad_reference(
    *,
    text: str,
    segment: int,
    donors: Sequence[tuple[int, str]],
    seed: int,
    key: str,
    character_based: bool = False,
) -> str | None:
    """The bad reference of one candidate, the same for the same arguments.

    Args:
        text: the candidate.
        segment: its segment (any id; donors of that segment are skipped).
        donors: ``(segment, text)`` of the texts a phrase may come from, in a fixed order.
        seed: the campaign's seed.
        key: the candidate's text key (``judging.models.text_key``).
        character_based: tokens are characters (Chinese, Japanese).

    Returns:
        The degraded text, or None when it could not differ from ``text`` (no donor of another
        segment, or every draw gave the text back, e.g. the same word replaced by itself).
    """
    others = [donor for owner, donor in donors if owner != segment and donor.strip()]
    if not others or not text.strip():
        return None
    rng = random.Random(f"{seed}:bad-reference:{key}")
    # A few draws: a donor phrase can equal the replaced one ("the" for "the").
    for _ in range(5):
        degraded = degrade(text, rng.choice(others), rng, character_based=character_based)
        if degraded.strip() != text.strip():
            return degraded
    return None
