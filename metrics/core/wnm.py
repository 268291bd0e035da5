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
* The statistics come as a file path (``corpus-stats``, the command line's way) or as the
  file's text (``corpus-stats-text``, what the web form stores from an upload: a web user
  must never name files of the server). Either way the file is read and checked when the
  measure is built, and the signature shows a hash of the text (``corpus:sha256-…``), so the
  same statistics give the same signature whichever way they came.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .base import (
    FILE_MAX_BYTES,
    MAX_NGRAM_ORDER,
    MeasureError,
    Option,
    Score,
    Statistics,
    TextMeasure,
)
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


CORPUS_STATS_MAX_BYTES = FILE_MAX_BYTES
"""Largest corpus-statistics file, read from a path or uploaded."""

MAX_CORPUS_COUNT = 10**15
"""Largest count in a statistics file: above any real corpus, and small enough that the
S-scores' float arithmetic cannot overflow."""

CORPUS_STATS = "corpus-stats"
CORPUS_STATS_TEXT = "corpus-stats-text"
CORPUS_HEADER = "<CorpStat>"


def _count(text: str, what: str) -> int:
    try:
        value = int(text) if len(text) <= 20 else -1
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_CORPUS_COUNT:
        raise ValueError(f"{what} {text[:20]!r} is not a whole number from 0 to {MAX_CORPUS_COUNT}")
    return value


def _stats_line(line: str) -> tuple[str, int, int]:
    parts = line.rsplit(";", 2)
    if len(parts) != 3:
        raise ValueError("expected word;frequency;texts")
    return parts[0], _count(parts[1], "frequency"), _count(parts[2], "texts")


def parse_corpus_stats(text: str, source: str = f"option {CORPUS_STATS_TEXT}") -> CorpusStats:
    """Corpus statistics from the text of the WNM script's file: a header
    ``<CorpStat>;tokens;texts``, then lines ``word;frequency;texts``.

    Raises:
        MeasureError: for malformed text; the message starts with ``source`` and names the line.
    """
    lines = text.removeprefix("\ufeff").splitlines()
    header = lines[0].split(";") if lines else []
    if len(header) != 3 or header[0] != CORPUS_HEADER:
        raise MeasureError(f"{source}: line 1: the first line must be <CorpStat>;tokens;texts")
    frequencies, texts_with = {}, {}
    try:
        tokens, texts = _count(header[1], "tokens"), _count(header[2], "texts")
    except ValueError as error:
        raise MeasureError(f"{source}: line 1: {error}") from None
    for number, line in enumerate(lines[1:], start=2):
        if line.strip():
            try:
                word, frequency, with_word = _stats_line(line)
            except ValueError as error:
                raise MeasureError(f"{source}: line {number}: {error}") from None
            frequencies[word], texts_with[word] = frequency, with_word
    return CorpusStats(frequencies, texts_with, tokens, texts)


def corpus_stats_file_text(path: str | Path) -> str:
    """The text of a corpus-statistics file, for the command line.

    Only a regular file of at most :data:`CORPUS_STATS_MAX_BYTES` is read: a device such as
    ``/dev/zero`` never ends and a FIFO may never answer, so the type is checked on the open
    file (no window for the path to change in between) and the read is capped.

    Raises:
        MeasureError: the file cannot be read, is no regular file, is too large or not UTF-8.
    """
    prefix = f"option {CORPUS_STATS}: {path}"
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before the check refuses it.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise MeasureError(f"{prefix}: cannot read ({error.strerror or error})") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise MeasureError(f"{prefix}: not a regular file")
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(CORPUS_STATS_MAX_BYTES + 1)
        except OSError as error:
            raise MeasureError(f"{prefix}: cannot read ({error.strerror or error})") from None
    if len(data) > CORPUS_STATS_MAX_BYTES:
        raise MeasureError(f"{prefix}: larger than {CORPUS_STATS_MAX_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MeasureError(f"{prefix}: not UTF-8 ({error.reason} at byte {error.start})") from None


def read_corpus_stats(path: str | Path) -> CorpusStats:
    """Read the WNM script's corpus-statistics file (``<CorpStat>;tokens;texts`` header).

    Raises:
        MeasureError: when the file is missing, no regular file, too large or malformed.
    """
    return parse_corpus_stats(corpus_stats_file_text(path), f"option {CORPUS_STATS}: {path}")


def corpus_stats_digest(text: str) -> str:
    """What signatures show of corpus statistics: ``sha256-`` and 16 hex digits of the text."""
    return "sha256-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@lru_cache(maxsize=2)
def _parsed_corpus_stats(text: str, source: str) -> CorpusStats:
    """Parsed once per process: a run builds the measure for the form, the run and each chunk
    task, and a large file takes a noticeable time to parse."""
    return parse_corpus_stats(text, source)


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
        "max-ngram": Option(
            default=4,
            kind=int,
            minimum=1,
            maximum=MAX_NGRAM_ORDER,
            short="n",
            help="Highest order.",
        ),
        CORPUS_STATS: Option(
            default="",
            short="corpus",
            file="path",
            help="Background corpus statistics file (command line only); empty: the test "
            "set's other segments.",
        ),
        CORPUS_STATS_TEXT: Option(
            default="",
            short="corpustext",
            file="content",
            help="The text of a corpus statistics file: the web form's upload; on the command "
            "line give corpus-stats instead.",
        ),
        "score": Option(
            default="RW",
            choices=SCORES,
            short="score",
            help="Reported value: RW (WNM recall), FW, PW, or unweighted R, F, P.",
        ),
        COMPLEXITY_FACTOR: complexity_factor_option("wnm"),
    }

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        path, text = self.values[CORPUS_STATS], self.values[CORPUS_STATS_TEXT]
        self.corpus_stats: CorpusStats | None = None
        self.corpus_digest = ""
        if path:
            text = corpus_stats_file_text(path)
            self.corpus_stats = _parsed_corpus_stats(text, f"option {CORPUS_STATS}: {path}")
        elif text:
            self.corpus_stats = _parsed_corpus_stats(text, f"option {CORPUS_STATS_TEXT}")
        if self.corpus_stats is not None:
            self.corpus_digest = corpus_stats_digest(text)

    def validate(self) -> None:
        check_complexity_factor(self)
        if self.values[CORPUS_STATS] and self.values[CORPUS_STATS_TEXT]:
            raise MeasureError(
                f"options {CORPUS_STATS} and {CORPUS_STATS_TEXT}: give the statistics one way"
            )

    def signature_value(self, key: str) -> str | None:
        """The statistics appear once, as ``corpus:`` and a hash of their text (never the text
        itself, nor a path: the same file under another name is the same measure)."""
        if key == CORPUS_STATS_TEXT:
            return None
        if key == CORPUS_STATS:
            return self.corpus_digest
        return super().signature_value(key)

    def command_line_values(self) -> dict[str, Any]:
        """Uploaded statistics are written as a ``corpus-stats`` file named by their hash: save
        the upload under that name to reproduce the run (the signature is the same)."""
        values = super().command_line_values()
        if values.get(CORPUS_STATS_TEXT):
            values[CORPUS_STATS] = f"corpus-stats-{self.corpus_digest}.txt"
            values[CORPUS_STATS_TEXT] = ""
        return values

    def context(self, references: Sequence[Sequence[str]]) -> WnmContext:
        """Pooled reference counts and salience weights of the whole test set."""
        top = self.values["max-ngram"]
        tokens = self.segment_tokens(references)
        flat = [reference for segment in tokens for reference in segment]
        space = NgramSpace(flat, top, 0)
        refs = ReferenceCounts(space, references, tokens, range(1, top + 1), "none")
        texts = [Counter(word for reference in segment for word in reference) for segment in tokens]
        if self.corpus_stats is not None:
            table = salience(sum(texts, Counter()), self.corpus_stats)
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

    def rows_values(self, stats: Statistics) -> dict[str, npt.NDArray[np.float64]]:
        """:meth:`values_of` of every row, one array per value, to the last bit."""
        count_mt, count_ref, i_count, weight_mt, weight_ref, i_weight = stats.T
        p, r = _ratios(i_count, count_mt), _ratios(i_count, count_ref)
        pw, rw = _ratios(i_weight, weight_mt), _ratios(i_weight, weight_ref)
        return {"P": p, "R": r, "F": _fs(p, r), "PW": pw, "RW": rw, "FW": _fs(pw, rw)}

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
        stats = np.asarray(stats, dtype=np.float64).reshape(len(stats), len(self.stat_names))
        # score × C: the factor is a Python float, so each entry is multiplied as one row's.
        raw = 100.0 * self.rows_values(stats)[self.values["score"]]
        return np.asarray(normalized_by_complexity(self, raw), dtype=np.float64)


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


Floats = npt.NDArray[np.float64]


def _ratios(numerator: Floats, denominator: Floats) -> Floats:
    """:func:`_ratio` per entry."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / denominator, 0.0)


def _fs(precision: Floats, recall: Floats) -> Floats:
    """:func:`_f` per entry."""
    with np.errstate(divide="ignore", invalid="ignore"):
        total = precision + recall
        return np.where(total != 0, 2 * precision * recall / total, 0.0)
