"""Tokenizers, case, Unicode and boundary padding (measures spec §3; preprocessing spec C.2.1).

Batch tokenization gives exactly the sentence-by-sentence results: ``mteval-contractions``
skips its steps where the text shows they cannot change anything, and equals a literal
implementation of spec §3.1 method 4 (every token, every abbreviation pattern) on random text
and on WMT data; ``preprocess_many`` equals each tokenizer applied sentence by sentence.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

from metrics.core.preprocessing import (
    ABBREVIATIONS,
    BOS,
    EOS,
    TOKENIZERS,
    clear_cache,
    expand_contraction,
    join_abbreviations,
    normalize_unicode,
    pad,
    preprocess,
    preprocess_many,
    tokenize_13a,
    tokenize_13a_many,
    tokenize_mteval_contractions,
    tokenize_mteval_contractions_many,
)
from tests.metrics.core.wmt_data import wmt17, wmt21

POWELL = "Powell said: \"We'd not be alone; that's for sure.\""


@pytest.mark.parametrize(
    ("tokenizer", "expected"),
    [
        # Fig. 5.1 rows 1 and 2 (thesis, verbatim).
        ("none", "Powell said: \"We'd not be alone; that's for sure.\""),
        ("remove-punct", "Powell said We d not be alone that s for sure"),
        # Row 3 under the real mteval rules (C.2.1 "T3 (mteval rules)", 14 tokens).
        ("mteval", "Powell said : \" We'd not be alone ; that's for sure . \""),
        ("13a", "Powell said : \" We'd not be alone ; that's for sure . \""),
        # Row 4: contractions expanded, first word keeps its case (measures spec §3.1).
        ("mteval-contractions", 'Powell said : " We would not be alone ; that is for sure . "'),
    ],
)
def test_figure_5_1_tokenizations(tokenizer: str, expected: str) -> None:
    assert list(preprocess(POWELL, tokenizer)) == expected.split()


def test_figure_5_1_row_4_with_ignored_case() -> None:
    """Fig. 5.1 row 4 shows the lowercased result; with ``lowercase`` it is reproduced."""
    expected = 'powell said : " we would not be alone ; that is for sure . "'
    assert list(preprocess(POWELL, "mteval-contractions", lowercase=True)) == expected.split()
    assert len(expected.split()) == 16


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The U.S. economy grew 3.5 percent in 2004-2005 , a well-known fact.",
            "The U . S . economy grew 3.5 percent in 2004 - 2005 , a well-known fact .",
        ),
        ("costs $1,000.50 (approx.) e.g. x/y", "costs $ 1,000.50 ( approx . ) e . g . x / y"),
        (
            "It rose 3.5 % in 1990-1995 , a well-known fact.",
            "It rose 3.5 % in 1990 - 1995 , a well-known fact .",
        ),
        (
            "Mr. Smith paid $1,000.50 for U.S. bonds.",
            "Mr . Smith paid $ 1,000.50 for U . S . bonds .",
        ),
    ],
)
def test_mteval_rule_checks(text: str, expected: str) -> None:
    assert list(preprocess(text, "mteval")) == expected.split()


def test_abbreviations_stay_whole_with_method_4() -> None:
    tokens = preprocess("Mr. Smith paid $1,000.50 for U.S. bonds.", "mteval-contractions")
    assert list(tokens) == "Mr. Smith paid $ 1,000.50 for U.S. bonds .".split()


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("won't", "will not"),
        ("Can't", "Can not"),
        ("don't", "do not"),
        ("they're", "they are"),
        ("I've", "I have"),
        ("we'll", "we will"),
        ("I'm", "I am"),
        ("let's", "let us"),
        ("it's", "it is"),
        ("Powell's", "Powell's"),
        ("that\u2019s", "that is"),
    ],
)
def test_contractions(token: str, expected: str) -> None:
    assert list(preprocess(token, "mteval-contractions")) == expected.split()


def test_decimal_points_are_removed_by_remove_punct() -> None:
    assert list(preprocess("3.5 well-known", "remove-punct")) == ["3", "5", "well", "known"]


def test_char_tokenizer_drops_whitespace() -> None:
    assert list(preprocess("ab c", "char")) == ["a", "b", "c"]


def test_nfc_makes_composed_and_decomposed_text_equal() -> None:
    assert preprocess("cafe\u0301", "none") == preprocess("caf\u00e9", "none")


def test_unicode_lowercase() -> None:
    assert preprocess("ÄRGER Straße", "none", lowercase=True) == ("ärger", "straße")


def test_mteval_is_an_alias_of_13a() -> None:
    assert TOKENIZERS["mteval"] is TOKENIZERS["13a"]


def test_figure_5_2_boundaries() -> None:
    """Fig. 5.2 (trigram list with the OCR repair of spec §3.4)."""
    tokens = "I prefer the plane".split()
    bigrams = list(zip(*(pad(tokens, 2, "both")[k:] for k in range(2)), strict=False))
    assert bigrams == [
        (BOS, "I"),
        ("I", "prefer"),
        ("prefer", "the"),
        ("the", "plane"),
        ("plane", EOS),
    ]
    padded = pad(tokens, 3, "both")
    trigrams = [tuple(padded[k : k + 3]) for k in range(len(padded) - 2)]
    assert trigrams[0] == (BOS, BOS, "I") and trigrams[-1] == ("plane", EOS, EOS)
    assert len(trigrams) == 6
    assert pad([], 3, "both") == []


def _real_sentences() -> list[str]:
    reference, systems, _ = wmt17()
    references, cs_systems, _ = wmt21()
    sentences = reference + systems["newstest2017.online-A.0.en-de"] + references[0]
    return sentences + cs_systems["Online-A"]


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("name", "oracle"), [("13a", Tokenizer13a()), ("intl", TokenizerV14International())]
)
def test_tokenizers_equal_sacrebleu_on_real_data(name: str, oracle: object) -> None:
    mismatches = [
        text for text in _real_sentences() if " ".join(TOKENIZERS[name](text)) != oracle(text)
    ]
    assert mismatches == []


def _all_real_sentences() -> list[str]:
    """Every sentence of WMT17 en-de (reference and 16 systems) and WMT21 cs-en."""
    reference, systems, _ = wmt17()
    references, cs_systems, _ = wmt21()
    sentences = reference + [line for lines in systems.values() for line in lines]
    sentences += [line for lines in references for line in lines]
    return sentences + [line for lines in cs_systems.values() for line in lines]


@pytest.mark.shared_data
def test_batch_13a_equals_sacrebleu_per_sentence_on_real_data() -> None:
    sentences = _all_real_sentences()
    oracle = Tokenizer13a()
    expected = [oracle(text).split() for text in sentences]
    assert tokenize_13a_many(sentences) == expected
    assert [tokenize_13a(text) for text in sentences[:5000]] == expected[:5000]


@pytest.mark.shared_data
def test_preprocess_many_equals_preprocess_on_real_data() -> None:
    sentences = _all_real_sentences()[::7]
    for tokenize in ("13a", "mteval-contractions"):
        batch = preprocess_many(sentences, tokenize, lowercase=True)
        preprocess.cache_clear()
        assert batch == [preprocess(text, tokenize, lowercase=True) for text in sentences]


# Text made of the pieces the 13a rules react to: punctuation, digits before hyphens, periods
# and commas between digits and letters, entities, <skipped>, abbreviations, contractions.
_PIECES = st.sampled_from(
    [
        "a",
        "Ab",
        "U",
        "S",
        "Mr",
        "e",
        "g",
        "won't",
        "it's",
        "We\u2019d",
        "3",
        "1990",
        "0",
        ".",
        ",",
        "..",
        ".,",
        "-",
        "--",
        " ",
        "  ",
        "\t",
        "&quot;",
        "&amp;",
        "&lt;",
        "&gt;",
        "&",
        "<skipped>",
        "$",
        "%",
        "'",
        '"',
        "(",
        ")",
        "/",
        ":",
        ";",
        "?",
        "!",
        "@",
        "[",
        "]",
        "{",
        "}",
        "~",
        "^",
        "_",
        "`",
        "|",
        "\\",
        "+",
        "*",
        "=",
        "<",
        ">",
        "#",
        "é",
        "\u00a0",
        "ß",
        "\u201e",
        "\n",
        "-\n",
        "2-\n",
    ]
)
_SENTENCES = st.lists(st.lists(_PIECES, max_size=25).map("".join), max_size=8)


@settings(max_examples=300, deadline=None)
@given(_SENTENCES, st.text(max_size=40))
def test_batch_13a_equals_per_sentence(sentences: list[str], noise: str) -> None:
    sentences = [*sentences, noise]
    oracle = Tokenizer13a()
    expected = [oracle(text).split() for text in sentences]
    assert tokenize_13a_many(sentences) == expected
    assert [tokenize_13a(text) for text in sentences] == expected


@settings(max_examples=100, deadline=None)
@given(_SENTENCES)
def test_batch_contractions_equal_per_sentence(sentences: list[str]) -> None:
    expected = [tokenize_mteval_contractions(text) for text in sentences]
    assert tokenize_mteval_contractions_many(sentences) == expected


def _join_abbreviations_by_scan(tokens: list[str]) -> list[str]:
    """The scan of every pattern, longest first: what the indexed look-up must equal."""
    patterns = sorted(
        ((tuple(tokenize_13a(word)), word) for word in ABBREVIATIONS),
        key=lambda item: -len(item[0]),
    )
    joined, position = [], 0
    while position < len(tokens):
        for pattern, word in patterns:
            if tuple(tokens[position : position + len(pattern)]) == pattern:
                joined.append(word)
                position += len(pattern)
                break
        else:
            joined.append(tokens[position])
            position += 1
    return joined


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["U", "S", "K", ".", "e", "g", "i", "Mr", "No", "Sept", "x"])))
def test_indexed_abbreviations_equal_the_scan(tokens: list[str]) -> None:
    assert join_abbreviations(tokens) == _join_abbreviations_by_scan(tokens)


def test_preprocess_many_mixes_cached_and_new_sentences() -> None:
    preprocess.cache_clear()
    first = preprocess("Cached, already.", "13a", lowercase=True)
    texts = ["New one-2-3.", "Cached, already.", "New one-2-3.", ""]
    assert preprocess_many(texts, "13a", lowercase=True) == [
        ("new", "one-2", "-", "3", "."),
        first,
        ("new", "one-2", "-", "3", "."),
        (),
    ]
    assert preprocess_many(["a b"], "none") == [("a", "b")]


MTEVAL_PIECES = st.sampled_from(
    [
        "Mr.",
        "Mrs",
        "U.S.",
        "U.K",
        "e.g.",
        "i.e",
        "a.m.",
        "p.m.",
        "No.",
        "etc.",
        "Sept.",
        "won't",
        "Won\u2019t",
        "can't",
        "let's",
        "it's",
        "It\u2019s",
        "we'd",
        "they're",
        "Powell's",
        "n't",
        "'s",
        "'",
        "\u2019",
        ".",
        ",",
        "...",
        "3.5",
        "1,000",
        "5-3",
        "&quot;",
        "&amp;",
        "<skipped>",
        "a",
        "e",
        "i",
        "U",
        "S",
        "Mr",
        "etc",
        "the",
        "cat",
        " ",
        " ",
        "  ",
        "\n",
        "-\n",
    ]
)


MTEVAL_TEXTS = st.one_of(
    st.lists(MTEVAL_PIECES, max_size=12).map("".join),
    st.lists(MTEVAL_PIECES, max_size=12).map(" ".join),
    st.text(alphabet="aeiMrUS.'\u2019, -&;0", max_size=30),
)


def literal_method_4(text: str) -> list[str]:
    """Spec §3.1 method 4 without shortcuts: at every mteval token try every abbreviation
    (longest first), then expand every token that has an apostrophe."""
    joined = _join_abbreviations_by_scan(tokenize_13a(text))
    expanded: list[str] = []
    for token in joined:
        has_apostrophe = "'" in token or "\u2019" in token
        expanded.extend(expand_contraction(token) if has_apostrophe else [token])
    return expanded


def line_by_line(texts: list[str], tokenize: str, lowercase: bool) -> list[tuple[str, ...]]:
    """Each tokenizer on one NFC sentence at a time, then case folding (no cache, no batch)."""
    tokenizer = TOKENIZERS[tokenize]
    result = []
    for text in texts:
        tokens = tokenizer(normalize_unicode(text))
        result.append(tuple(token.lower() for token in tokens) if lowercase else tuple(tokens))
    return result


@settings(max_examples=400, deadline=None)
@given(MTEVAL_TEXTS)
def test_contractions_equal_the_literal_method(text: str) -> None:
    assert tokenize_mteval_contractions(text) == literal_method_4(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(MTEVAL_TEXTS, max_size=6))
def test_contractions_batch_equals_the_literal_method(texts: list[str]) -> None:
    assert tokenize_mteval_contractions_many(texts) == [literal_method_4(t) for t in texts]


def test_known_contractions_and_abbreviations() -> None:
    assert tokenize_mteval_contractions("Mr. Smith won't go to the U.S. at 5 p.m.") == [
        "Mr.",
        "Smith",
        "will",
        "not",
        "go",
        "to",
        "the",
        "U.S.",
        "at",
        "5",
        "p.m.",
    ]
    assert tokenize_mteval_contractions("It\u2019s Powell's car") == ["It", "is", "Powell's", "car"]


@settings(max_examples=100, deadline=None)
@given(st.lists(MTEVAL_TEXTS, max_size=6), st.sampled_from(sorted(TOKENIZERS)), st.booleans())
def test_batch_equals_line_by_line(texts: list[str], tokenize: str, lowercase: bool) -> None:
    clear_cache()
    assert preprocess_many(texts, tokenize, lowercase) == line_by_line(texts, tokenize, lowercase)


def test_wmt_contractions_equal_the_literal_method(wmt21_english: list[str]) -> None:
    texts = [normalize_unicode(text) for text in wmt21_english]
    batch = tokenize_mteval_contractions_many(texts)
    assert batch == [literal_method_4(text) for text in texts]
    changed = sum(tokens != tokenize_13a(text) for text, tokens in zip(texts, batch, strict=True))
    assert changed > 100  # the data does exercise abbreviations and contractions


@pytest.mark.parametrize("tokenize", ["13a", "mteval-contractions", "remove-punct"])
def test_wmt_batch_equals_line_by_line(wmt21_english: list[str], tokenize: str) -> None:
    clear_cache()
    assert preprocess_many(wmt21_english, tokenize, True) == line_by_line(
        wmt21_english, tokenize, True
    )
