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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import MeasureError, Option, Score, Statistics, TextMeasure
from .bleu import pad_rule_option, text_options
from .ngrams import Candidates, NgramSpace, ReferenceCounts, resolve_references
from .reflength import DISTANCE_RULES, distance_reference_length

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
        return np.array([rate(row[0], row[1]) for row in stats])


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


def rate(distance: float, length: float) -> float:
    """100 · d / L*; NaN when L* = 0 (undefined, spec §4.1), 0 when both are 0."""
    if length == 0:
        return 0.0 if distance == 0 else float("nan")
    return 100.0 * float(distance) / float(length)


class MPER(CountVectorPER):
    """m-PER on orders min-ngram..max-ngram (default: BIGRAM-PER with boundaries)."""

    name: ClassVar[str] = "mper"
    description: ClassVar[str] = "PER on m-gram count vectors, (1..M)-PER (thesis §4.2.2)."
    options: ClassVar[dict[str, Option]] = {
        **text_options("mteval-contractions", False),
        "min-ngram": Option(default=2, kind=int, minimum=1, short="nmin", help="Lowest order."),
        "max-ngram": Option(default=2, kind=int, minimum=1, short="n", help="Highest order M."),
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
            default=4, kind=int, minimum=0, short="skip", help="Maximum skip S (spec §6.6)."
        ),
        "pad-rule": pad_rule_option("both"),
        "ref-length-rule": REF_LENGTH_RULE,
    }

    def make_space(self, flat: Sequence[Sequence[str]]) -> NgramSpace:
        return NgramSpace(flat, 2, 1, max_skip=self.values["max-bigram-skip"])
