"""NIST (Doddington, 2002), as mteval-v13a.pl computes it.

Measures spec §12 (Eqs. 3.8–3.11, 5.8), §3.4 (sentence boundaries), §4.2 (Table A.4);
oracles-and-data §2.3 (mteval-v13a: what it computes and its ``"0"`` quirk).

Information weights come from the references of the whole test set (the measure's context):

    Info(e^m) = log2( Ñ(e^{m−1}) / Ñ(e^m) ),   Ñ(e^0) := total reference words.

With left padding, the prefix of the sentence-initial m-gram [<s>…<s> e_1] is the
all-boundary (m−1)-gram, counted as occurring once per reference sentence (Eq. 5.8 with the
spec's default reading; ``initial-count=K`` gives the thesis' literal K).

``formula=mteval`` (default) reproduces mteval-v13a to four decimals, including its quirk:
Perl tests the prefix string for truth, so a bigram whose first token is ``0`` gets the
total number of reference words as numerator, like a unigram. ``formula=clean`` uses the
prefix count. The brevity penalty is exp(−ln 2 · (ln r / ln 1.5)²), r = min(1, I/L*), which
is ½ at two-thirds length (the condition of Eq. 3.11, whose printed β is OCR-damaged).

Statistics per segment: ``[hyp_len, ref_len, info_1..M, total_1..M]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import MAX_NGRAM_ORDER, MeasureError, Option, Score, Statistics, TextMeasure
from .bleu import pad_rule_option, reference_lengths, text_options
from .explanation import Explanation, ngram_list, order_counts, pooled_counts
from .ngrams import (
    BOS_ID,
    UNKNOWN,
    Candidates,
    NgramSpace,
    ReferenceCounts,
    resolve_references,
    window_positions,
)
from .preprocessing import pad
from .reflength import BLEU_RULES, bleu_reference_choice

NIST_RATIO = 1.5
"""The candidate/reference length ratio 2/3 (inverted) at which the penalty is ½."""


def nist_brevity_penalty(hyp_len: float, ref_len: float) -> float:
    """mteval's ``nist_length_penalty``: 1 at or above the reference length, ½ at 2/3 of it.

    Example:
        >>> round(nist_brevity_penalty(2, 3), 6)
        0.5
    """
    if ref_len <= 0 or hyp_len >= ref_len:
        return 1.0
    if hyp_len <= 0:
        return 0.0
    return _short_penalty(hyp_len / ref_len)


def nist_brevity_penalties(
    hyp_len: npt.NDArray[np.float64], ref_len: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """:func:`nist_brevity_penalty` of every row; the logarithms, the square and the exponential
    are Python's per short row (numpy's may differ in the last bit)."""
    penalty = np.ones(len(hyp_len))
    short = ~((ref_len <= 0) | (hyp_len >= ref_len))
    penalty[short & (hyp_len <= 0)] = 0.0
    short &= ~(hyp_len <= 0)
    penalty[short] = [_short_penalty(ratio) for ratio in (hyp_len[short] / ref_len[short]).tolist()]
    return penalty


def _short_penalty(ratio: float) -> float:
    return math.exp(-math.log(2) * (math.log(ratio) / math.log(NIST_RATIO)) ** 2)


class NistContext(ReferenceCounts):
    """Reference counts plus the information weight of every reference m-gram (per order)."""

    info: list[npt.NDArray[np.float64]]


def information_weights(
    refs: ReferenceCounts,
    tokens: Sequence[Sequence[str]],
    max_order: int,
    initial_count: float,
    quirk: bool,
) -> list[npt.NDArray[np.float64]]:
    """Info(e^m) for every m-gram number of every order (0 where Ñ(e^m) = 0).

    Args:
        refs: the counted references (their space numbers the m-grams).
        tokens: every reference token sequence of the test set.
        max_order: M.
        initial_count: Ñ of the all-boundary prefix of sentence-initial m-grams (Eq. 5.8).
        quirk: emulate mteval's numerator for bigrams starting with the token ``0``.
    """
    space = refs.space
    layout = space.layout(tokens)
    keys = space.keys(layout)
    counts = []
    for order in range(1, max_order + 1):
        positions, _ = window_positions(layout, order, refs.rule)
        types = keys[order - 1][positions]
        counts.append(np.bincount(types[types >= 0], minlength=space.size(order)))
    total_words = float(layout.lengths.sum())
    weights = []
    boundary = BOS_ID  # number of the all-<s> (m−1)-gram, followed order by order
    for order in range(1, max_order + 1):
        count = counts[order - 1].astype(np.float64)
        if order == 1:
            numerator = np.full(len(count), total_words)
        else:
            prefix = space.prefixes[order - 2]
            numerator = counts[order - 2][prefix].astype(np.float64)
            numerator[prefix == boundary] = initial_count
            zero = space.vocabulary.index.get("0", UNKNOWN)
            if quirk and order == 2 and zero != UNKNOWN:
                numerator[prefix == zero] = total_words
            boundary = _extend(space, boundary, order)
        with np.errstate(divide="ignore", invalid="ignore"):
            info = np.log2(numerator / count)
        info[(count == 0) | ~np.isfinite(info)] = 0.0
        weights.append(info)
    return weights


def _extend(space: NgramSpace, boundary: int, order: int) -> int:
    """Number of the all-<s> m-gram of ``order`` given that of order−1 (UNKNOWN if absent)."""
    if boundary == UNKNOWN or order > space.max_order:
        return UNKNOWN
    table = space.tables[order - 2]
    raw = boundary * space.base + BOS_ID
    index = int(np.searchsorted(table, raw))
    return index if index < len(table) and table[index] == raw else UNKNOWN


class NIST(TextMeasure):
    """NIST information-weighted m-gram co-occurrence; higher is better, raw (not percent)."""

    name: ClassVar[str] = "nist"
    description: ClassVar[str] = "NIST (Doddington 2002) as mteval-v13a -c, with thesis options."
    higher_is_better: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        **text_options("13a", False),
        "max-ngram": Option(
            default=5,
            kind=int,
            minimum=1,
            maximum=MAX_NGRAM_ORDER,
            short="n",
            help="Maximum m-gram order M.",
        ),
        "pad-rule": pad_rule_option("none"),
        "ref-length-rule": Option(
            default="average",
            choices=BLEU_RULES,
            short="reflen",
            help="Reference length (Table A.4); average is mteval's.",
        ),
        "initial-count": Option(
            default="referenceSentences",
            choices=("referenceSentences", "K"),
            short="init",
            help="Count of the all-<s> prefix of sentence-initial m-grams (Eq. 5.8).",
        ),
        "formula": Option(
            default="mteval",
            choices=("mteval", "clean"),
            short="formula",
            help="mteval: reproduce mteval-v13a's '0'-prefix quirk; clean: Eq. 3.8 as written.",
        ),
    }

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.max_order: int = self.values["max-ngram"]
        orders = range(1, self.max_order + 1)
        self.stat_names = (
            "hyp_len",
            "ref_len",
            *(f"info_{n}" for n in orders),
            *(f"total_{n}" for n in orders),
        )

    def context(self, references: Sequence[Sequence[str]]) -> NistContext:
        """Reference counts and information weights of the whole test set."""
        tokens = self.segment_tokens(references)
        flat = [reference for segment in tokens for reference in segment]
        space = NgramSpace(flat, self.max_order, self.max_order - 1)
        orders = range(1, self.max_order + 1)
        refs = NistContext(space, references, tokens, orders, self.values["pad-rule"])
        if self.values["initial-count"] == "K":
            initial = float(len(references))
        else:
            initial = float(sum(1 for reference in flat if reference))
        refs.info = information_weights(
            refs, flat, self.max_order, initial, self.values["formula"] == "mteval"
        )
        return refs

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        refs, segments = resolve_references(context, references, self.context)
        candidates = Candidates(refs.space, self.tokens_many(hypotheses))
        size = self.max_order
        stats = np.zeros((len(hypotheses), 2 + 2 * size))
        stats[:, 0] = candidates.lengths
        stats[:, 1] = reference_lengths(
            candidates.lengths, [refs.lengths[g] for g in segments], self.values["ref-length-rule"]
        )
        for n in range(1, size + 1):
            counts = refs.clip(candidates, n, segments)
            stats[:, 1 + n] = counts.per_segment(refs.info[n - 1][counts.types])
            stats[:, 1 + size + n] = counts.totals
        stats[[not segment for segment in references]] = 0.0
        return stats

    def terms(self, row: npt.NDArray[np.float64]) -> tuple[list[float], float]:
        """The per-order summands (1/N_m)·Σ n∩·Info and the brevity penalty of one row."""
        info = row[2 : 2 + self.max_order]
        total = row[2 + self.max_order :]
        terms = [float(i / t) if t > 0 else 0.0 for i, t in zip(info, total, strict=True)]
        return terms, nist_brevity_penalty(float(row[0]), float(row[1]))

    def rows_terms(
        self, stats: Statistics
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """:meth:`terms` of every row: (rows × orders) summands and the brevity penalties."""
        info = stats[:, 2 : 2 + self.max_order]
        total = stats[:, 2 + self.max_order : 2 + 2 * self.max_order]
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(total > 0, info / total, 0.0)
        return terms, nist_brevity_penalties(stats[:, 0], stats[:, 1])

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        row = stats.sum(axis=0)
        terms, penalty = self.terms(row)
        return Score(
            self.name,
            penalty * sum(terms),
            self.signature(n_refs),
            {
                "score_unpenalized": sum(terms),
                "brevity_penalty": penalty,
                "ngram_terms": terms,
                "hyp_len": float(row[0]),
                "ref_len": float(row[1]),
            },
        )

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        terms, penalties = self.rows_terms(stats)
        return penalties * _left_sums(terms)

    def explain(
        self, hyp: str, refs: Sequence[str], context: NistContext | None = None
    ) -> Explanation:
        """The sentence score taken apart: per order the clipped m-gram counts against the
        pooled references, each m-gram's information weight Info(g) and the order's term
        (1/N_m)·Σ matched·Info, the brevity penalty and their sum.

        Args:
            context: the test set's :meth:`context` (the weights come from all its
                references, so pass it to explain a sentence as it was scored); None uses
                these references alone, as :meth:`statistics` does without a context.

        Raises:
            MeasureError: without references.
        """
        if not refs:
            raise MeasureError(f"measure {self.name}: no reference to explain against")
        if context is None:
            context = self.context([list(refs)])
        tokens, ref_tokens = self.tokens(hyp), self.tokens_many(refs)
        rule = self.values["pad-rule"]
        reference, ref_len = bleu_reference_choice(
            len(tokens), [len(ref) for ref in ref_tokens], self.values["ref-length-rule"]
        )
        candidate = Candidates(context.space, [tokens])
        orders = []
        for n in range(1, self.max_order + 1):
            grams = ngram_list(pad(tokens, n, rule), n)
            positions, _ = window_positions(candidate.layout, n, rule)
            numbers = candidate.keys[n - 1][positions]
            assert len(numbers) == len(grams), "the kernel's windows are the sentence's"
            weights = {
                gram: float(context.info[n - 1][number]) if number != UNKNOWN else 0.0
                for gram, number in zip(grams, numbers.tolist(), strict=True)
            }
            pooled = pooled_counts([pad(ref, n, rule) for ref in ref_tokens], n)
            order = order_counts(n, "word", grams, pooled, weights)
            info = sum((row.matched * (row.weight or 0.0) for row in order.matched), 0.0)
            order.values["info"] = info
            orders.append(order)
        row = np.array(
            [
                len(tokens),
                ref_len,
                *(order.values["info"] for order in orders),
                *(order.values["total"] for order in orders),
            ],
            dtype=np.float64,
        )
        terms, penalty = self.terms(row)
        for order, term in zip(orders, terms, strict=True):
            order.values["term"] = term
        return Explanation(
            self.name,
            list(tokens),
            [list(ref) for ref in ref_tokens],
            float(self.sentence_scores(row[None, :])[0]),
            reference,
            float(len(tokens)),
            float(ref_len),
            penalty,
            orders,
            {"score_unpenalized": sum(terms)},
        )


def _left_sums(terms: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Every row's Σ left to right from 0, as Python's ``sum`` adds (not pairwise)."""
    total = np.zeros(len(terms))
    for column in terms.T:
        total = total + column
    return total
