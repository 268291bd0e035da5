"""Why an n-gram measure (BLEU, NIST, chrF) scored a sentence as it did.

Each of those measures has ``explain(hyp, refs, context=None) -> Explanation``: per order the
candidate's m-grams with their candidate count, reference count and clipped (matched) count,
the order's totals and precision, and the factors the sentence score multiplies together
(brevity penalty, NIST information weights, chrF's precision and recall). The counts are
taken here with Python ``Counter``s, apart from the numpy m-gram kernel that scores; the
score comes from the measure's own formula applied to them, so it equals the sentence score
``score --sentences`` prints whenever the counts equal the measure's statistics (tests).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .preprocessing import BOS, EOS

_READABLE = {BOS: "<s>", EOS: "</s>"}


def ngram_list(units: Sequence[Hashable], order: int) -> list[tuple[Hashable, ...]]:
    """The windows of ``order`` units, in sentence order (pad first if boundaries count)."""
    return [tuple(units[p : p + order]) for p in range(len(units) - order + 1)]


def readable(gram: Sequence[Any], kind: str = "word") -> str:
    """An m-gram as text: words joined by spaces (boundaries as ``<s>``/``</s>``), characters
    (``kind`` ``char``) as they are."""
    if kind == "char":
        return "".join(gram)
    return " ".join(_READABLE.get(unit, unit) for unit in gram)


@dataclass
class NgramCount:
    """One distinct candidate (or reference) m-gram of a sentence.

    Attributes:
        ngram: the m-gram as text.
        hyp_count: n_g, its count in the candidate.
        ref_count: ñ_g, its count in the reference (the maximum over the references for
            BLEU and NIST, whose references are pooled; in the chosen reference for chrF).
        matched: min(n_g, ñ_g), the clipped count.
        weight: NIST's information weight Info(g) (None for the other measures).
    """

    ngram: str
    hyp_count: int
    ref_count: int
    matched: int
    weight: float | None = None


@dataclass
class OrderExplanation:
    """One m-gram order (``kind`` ``word`` or ``char``).

    ``matched`` lists the candidate m-grams with a clipped count above 0, ``unmatched`` those
    with occurrences left over after clipping (``hyp_count − matched`` of them are
    unmatched), ``missing`` the reference m-grams left over (chrF's recall; empty for the
    pooled BLEU/NIST). ``values`` are the numbers of the order that enter the score:
    ``matches`` (Σ matched), ``total`` (candidate m-grams), and per measure ``precision``
    (BLEU's p_m in percent, smoothing applied), ``info`` and ``term`` (NIST:
    Σ matched·Info and (1/N_m)·Σ matched·Info), ``reference_total``, ``precision``,
    ``recall`` and ``f_score`` (chrF).
    """

    order: int
    kind: str
    matched: list[NgramCount] = field(default_factory=list)
    unmatched: list[NgramCount] = field(default_factory=list)
    missing: list[NgramCount] = field(default_factory=list)
    values: dict[str, float] = field(default_factory=dict)


@dataclass
class Explanation:
    """The sentence score of an n-gram measure, taken apart.

    Attributes:
        measure: the measure's name.
        hyp: candidate units after preprocessing (words; chrF: its words as split for
            word n-grams); refs: every reference's.
        score: the sentence score, as ``score --sentences`` prints it.
        reference: 0-based index of the reference the score depends on (BLEU/NIST: the one
            whose length is L* under ``minimumNearest``/``minimum``, None under ``average``;
            chrF: the reference with the best sentence score).
        hyp_length: candidate words (chrF: characters n-grams are taken from).
        reference_length: L* (chrF: the chosen reference's characters).
        brevity_penalty: BLEU's or NIST's length penalty (None for chrF).
        orders: one :class:`OrderExplanation` per order (chrF: character orders, then word
            orders).
        values: the remaining numbers of the score (BLEU ``score_unpenalized``; NIST
            ``score_unpenalized``; chrF ``precision``, ``recall``, ``beta``).
    """

    measure: str
    hyp: list[str]
    refs: list[list[str]]
    score: float
    reference: int | None
    hyp_length: float
    reference_length: float
    brevity_penalty: float | None
    orders: list[OrderExplanation]
    values: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-serialisable form; NaN and infinite numbers become None."""
        return _finite(dataclasses.asdict(self))


def _finite(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def order_counts(
    order: int,
    kind: str,
    hyp_grams: Sequence[tuple[Hashable, ...]],
    ref_counts: Counter[tuple[Hashable, ...]],
    weights: dict[tuple[Hashable, ...], float] | None = None,
    missing: bool = False,
) -> OrderExplanation:
    """The matched and unmatched m-grams of one order, in order of first occurrence.

    Args:
        hyp_grams: the candidate's m-grams (with repeats).
        ref_counts: ñ_g per m-gram (pooled maximum or one reference).
        weights: NIST information weights per candidate m-gram.
        missing: also list reference m-grams left over after clipping (chrF).
    """
    hyp_counts = Counter(hyp_grams)
    explanation = OrderExplanation(order, kind)
    for gram, count in hyp_counts.items():  # insertion order: first occurrence
        matched = min(count, ref_counts.get(gram, 0))
        row = NgramCount(
            readable(gram, kind),
            count,
            ref_counts.get(gram, 0),
            matched,
            None if weights is None else weights[gram],
        )
        if matched:
            explanation.matched.append(row)
        if count > matched:
            explanation.unmatched.append(row)
    if missing:
        for gram, count in ref_counts.items():
            found = hyp_counts.get(gram, 0)
            if count > found:
                row = NgramCount(readable(gram, kind), found, count, min(found, count))
                explanation.missing.append(row)
    explanation.values["matches"] = float(sum(row.matched for row in explanation.matched))
    explanation.values["total"] = float(len(hyp_grams))
    return explanation


def pooled_counts(refs: Sequence[Sequence[Hashable]], order: int) -> Counter[tuple[Hashable, ...]]:
    """ñ_g = max_r ñ_{g,r} over the references (Eq. 3.1), of already padded references."""
    pooled: Counter[tuple[Hashable, ...]] = Counter()
    for ref in refs:
        for gram, count in Counter(ngram_list(ref, order)).items():
            pooled[gram] = max(pooled[gram], count)
    return pooled
