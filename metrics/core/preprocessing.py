"""Preprocessing shared by every measure: tokenization, case, sentence boundaries.

Order (measures spec §3): decode -> Unicode NFC -> tokenize -> (contractions) ->
case folding -> per-order boundary padding for m-gram measures.
Candidates and references always get identical preprocessing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

Tokenizer = Callable[[str], list[str]]

BOS = "\x00<s>"
"""Sentence-start sentinel; the NUL byte keeps it from ever equalling a real token."""
EOS = "\x00</s>"
"""Sentence-end sentinel."""

PAD_RULES = ("none", "left", "right", "both")

# mteval-v13a tokenization (identical to the mteval-v11a scheme of measures spec §3.1).
_13A_RULES = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(text: str) -> list[str]:
    """mteval-v13a tokenization, as sacreBLEU's ``13a``."""
    text = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in text:
        text = (
            text.replace("&quot;", '"')
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
        )
    text = f" {text} "
    for pattern, replacement in _13A_RULES:
        text = pattern.sub(replacement, text)
    return text.split()


def tokenize_none(text: str) -> list[str]:
    """Split at whitespace only (the thesis' "keep punctuation")."""
    return text.split()


TOKENIZERS: dict[str, Tokenizer] = {
    "none": tokenize_none,
    "13a": tokenize_13a,
}
"""Tokenizer name -> function. The names are the values of every ``tokenize`` option."""


def normalize_unicode(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def get_tokenizer(name: str) -> Tokenizer:
    try:
        return TOKENIZERS[name]
    except KeyError:
        raise ValueError(f"unknown tokenizer {name!r}") from None


@lru_cache(maxsize=2**16)
def preprocess(text: str, tokenize: str = "13a", lowercase: bool = False) -> tuple[str, ...]:
    """Tokens of one sentence after NFC normalization, tokenization and case folding.

    Cached: references are tokenized once per test set however many systems are scored.
    """
    tokens = get_tokenizer(tokenize)(normalize_unicode(text))
    if lowercase:
        tokens = [token.lower() for token in tokens]
    return tuple(tokens)


def pad(tokens: Sequence[str], order: int, rule: str) -> list[str]:
    """Pad with order-1 boundary sentinels per ``rule`` (measures spec §3.4).

    An empty sentence stays empty, so no pure-boundary m-gram is ever counted.
    """
    if not tokens or order <= 1 or rule == "none":
        return list(tokens)
    left = [BOS] * (order - 1) if rule in ("left", "both") else []
    right = [EOS] * (order - 1) if rule in ("right", "both") else []
    return left + list(tokens) + right
