"""BLEU × C² and WNM × C through the ``complexity-factor`` option (preprocessing-and-complexity
spec B.5, C.2.8), and TER's ``lowercase`` alias of ``case-sensitive``."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.core.base import MeasureError, format_bool, parse_bool
from metrics.core.bleu import BLEU
from metrics.core.complexity import NORMALISATION_EXPONENTS, normalized_score
from metrics.core.ter import TER
from metrics.core.wnm import WNM

HYPS = ["the cat sat on the mat today", "a b c d", "there is a dog in the garden"]
REFS = [["the cat sat on a mat today"], ["a b c e"], ["a dog is in the garden"]]


def test_bleu_hand_computed_case() -> None:
    """a b c d against a b c e: precisions 3/4, 2/3, 1/2 and 0/1, which sacreBLEU's ``exp``
    smoothing turns into 1/2; BLEU = (75 · 66.67 · 50 · 50)^¼ = 12.5e6^¼, times C²."""
    raw = 12.5e6**0.25
    plain = BLEU(tokenize="none").corpus_score(["a b c d"], [["a b c e"]])
    assert plain.score == pytest.approx(raw)
    normalised = BLEU(tokenize="none", complexity_factor=1.075).corpus_score(
        ["a b c d"], [["a b c e"]]
    )
    assert normalised.score == pytest.approx(raw * 1.075 * 1.075)
    assert normalised.details["score_raw"] == pytest.approx(raw)
    assert normalised.details["complexity_factor"] == 1.075
    assert "complexity_factor" not in plain.details


@pytest.mark.parametrize(("measure_class", "name"), [(BLEU, "bleu"), (WNM, "wnm")])
@pytest.mark.parametrize("factor", [0.865, 1.0, 1.075])
def test_normalised_scores_equal_normalized_score(measure_class, name, factor) -> None:  # noqa: ANN001
    plain, normalised = measure_class(), measure_class(complexity_factor=factor)
    exponent = NORMALISATION_EXPONENTS[name]
    stats = plain.statistics(HYPS, REFS)
    assert np.array_equal(normalised.statistics(HYPS, REFS), stats)  # rows stay raw
    raw = plain.aggregate(stats).score
    assert normalised.aggregate(stats).score == pytest.approx(
        normalized_score(raw, factor, exponent)
    )
    assert normalised.sentence_scores(stats) == pytest.approx(
        [normalized_score(score, factor, exponent) for score in plain.sentence_scores(stats)]
    )


def test_wnm_times_c_matches_the_paper_rounding() -> None:
    """C.2.8: WNM raw 0.3247 × 1.075 → 0.349; the exponent of WNM is 1."""
    assert NORMALISATION_EXPONENTS["wnm"] == 1.0
    wnm = WNM(complexity_factor=1.075)
    assert (
        round(wnm.aggregate(np.array([[10.0, 10.0, 3.247, 10.0, 10.0, 3.247]])).score / 100, 3)
        == 0.349
    )


@pytest.mark.parametrize("measure_class", [BLEU, WNM])
def test_complexity_factor_is_in_the_signature_and_must_be_positive(measure_class) -> None:  # noqa: ANN001
    assert "|cx:1|" in str(measure_class().signature(1))
    assert "|cx:1.075|" in str(measure_class(complexity_factor="1.075").signature(1))
    for bad in ("0", "-1", "x"):
        with pytest.raises(MeasureError, match="complexity-factor"):
            measure_class(complexity_factor=bad)


SACREBLEU_DEFAULT_SIGNATURE = "ter|nrefs:1|norm:no|nopunct:no|asian:no|cs:no|version:1.0"


def test_ter_lowercase_alias_keeps_the_default_signature() -> None:
    assert str(TER().signature(1)) == SACREBLEU_DEFAULT_SIGNATURE
    assert str(TER(lowercase="true").signature(1)) == SACREBLEU_DEFAULT_SIGNATURE
    # An alias, not an option of its own: stored option values and forms stay as they were.
    assert "lowercase" not in TER().values and "lowercase" not in TER.options


def test_ter_lowercase_false_is_case_sensitive() -> None:
    hyps, refs = ["The Cat sat"], [["the cat sat"]]
    by_alias, by_key = TER(lowercase=False), TER(case_sensitive=True)
    assert str(by_alias.signature(1)) == str(by_key.signature(1))
    assert "cs:yes" in str(by_alias.signature(1))
    assert by_alias.corpus_score(hyps, refs).score == pytest.approx(100 * 2 / 3)
    assert by_key.corpus_score(hyps, refs).score == pytest.approx(100 * 2 / 3)
    assert TER().corpus_score(hyps, refs).score == 0.0
    assert TER(lowercase=True).corpus_score(hyps, refs).score == 0.0


def test_ter_contradicting_case_options_are_rejected() -> None:
    with pytest.raises(MeasureError, match="contradict"):
        TER(lowercase=True, case_sensitive=True)
    with pytest.raises(MeasureError, match="contradict"):
        TER(lowercase=False, case_sensitive=False)
    assert TER(lowercase=False, case_sensitive=True).values["case-sensitive"] is True
    assert TER(lowercase="true", case_sensitive="false").values["case-sensitive"] is False
    with pytest.raises(MeasureError, match="true or false"):
        TER(lowercase="maybe")


@pytest.mark.parametrize("value", [True, False])
def test_a_formatted_bool_parses_back(value: bool) -> None:
    assert parse_bool(format_bool(value)) is value


@pytest.mark.parametrize("text", ["maybe", "", "2"])
def test_a_bool_option_refuses_other_words(text: str) -> None:
    with pytest.raises(MeasureError, match="expected true or false"):
        parse_bool(text)
