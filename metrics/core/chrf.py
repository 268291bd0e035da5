"""chrF (Popović, 2015) and chrF++ (Popović, 2017), equal to sacreBLEU's ``CHRF``.

oracles-and-data §1.4. Character n-grams of orders 1..``char-order`` (whitespace removed unless
``whitespace``), word n-grams of orders 1..``word-order`` (2 for chrF++; a word loses one
leading or trailing ASCII punctuation character, which becomes a word of its own), β = 2.
Per order: hypothesis, reference and matched counts. With several references, each segment
uses the reference giving its best sentence score. Corpus scores come from summed statistics.

Sentence-level smoothing is sacreBLEU's: the default averages precision and recall over the
"effective" orders (both sides non-empty) and takes one F_β; ``eps-smoothing`` averages the
per-order F_β with 1e-16 for empty orders (chrF++.py, NLTK, Moses).

Statistics per segment: ``[hyp_1, ref_1, match_1, hyp_2, ...]`` over character orders, then
word orders (sacreBLEU's layout).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import MAX_NGRAM_ORDER, Measure, MeasureError, Option, Score, Statistics
from .explanation import Explanation, OrderExplanation, ngram_list, order_counts
from .ngrams import (
    Candidates,
    IntArray,
    NgramSpace,
    ReferenceCounts,
    distinct_segments,
    resolve_references,
)

PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
"""Characters split off the start or end of a word for chrF++ (sacreBLEU ``_PUNCTS``)."""

EPSILON = 1e-16


def split_words(text: str) -> list[str]:
    """chrF++ words: whitespace tokens, one edge punctuation character split off (sacreBLEU)."""
    words: list[str] = []
    for word in text.split():
        if len(word) == 1:
            words.append(word)
        elif word[-1] in PUNCTUATION:
            words += [word[:-1], word[-1]]
        elif word[0] in PUNCTUATION:
            words += [word[0], word[1:]]
        else:
            words.append(word)
    return words


def chrf_score(stats: Sequence[float], beta: float, eps_smoothing: bool) -> float:
    """chrF in percent from ``[hyp, ref, match] * orders`` (sacreBLEU ``_compute_f_score``).

    Example:
        >>> round(chrf_score([1, 2, 1], 2, False), 4)
        55.5556
    """
    factor = beta**2
    score, effective = 0.0, 0
    precision_sum, recall_sum = 0.0, 0.0
    orders = len(stats) // 3
    for i in range(orders):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]
        precision = n_match / n_hyp if n_hyp > 0 else EPSILON
        recall = n_match / n_ref if n_ref > 0 else EPSILON
        denominator = factor * precision + recall
        score += (1 + factor) * precision * recall / denominator if denominator > 0 else EPSILON
        if n_hyp > 0 and n_ref > 0:
            precision_sum += precision
            recall_sum += recall
            effective += 1
    if eps_smoothing:
        return 100 * score / orders
    if effective == 0:
        return 0.0
    precision, recall = precision_sum / effective, recall_sum / effective
    if precision + recall == 0:
        return 0.0
    # The operation order is sacreBLEU's, so scores agree to the last bit.
    score = (1 + factor) * precision * recall
    score /= factor * precision + recall
    return 100 * score


def chrf_scores(
    stats: npt.NDArray[np.float64], beta: float, eps_smoothing: bool
) -> npt.NDArray[np.float64]:
    """chrF in percent of every row of ``stats`` (rows × ``[hyp, ref, match] * orders``).

    Column by column with sacreBLEU's operations in its order, so every row's score is the
    one its loop computes, to the last bit.
    """
    factor = beta**2
    rows, orders = len(stats), stats.shape[1] // 3
    score, effective = np.zeros(rows), np.zeros(rows, dtype=np.int64)
    precision_sum, recall_sum = np.zeros(rows), np.zeros(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(orders):
            n_hyp, n_ref, n_match = stats[:, 3 * i], stats[:, 3 * i + 1], stats[:, 3 * i + 2]
            precision = np.where(n_hyp > 0, n_match / n_hyp, EPSILON)
            recall = np.where(n_ref > 0, n_match / n_ref, EPSILON)
            denominator = factor * precision + recall
            score = score + np.where(
                denominator > 0, (1 + factor) * precision * recall / denominator, EPSILON
            )
            both = (n_hyp > 0) & (n_ref > 0)
            precision_sum = np.where(both, precision_sum + precision, precision_sum)
            recall_sum = np.where(both, recall_sum + recall, recall_sum)
            effective += both
        if eps_smoothing:
            return 100 * score / orders
        precision, recall = precision_sum / effective, recall_sum / effective
        # The operation order is sacreBLEU's, so scores agree to the last bit.
        averaged = (1 + factor) * precision * recall
        averaged /= factor * precision + recall
        defined = (effective != 0) & ~(precision + recall == 0)
        return np.where(defined, 100 * averaged, 0.0)


MAX_BETA = 100.0
"""Highest β: sacreBLEU uses 1 to 3, and at 100 the F-score is almost recall alone."""


@dataclass
class ChrfContext:
    """Character and word reference counts of a test set (one per n-gram kind)."""

    characters: ReferenceCounts
    words: ReferenceCounts | None


class CHRF(Measure):
    """chrF/chrF++; higher is better, in percent (0–100)."""

    name: ClassVar[str] = "chrf"
    description: ClassVar[str] = "chrF (Popović 2015) / chrF++ (word-order 2), as sacreBLEU."
    higher_is_better: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        "char-order": Option(
            default=6,
            kind=int,
            minimum=1,
            maximum=MAX_NGRAM_ORDER,
            short="nc",
            help="Character n-gram order.",
        ),
        "word-order": Option(
            default=0,
            kind=int,
            minimum=0,
            maximum=MAX_NGRAM_ORDER,
            short="nw",
            help="Word n-gram order (2: chrF++).",
        ),
        "beta": Option(
            default=2.0,
            kind=float,
            minimum=0.0,
            maximum=MAX_BETA,
            short="beta",
            help="Weight of recall (β).",
        ),
        "lowercase": Option(default=False, kind=bool, short="lc", help="Fold case first."),
        "whitespace": Option(
            default=False, kind=bool, short="space", help="Keep whitespace in character n-grams."
        ),
        "eps-smoothing": Option(
            default=False,
            kind=bool,
            short="eps",
            help="Average per-order F with ε for empty orders instead of effective orders.",
        ),
    }

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.char_order: int = self.values["char-order"]
        self.word_order: int = self.values["word-order"]
        kinds = [("char", n) for n in range(1, self.char_order + 1)]
        kinds += [("word", n) for n in range(1, self.word_order + 1)]
        self.stat_names = tuple(
            f"{part}_{kind}{n}" for kind, n in kinds for part in ("hyp", "ref", "match")
        )

    def _text(self, text: str) -> str:
        return text.lower() if self.values["lowercase"] else text

    def characters(self, text: str) -> str:
        text = self._text(text)
        return text if self.values["whitespace"] else "".join(text.split())

    def words(self, text: str) -> list[str]:
        return split_words(self._text(text))

    def context(self, references: Sequence[Sequence[str]]) -> ChrfContext:
        """Character (and word) n-gram counts of every distinct reference list of the test
        set (:func:`~metrics.core.ngrams.distinct_segments`)."""
        references = distinct_segments(references)
        chars = [[self.characters(text) for text in segment] for segment in references]
        flat = [reference for segment in chars for reference in segment]
        space = NgramSpace(flat, self.char_order, 0, keep_references=True)
        orders = range(1, self.char_order + 1)
        characters = ReferenceCounts(space, references, chars, orders, "none")
        if self.word_order == 0:
            return ChrfContext(characters, None)
        words = [[self.words(text) for text in segment] for segment in references]
        flat_words = [reference for segment in words for reference in segment]
        word_space = NgramSpace(flat_words, self.word_order, 0, keep_references=True)
        word_orders = range(1, self.word_order + 1)
        return ChrfContext(
            characters, ReferenceCounts(word_space, references, words, word_orders, "none")
        )

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        chars, segments = resolve_references(
            context.characters if context is not None else None,
            references,
            lambda refs: self.context(refs).characters,
        )
        parts = [self._kind_stats(chars, [self.characters(h) for h in hypotheses], segments)]
        if self.word_order:
            words, word_segments = resolve_references(
                context.words if context is not None else None,
                references,
                lambda refs: self.context(refs).words,  # type: ignore[arg-type,return-value]
            )
            parts.append(
                self._kind_stats(words, [self.words(h) for h in hypotheses], word_segments)
            )
        per_stream = np.concatenate(parts, axis=2)
        return self._best_reference(per_stream, chars.has_stream(segments))

    def _kind_stats(
        self, refs: ReferenceCounts, sequences: Sequence[Sequence[str]], segments: IntArray
    ) -> npt.NDArray[np.float64]:
        """(segments × references × 3·orders) counts for one n-gram kind."""
        candidates = Candidates(refs.space, sequences)
        orders = sorted(refs.pooled)
        stats = np.zeros((len(sequences), max(refs.n_streams, 1), 3 * len(orders)))
        for stream in range(refs.n_streams):
            for column, order in enumerate(orders):
                counts = refs.clip(candidates, order, segments, stream)
                ref_total = refs.stream_totals(order, stream, segments)
                # sacreBLEU counts no hypothesis n-grams against a reference without any.
                stats[:, stream, 3 * column] = np.where(ref_total > 0, counts.totals, 0)
                stats[:, stream, 3 * column + 1] = ref_total
                stats[:, stream, 3 * column + 2] = counts.per_segment()
        return stats

    def _best_reference(
        self, per_stream: npt.NDArray[np.float64], present: npt.NDArray[np.bool_]
    ) -> Statistics:
        """The statistics of the reference with the best sentence score (first on ties)."""
        if per_stream.shape[1] == 1:
            return per_stream[:, 0, :] * present[:, :1]
        best = np.zeros((per_stream.shape[0], per_stream.shape[2]))
        for k in range(per_stream.shape[0]):
            best_score = -1.0
            for stream in np.flatnonzero(present[k]):
                score = self.score_of(per_stream[k, stream])
                if score > best_score:
                    best_score, best[k] = score, per_stream[k, stream]
        return best

    def score_of(self, row: Sequence[float]) -> float:
        return chrf_score(row, self.values["beta"], self.values["eps-smoothing"])

    def scores_of(self, stats: Statistics) -> npt.NDArray[np.float64]:
        """:meth:`score_of` of every row."""
        return chrf_scores(stats, self.values["beta"], self.values["eps-smoothing"])

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        row = stats.sum(axis=0)
        return Score(
            self.name,
            self.score_of(row.tolist()),
            self.signature(n_refs),
            {"statistics": dict(zip(self.stat_names, row.tolist(), strict=True))},
        )

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        return self.scores_of(np.asarray(stats, dtype=np.float64))

    def explain(self, hyp: str, refs: Sequence[str], context: Any = None) -> Explanation:
        """The sentence score taken apart, against the reference with the best sentence
        score (first on ties, as the statistics choose it): per character order, then word
        order, the matched, unmatched and missing n-grams and the order's counts,
        precision, recall and F_β. ``context`` is accepted as NIST's and not needed.

        Raises:
            MeasureError: without references.
        """
        if not refs:
            raise MeasureError(f"measure {self.name}: no reference to explain against")
        best: tuple[float, int, list[OrderExplanation]] | None = None
        for index, ref in enumerate(refs):
            orders = self._orders(hyp, ref)
            score = self.score_of(_counts_row(orders))
            if best is None or score > best[0]:
                best = (score, index, orders)
        assert best is not None
        _, reference, orders = best
        row = _counts_row(orders)
        precision, recall = _averages(orders)
        return Explanation(
            self.name,
            self.words(hyp),
            [self.words(ref) for ref in refs],
            float(self.sentence_scores(np.array([row]))[0]),
            reference,
            float(len(self.characters(hyp))),
            float(len(self.characters(refs[reference]))),
            None,
            orders,
            {"precision": precision, "recall": recall, "beta": self.values["beta"]},
        )

    def _orders(self, hyp: str, ref: str) -> list[OrderExplanation]:
        """Every order's n-gram counts of one candidate against one reference."""
        sides = [("char", self.characters(hyp), self.characters(ref), self.char_order)]
        sides.append(("word", self.words(hyp), self.words(ref), self.word_order))
        beta_squared = self.values["beta"] ** 2
        orders = []
        for kind, hyp_units, ref_units, top in sides:
            for n in range(1, top + 1):
                ref_grams = ngram_list(ref_units, n)
                hyp_grams = ngram_list(hyp_units, n) if ref_grams else []
                order = order_counts(n, kind, hyp_grams, Counter(ref_grams), missing=True)
                values = order.values
                values["reference_total"] = float(len(ref_grams))
                values["precision"] = _ratio(values["matches"], values["total"])
                values["recall"] = _ratio(values["matches"], values["reference_total"])
                denominator = beta_squared * values["precision"] + values["recall"]
                values["f_score"] = (
                    (1 + beta_squared) * values["precision"] * values["recall"] / denominator
                    if denominator > 0
                    else 0.0
                )
                orders.append(order)
        return orders


def _counts_row(orders: Sequence[OrderExplanation]) -> list[float]:
    """The statistics row ``[hyp, ref, match] * orders`` of explained orders."""
    return [
        value
        for order in orders
        for value in (
            order.values["total"],
            order.values["reference_total"],
            order.values["matches"],
        )
    ]


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else 0.0


def _averages(orders: Sequence[OrderExplanation]) -> tuple[float, float]:
    """Precision and recall averaged over the effective orders (both sides non-empty)."""
    effective = [o for o in orders if o.values["total"] > 0 and o.values["reference_total"] > 0]
    if not effective:
        return 0.0, 0.0
    precision = sum(o.values["precision"] for o in effective) / len(effective)
    recall = sum(o.values["recall"] for o in effective) / len(effective)
    return precision, recall
