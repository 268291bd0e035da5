"""m-PER, (1..M)-PER and skip-bigram PER: PER on m-gram count vectors (Leusch, 2005).

Measures spec §6.2 (Eq. 4.12), §6.5 (m-PER), §6.6 (skip-bigram PER), §4.1 (Table A.3).

With unit costs, PER between count vectors with totals I and L is
d = ½(Σ|n − ñ| + |I − L|) = max(I, L) − Σ_g min(n_g, ñ_g), so the shared m-gram kernel's
clipped counts give every distance. Lengths are reference m-gram (or skip-bigram) counts after
padding (spec §6.5 [R]); the reference-length rules of Table A.3 apply to them, the nearest
reference being chosen by distance. Error rates are 100 · Σ d_k / Σ L*_k.

For M > 1 orders, ``choose-references-separately`` false (default) sums the distances over
orders before choosing the reference; true chooses per order and sums the chosen parts.

Statistics per segment: ``[d, L*, d_m, L*_m for each order m]``, where the per-order pairs
are each order on its own (its own reference choice), as EvalTrans' ``<n-gram n="m">``.

``align``/``align_refs`` give the matching behind d: per order, every candidate m-gram (or
skip bigram) matched to an equal reference one (the k-th occurrence to the k-th), the rest
paired in sentence order as substitutions, and the remainder deleted or inserted, so that
the order's cost is max(I_m, L_m) − Σ_g min(n_g, ñ_g). This is counted on Python tuples,
apart from the m-gram kernel that scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .alignment import Alignment, EditOp
from .base import MAX_NGRAM_ORDER, MeasureError, Option, Score, Statistics, TextMeasure
from .bleu import pad_rule_option, text_options
from .ngrams import Candidates, NgramSpace, ReferenceCounts, pad_sides, resolve_references
from .preprocessing import BOS, EOS, pad
from .reflength import DISTANCE_RULES, distance_reference_choice, distance_reference_length

Occurrence = tuple[tuple[str, ...], tuple[int, int]]
"""An m-gram (its tokens, boundaries included) and the word span it touches (half-open)."""
_READABLE = {BOS: "<s>", EOS: "</s>"}
MAX_BIGRAM_SKIP = 50
"""Highest skip S of skip-bigram PER: the thesis uses 4 and ROUGE-S up to 9; every sentence has
about (S + 1) skip bigrams per word, so memory grows with S."""

REF_LENGTH_RULE = Option(
    default="lowestError",
    choices=DISTANCE_RULES,
    short="reflen",
    help="Reference-length rule of Table A.3 over m-gram counts (spec §4.1).",
)


class CountVectorPER(TextMeasure):
    """Shared pipeline of m-PER and skip-bigram PER; lower is better, in percent."""

    higher_is_better: ClassVar[bool] = False
    orders: tuple[int, ...] = (1,)

    def make_space(self, flat: Sequence[Sequence[str]]) -> NgramSpace:
        raise NotImplementedError

    def context(self, references: Sequence[Sequence[str]]) -> ReferenceCounts:
        """Per-reference m-gram counts of the whole test set."""
        tokens = self.segment_tokens(references)
        flat = [reference for segment in tokens for reference in segment]
        return ReferenceCounts(
            self.make_space(flat), references, tokens, self.orders, self.values["pad-rule"]
        )

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        refs, segments = resolve_references(context, references, self.context)
        candidates = Candidates(refs.space, self.tokens_many(hypotheses))
        shape = (len(hypotheses), len(self.orders), max(refs.n_streams, 1))
        distances, lengths = np.full(shape, np.inf), np.zeros(shape)
        for column, order in enumerate(self.orders):
            for stream in range(refs.n_streams):
                counts = refs.clip(candidates, order, segments, stream)
                ref_total = refs.stream_totals(order, stream, segments)
                distances[:, column, stream] = (
                    np.maximum(counts.totals, ref_total) - counts.per_segment()
                )
                lengths[:, column, stream] = ref_total
        present = refs.has_stream(segments)
        stats = np.zeros((len(hypotheses), 2 + 2 * len(self.orders)))
        single = present.sum(axis=1) == 1
        stats[single] = _single_reference_rows(distances[single, :, 0], lengths[single, :, 0])
        for k in np.flatnonzero(~single):
            stats[k] = self._row(distances[k][:, present[k]], lengths[k][:, present[k]])
        return stats

    def _row(self, distances: np.ndarray, lengths: np.ndarray) -> list[float]:
        """[d, L*, d_m, L*_m ...] of one segment from (orders × references) arrays."""
        if distances.shape[1] == 0:
            return [0.0] * (2 + 2 * len(self.orders))
        rule = self.values["ref-length-rule"]
        per_order = [
            distance_reference_length(list(d), list(n), rule)
            for d, n in zip(distances, lengths, strict=True)
        ]
        if self.values.get("choose-references-separately"):
            total = (sum(d for d, _ in per_order), sum(n for _, n in per_order))
        else:
            total = distance_reference_length(
                list(distances.sum(axis=0)), list(lengths.sum(axis=0)), rule
            )
        return [float(total[0]), float(total[1])] + [float(x) for pair in per_order for x in pair]

    # -- the matching behind a sentence's distance ------------------------------------

    def occurrences(self, tokens: Sequence[str], order: int) -> list[Occurrence]:
        """The m-grams of ``order`` that count under the pad rule, in sentence order."""
        rule = self.values["pad-rule"]
        left, _ = pad_sides(order, rule)
        padded = pad(tokens, order, rule)
        return [
            (tuple(padded[p : p + order]), _touched(p - left, p - left + order - 1, len(tokens)))
            for p in range(len(padded) - order + 1)
        ]

    def order_matching(
        self, hyp: Sequence[str], ref: Sequence[str], order: int
    ) -> tuple[float, int, list[EditOp]]:
        """(d_m, reference m-gram count, operations) of one order against one reference."""
        hyp_grams, ref_grams = self.occurrences(hyp, order), self.occurrences(ref, order)
        waiting: dict[tuple[str, ...], list[int]] = {}
        for k, (gram, _) in enumerate(ref_grams):
            waiting.setdefault(gram, []).append(k)
        partner: dict[int, int] = {}
        for k, (gram, _) in enumerate(hyp_grams):
            if waiting.get(gram):
                partner[k] = waiting[gram].pop(0)
        free_refs = sorted(k for positions in waiting.values() for k in positions)
        free_hyps = [k for k in range(len(hyp_grams)) if k not in partner]
        partner.update(zip(free_hyps, free_refs, strict=False))
        operations = []
        for k, (gram, span) in enumerate(hyp_grams):
            if k in partner:
                ref_gram, ref_span = ref_grams[partner[k]]
                cost = float(gram != ref_gram)
                kind = "substitute" if cost else "match"
                detail = {
                    "order": order,
                    "hyp_ngram": _readable(gram),
                    "ref_ngram": _readable(ref_gram),
                }
                operations.append(
                    EditOp(kind, span[0], ref_span[0], cost, None, None, span, ref_span, detail)
                )
            else:
                detail = {"order": order, "hyp_ngram": _readable(gram)}
                operations.append(
                    EditOp("delete", span[0], None, 1.0, None, None, span, None, detail)
                )
        paired = set(partner.values())
        for k in free_refs:
            if k not in paired:
                gram, span = ref_grams[k]
                detail = {"order": order, "ref_ngram": _readable(gram)}
                operations.append(
                    EditOp("insert", None, span[0], 1.0, None, None, None, span, detail)
                )
        distance = float(
            max(len(hyp_grams), len(ref_grams)) - sum(1 for op in operations if op.kind == "match")
        )
        return distance, len(ref_grams), operations

    def align(self, hyp: str, ref: str, grid: bool = False) -> Alignment:
        """The m-gram matching of one sentence pair (see :meth:`align_refs`)."""
        return self.align_refs(hyp, [ref])

    def align_refs(self, hyp: str, refs: Sequence[str], grid: bool = False) -> Alignment:
        """The matching behind the segment's distance, order by order, against the
        reference the ``ref-length-rule`` picks (per order with
        ``choose-references-separately``).

        ``extras["matching"]`` has one entry per order: ``order``, ``reference`` (index),
        ``distance`` d_m, ``reference_length`` (its m-gram count), ``chosen_length`` (the
        order's own L*, as the statistics' per-order columns) and ``pairs``, the
        ``[hyp span, ref span]`` of every operation (None for the missing side);
        ``extras["reference"]`` is the reference of the summed distance (of the first order
        when chosen per order) and ``extras["reference_length"]`` L*_k. ``operations`` are
        every order's, their costs adding up to d. ``grid`` is ignored.

        Raises:
            MeasureError: without references.
        """
        if not refs:
            raise MeasureError(f"measure {self.name}: no reference to align against")
        hyp_tokens = self.tokens(hyp)
        ref_tokens = self.tokens_many(refs)
        table = [
            [self.order_matching(hyp_tokens, ref, order) for ref in ref_tokens]
            for order in self.orders
        ]
        rule = self.values["ref-length-rule"]
        choices = [
            distance_reference_choice([d for d, _, _ in row], [n for _, n, _ in row], rule)
            for row in table
        ]
        if self.values.get("choose-references-separately"):
            chosen = [index for index, _, _ in choices]
            reference = chosen[0]
            length = float(sum(n for _, _, n in choices))
        else:
            reference, _, length = distance_reference_choice(
                [sum(row[r][0] for row in table) for r in range(len(refs))],
                [sum(row[r][1] for row in table) for r in range(len(refs))],
                rule,
            )
            chosen = [reference] * len(self.orders)
        operations: list[EditOp] = []
        matching = []
        for order, row, index, (_, _, order_length) in zip(
            self.orders, table, chosen, choices, strict=True
        ):
            distance, grams, order_operations = row[index]
            operations.extend(order_operations)
            matching.append(
                {
                    "order": order,
                    "reference": index,
                    "distance": distance,
                    "reference_length": grams,
                    "chosen_length": float(order_length),
                    "pairs": [[_span(op.hyp_span), _span(op.ref_span)] for op in order_operations],
                }
            )
        return Alignment(
            self.name,
            list(hyp_tokens),
            list(ref_tokens[reference]),
            float(sum(op.cost for op in operations)),
            operations,
            None,
            {"reference": reference, "reference_length": float(length), "matching": matching},
        )

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        row = stats.sum(axis=0)
        per_order = {
            str(order): {
                "distance": float(row[2 + 2 * i]),
                "ref_length": float(row[3 + 2 * i]),
                "error_rate": rate(row[2 + 2 * i], row[3 + 2 * i]),
            }
            for i, order in enumerate(self.orders)
        }
        return Score(
            self.name,
            rate(row[0], row[1]),
            self.signature(n_refs),
            {"distance": float(row[0]), "ref_length": float(row[1]), "orders": per_order},
        )

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        stats = np.asarray(stats, dtype=np.float64)
        return rates(stats[:, 0], stats[:, 1])


def _single_reference_rows(
    distances: npt.NDArray[np.float64], lengths: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """:meth:`CountVectorPER._row` of many segments with one reference each, at once.

    With one reference every rule of Table A.3 gives (d, L) of that reference, per order and
    for the orders' sum, so joint and separate reference choice agree too.
    """
    per_order = np.stack([distances, lengths], axis=2).reshape(
        len(distances), 2 * distances.shape[1]
    )
    return np.column_stack([distances.sum(axis=1), lengths.sum(axis=1), per_order])


def _touched(first: int, last: int, length: int) -> tuple[int, int]:
    """Half-open span of the words from position ``first`` to ``last`` (a boundary, outside
    0..length−1, touches the nearest word)."""
    return max(first, 0), max(min(last + 1, length), min(max(first, 0) + 1, length))


def _readable(gram: Sequence[str]) -> list[str]:
    return [_READABLE.get(token, token) for token in gram]


def _span(span: tuple[int, int] | None) -> list[int] | None:
    return None if span is None else list(span)


def rate(distance: float, length: float) -> float:
    """100 · d / L*; NaN when L* = 0 (undefined, spec §4.1), 0 when both are 0."""
    if length == 0:
        return 0.0 if distance == 0 else float("nan")
    return 100.0 * float(distance) / float(length)


def rates(
    distance: npt.NDArray[np.float64], length: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """:func:`rate` of every entry."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 100.0 * distance / length
    return np.where(length == 0, np.where(distance == 0, 0.0, np.nan), value)


class MPER(CountVectorPER):
    """m-PER on orders min-ngram..max-ngram (default: BIGRAM-PER with boundaries)."""

    name: ClassVar[str] = "mper"
    description: ClassVar[str] = "PER on m-gram count vectors, (1..M)-PER (thesis §4.2.2)."
    options: ClassVar[dict[str, Option]] = {
        **text_options("mteval-contractions", False),
        "min-ngram": Option(
            default=2,
            kind=int,
            minimum=1,
            maximum=MAX_NGRAM_ORDER,
            short="nmin",
            help="Lowest order.",
        ),
        "max-ngram": Option(
            default=2,
            kind=int,
            minimum=1,
            maximum=MAX_NGRAM_ORDER,
            short="n",
            help="Highest order M.",
        ),
        "pad-rule": pad_rule_option("both"),
        "ref-length-rule": REF_LENGTH_RULE,
        "choose-references-separately": Option(
            default=False,
            kind=bool,
            short="sep",
            help="Choose the nearest reference per order instead of for the summed distance.",
        ),
    }

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.orders = tuple(range(self.values["min-ngram"], self.values["max-ngram"] + 1))
        self.stat_names = ("distance", "ref_length") + tuple(
            f"{part}_{order}" for order in self.orders for part in ("distance", "ref_length")
        )

    def validate(self) -> None:
        if self.values["min-ngram"] > self.values["max-ngram"]:
            raise MeasureError("option min-ngram: must not exceed max-ngram")

    def make_space(self, flat: Sequence[Sequence[str]]) -> NgramSpace:
        top = self.values["max-ngram"]
        return NgramSpace(flat, top, top - 1)


class SkipBigramPER(CountVectorPER):
    """PER on skip-bigram count vectors with maximum skip S (thesis §4.2.3)."""

    name: ClassVar[str] = "skipper"
    description: ClassVar[str] = "Skip-bigram PER with maximum skip S (thesis §4.2.3)."
    orders = (2,)
    stat_names: ClassVar[tuple[str, ...]] = ("distance", "ref_length", "distance_2", "ref_length_2")
    options: ClassVar[dict[str, Option]] = {
        **text_options("mteval-contractions", False),
        "max-bigram-skip": Option(
            default=4,
            kind=int,
            minimum=0,
            maximum=MAX_BIGRAM_SKIP,
            short="skip",
            help="Maximum skip S (spec §6.6).",
        ),
        "pad-rule": pad_rule_option("both"),
        "ref-length-rule": REF_LENGTH_RULE,
    }

    def make_space(self, flat: Sequence[Sequence[str]]) -> NgramSpace:
        return NgramSpace(flat, 2, 1, max_skip=self.values["max-bigram-skip"])

    def occurrences(self, tokens: Sequence[str], order: int) -> list[Occurrence]:
        """The skip bigrams (pairs at most ``max-bigram-skip`` words apart) of the sentence
        padded with one ``<s>``/``</s>`` per the pad rule (spec §6.6), by first word; the
        span runs from the first to the second word, skipped words included."""
        rule = self.values["pad-rule"]
        left, _ = pad_sides(2, rule)
        padded = pad(tokens, 2, rule)
        pairs = []
        for first in range(len(padded)):
            for second in range(
                first + 1, min(first + 2 + self.values["max-bigram-skip"], len(padded))
            ):
                span = _touched(first - left, second - left, len(tokens))
                pairs.append(((padded[first], padded[second]), span))
        return pairs
