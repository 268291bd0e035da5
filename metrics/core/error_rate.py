"""The pipeline shared by every distance-based error rate (WER, PER, CDER, TER, ...).

Measures spec §2.3 and §4.1: per segment, the distance D_r to every reference r and the
reference-length rule give the numerator d_k and the length L*_k; the statistics row is
``[d_k, L*_k]`` and the corpus error rate is 100 · Σ d_k / Σ L*_k (never a mean of sentence
rates). A segment without references is excluded: its row is all zeros.

numpy is imported inside the methods that build or read statistics arrays, not with the
module: a one-off WER or TER score on the command line goes through :meth:`whole_score`, whose
plain-Python path never needs it (importing numpy is about a third of such a process).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .base import MeasureError, Option, Score, TextMeasure, check_lengths
from .preprocessing import TOKENIZERS
from .reflength import DISTANCE_RULES, distance_reference_choice

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .alignment import Alignment
    from .base import Statistics

Tokens = tuple[str, ...]
TokenPair = tuple[Tokens, Tokens]

DEFAULT_TOKENIZER = "mteval-contractions"
"""The thesis' default tokenization (Table 8.3: "mteval; treat abbreviations")."""

TEXT_OPTIONS: dict[str, Option] = {
    "tokenize": Option(
        default=DEFAULT_TOKENIZER,
        choices=tuple(TOKENIZERS),
        short="tok",
        help="Tokenizer applied to candidates and references (measures spec §3.1).",
    ),
    "lowercase": Option(
        default=False,
        kind=bool,
        short="lc",
        help="Fold case before comparing words (Table 8.3: use case at system level).",
    ),
}

REF_LENGTH_OPTION = Option(
    default="lowestError",
    choices=DISTANCE_RULES,
    short="reflen",
    help="Reference-length rule of Table A.3 (measures spec §4.1).",
)


class ErrorRateMeasure(TextMeasure):
    """A distance measure normalised by a reference length; lower is better, in percent.

    Subclasses implement :meth:`pair_distances` (one distance per (hyp, ref) token pair) and
    :meth:`align`; :meth:`align_refs` aligns against the reference the segment's statistics
    use.
    """

    stat_names: ClassVar[tuple[str, ...]] = ("distance", "ref_length")
    higher_is_better: ClassVar[bool] = False

    @abc.abstractmethod
    def pair_distances(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.float64]:
        """Distance of every (hyp tokens, ref tokens) pair, in input order."""

    def plain_distances(self, pairs: Sequence[TokenPair]) -> list[float] | None:
        """:meth:`pair_distances` as a list, computed without numpy, or None where this
        measure (with these options) needs numpy; then :meth:`whole_score` takes the
        statistics path."""
        return None

    def approximated(self, pairs: Sequence[TokenPair]) -> npt.NDArray[np.bool_]:
        """Which pairs got an approximate distance (measures with an exactness limit)."""
        import numpy as np

        return np.zeros(len(pairs), dtype=bool)

    def distances_and_approximated(
        self, pairs: Sequence[TokenPair]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """:meth:`pair_distances` and :meth:`approximated` at once (measures that find both
        in one pass override it)."""
        return self.pair_distances(pairs), self.approximated(pairs)

    @abc.abstractmethod
    def align(self, hyp: str, ref: str, grid: bool = False) -> Alignment:
        """The best alignment of one sentence pair (and the DP grid on request)."""

    def align_refs(
        self, hyp: str, refs: Sequence[str], grid: bool = False, **options: Any
    ) -> Alignment:
        """The alignment against the reference that gives the segment's numerator d_k.

        The reference is the one :meth:`choose_reference` picks from the distances to all
        references (the reference-length rule's nearest or r*); ``extras["reference"]`` is
        its 0-based index and ``extras["reference_length"]`` is L*_k, so that
        100 · ``distance / reference_length`` is the sentence rate (:meth:`rate`).
        ``options`` go to :meth:`align`.

        Raises:
            MeasureError: without references.
        """
        if not refs:
            raise MeasureError(f"measure {self.name}: no reference to align against")
        hyp_tokens = self.tokens(hyp)
        ref_tokens = self.tokens_many(refs)
        lengths = [len(ref) for ref in ref_tokens]
        distances = [0.0] * len(refs)
        if len(refs) > 1:
            distances = self.pair_distances([(hyp_tokens, ref) for ref in ref_tokens]).tolist()
        index, _, length = self.choose_reference(distances, lengths)
        alignment = self.align(hyp, refs[index], grid=grid, **options)
        alignment.extras["reference"] = index
        alignment.extras["reference_length"] = float(length)
        return alignment

    def statistics(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        context: Any = None,
    ) -> Statistics:
        import numpy as np

        check_lengths(hypotheses, references)
        ref_tokens, pairs = self._token_pairs(hypotheses, references)
        if len(self.stat_names) > 2:
            distances, flags = self.distances_and_approximated(pairs)
        else:
            distances, flags = self.pair_distances(pairs), None
        rows = np.zeros((len(hypotheses), len(self.stat_names)))
        for k, span, lengths in _reference_spans(ref_tokens):
            rows[k, :2] = self.segment_row(distances[span], lengths)
            if flags is not None:
                rows[k, 2] = float(flags[span].any())
        return rows

    def _token_pairs(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]
    ) -> tuple[list[list[Tokens]], list[TokenPair]]:
        """The references' tokens per segment, and every (hyp, ref) token pair in order."""
        ref_tokens = self.segment_tokens(references)
        pairs = [
            (hyp, ref)
            for hyp, refs in zip(self.tokens_many(hypotheses), ref_tokens, strict=True)
            for ref in refs
        ]
        return ref_tokens, pairs

    def plain_rows(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]
    ) -> list[tuple[float, float]] | None:
        """The rows of :meth:`statistics` as Python floats, computed without numpy; None
        where :meth:`plain_distances` gives none or the measure keeps more than
        ``[d_k, L*_k]`` per segment (approximation flags, HTER's post-edited flag)."""
        # An empty probe tells whether the measure has plain distances before anything is
        # tokenized (the statistics path would tokenize again).
        if len(self.stat_names) != 2 or self.plain_distances([]) is None:
            return None
        check_lengths(hypotheses, references)
        ref_tokens, pairs = self._token_pairs(hypotheses, references)
        distances = self.plain_distances(pairs)
        if distances is None:
            return None
        rows = [(0.0, 0.0)] * len(hypotheses)
        for k, span, lengths in _reference_spans(ref_tokens):
            distance, length = self.segment_row(distances[span], lengths)
            rows[k] = (float(distance), float(length))
        return rows

    def whole_score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[Sequence[str]],
        n_refs: int,
        sentences: bool = False,
    ) -> tuple[Score, list[float] | None]:
        """:meth:`Measure.whole_score`; without numpy where :meth:`plain_rows` gives rows.

        Sums of whole numbers below 2^53 are exact in any order, so a plain sum equals
        numpy's to the last bit; rows with fractions (the ``average`` rule over several
        references, word-dependent costs) are summed by numpy, as :meth:`aggregate` does.
        """
        rows = self.plain_rows(hypotheses, references)
        if rows is None:
            return super().whole_score(hypotheses, references, n_refs, sentences)
        if not all(d.is_integer() and length.is_integer() for d, length in rows):
            import numpy as np

            stats = np.array(rows, dtype=np.float64).reshape(len(rows), 2)
            return self._scores(stats, n_refs, sentences)
        distance = float(sum(d for d, _ in rows))
        ref_length = float(sum(length for _, length in rows))
        score = self._score(distance, ref_length, len(rows), n_refs)
        return score, [self.rate(d, length) for d, length in rows] if sentences else None

    def segment_row(
        self, distances: Sequence[float], ref_lengths: list[int]
    ) -> tuple[float, float]:
        """``(d_k, L*_k)`` of one segment from the distances to its references."""
        _, distance, length = self.choose_reference(distances, ref_lengths)
        return distance, length

    def choose_reference(
        self, distances: Sequence[float], ref_lengths: Sequence[int]
    ) -> tuple[int, float, float]:
        """``(r, d_k, L*_k)``: the reference whose distance is the numerator, d_k and L*_k
        (the ``ref-length-rule``, :func:`~metrics.core.reflength.distance_reference_choice`)."""
        if len(ref_lengths) == 1:
            return 0, distances[0], ref_lengths[0]  # every rule agrees for one reference
        return distance_reference_choice(
            list(distances), list(ref_lengths), self.values["ref-length-rule"]
        )

    def aggregate(self, stats: Statistics, n_refs: int = 1) -> Score:
        import numpy as np

        total = stats.sum(axis=0) if len(stats) else np.zeros(len(self.stat_names))
        score = self._score(float(total[0]), float(total[1]), len(stats), n_refs)
        if len(total) > 2:
            score.details["approximated_segments"] = int(total[2])
        return score

    def _score(self, distance: float, ref_length: float, segments: int, n_refs: int) -> Score:
        details: dict[str, Any] = {
            "distance": distance,
            "ref_length": ref_length,
            "segments": segments,
        }
        return Score(self.name, self.rate(distance, ref_length), self.signature(n_refs), details)

    def rate(self, distance: float, ref_length: float) -> float:
        """Error rate in percent; NaN when the reference length is 0 (undefined)."""
        return 100.0 * distance / ref_length if ref_length > 0 else math.nan

    def sentence_scores(self, stats: Statistics) -> npt.NDArray[np.float64]:
        import numpy as np

        return np.array([self.rate(row[0], row[1]) for row in stats], dtype=np.float64)


def _reference_spans(
    ref_tokens: Sequence[Sequence[Tokens]],
) -> Iterator[tuple[int, slice, list[int]]]:
    """(segment k, its pairs' span among all pairs, its reference lengths) of every segment
    with references, the pairs laid out as :meth:`ErrorRateMeasure._token_pairs` lists them."""
    position = 0
    for k, refs in enumerate(ref_tokens):
        if refs:
            yield k, slice(position, position + len(refs)), [len(ref) for ref in refs]
            position += len(refs)
