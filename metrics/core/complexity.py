"""Translation complexity (Babych, Elliott & Hartley, COLING 2004): ASW and normalised scores.

preprocessing-and-complexity spec Parts B.4–B.5, C.1.2, C.2.8, C.4 (decision 10, 12).

* ASW, average syllables per word = Σ syllables / Σ words, pooled over the text (ratio of sums,
  the spec's default); ASL, Flesch Reading Ease and Flesch-Kincaid Grade Level from it with
  the English constants the paper used (also on French text).
* C = ASW_eval / ASW_ref (the reference point was DARPA-94 news; the user supplies ASW_ref),
  normalised scores BLEU × C² and WNM × C. ASW_eval is that of the *source* texts of the test
  set, which a measure never sees, so ``bleu`` and ``wnm`` take C itself as the option
  ``complexity-factor`` (:func:`complexity_factor_option`; ``asw`` on the source file with
  ``reference-asw`` prints it).

Syllables are counted with a documented orthographic rule, not a dictionary: maximal runs of
vowel letters (``y`` included) are syllables, with per-language corrections:

* ``en``: words of at most three letters have one syllable; a final silent ``e`` is dropped
  except in ``-le`` after a consonant and ``-ee``/``-ye``; ``-ed`` is silent except after
  ``t``/``d``; ``-es`` is silent except after s, x, z, c, g, ch, sh; the vowel pairs
  ia, io, iu, eo, ua, uo are two syllables unless the pair follows t, s, c, g or q
  (``nation``, ``vision``);
* ``fr``: orthographic syllables, the convention of French readability formulas (``table`` 2,
  ``idée`` 2), plus a split where ``é`` meets another vowel other than ``e`` (``poésie`` 3);
* ``de`` and ``generic``: vowel runs (diphthongs ei, ie, au, eu, äu count once).

Every word with a letter has at least one syllable; tokens without letters are not words.
Only the ratio of two ASW values enters C, so the same counter must serve both (C.2.8).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import Measure, MeasureError, Option, Score, Statistics
from .preprocessing import TOKENIZERS, preprocess_many

VOWELS = {
    "en": "aeiouyàáâäèéêëìíîïòóôöùúûü",
    "fr": "aeiouyàâäéèêëîïôöùûüÿœæ",
    "de": "aeiouyäöü",
    "generic": "aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœ",
}
LANGUAGES = tuple(VOWELS)
_VOWEL_RUNS = {language: re.compile(f"[{vowels}]+") for language, vowels in VOWELS.items()}
_ENGLISH_HIATUS = re.compile(r"(?<![tscgq])(?:ia|io|iu|eo|ua|uo)")
_FRENCH_HIATUS = re.compile(r"[aiouy]é|é[aiou]")

NORMALISATION_EXPONENTS = {"bleu": 2.0, "wnm": 1.0}
"""The paper's best exponents of C: BLEU × C², WNM × C (B.5)."""


def count_syllables(word: str, language: str = "en") -> int:
    """Syllables of one word by the module's orthographic rule; 0 if it has no letter.

    Example:
        >>> [count_syllables(w) for w in ("the", "table", "jumped", "wanted", "beautiful")]
        [1, 2, 1, 2, 3]
    """
    word = "".join(character for character in word.lower() if character.isalpha())
    if not word:
        return 0
    count = len(_VOWEL_RUNS[language].findall(word))
    if language == "en":
        count = _english_corrections(word, count)
    elif language == "fr":
        count += len(_FRENCH_HIATUS.findall(word))
    return max(1, count)


def _english_corrections(word: str, count: int) -> int:
    if len(word) <= 3:
        return 1
    if (
        word.endswith("e")
        and not word.endswith(("ee", "ye"))
        and not (word.endswith("le") and word[-3] not in VOWELS["en"])
    ):
        count -= 1
    elif word.endswith("ed") and not word.endswith(("ted", "ded", "eed")):
        count -= 1
    elif word.endswith("es") and not word.endswith(
        ("ses", "xes", "zes", "ces", "ges", "ches", "shes", "ees")
    ):
        count -= 1
    return count + len(_ENGLISH_HIATUS.findall(word))


def flesch_reading_ease(asl: float, asw: float) -> float:
    """FR = 206.835 − 1.015·ASL − 84.6·ASW (English constants, as the paper)."""
    return 206.835 - 1.015 * asl - 84.6 * asw


def flesch_kincaid_grade(asl: float, asw: float) -> float:
    """FKGL = 0.39·ASL + 11.8·ASW − 15.59."""
    return 0.39 * asl + 11.8 * asw - 15.59


def complexity_factor(asw_evaluated: float, asw_reference: float) -> float:
    """C = ASW of the evaluated texts / ASW of the reference-point texts."""
    return asw_evaluated / asw_reference


def normalized_score(score: float, factor: float, exponent: float) -> float:
    """score × C^exponent: BLEU × C² and WNM × C are the paper's best (B.5).

    Example:
        >>> round(normalized_score(0.1877, 1.075, NORMALISATION_EXPONENTS["bleu"]), 3)
        0.217
    """
    return score * factor**exponent


COMPLEXITY_FACTOR = "complexity-factor"
MAX_COMPLEXITY = 100.0
"""Highest ``complexity-factor`` and ``reference-asw``: average syllables per word are about
1.3 to 2 in the paper's languages, so C stays near 1; the bound keeps both finite."""


def complexity_factor_option(measure: str) -> Option:
    """The ``complexity-factor`` option of a measure with an exponent in B.5 (bleu, wnm)."""
    exponent = NORMALISATION_EXPONENTS[measure]
    power = "C" if exponent == 1 else f"C^{exponent:g}"
    return Option(
        default=1.0,
        kind=float,
        minimum=0.0,
        maximum=MAX_COMPLEXITY,
        short="cx",
        help=f"Translation complexity C = ASW(source texts) / ASW(reference point), as "
        f"asw with reference-asw prints it; the score is multiplied by {power}. "
        "1: no normalisation.",
    )


def check_complexity_factor(measure: Measure) -> None:
    if measure.values[COMPLEXITY_FACTOR] <= 0:
        raise MeasureError(f"option {COMPLEXITY_FACTOR}: must be above 0")


def normalized_by_complexity(measure: Measure, score: float) -> float:
    """A raw score of ``measure`` times C^exponent of its ``complexity-factor`` (B.5)."""
    factor = measure.values[COMPLEXITY_FACTOR]
    if factor == 1.0:
        return score
    return normalized_score(score, factor, NORMALISATION_EXPONENTS[measure.name])


def complexity_details(measure: Measure, raw_score: float) -> dict[str, float]:
    """Corpus details of a normalised score: C and the raw score (none without C)."""
    factor = measure.values[COMPLEXITY_FACTOR]
    if factor == 1.0:
        return {}
    return {"complexity_factor": factor, "score_raw": raw_score}


class ASW(Measure):
    """Average syllables per word of the candidate text (translation complexity)."""

    name: ClassVar[str] = "asw"
    description: ClassVar[str] = "Average syllables per word of --hyp (Babych et al. 2004)."
    higher_is_better: ClassVar[bool] = False
    needs_references: ClassVar[bool] = False
    stat_names: ClassVar[tuple[str, ...]] = ("syllables", "words", "sentences")
    options: ClassVar[dict[str, Option]] = {
        "tokenize": Option(
            default="remove-punct" if "remove-punct" in TOKENIZERS else "none",
            choices=tuple(TOKENIZERS),
            short="tok",
            help="How the text is cut into words.",
        ),
        "language": Option(
            default="en", choices=LANGUAGES, short="lang", help="Syllable rule language."
        ),
        "reference-asw": Option(
            default=0.0,
            kind=float,
            minimum=0.0,
            maximum=MAX_COMPLEXITY,
            short="refasw",
            help="ASW of the reference-point texts; if set, C = ASW / reference-asw is given.",
        ),
    }

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]] = (),
        context: Any = None,
    ) -> Statistics:
        """Syllables, words and 1 (a sentence) per segment; references are ignored."""
        language = self.values["language"]
        rows = []
        for words in preprocess_many(hypotheses, self.values["tokenize"], False):
            counts = [count_syllables(word, language) for word in words]
            counts = [count for count in counts if count]
            rows.append((sum(counts), len(counts), 1.0))
        return np.array(rows, dtype=np.float64).reshape(len(hypotheses), 3)

    def aggregate(self, stats: Statistics, n_refs: int = 0) -> Score:
        syllables, words, sentences = stats.sum(axis=0).tolist()
        asw = syllables / words if words else float("nan")
        asl = words / sentences if sentences else float("nan")
        details: dict[str, Any] = {
            "syllables": syllables,
            "words": words,
            "sentences": sentences,
            "asl": asl,
            "flesch_reading_ease": flesch_reading_ease(asl, asw),
            "flesch_kincaid_grade": flesch_kincaid_grade(asl, asw),
        }
        if self.values["reference-asw"]:
            details["complexity_factor"] = complexity_factor(asw, self.values["reference-asw"])
        return Score(self.name, asw, self.signature(n_refs), details)

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(stats[:, 1] > 0, stats[:, 0] / stats[:, 1], np.nan)
