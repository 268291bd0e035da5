"""Preprocessing shared by every measure: tokenization, case, sentence boundaries.

Order (measures spec §3): decode -> Unicode NFC -> tokenize -> (contractions) ->
case folding -> per-order boundary padding for m-gram measures.
Candidates and references always get identical preprocessing.

Tokenizers (the values of every ``tokenize`` option, measures spec §3.1):

* ``none``: split at whitespace only (the thesis' "keep punctuation", method 1).
* ``remove-punct``: every character that is not a letter, mark, digit or whitespace becomes a
  space (method 2).
* ``13a``: mteval-v13a, identical to sacreBLEU's ``13a``.
* ``mteval``: the mteval-v11a scheme of spec §3.1 method 3. Its rules are exactly those of
  ``13a``, so it is an alias (same function).
* ``mteval-contractions``: ``mteval`` plus re-joined abbreviations and expanded English
  contractions (method 4, the thesis' default). The lists are module-level data.
* ``intl``: mteval-v14 international tokenization, identical to sacreBLEU's ``intl``.
* ``char``: every non-whitespace character is a token.

Case folding is Unicode ``str.lower`` applied to every token after tokenization; text is
normalised to NFC before tokenization, so composed and decomposed input compare equal.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

import regex

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

# mteval-v14 --international-tokenization, as sacreBLEU's ``intl``.
_INTL_RULES = [
    (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
    (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
    (regex.compile(r"(\p{S})"), r" \1 "),
]

_NOT_WORD_CHARACTER = regex.compile(r"[^\p{L}\p{M}\p{N}\s]")

APOSTROPHES = ("'", "\u2019")
"""Apostrophe characters recognised in contractions (ASCII and the typographic one)."""

CONTRACTION_WORDS: dict[str, tuple[str, ...]] = {
    "won't": ("will", "not"),
    "can't": ("can", "not"),
    "shan't": ("shall", "not"),
    "let's": ("let", "us"),
}
"""Whole-token contractions (lowercase, ASCII apostrophe), measures spec §3.1 method 4."""

CONTRACTION_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("n't", "not"),
    ("'re", "are"),
    ("'ve", "have"),
    ("'ll", "will"),
    ("'d", "would"),
    ("'m", "am"),
)
"""Suffix contractions ``*X`` -> ``* word``, tried in this order."""

IS_CONTRACTION_STEMS = frozenset(
    {"it", "that", "there", "here", "what", "who", "where", "how", "he", "she"}
)
"""``*'s`` becomes ``* is`` only after these words, so possessives stay untouched."""

ABBREVIATIONS: tuple[str, ...] = (
    "Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "St.", "Jr.", "Sr.", "Inc.", "Ltd.", "Co.", "Corp.",
    "vs.", "etc.", "e.g.", "i.e.", "No.", "U.S.", "U.K.", "U.N.", "a.m.", "p.m.",
    "Jan.", "Feb.", "Mar.", "Apr.", "Jun.", "Jul.", "Aug.", "Sep.", "Sept.", "Oct.", "Nov.",
    "Dec.",
)
"""Tokens whose periods belong to the word (case-sensitive); mteval splits them, method 4
re-joins them."""


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


def tokenize_remove_punct(text: str) -> list[str]:
    """Remove punctuation and symbols; they separate words (spec §3.1 method 2).

    Letters, combining marks, digits and whitespace are kept. Marks are kept (a decision beyond
    the spec's "L* and N*") because removing them would cut words of scripts such as
    Devanagari in two. "We'd" becomes "We d" and "3.5" becomes "3 5".
    """
    return _NOT_WORD_CHARACTER.sub(" ", text).split()


def tokenize_intl(text: str) -> list[str]:
    """mteval-v14 international tokenization, as sacreBLEU's ``intl`` (no space padding)."""
    for pattern, replacement in _INTL_RULES:
        text = pattern.sub(replacement, text)
    return text.split()


def tokenize_char(text: str) -> list[str]:
    """Every non-whitespace character is one token."""
    return [character for character in text if not character.isspace()]


def _abbreviation_patterns() -> list[tuple[tuple[str, ...], str]]:
    patterns = [(tuple(tokenize_13a(word)), word) for word in ABBREVIATIONS]
    return sorted(patterns, key=lambda item: -len(item[0]))


_ABBREVIATION_PATTERNS = _abbreviation_patterns()


def join_abbreviations(tokens: Sequence[str]) -> list[str]:
    """Re-join abbreviations that mteval split (``U . S .`` -> ``U.S.``)."""
    joined: list[str] = []
    position = 0
    while position < len(tokens):
        for pattern, word in _ABBREVIATION_PATTERNS:
            if tuple(tokens[position : position + len(pattern)]) == pattern:
                joined.append(word)
                position += len(pattern)
                break
        else:
            joined.append(tokens[position])
            position += 1
    return joined


def _with_case_of(original: str, word: str) -> str:
    return word[:1].upper() + word[1:] if original[:1].isupper() else word


def expand_contraction(token: str) -> list[str]:
    """Expand one English contraction; the first word keeps the token's initial case.

    ``We'd`` -> ``We would``, ``won't`` -> ``will not``, ``that's`` -> ``that is``;
    ``Powell's`` stays (possessive).
    """
    normal = token.replace("\u2019", "'")
    lowered = normal.lower()
    if lowered in CONTRACTION_WORDS:
        first, *rest = CONTRACTION_WORDS[lowered]
        return [_with_case_of(token, first), *rest]
    for suffix, word in CONTRACTION_SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) > len(suffix):
            return [normal[: -len(suffix)], word]
    if lowered.endswith("'s") and lowered[:-2] in IS_CONTRACTION_STEMS:
        return [normal[:-2], "is"]
    return [token]


def tokenize_mteval_contractions(text: str) -> list[str]:
    """mteval tokenization, re-joined abbreviations, expanded contractions (spec §3.1 method 4)."""
    tokens = join_abbreviations(tokenize_13a(text))
    expanded: list[str] = []
    for token in tokens:
        if any(mark in token for mark in APOSTROPHES):
            expanded.extend(expand_contraction(token))
        else:
            expanded.append(token)
    return expanded


TOKENIZERS: dict[str, Tokenizer] = {
    "none": tokenize_none,
    "remove-punct": tokenize_remove_punct,
    "13a": tokenize_13a,
    "mteval": tokenize_13a,
    "mteval-contractions": tokenize_mteval_contractions,
    "intl": tokenize_intl,
    "char": tokenize_char,
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
