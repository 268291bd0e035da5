"""Batch tokenization and the m-PER fast paths give exactly the sentence-by-sentence results.

* ``mteval-contractions`` skips its steps where the text shows they cannot change anything; a
  literal implementation of spec §3.1 method 4 (scan every token, every abbreviation pattern)
  gives the same tokens on random text and on WMT data.
* ``preprocess_many`` (one batch) equals each tokenizer applied sentence by sentence.
* Measures that now tokenize whole systems at once give the statistics of the line-by-line
  path, and m-PER's one-reference rows equal the general per-segment rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.core import METRICS
from metrics.core.base import TextMeasure
from metrics.core.error_rate import ErrorRateMeasure
from metrics.core.mper import MPER, SkipBigramPER
from metrics.core.preprocessing import (
    TOKENIZERS,
    clear_cache,
    expand_contraction,
    normalize_unicode,
    preprocess,
    preprocess_many,
    tokenize_13a,
    tokenize_mteval_contractions,
    tokenize_mteval_contractions_many,
)
from metrics.core.reflength import DISTANCE_RULES
from tests.metrics.core import _ngram_data as data
from tests.metrics.core.test_preprocessing import _join_abbreviations_by_scan

PIECES = st.sampled_from(
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
TEXTS = st.one_of(
    st.lists(PIECES, max_size=12).map("".join),
    st.lists(PIECES, max_size=12).map(" ".join),
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
@given(TEXTS)
def test_contractions_equal_the_literal_method(text: str) -> None:
    assert tokenize_mteval_contractions(text) == literal_method_4(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXTS, max_size=6))
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
@given(st.lists(TEXTS, max_size=6), st.sampled_from(sorted(TOKENIZERS)), st.booleans())
def test_batch_equals_line_by_line(texts: list[str], tokenize: str, lowercase: bool) -> None:
    clear_cache()
    assert preprocess_many(texts, tokenize, lowercase) == line_by_line(texts, tokenize, lowercase)


@pytest.fixture(scope="module")
def wmt21_english() -> list[str]:
    ref_a, ref_b, systems, _ = data.wmt21()
    return ref_a + ref_b + systems["Online-B"]


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


def statistics_line_by_line(
    measure: TextMeasure, hyps: list[str], refs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> np.ndarray:
    """Statistics with every text tokenized on its own, as before batch tokenization."""
    with monkeypatch.context() as patch:
        patch.setattr(
            type(measure),
            "tokens_many",
            lambda self, texts: [
                preprocess(text, self.values["tokenize"], self.values["lowercase"])
                for text in texts
            ],
        )
        clear_cache()
        return measure.statistics(hyps, refs, measure.context(refs))


@pytest.mark.parametrize("name", ["bleu", "nist", "mper", "skipper", "wnm", "wer", "cder"])
def test_wmt_statistics_equal_the_line_by_line_path(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref_a, ref_b, systems, _ = data.wmt21()
    hyps = systems["Online-B"][:400]
    refs = [[a, b] for a, b in zip(ref_a[:400], ref_b[:400], strict=True)]
    measure = METRICS[name]()
    assert isinstance(measure, TextMeasure)
    expected = statistics_line_by_line(measure, hyps, refs, monkeypatch)
    clear_cache()
    assert np.array_equal(measure.statistics(hyps, refs, measure.context(refs)), expected)


def test_asw_tokenizes_in_one_batch_with_the_same_counts(wmt21_english: list[str]) -> None:
    measure = METRICS["asw"]()
    texts = wmt21_english[:500]
    clear_cache()
    stats = measure.statistics(texts, [])
    words = [
        sum(any(character.isalpha() for character in word) for word in tokens)
        for tokens in line_by_line(texts, "remove-punct", False)
    ]
    assert stats[:, 1].tolist() == words


def test_error_rate_measures_use_the_batch_path() -> None:
    assert issubclass(ErrorRateMeasure, TextMeasure)
    ter = METRICS["ter"]()
    # TER keeps tercom's own tokenizer in the batch path.
    assert ter.tokens_many(["Hello, World"]) == [ter.tokens("Hello, World")]


SENTENCE = st.lists(st.sampled_from("abcd"), max_size=8).map(" ".join)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=5),
    st.sampled_from(DISTANCE_RULES),
    st.sampled_from(["none", "left", "both"]),
    st.booleans(),
)
def test_one_reference_rows_equal_the_general_rows(
    pairs: list[tuple[str, str]], rule: str, pad: str, separately: bool
) -> None:
    """A segment with its one reference given twice takes the general per-segment path; every
    Table A.3 rule picks the same (d, L) from two identical references, so the rows agree."""
    hyps = [hyp for hyp, _ in pairs]
    for measure in (
        MPER(
            tokenize="none",
            min_ngram=1,
            max_ngram=3,
            pad_rule=pad,
            ref_length_rule=rule,
            choose_references_separately=separately,
        ),
        SkipBigramPER(tokenize="none", pad_rule=pad, ref_length_rule=rule, max_bigram_skip=2),
    ):
        single = measure.statistics(hyps, [[ref] for _, ref in pairs])
        doubled = measure.statistics(hyps, [[ref, ref] for _, ref in pairs])
        assert np.array_equal(single, doubled)


def m_gram_per_row(hyp: list[str], ref: list[str], orders: range) -> list[float]:
    """[d, L, d_m, L_m ...] by spec §6.5 with boundaries ``both``: d = max(I, L) − Σ min."""
    from collections import Counter

    row = [0.0, 0.0]
    for m in orders:

        def grams(tokens: list[str], m: int = m) -> Counter[tuple[str, ...]]:
            padded = ["<s>"] * (m - 1) + tokens + ["</s>"] * (m - 1) if tokens else []
            return Counter(tuple(padded[k : k + m]) for k in range(len(padded) - m + 1))

        h, r = grams(hyp), grams(ref)
        d = max(sum(h.values()), sum(r.values())) - sum((h & r).values())
        row += [float(d), float(sum(r.values()))]
        row[0] += d
        row[1] += sum(r.values())
    return row


def test_wmt_m_per_rows_equal_the_spec_formula() -> None:
    reference, systems, _ = data.wmt17()
    hyps = next(iter(systems.values()))[:300]
    refs = [[line] for line in reference[:300]]
    measure = MPER(min_ngram=1, max_ngram=2)
    stats = measure.statistics(hyps, refs)
    expected = [
        m_gram_per_row(list(measure.tokens(h)), list(measure.tokens(r[0])), range(1, 3))
        for h, r in zip(hyps, refs, strict=True)
    ]
    assert stats.tolist() == expected
