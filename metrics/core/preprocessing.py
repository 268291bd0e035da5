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
from functools import cache
from itertools import islice
from typing import Any

Tokenizer = Callable[[str], list[str]]

BOS = "\x00<s>"
"""Sentence-start sentinel; the NUL byte keeps it from ever equalling a real token."""
EOS = "\x00</s>"
"""Sentence-end sentinel."""

PAD_RULES = ("none", "left", "right", "both")

# mteval-v13a tokenization (identical to the mteval-v11a scheme of measures spec §3.1). The
# rules are mteval's four substitutions, run once over a whole batch of sentences joined by
# " \n " (the padding keeps every match inside one sentence). They are rewritten so that every
# pattern starts with a literal or a narrow class, which the regex engine scans for quickly,
# and so that nearly every replacement is a constant string (Python expands a template such
# as " \1 " in Python code, match by match). Only the tokens must stay mteval's: the rewrites
# may add spaces, since no rule tells several spaces from one.
# 1. s/([\{-\~\[-\` -\&\(-\+\:-\@\/])/ $1 /g pads every character of a class with spaces. The
#    class holds the space too, most of the matches; padding a space changes nothing.
_13A_SYMBOL = re.compile(r"[\{-\~\[-\`!-\&\(-\+\:-\@\/]")
# 2. s/([^0-9])([\.,])/$1 $2 /g. A match consumes the character before the period, so in a
#    run of periods and commas every other one is split off. An isolated period or comma after
#    a non-digit becomes " . " (" , "); longer runs, rare, go through _split_period_run.
_13A_LONE_PERIOD = re.compile(r"\.(?<=[^0-9.,]\.)(?![.,])")
_13A_LONE_COMMA = re.compile(r",(?<=[^0-9.,],)(?![.,])")
# The runs are matched by where they start, a period or a comma: a pattern that starts with a
# literal is scanned for quickly, one that starts with a class ([.,]{2,}) character by
# character, which took a quarter of the whole batch. A period run's replacement leaves no
# period or comma next to another, so the comma pass sees the comma runs as they were.
_13A_PERIOD_RUNS = (
    re.compile(r"\.(?<![.,]\.)[.,]+"),
    re.compile(r",(?<![.,],)[.,]+"),
)
# 3. s/([\.,])([^0-9])/ $1 $2/g. After rule 2 no two periods or commas are adjacent, so the
#    consumed character after one never starts another match: a lookahead is the same rule.
_13A_PERIOD_BEFORE_NON_DIGIT = re.compile(r"\.(?![0-9])")
_13A_COMMA_BEFORE_NON_DIGIT = re.compile(r",(?![0-9])")
# 4. s/([0-9])(-)/$1 $2 /g: the consumed digit can never be the hyphen of a later match.
_13A_HYPHEN_AFTER_DIGIT = re.compile(r"-(?<=[0-9]-)")
_DIGITS = frozenset("0123456789")


# The Unicode-class patterns are compiled on first use: they need the ``regex`` package, whose
# import takes about 15 ms of a one-off command-line score, and the default tokenizers never
# use them.
@cache
def _intl_rules() -> list[tuple[Any, str]]:
    """mteval-v14 --international-tokenization, as sacreBLEU's ``intl``."""
    import regex

    return [
        (regex.compile(r"(\P{N})(\p{P})"), r"\1 \2 "),
        (regex.compile(r"(\p{P})(\P{N})"), r" \1 \2"),
        (regex.compile(r"(\p{S})"), r" \1 "),
    ]


@cache
def _not_word_character() -> Any:
    import regex

    return regex.compile(r"[^\p{L}\p{M}\p{N}\s]")


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
    "Mr.",
    "Mrs.",
    "Ms.",
    "Dr.",
    "Prof.",
    "St.",
    "Jr.",
    "Sr.",
    "Inc.",
    "Ltd.",
    "Co.",
    "Corp.",
    "vs.",
    "etc.",
    "e.g.",
    "i.e.",
    "No.",
    "U.S.",
    "U.K.",
    "U.N.",
    "a.m.",
    "p.m.",
    "Jan.",
    "Feb.",
    "Mar.",
    "Apr.",
    "Jun.",
    "Jul.",
    "Aug.",
    "Sep.",
    "Sept.",
    "Oct.",
    "Nov.",
    "Dec.",
)
"""Tokens whose periods belong to the word (case-sensitive); mteval splits them, method 4
re-joins them."""


def _clean_13a(text: str) -> str:
    """mteval's per-sentence clean-up before the regexes (removes every newline)."""
    text = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in text:
        text = (
            text.replace("&quot;", '"')
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
        )
    return text


def _split_period_run(match: re.Match[str]) -> str:
    """What mteval's rule 2 makes of a maximal run of periods and commas.

    The character x before the run is never consumed by an earlier match (a match ends with
    a period or comma), so each run is rewritten on its own: if x is not a digit, the pairs
    are (x, p1), (p2, p3), ...; if it is, (p1, p2), (p3, p4), ...; each pair (a, b) becomes
    ``a b `` and an unpaired last period stays as it is. x itself is left in place.
    """
    run = match[0]
    if match.string[match.start() - 1] in _DIGITS:
        head, rest = "", run
    else:
        head, rest = f" {run[0]} ", run[1:]
    pairs = "".join(f"{rest[i]} {rest[i + 1]} " for i in range(0, len(rest) - 1, 2))
    return head + pairs + (rest[-1] if len(rest) % 2 else "")


def tokenize_13a_many(texts: Sequence[str]) -> list[list[str]]:
    """mteval-v13a tokens of many sentences: the regexes run once over all of them.

    One pass per rule over the joined text instead of four per sentence is what makes
    tokenizing a whole system fast. Sentences are joined by " \n ": each keeps the space
    padding mteval gives it, so no rule can match across a boundary, and the cleaned
    sentences contain no newline, so splitting at "\n" gives them back.
    """
    if not texts:
        return []
    text = " " + " \n ".join([_clean_13a(text) for text in texts]) + " "
    text = _13A_SYMBOL.sub(lambda match: f" {match[0]} ", text)
    text = _13A_LONE_PERIOD.sub(" . ", text)
    text = _13A_LONE_COMMA.sub(" , ", text)
    for runs in _13A_PERIOD_RUNS:
        text = runs.sub(_split_period_run, text)
    text = _13A_PERIOD_BEFORE_NON_DIGIT.sub(" . ", text)
    text = _13A_COMMA_BEFORE_NON_DIGIT.sub(" , ", text)
    text = _13A_HYPHEN_AFTER_DIGIT.sub(" - ", text)
    return [line.split() for line in text.split("\n")]


def tokenize_13a(text: str) -> list[str]:
    """mteval-v13a tokenization, as sacreBLEU's ``13a``."""
    return tokenize_13a_many([text])[0]


def tokenize_none(text: str) -> list[str]:
    """Split at whitespace only (the thesis' "keep punctuation")."""
    return text.split()


def tokenize_remove_punct(text: str) -> list[str]:
    """Remove punctuation and symbols; they separate words (spec §3.1 method 2).

    Letters, combining marks, digits and whitespace are kept. Marks are kept (a decision beyond
    the spec's "L* and N*") because removing them would cut words of scripts such as
    Devanagari in two. "We'd" becomes "We d" and "3.5" becomes "3 5".
    """
    return _not_word_character().sub(" ", text).split()


def tokenize_intl(text: str) -> list[str]:
    """mteval-v14 international tokenization, as sacreBLEU's ``intl`` (no space padding)."""
    for pattern, replacement in _intl_rules():
        text = pattern.sub(replacement, text)
    return text.split()


def tokenize_char(text: str) -> list[str]:
    """Every non-whitespace character is one token."""
    return [character for character in text if not character.isspace()]


def _abbreviation_patterns() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """Abbreviation token patterns indexed by their first token, longest first.

    Only the patterns starting with the current token can match there, so indexing them
    keeps the scan to one dictionary look-up per token; within a first token the longest
    pattern still wins, as in a scan of the whole list sorted by length.
    """
    patterns = sorted(
        ((tuple(tokenize_13a(word)), word) for word in ABBREVIATIONS),
        key=lambda item: -len(item[0]),
    )
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for pattern, word in patterns:
        index.setdefault(pattern[0], []).append((pattern, word))
    return index


_ABBREVIATION_PATTERNS = _abbreviation_patterns()


_ABBREVIATION_FIRST_TOKENS = frozenset(_ABBREVIATION_PATTERNS)


def join_abbreviations(tokens: Sequence[str]) -> list[str]:
    """Re-join abbreviations that mteval split (``U . S .`` -> ``U.S.``)."""
    # Nothing can match unless some token starts a pattern: one set test in C spares most
    # sentences the Python loop over every token.
    if _ABBREVIATION_FIRST_TOKENS.isdisjoint(tokens):
        return list(tokens)
    joined: list[str] = []
    position = 0
    while position < len(tokens):
        for pattern, word in _ABBREVIATION_PATTERNS.get(tokens[position], ()):
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
    return _contractions(text, tokenize_13a(text))


def tokenize_mteval_contractions_many(texts: Sequence[str]) -> list[list[str]]:
    """:func:`tokenize_mteval_contractions` of many sentences, with the batch 13a tokenizer."""
    return [
        _contractions(text, tokens)
        for text, tokens in zip(texts, tokenize_13a_many(texts), strict=True)
    ]


def _has_apostrophe(text: str) -> bool:
    # Spelled out rather than any() over APOSTROPHES: a generator per token was a tenth of
    # tokenizing a system.
    return "'" in text or "\u2019" in text


def _contractions(text: str, mteval_tokens: list[str]) -> list[str]:
    """Method 4's steps on the mteval tokens of ``text``.

    The text tells cheaply where a step cannot change anything, since mteval's rules only add
    spaces and decode ``&quot;``, ``&amp;``, ``&lt;`` and ``&gt;``: no token has a period
    (every abbreviation pattern has one) or an apostrophe (every contraction has one) that
    the text lacks.
    """
    tokens = mteval_tokens
    if "." in text and not _ABBREVIATION_FIRST_TOKENS.isdisjoint(tokens):
        tokens = join_abbreviations(tokens)
    if not _has_apostrophe(text):
        return tokens
    expanded: list[str] = []
    for token in tokens:
        if _has_apostrophe(token):
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


BATCH_TOKENIZERS: dict[str, Callable[[Sequence[str]], list[list[str]]]] = {
    "13a": tokenize_13a_many,
    "mteval": tokenize_13a_many,
    "mteval-contractions": tokenize_mteval_contractions_many,
}
"""Tokenizers that are faster on many sentences at once; the others go sentence by sentence."""

CACHE_SIZE = 2**17
"""Sentences kept by the token cache: a test set's references and several systems."""

_cache: dict[tuple[str, str, bool], tuple[str, ...]] = {}


def preprocess(text: str, tokenize: str = "13a", lowercase: bool = False) -> tuple[str, ...]:
    """Tokens of one sentence after NFC normalization, tokenization and case folding.

    Cached: references are tokenized once per test set however many systems are scored.
    """
    return preprocess_many([text], tokenize, lowercase)[0]


def preprocess_many(
    texts: Sequence[str], tokenize: str = "13a", lowercase: bool = False
) -> list[tuple[str, ...]]:
    """:func:`preprocess` of many sentences; the ones not cached are tokenized in one batch."""
    keys = [(text, tokenize, lowercase) for text in texts]
    missing = list(dict.fromkeys(key for key in keys if key not in _cache))
    if not missing:
        return [_cache[key] for key in keys]
    normalized = [normalize_unicode(text) for text, _, _ in missing]
    batch = BATCH_TOKENIZERS.get(tokenize)
    if batch is not None:
        tokenized = batch(normalized)
    else:
        tokenizer = get_tokenizer(tokenize)
        tokenized = [tokenizer(text) for text in normalized]
    fresh = {
        key: tuple(token.lower() for token in tokens) if lowercase else tuple(tokens)
        for key, tokens in zip(missing, tokenized, strict=True)
    }
    # Read the answer before storing: storing may evict cached sentences of this batch.
    result = [fresh[key] if key in fresh else _cache[key] for key in keys]
    overflow = len(_cache) + len(fresh) - CACHE_SIZE
    if overflow > 0:
        # The oldest sentences go first (dicts keep insertion order).
        for key in list(islice(_cache, overflow)):
            del _cache[key]
    _cache.update(fresh)
    return result


def clear_cache() -> None:
    """Forget every cached tokenization (benchmarks time tokenization this way)."""
    _cache.clear()


# The benchmarks call ``preprocess.cache_clear()``, the name lru_cache gave it.
preprocess.cache_clear = clear_cache  # type: ignore[attr-defined]


def pad(tokens: Sequence[str], order: int, rule: str) -> list[str]:
    """Pad with order-1 boundary sentinels per ``rule`` (measures spec §3.4).

    An empty sentence stays empty, so no pure-boundary m-gram is ever counted.
    """
    if not tokens or order <= 1 or rule == "none":
        return list(tokens)
    left = [BOS] * (order - 1) if rule in ("left", "both") else []
    right = [EOS] * (order - 1) if rule in ("right", "both") else []
    return left + list(tokens) + right
