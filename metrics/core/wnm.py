"""WNM, the Weighted N-gram Model (Babych 2004; Babych & Hartley 2004).

preprocessing-and-complexity spec Part B.3.2 and test vectors C.2.7. m-grams of orders
1..``max-ngram`` are matched like BLEU's (clipped counts, references pooled by maximum) and
additionally weighted by the salience of their words in the reference text:

    S(i, j) = ln( (P_doc(i,j) − P_rest(i)) · (N − df_i)/N / P_corp(i) ),  S = 0 if the argument <= 0

where the reference text j joins the background corpus (N = texts + 1, df + 1), P are relative
frequencies in the text, the rest of the corpus and the whole corpus. The weight of an m-gram
is the sum of the S-scores of its words in the reference text (0 for words absent from it).
All orders are pooled into single sums (no geometric mean, no brevity penalty):

    P = ΣI_count/Σcount_MT, R = ΣI_count/Σcount_ref, PW, RW, FW likewise with weights.

"WNM recall" (``RW``, adequacy) is the default score, in percent.

Decisions (the authors' script scores whole texts, the pipeline needs per-segment rows):

* Matching is clipped per segment, as BLEU's, so statistics add up over segments and chunks;
  for a one-segment text this is the script's text-level matching.
* Background corpus: with ``corpus-stats`` (a file of lines ``word;frequency;texts`` after a
  header ``<CorpStat>;tokens;texts``, the script's format) the reference text is all
  references of the test set. Without it, every segment's references are a text and the
  other segments' references are its background corpus, so salience is relative to the
  test set; both are test-set-wide (the measure's context).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import MeasureError, Option, Score, Statistics, TextMeasure
from .bleu import text_options
from .complexity import (
    COMPLEXITY_FACTOR,
    check_complexity_factor,
    complexity_details,
    complexity_factor_option,
    normalized_by_complexity,
)
from .ngrams import (
    Candidates,
    IntArray,
    NgramSpace,
    ReferenceCounts,
    resolve_references,
    window_positions,
)

SCORES = ("RW", "FW", "PW", "R", "F", "P")


@dataclass(frozen=True)
class CorpusStats:
    """Background-corpus statistics: word frequency, texts containing it, totals."""

    frequencies: dict[str, int]
    texts_with: dict[str, int]
    tokens: int
    texts: int


def read_corpus_stats(path: str | Path) -> CorpusStats:
    """Read the WNM script's corpus-statistics file (``<CorpStat>;tokens;texts`` header).

    Raises:
        MeasureError: when the file is missing or malformed.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        header = lines[0].split(";")
        if header[0] != "<CorpStat>":
            raise ValueError("first line must be <CorpStat>;tokens;texts")
        frequencies, texts_with = {}, {}
        for line in lines[1:]:
            if line.strip():
                word, frequency, texts = line.rsplit(";", 2)
                frequencies[word], texts_with[word] = int(frequency), int(texts)
        return CorpusStats(frequencies, texts_with, int(header[1]), int(header[2]))
    except (OSError, IndexError, ValueError) as error:
        raise MeasureError(f"option corpus-stats: cannot read {path}: {error}") from None


def s_score(
    count: int,
    text_tokens: int,
    rest_count: int,
    rest_tokens: int,
    rest_texts_with: int,
    rest_texts: int,
) -> float:
    """S-score of one word occurring ``count`` times in a text (B.3.2, the script's v01-1).

    The text joins the background corpus: N = rest_texts + 1, df = rest_texts_with + 1.
    """
    texts = rest_texts + 1
    p_doc = count / text_tokens
    p_rest = rest_count / rest_tokens if rest_tokens else 0.0
    p_corpus = (rest_count + count) / (rest_tokens + text_tokens)
    argument = (p_doc - p_rest) * (texts - (rest_texts_with + 1)) / texts / p_corpus
    return math.log(argument) if argument > 0 else 0.0


def salience(text: Counter[str], background: CorpusStats) -> dict[str, float]:
    """S-score of every word of a reference text against a background corpus (B.3.2).

    Example (spec C.2.7):
        >>> corpus = CorpusStats({"the": 6, "sat": 1, "mat": 1, "on": 3},
        ...                      {"the": 3, "sat": 1, "mat": 1, "on": 3}, 30, 3)
        >>> round(salience(Counter("the cat sat on the mat".split()), corpus)["cat"], 6)
        1.504077
    """
    size = sum(text.values())
    return {
        word: s_score(
            count,
            size,
            background.frequencies.get(word, 0),
            background.tokens,
            background.texts_with.get(word, 0),
            background.texts,
        )
        for word, count in text.items()
    }


def segment_salience(texts: Sequence[Counter[str]]) -> dict[int, dict[str, float]]:
    """S-scores per segment: each segment's references against all other segments'."""
    totals: Counter[str] = Counter()
    texts_with: Counter[str] = Counter()
    for text in texts:
        totals.update(text)
        texts_with.update(text.keys())
    tokens = sum(totals.values())
    n_texts = sum(1 for text in texts if text)
    tables = {}
    for number, text in enumerate(texts):
        size = sum(text.values())
        tables[number] = {
            word: s_score(
                count,
                size,
                totals[word] - count,
                tokens - size,
                texts_with[word] - 1,
                n_texts - 1,
            )
            for word, count in text.items()
        }
    return tables


@dataclass
class WnmContext:
    """Pooled reference counts, the S-score of every (text, word) pair, and per order the
    m-gram count and weight of every segment's references (these depend on the references
    only, so chunks and systems share them)."""

    references: ReferenceCounts
    global_text: bool
    keys: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    values: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    reference_totals: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def weights(self, segments: IntArray, ids: IntArray) -> npt.NDArray[np.float64]:
        """S-score of token ``ids`` in the reference text of ``segments`` (0 if absent)."""
        if len(self.keys) == 0:
            return np.zeros(len(ids))
        base = self.references.space.base
        keys = ids if self.global_text else segments * base + ids
        index = np.searchsorted(self.keys, keys)
        index[index == len(self.keys)] = 0
        found = (ids >= 0) & (self.keys[index] == keys)
        return np.where(found, self.values[index], 0.0)


class WNM(TextMeasure):
    """Weighted N-gram Model recall/precision/F; higher is better, in percent."""

    name: ClassVar[str] = "wnm"
    description: ClassVar[str] = "Weighted N-gram Model (Babych & Hartley 2004); RW = WNM recall."
    higher_is_better: ClassVar[bool] = True
    stat_names: ClassVar[tuple[str, ...]] = (
        "count_mt",
        "count_ref",
        "i_count",
        "weight_mt",
        "weight_ref",
        "i_weight",
    )
    options: ClassVar[dict[str, Option]] = {
        **text_options("remove-punct", True),
        "max-ngram": Option(default=4, kind=int, minimum=1, short="n", help="Highest order."),
        "corpus-stats": Option(
            default="",
            short="corpus",
            help="Background corpus statistics file; empty: the test set's other segments.",
        ),
        "score": Option(
            default="RW",
            choices=SCORES,
            short="score",
            help="Reported value: RW (WNM recall), FW, PW, or unweighted R, F, P.",
        ),
        COMPLEXITY_FACTOR: complexity_factor_option("wnm"),
    }

    def validate(self) -> None:
        check_complexity_factor(self)

    def context(self, references: Sequence[Sequence[str]]) -> WnmContext:
        """Pooled reference counts and salience weights of the whole test set."""
        top = self.values["max-ngram"]
        tokens = self.segment_tokens(references)
        flat = [reference for segment in tokens for reference in segment]
        space = NgramSpace(flat, top, 0)
        refs = ReferenceCounts(space, references, tokens, range(1, top + 1), "none")
        texts = [Counter(word for reference in segment for word in reference) for segment in tokens]
        if self.values["corpus-stats"]:
            background = read_corpus_stats(self.values["corpus-stats"])
            table = salience(sum(texts, Counter()), background)
            context = _with_weights(WnmContext(refs, True), {0: table})
        else:
            context = _with_weights(WnmContext(refs, False), segment_salience(texts))
        for order in range(1, top + 1):
            ref_pairs, ref_counts = refs.pooled[order]
            ref_weights = self._type_weights(context, order, np.arange(refs.n_segments), ref_pairs)
            n_types = refs.space.size(order)
            context.reference_totals[order] = (
                _per_segment(ref_pairs, ref_counts, n_types, refs),
                _per_segment(ref_pairs, ref_counts * ref_weights, n_types, refs),
            )
        return context

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        if context is None:
            context = self.context(references)
        refs, segments = resolve_references(
            context.references, references, lambda chunk: self.context(chunk).references
        )
        if refs is not context.references:
            context = self.context(references)
        candidates = Candidates(refs.space, self.tokens_many(hypotheses))
        stats = np.zeros((len(hypotheses), len(self.stat_names)))
        layout = candidates.layout
        token_weights = context.weights(segments[layout.owner], layout.ids)
        cumulative = np.concatenate([[0.0], np.cumsum(token_weights)])
        for order in range(1, self.values["max-ngram"] + 1):
            counts = refs.clip(candidates, order, segments)
            type_weights = self._type_weights(context, order, segments, counts.pairs)
            ref_count, ref_weight = context.reference_totals[order]
            positions, owners = window_positions(candidates.layout, order, "none")
            window_weights = cumulative[positions + order] - cumulative[positions]
            stats[:, 0] += counts.totals
            stats[:, 1] += ref_count[segments]
            stats[:, 2] += counts.per_segment()
            stats[:, 3] += np.bincount(owners, weights=window_weights, minlength=len(hypotheses))
            stats[:, 4] += ref_weight[segments]
            stats[:, 5] += counts.per_segment(type_weights)
        stats[[not segment for segment in references]] = 0.0
        return stats

    @staticmethod
    def _type_weights(
        context: WnmContext, order: int, segments: IntArray, pairs: IntArray
    ) -> npt.NDArray[np.float64]:
        """Σ S over the words of each (segment, m-gram) pair."""
        space = context.references.space
        n_types = space.size(order)
        owners = segments[pairs // n_types] if len(segments) else pairs // n_types
        total = np.zeros(len(pairs))
        for ids in space.type_tokens(order, pairs % n_types):
            total += context.weights(owners, ids)
        return total

    def values_of(self, row: npt.NDArray[np.float64]) -> dict[str, float]:
        """P, R, F, PW, RW, FW (fractions) from one row of statistics."""
        count_mt, count_ref, i_count, weight_mt, weight_ref, i_weight = row.tolist()
        p, r = _ratio(i_count, count_mt), _ratio(i_count, count_ref)
        pw, rw = _ratio(i_weight, weight_mt), _ratio(i_weight, weight_ref)
        return {"P": p, "R": r, "F": _f(p, r), "PW": pw, "RW": rw, "FW": _f(pw, rw)}

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        values = self.values_of(stats.sum(axis=0))
        raw = 100.0 * values[self.values["score"]]
        return Score(
            self.name,
            normalized_by_complexity(self, raw),
            self.signature(n_refs),
            {
                **{key: 100.0 * value for key, value in values.items()},
                **complexity_details(self, raw),
            },
        )

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        key = self.values["score"]
        return np.array(
            [normalized_by_complexity(self, 100.0 * self.values_of(row)[key]) for row in stats]
        )


def _with_weights(context: WnmContext, tables: dict[int, dict[str, float]]) -> WnmContext:
    index = context.references.space.vocabulary.index
    base = context.references.space.base
    pairs = sorted(
        (number * base + index[word] if not context.global_text else index[word], value)
        for number, table in tables.items()
        for word, value in table.items()
        if word in index
    )
    context.keys = np.array([key for key, _ in pairs], dtype=np.int64)
    context.values = np.array([value for _, value in pairs], dtype=np.float64)
    return context


def _per_segment(
    pairs: IntArray, values: npt.ArrayLike, n_types: int, refs: ReferenceCounts
) -> npt.NDArray[np.float64]:
    return np.bincount(pairs // n_types, weights=values, minlength=refs.n_segments)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _f(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
