"""Post-editing: checking a judge's post-edit, which items are translated from scratch, and
the per-system figures of a post-editing campaign. Pure functions (no database).

A judge edits the candidate into a correct translation. The text is one line: line breaks
(pasted ones too) become spaces and runs of white space one space, so a post-edit is a
segment as the test set's references are. An empty post-edit is refused (a judge who finds
the candidate perfect leaves it as it is and submits).

**From scratch.** A campaign may ask for a share of its items (``Campaign.scratch_share``) to
be translated from scratch: the screen shows the source without the candidate, and the
textarea is empty. Which assigned items are from scratch is decided from the campaign's seed
and the assigned item's id (:func:`is_from_scratch`), so the page and the server agree
without storing anything more; each stored post-edit records it (``PostEdit.from_scratch``).
A translation from scratch is no targeted reference (it was not made from the candidate) and
enters no HTER.

**Relative efficiency** (per system): (active time per word translating from scratch) /
(active time per word post-editing the system's candidates). Time per word is a ratio of
sums: the summed active time over the summed words of the texts produced (whitespace words of
the post-edit or translation). The from-scratch rate is one for the campaign (a translation
from scratch does not depend on any system); above 1, post-editing the system's output is
faster than translating from scratch.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_POSTEDIT_LENGTH = 5000
"""Characters of one post-edit (a sentence; a paragraph at most)."""

ERROR_POSTEDIT_EMPTY = (
    "The post-edit is empty: type the corrected translation (or leave the candidate as it is "
    "if it needs no change) and submit again."
)
ERROR_POSTEDIT_TOO_LONG = "The post-edit is {length} characters long; at most {limit} are stored."
ERROR_POSTEDIT_MISSING = "The page sent no post-edit for a translation of this screen."

_SPACE = re.compile(r"\s+")


class PostEditError(ValueError):
    """A post-edit that cannot be stored; the message is for the judge."""


def postedit_clean(raw: object) -> str:
    """The post-edit as stored: one line, white space runs made one space, trimmed.

    Raises:
        PostEditError: not sent, empty, or longer than :data:`MAX_POSTEDIT_LENGTH`.
    """
    if not isinstance(raw, str):
        raise PostEditError(ERROR_POSTEDIT_MISSING)
    text = _SPACE.sub(" ", raw).strip()
    if not text:
        raise PostEditError(ERROR_POSTEDIT_EMPTY)
    if len(text) > MAX_POSTEDIT_LENGTH:
        raise PostEditError(
            ERROR_POSTEDIT_TOO_LONG.format(length=len(text), limit=MAX_POSTEDIT_LENGTH)
        )
    return text


def is_from_scratch(*, seed: int, assigned_item_id: int, share: float) -> bool:
    """Whether this assigned item is translated from scratch: a uniform draw in [0, 1) from
    (seed, assigned item id) below ``share``. Stable (the page and the server agree)."""
    if share <= 0:
        return False
    digest = hashlib.sha256(f"scratch:{seed}:{assigned_item_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def word_count(text: str) -> int:
    """Whitespace-separated words."""
    return len(text.split())


@dataclass(frozen=True)
class Timing:
    """Summed active time and words of some texts produced."""

    ms: int = 0
    words: int = 0
    texts: int = 0

    @property
    def ms_per_word(self) -> float | None:
        return self.ms / self.words if self.words else None

    @property
    def seconds_per_word(self) -> float | None:
        per_word = self.ms_per_word
        return None if per_word is None else per_word / 1000


def timing(rows: Iterable[tuple[int, str]]) -> Timing:
    """Summed (active ms, words) of ``(active_ms, text)`` rows."""
    ms = words = texts = 0
    for active_ms, text in rows:
        ms += active_ms
        words += word_count(text)
        texts += 1
    return Timing(ms, words, texts)


def relative_efficiency(scratch: Timing, postedit: Timing) -> float | None:
    """(ms per word from scratch) / (ms per word post-editing); None when either is unknown
    (no words, or no time post-editing)."""
    if scratch.ms_per_word is None or not postedit.ms_per_word:
        return None
    return scratch.ms_per_word / postedit.ms_per_word
