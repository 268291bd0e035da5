"""The measure pipeline's shared parts: bool options, and whole-batch tokenization
(``TextMeasure.tokens_many``) giving the statistics of sentence-by-sentence tokenization."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.core import METRICS
from metrics.core.base import MeasureError, TextMeasure, format_bool, parse_bool
from metrics.core.preprocessing import clear_cache, preprocess
from tests.metrics.core import _ngram_data as data


@pytest.mark.parametrize("value", [True, False])
def test_a_formatted_bool_parses_back(value: bool) -> None:
    assert parse_bool(format_bool(value)) is value


@pytest.mark.parametrize("text", ["maybe", "", "2"])
def test_a_bool_option_refuses_other_words(text: str) -> None:
    with pytest.raises(MeasureError, match="expected true or false"):
        parse_bool(text)


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
