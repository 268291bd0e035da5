"""BLEU (Papineni et al., 2002), BLEU-S (Lin & Och, 2004) and BLEU-S' (Leusch, 2005).

Measures spec §11 (Eqs. 3.1–3.7), §4.2 (reference-length rules, Table A.4), §3.4 (sentence
boundaries); sacreBLEU's definition in oracles-and-data §1.2.

Defaults are sacreBLEU's (``13a`` tokens, mixed case, ``exp`` smoothing, closest reference
length, no boundaries), so corpus and sentence scores equal ``sacrebleu.metrics.BLEU``:
the BLEU printed in papers. The thesis' variants are smoothing methods here:

* ``none``: genuine BLEU (s_m = 0);
* ``bleu-s``: s_1 = 0, s_m = 1 for m > 1 (Eq. 3.6);
* ``bleu-s-prime``: s_1 = 0, s_m = 0.5 where n∩_m = 0 (Eq. 3.7);
* ``exp``, ``floor``, ``add-k``: sacreBLEU's methods (Chen & Cherry 2014, methods 3, 1, 2).

Statistics per segment: ``[hyp_len, ref_len, correct_1..M, total_1..M]``; the corpus score
applies the formula once to the column sums.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import MAX_NGRAM_ORDER, MeasureError, Option, Score, Statistics, TextMeasure
from .complexity import (
    COMPLEXITY_FACTOR,
    check_complexity_factor,
    complexity_details,
    complexity_factor_option,
    normalized_by_complexity,
)
from .explanation import Explanation, ngram_list, order_counts, pooled_counts
from .ngrams import (
    Candidates,
    NgramSpace,
    ReferenceCounts,
    distinct_segments,
    resolve_references,
)
from .preprocessing import PAD_RULES, TOKENIZERS, pad
from .reflength import BLEU_RULES, bleu_reference_choice, bleu_reference_length

SACREBLEU_METHODS = ("exp", "floor", "add-k")
THESIS_METHODS = ("none", "bleu-s", "bleu-s-prime")
SMOOTH_DEFAULTS = {"floor": 0.1, "add-k": 1.0}
SMOOTH_VALUE_MAX = 100.0
"""Highest ``smooth-value``: ε and k are added to a sentence's m-gram counts, and far below
100 they already outweigh any sentence's real counts (sacreBLEU's defaults: 0.1 and 1)."""
"""sacreBLEU's default smoothing values, used when ``smooth-value`` is 0."""

LOG_ZERO = -9999999999.0
"""sacreBLEU's floor for log(0) (``sacrebleu.utils.my_log``); exp of it is 0."""

EFFECTIVE_ORDER = ("sentence", "always", "never")


def text_options(tokenize: str, lowercase: bool) -> dict[str, Option]:
    """The ``tokenize`` and ``lowercase`` options with measure-specific defaults."""
    return {
        "tokenize": Option(
            default=tokenize,
            choices=tuple(TOKENIZERS),
            short="tok",
            help="Tokenizer for candidates and references (measures spec §3.1).",
        ),
        "lowercase": Option(
            default=lowercase, kind=bool, short="lc", help="Fold case before comparing."
        ),
    }


def pad_rule_option(default: str) -> Option:
    return Option(
        default=default,
        choices=PAD_RULES,
        short="pad",
        help="Sentence boundaries for m-grams: none, left, right or both (spec §3.4).",
    )


@dataclass(frozen=True)
class BleuParts:
    """The parts of one BLEU computation (Fig. A.3 report elements), all in percent."""

    score: float
    unpenalized: float
    brevity_penalty: float
    precisions: list[float]


@dataclass(frozen=True)
class BleuRows:
    """:class:`BleuParts` of many rows at once: one array entry (or precision row) per row."""

    score: npt.NDArray[np.float64]
    unpenalized: npt.NDArray[np.float64]
    brevity_penalty: npt.NDArray[np.float64]
    precisions: npt.NDArray[np.float64]


def _math_exp(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``math.exp`` of every entry: numpy's exp may differ from it in the last bit."""
    return np.array(list(map(math.exp, values.tolist())), dtype=np.float64)


def _mean_log(
    precisions: npt.NDArray[np.float64], used: npt.NDArray[np.bool_], orders: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """(Σ log p_m over the ``used`` entries of each row, left to right) / ``orders``, with
    ``math.log`` per entry and :data:`LOG_ZERO` for p <= 0 (as Python's ``sum`` of a list)."""
    values = precisions[used]
    positive = values > 0
    entries = np.full(len(values), LOG_ZERO)
    entries[positive] = list(map(math.log, values[positive].tolist()))
    logs = np.zeros(precisions.shape)
    logs[used] = entries
    total = np.zeros(len(precisions))
    for n in range(precisions.shape[1]):
        total = np.where(used[:, n], total + logs[:, n], total)
    with np.errstate(divide="ignore", invalid="ignore"):
        return total / orders


def brevity_penalties(
    hyp_len: npt.NDArray[np.float64], ref_len: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """lp_BLEU = min(1, exp(1 − L*/I)) per row; 0 when the candidate is empty (Eq. 3.5)."""
    penalty = np.ones(len(hyp_len))
    short = ~(hyp_len >= ref_len)
    positive = short & (hyp_len > 0)
    penalty[short & ~positive] = 0.0
    penalty[positive] = _math_exp(1 - ref_len[positive] / hyp_len[positive])
    return penalty


def brevity_penalty(hyp_len: float, ref_len: float) -> float:
    """lp_BLEU = min(1, exp(1 − L*/I)); 0 when the candidate is empty (Eq. 3.5)."""
    if hyp_len >= ref_len:
        return 1.0
    return math.exp(1 - ref_len / hyp_len) if hyp_len > 0 else 0.0


def sacrebleu_bleu(
    correct: Sequence[float],
    total: Sequence[float],
    hyp_len: float,
    ref_len: float,
    method: str = "exp",
    value: float | None = None,
    effective_order: bool = False,
) -> BleuParts:
    """BLEU from sufficient statistics exactly as ``sacrebleu.BLEU.compute_bleu`` computes it.

    Args:
        correct: clipped m-gram matches per order.
        total: candidate m-grams per order.
        hyp_len: candidate words; ref_len: reference length L*.
        method: ``exp`` (mteval-v13a's), ``floor``, ``add-k`` or ``none``.
        value: ε for ``floor`` and k for ``add-k`` (None: 0.1 and 1).
        effective_order: stop at the first order without candidate m-grams (sentence BLEU).

    Returns:
        The score parts in percent.

    Example:
        >>> round(sacrebleu_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score, 6)
        83.759224
    """
    if value is None:
        value = SMOOTH_DEFAULTS.get(method, 0.0)
    order = len(correct)
    bp = brevity_penalty(hyp_len, ref_len)
    precisions = [0.0] * order
    if not any(correct):
        return BleuParts(0.0, 0.0, bp, precisions)
    mteval_factor = 1.0
    effective = order
    for n in range(order):
        matched, candidates = correct[n], total[n]
        if method == "add-k" and n > 0:
            matched, candidates = matched + value, candidates + value
        if candidates == 0:
            break
        if effective_order:
            effective = n + 1
        if matched == 0:
            if method == "exp":
                mteval_factor *= 2
                precisions[n] = 100.0 / (mteval_factor * candidates)
            elif method == "floor":
                precisions[n] = 100.0 * value / candidates
        else:
            precisions[n] = 100.0 * matched / candidates
    logs = [math.log(p) if p > 0 else LOG_ZERO for p in precisions[:effective]]
    unpenalized = math.exp(sum(logs) / effective)
    return BleuParts(bp * unpenalized, unpenalized, bp, precisions)


def sacrebleu_bleu_rows(
    correct: npt.NDArray[np.float64],
    total: npt.NDArray[np.float64],
    hyp_len: npt.NDArray[np.float64],
    ref_len: npt.NDArray[np.float64],
    method: str = "exp",
    value: float | None = None,
    effective_order: bool = False,
) -> BleuRows:
    """:func:`sacrebleu_bleu` of every row of ``correct`` and ``total`` (rows × orders).

    Column by column with the scalar formula's operations in its order, and ``math.log`` /
    ``math.exp`` per entry, so each row's numbers are those of sacreBLEU's loop to the bit.
    """
    if value is None:
        value = SMOOTH_DEFAULTS.get(method, 0.0)
    rows, order = correct.shape
    bp = brevity_penalties(hyp_len, ref_len)
    precisions = np.zeros((rows, order))
    going = np.ones(rows, dtype=bool)  # no order without candidates met yet
    effective = np.full(rows, order)
    mteval_factor = np.ones(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        for n in range(order):
            matched, candidates = correct[:, n], total[:, n]
            if method == "add-k" and n > 0:
                matched, candidates = matched + value, candidates + value
            going &= candidates != 0
            if effective_order:
                effective[going] = n + 1
            unmatched = going & (matched == 0)
            column = np.where(going & ~unmatched, 100.0 * matched / candidates, 0.0)
            if method == "exp":
                mteval_factor = np.where(unmatched, mteval_factor * 2, mteval_factor)
                column = np.where(unmatched, 100.0 / (mteval_factor * candidates), column)
            elif method == "floor":
                column = np.where(unmatched, 100.0 * value / candidates, column)
            precisions[:, n] = column
    scored = (correct != 0).any(axis=1)
    precisions[~scored] = 0.0
    used = scored[:, None] & (np.arange(order) < effective[:, None])
    unpenalized = np.zeros(rows)
    unpenalized[scored] = _math_exp(_mean_log(precisions, used, effective)[scored])
    score = np.where(scored, bp * unpenalized, 0.0)
    return BleuRows(score, unpenalized, bp, precisions)


def thesis_bleu(
    correct: Sequence[float],
    total: Sequence[float],
    hyp_len: float,
    ref_len: float,
    method: str = "none",
) -> BleuParts:
    """Genuine BLEU, BLEU-S or BLEU-S' (spec §11.1–11.2), in percent.

    The smoothing terms s_m are added once to the accumulated totals. Undefined cases give 0:
    a zero numerator, a zero denominator under genuine BLEU, or an empty candidate corpus.

    Example:
        >>> round(thesis_bleu([8, 5, 1, 0], [9, 7, 5, 3], 9, 10, "bleu-s").score / 100, 6)
        0.434437
    """
    order = len(correct)
    bp = brevity_penalty(hyp_len, ref_len)
    precisions = []
    for n in range(order):
        smooth = 0.0
        if n > 0 and method == "bleu-s":
            smooth = 1.0
        elif n > 0 and method == "bleu-s-prime" and correct[n] == 0:
            smooth = 0.5
        numerator, denominator = correct[n] + smooth, total[n] + smooth
        precisions.append(100.0 * numerator / denominator if denominator > 0 else 0.0)
    if hyp_len == 0 or min(precisions) == 0:
        return BleuParts(0.0, 0.0, bp if hyp_len else 0.0, precisions)
    unpenalized = math.exp(sum(math.log(p) for p in precisions) / order)
    return BleuParts(bp * unpenalized, unpenalized, bp, precisions)


def thesis_bleu_rows(
    correct: npt.NDArray[np.float64],
    total: npt.NDArray[np.float64],
    hyp_len: npt.NDArray[np.float64],
    ref_len: npt.NDArray[np.float64],
    method: str = "none",
) -> BleuRows:
    """:func:`thesis_bleu` of every row of ``correct`` and ``total`` (rows × orders), to the
    last bit, as :func:`sacrebleu_bleu_rows` is of its function."""
    rows, order = correct.shape
    bp = brevity_penalties(hyp_len, ref_len)
    precisions = np.zeros((rows, order))
    with np.errstate(divide="ignore", invalid="ignore"):
        for n in range(order):
            smooth: float | npt.NDArray[np.float64] = 0.0
            if n > 0 and method == "bleu-s":
                smooth = 1.0
            elif n > 0 and method == "bleu-s-prime":
                smooth = np.where(correct[:, n] == 0, 0.5, 0.0)
            numerator, denominator = correct[:, n] + smooth, total[:, n] + smooth
            precisions[:, n] = np.where(denominator > 0, 100.0 * numerator / denominator, 0.0)
    scored = (hyp_len != 0) & ~(precisions.min(axis=1, initial=np.inf) == 0)
    used = np.broadcast_to(scored[:, None], precisions.shape)
    unpenalized = np.zeros(rows)
    unpenalized[scored] = _math_exp(_mean_log(precisions, used, order)[scored])
    score = np.where(scored, bp * unpenalized, 0.0)
    return BleuRows(score, unpenalized, np.where(hyp_len != 0, bp, 0.0), precisions)


class BLEU(TextMeasure):
    """BLEU and its smoothed variants; higher is better, in percent (0–100)."""

    name: ClassVar[str] = "bleu"
    description: ClassVar[str] = (
        "BLEU (Papineni et al. 2002) with sacreBLEU's and the thesis' smoothing methods."
    )
    higher_is_better: ClassVar[bool] = True
    options: ClassVar[dict[str, Option]] = {
        **text_options("13a", False),
        "max-ngram": Option(
            default=4,
            kind=int,
            minimum=1,
            maximum=MAX_NGRAM_ORDER,
            short="n",
            help="Maximum m-gram order M.",
        ),
        "smoothing": Option(
            default="exp",
            choices=(*SACREBLEU_METHODS, *THESIS_METHODS),
            short="smooth",
            help="exp, floor, add-k (sacreBLEU); none (genuine BLEU), bleu-s, bleu-s-prime.",
        ),
        "smooth-value": Option(
            default=0.0,
            kind=float,
            minimum=0.0,
            maximum=SMOOTH_VALUE_MAX,
            short="sv",
            help="ε of floor or k of add-k; 0 means sacreBLEU's default (0.1, 1).",
        ),
        "effective-order": Option(
            default="sentence",
            choices=EFFECTIVE_ORDER,
            short="eff",
            help="Skip orders without candidate m-grams: in sentence scores only (as "
            "sacreBLEU's sentence BLEU), always or never. sacreBLEU methods and none only.",
        ),
        "pad-rule": pad_rule_option("none"),
        "ref-length-rule": Option(
            default="minimumNearest",
            choices=BLEU_RULES,
            short="reflen",
            help="Reference length (Table A.4); minimumNearest is sacreBLEU's closest.",
        ),
        COMPLEXITY_FACTOR: complexity_factor_option("bleu"),
    }

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.max_order: int = self.values["max-ngram"]
        self.stat_names = (
            "hyp_len",
            "ref_len",
            *(f"correct_{n}" for n in range(1, self.max_order + 1)),
            *(f"total_{n}" for n in range(1, self.max_order + 1)),
        )

    def validate(self) -> None:
        if self.values["smooth-value"] and self.values["smoothing"] not in SMOOTH_DEFAULTS:
            raise MeasureError("option smooth-value: only floor and add-k take a value")
        check_complexity_factor(self)

    # -- the pipeline -------------------------------------------------------------

    def context(self, references: Sequence[Sequence[str]]) -> ReferenceCounts:
        """Every distinct reference list of the test set, tokenized, numbered and counted
        once (:func:`~metrics.core.ngrams.distinct_segments`)."""
        references = distinct_segments(references)
        tokens = self.segment_tokens(references)
        flat = [reference for segment in tokens for reference in segment]
        space = NgramSpace(flat, self.max_order, self.max_order - 1, keep_references=True)
        orders = range(1, self.max_order + 1)
        return ReferenceCounts(space, references, tokens, orders, self.values["pad-rule"])

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        refs, segments = resolve_references(context, references, self.context)
        hyp_tokens = self.tokens_many(hypotheses)
        candidates = Candidates(refs.space, hyp_tokens)
        stats = np.zeros((len(hypotheses), 2 + 2 * self.max_order))
        stats[:, 0] = candidates.lengths
        stats[:, 1] = reference_lengths(
            candidates.lengths, [refs.lengths[g] for g in segments], self.values["ref-length-rule"]
        )
        for n in range(1, self.max_order + 1):
            counts = refs.clip(candidates, n, segments)
            stats[:, 1 + n] = counts.per_segment()
            stats[:, 1 + self.max_order + n] = counts.totals
        stats[[not segment for segment in references]] = 0.0
        return stats

    def parts(self, row: npt.NDArray[np.float64], sentence: bool) -> BleuParts:
        """Score parts from one row of (summed) statistics."""
        hyp_len, ref_len = row[0], row[1]
        correct = row[2 : 2 + self.max_order].tolist()
        total = row[2 + self.max_order :].tolist()
        method = self.values["smoothing"]
        if method in ("bleu-s", "bleu-s-prime"):
            return thesis_bleu(correct, total, hyp_len, ref_len, method)
        return sacrebleu_bleu(correct, total, hyp_len, ref_len, *self._sacrebleu_options(sentence))

    def rows_parts(self, stats: Statistics, sentence: bool) -> BleuRows:
        """Score parts of every row of statistics: :meth:`parts` of each row to the last bit (the
        sentence scores of a run; a test holds the two equal)."""
        hyp_len, ref_len = stats[:, 0], stats[:, 1]
        correct = stats[:, 2 : 2 + self.max_order]
        total = stats[:, 2 + self.max_order : 2 + 2 * self.max_order]
        method = self.values["smoothing"]
        if method in ("bleu-s", "bleu-s-prime"):
            return thesis_bleu_rows(correct, total, hyp_len, ref_len, method)
        options = self._sacrebleu_options(sentence)
        return sacrebleu_bleu_rows(correct, total, hyp_len, ref_len, *options)

    def _sacrebleu_options(self, sentence: bool) -> tuple[str, float | None, bool]:
        """(method, value, effective_order) of :func:`sacrebleu_bleu` for these options."""
        effective = self.values["effective-order"]
        return (
            self.values["smoothing"],
            self.values["smooth-value"] or None,
            effective == "always" or (effective == "sentence" and sentence),
        )

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        row = stats.sum(axis=0)
        parts = self.parts(row, sentence=False)
        hyp_len, ref_len = float(row[0]), float(row[1])
        return Score(
            self.name,
            normalized_by_complexity(self, parts.score),
            self.signature(n_refs),
            {
                **complexity_details(self, parts.score),
                "score_unpenalized": parts.unpenalized,
                "brevity_penalty": parts.brevity_penalty,
                "precisions": parts.precisions,
                "correct": row[2 : 2 + self.max_order].tolist(),
                "total": row[2 + self.max_order :].tolist(),
                "hyp_len": hyp_len,
                "ref_len": ref_len,
                "ratio": hyp_len / ref_len if ref_len else 0.0,
            },
        )

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        # score × C^e: the power is a Python float, so each entry is multiplied as one row's.
        return np.asarray(
            normalized_by_complexity(self, self.rows_parts(stats, sentence=True).score),
            dtype=np.float64,
        )

    def explain(self, hyp: str, refs: Sequence[str], context: Any = None) -> Explanation:
        """The sentence score taken apart: per order the clipped m-gram counts against the
        pooled references and p_m (smoothing applied, percent), the brevity penalty and the
        unpenalized score (module :mod:`~metrics.core.explanation`). ``context`` is not
        needed (BLEU has no test-set-wide data); it is accepted as NIST's.

        Raises:
            MeasureError: without references.
        """
        if not refs:
            raise MeasureError(f"measure {self.name}: no reference to explain against")
        tokens, ref_tokens = self.tokens(hyp), self.tokens_many(refs)
        rule = self.values["pad-rule"]
        reference, ref_len = bleu_reference_choice(
            len(tokens), [len(ref) for ref in ref_tokens], self.values["ref-length-rule"]
        )
        orders = []
        for n in range(1, self.max_order + 1):
            pooled = pooled_counts([pad(ref, n, rule) for ref in ref_tokens], n)
            orders.append(order_counts(n, "word", ngram_list(pad(tokens, n, rule), n), pooled))
        row = np.array(
            [
                len(tokens),
                ref_len,
                *(order.values["matches"] for order in orders),
                *(order.values["total"] for order in orders),
            ],
            dtype=np.float64,
        )
        parts = self.parts(row, sentence=True)
        for order, precision in zip(orders, parts.precisions, strict=True):
            order.values["precision"] = precision
        return Explanation(
            self.name,
            list(tokens),
            [list(ref) for ref in ref_tokens],
            float(self.sentence_scores(row[None, :])[0]),
            reference,
            float(len(tokens)),
            float(ref_len),
            parts.brevity_penalty,
            orders,
            {"score_unpenalized": parts.unpenalized},
        )


def reference_lengths(
    hyp_lengths: Sequence[int], ref_lengths: Sequence[Sequence[int]], rule: str
) -> list[float]:
    """L*_k of every segment under a Table A.4 rule (0 for a segment without references)."""
    return [
        bleu_reference_length(int(hyp), lengths, rule) if lengths else 0.0
        for hyp, lengths in zip(hyp_lengths, ref_lengths, strict=True)
    ]
