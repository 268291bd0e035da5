"""Translation complexity: syllable counts on words with dictionary counts, ASW/ASL,
Flesch formulas and normalisation (spec C.2.8), the ``complexity-factor`` option of BLEU and WNM
(B.5), the ``asw`` measure and CLI."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest

from metrics.core import METRICS, cli
from metrics.core.base import MeasureError
from metrics.core.bleu import BLEU
from metrics.core.complexity import (
    ASW,
    NORMALISATION_EXPONENTS,
    complexity_factor,
    count_syllables,
    flesch_kincaid_grade,
    flesch_reading_ease,
    normalized_score,
)
from metrics.core.preprocessing import clear_cache
from metrics.core.wnm import WNM
from tests.metrics.core.test_preprocessing import line_by_line

# Syllable counts as given by English dictionaries (Merriam-Webster hyphenation).
ENGLISH = {
    "the": 1,
    "cat": 1,
    "table": 2,
    "make": 1,
    "makes": 1,
    "jumped": 1,
    "wanted": 2,
    "boxes": 2,
    "beautiful": 3,
    "syllable": 3,
    "university": 5,
    "education": 4,
    "readability": 5,
    "piano": 3,
    "radio": 3,
    "nation": 2,
    "period": 3,
    "video": 3,
    "little": 2,
    "horses": 2,
    "played": 1,
    "needed": 2,
    "evaluation": 5,
    "translation": 3,
    "machine": 2,
    "computer": 3,
    "language": 2,
    "information": 4,
    "complexity": 4,
    "average": 3,
    "sentence": 2,
    "quality": 3,
    "system": 2,
    "reference": 3,
    "alone": 2,
    "sure": 1,
    "business": 2,
    "people": 2,
    "create": 2,
    "every": 3,
}
# Orthographic French syllables, the readability convention (spec C.2.8).
FRENCH = {
    "table": 2,
    "idée": 2,
    "maison": 2,
    "beaucoup": 2,
    "oiseau": 2,
    "poésie": 3,
    "traduction": 3,
    "langue": 2,
}
GERMAN = {"Haus": 1, "Sprache": 2, "Übersetzung": 4, "Maschine": 3, "heute": 2}


def test_english_rule_on_dictionary_words():
    wrong = {w: count_syllables(w) for w, n in ENGLISH.items() if count_syllables(w) != n}
    # A rule is not a dictionary: the known misses are listed, the rest must be exact.
    assert set(wrong) <= {"people", "create", "every", "business"}
    assert len(wrong) / len(ENGLISH) <= 0.1


@pytest.mark.parametrize(("word", "count"), sorted(FRENCH.items()))
def test_french_orthographic_syllables(word, count):
    assert count_syllables(word, "fr") == count


@pytest.mark.parametrize(("word", "count"), sorted(GERMAN.items()))
def test_german_syllables(word, count):
    assert count_syllables(word, "de") == count


def test_tokens_without_letters_are_not_words():
    assert count_syllables("2004") == 0
    assert count_syllables("x") == 1


def test_flesch_vectors():
    assert flesch_reading_ease(10, 1.5) == pytest.approx(69.785)
    assert flesch_kincaid_grade(10, 1.5) == pytest.approx(6.01)


@pytest.mark.parametrize(
    ("raw", "factor", "measure", "normalised"),
    [
        (0.3247, 1.075, "wnm", 0.349),
        (0.1877, 1.075, "bleu", 0.217),
        (0.3908, 0.865, "wnm", 0.338),
        (0.3253, 0.865, "bleu", 0.243),
    ],
)
def test_normalisation_vectors(raw, factor, measure, normalised):
    value = normalized_score(raw, factor, NORMALISATION_EXPONENTS[measure])
    assert value == pytest.approx(normalised, abs=5e-4)


def test_stability_stdev_vector():
    assert statistics.stdev([0.217, 0.283, 0.243]) == pytest.approx(0.033247, abs=1e-6)


def test_asw_measure_pools_syllables_over_words():
    measure = ASW()
    result = measure.corpus_score(["The cat sat.", "A beautiful table, 2004!"], [[""], [""]])
    # the cat sat = 3 syllables / 3 words; a beautiful table = 1 + 3 + 2 over 3 words.
    assert result.score == pytest.approx(9 / 6)
    assert result.details["asl"] == pytest.approx(3.0)
    stats = measure.statistics(["The cat sat.", ""], [[""], [""]])
    assert measure.sentence_scores(stats)[0] == 1.0
    assert complexity_factor(1.5, 1.2) == pytest.approx(1.25)


def test_cli_asw_reports_the_hypothesis_and_ignores_references(tmp_path, capsys):
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text("university education\n", encoding="utf-8")
    ref.write_text("anything\n", encoding="utf-8")
    assert (
        cli.main(
            [
                "score",
                "--measure",
                "asw",
                "--ref",
                str(ref),
                "--hyp",
                str(hyp),
                "--option",
                "reference-asw=3",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(4.5)


HYPS = ["the cat sat on the mat today", "a b c d", "there is a dog in the garden"]
REFS = [["the cat sat on a mat today"], ["a b c e"], ["a dog is in the garden"]]


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


@pytest.mark.parametrize("measure_class", [BLEU, WNM])
def test_complexity_factor_is_in_the_signature_and_must_be_positive(measure_class) -> None:  # noqa: ANN001
    assert "|cx:1|" in str(measure_class().signature(1))
    assert "|cx:1.075|" in str(measure_class(complexity_factor="1.075").signature(1))
    for bad in ("0", "-1", "x"):
        with pytest.raises(MeasureError, match="complexity-factor"):
            measure_class(complexity_factor=bad)


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
