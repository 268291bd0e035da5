"""The one m-gram counting kernel of BLEU, NIST, chrF, m-PER, skip-bigram PER and WNM.

Measures spec §3.4 (sentence boundaries), §6.5–6.6 (m-gram and skip-bigram count vectors),
§11 (BLEU's clipped counts), §12 (NIST's reference-corpus counts).

Every m-gram measure reduces to the same arithmetic on count vectors: per segment and order,
the candidate's count n_g of each m-gram g, the reference's count ñ_g, and Σ_g min(n_g, ñ_g).
PER on count vectors is max(I, L) − Σ min (unit costs), BLEU and chrF are ratios of Σ min
to totals, NIST weights each min by an information value. This module computes those counts
for a whole corpus at once with numpy instead of one Python ``Counter`` per sentence:

1. tokens become integer ids (:class:`Vocabulary`); ids 0 and 1 are the boundary sentinels;
2. every sequence is laid out in one flat array with ``pad`` sentinels on each side
   (:class:`Padded`);
3. m-grams get dense integer numbers, order by order: the number of an m-gram is the index of
   the pair (number of its (m−1)-gram prefix, last token id) in a sorted table built from the
   *reference* corpus (:class:`NgramSpace`). A candidate m-gram that is not in the table cannot
   match any reference, so it gets ``UNKNOWN`` and only counts towards totals;
4. the windows that count for an order and pad rule are selected (:func:`window_positions`),
   and (sequence, m-gram) pairs are counted with one sort (:func:`count_types`).

Boundary semantics (spec §3.4): order m is padded with m−1 sentinels per padded side, an empty
sentence has no m-grams at all, and unigrams are never padded. Lengths used elsewhere (brevity
penalties, reference lengths) are unpadded token counts.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np
import numpy.typing as npt

from .counting import grouped_counts, merged_minimum, run_counts, sorted_keys
from .preprocessing import BOS, EOS, PAD_RULES

IntArray = npt.NDArray[np.int64]

BOS_ID = 0
EOS_ID = 1
UNKNOWN = -1
"""Id of a token or m-gram that never occurs in the references."""


class Vocabulary:
    """Token -> integer id; the sentinels are 0 (BOS) and 1 (EOS).

    Built from the references of a test set. Candidate tokens absent from it get
    :data:`UNKNOWN`, since they cannot match anything.
    """

    def __init__(self, sequences: Iterable[Sequence[str]] = ()) -> None:
        self.index: dict[str, int] = {BOS: BOS_ID, EOS: EOS_ID}
        for sequence in sequences:
            self.add(sequence)

    def __len__(self) -> int:
        return len(self.index)

    def add(self, tokens: Iterable[str]) -> None:
        index = self.index
        for token in tokens:
            if token not in index:
                index[token] = len(index)

    def encode(self, sequences: Sequence[Sequence[str]]) -> tuple[IntArray, IntArray]:
        """Ids of all tokens of ``sequences`` concatenated, and the length of each sequence."""
        lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
        tokens = chain.from_iterable(sequences)
        ids = np.fromiter(
            map(self.index.get, tokens, repeat(UNKNOWN)), dtype=np.int64, count=int(lengths.sum())
        )
        return ids, lengths


@dataclass(frozen=True)
class Padded:
    """Sequences laid out in one array, each non-empty one with ``pad`` sentinels per side.

    Attributes:
        ids: token ids, sentinels included.
        owner: index of the sequence each position belongs to.
        first: position of each sequence's first real token.
        lengths: unpadded length of each sequence.
        pad: sentinels on each side of a non-empty sequence (empty ones take no space).
    """

    ids: IntArray
    owner: IntArray
    first: IntArray
    lengths: IntArray
    pad: int

    @property
    def size(self) -> int:
        return len(self.lengths)


def _ranges(starts: IntArray, counts: IntArray) -> IntArray:
    """Concatenation of ``range(start, start + count)`` for every pair, vectorized."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(total, dtype=np.int64)


def pad_sequences(ids: IntArray, lengths: IntArray, pad: int) -> Padded:
    """Lay out encoded sequences with ``pad`` BOS before and ``pad`` EOS after each non-empty one."""
    spans = np.where(lengths > 0, lengths + 2 * pad, 0)
    starts = np.cumsum(spans) - spans
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), spans)
    offset = np.arange(int(spans.sum()), dtype=np.int64) - starts[owner]
    padded = np.where(offset < pad, BOS_ID, EOS_ID).astype(np.int64)
    padded[(offset >= pad) & (offset < pad + lengths[owner])] = ids
    return Padded(padded, owner, starts + pad, lengths, pad)


def pad_sides(order: int, rule: str) -> tuple[int, int]:
    """Sentinels (left, right) that order ``order`` gets under pad rule ``rule`` (spec §3.4)."""
    if rule not in PAD_RULES:
        raise ValueError(f"unknown pad rule {rule!r} (known: {', '.join(PAD_RULES)})")
    left = order - 1 if rule in ("left", "both") else 0
    right = order - 1 if rule in ("right", "both") else 0
    return left, right


def window_positions(padded: Padded, order: int, rule: str) -> tuple[IntArray, IntArray]:
    """Start positions and owners of the m-grams of order ``order`` that count under ``rule``.

    A sequence of length n >= 1 has n−m+1 (``none``), n (``left``/``right``) or n+m−1
    (``both``) of them; an empty sequence has none.
    """
    left, right = pad_sides(order, rule)
    if max(left, right) > padded.pad:
        raise ValueError(f"order {order} needs {order - 1} sentinels, layout has {padded.pad}")
    n = padded.lengths
    counts = np.where(n > 0, np.maximum(n - order + 1 + left + right, 0), 0)
    positions = _ranges(padded.first - left, counts)
    owners = np.repeat(np.arange(padded.size, dtype=np.int64), counts)
    return positions, owners


def skip_pair_positions(
    padded: Padded, max_skip: int, rule: str
) -> tuple[IntArray, IntArray, IntArray]:
    """(first, second, owner) positions of the skip bigrams with at most ``max_skip`` skipped words.

    Spec §6.6: all ordered pairs (i, j), 0 <= j−i−1 <= S, of the sequence padded with one
    ``<s>`` and/or one ``</s>`` per ``rule``, the pair (<s>, </s>) included when within reach.
    """
    left, right = pad_sides(2, rule)
    n = padded.lengths
    begin = padded.first - left
    size = np.where(n > 0, n + left + right, 0)
    firsts, seconds, owners = [], [], []
    for skip in range(max_skip + 1):
        counts = np.maximum(size - 1 - skip, 0)
        first = _ranges(begin, counts)
        firsts.append(first)
        seconds.append(first + 1 + skip)
        owners.append(np.repeat(np.arange(padded.size, dtype=np.int64), counts))
    return np.concatenate(firsts), np.concatenate(seconds), np.concatenate(owners)


DENSE_LIMIT = 2**23
"""Largest raw m-gram key space numbered through a dense array (int32, so at most 32 MB)."""


def sorted_counts(values: IntArray) -> tuple[IntArray, IntArray]:
    """``np.unique(values, return_counts=True)`` by one sort (:func:`counting.sorted_keys`, a
    radix sort) and one pass.

    numpy 2.3+ answers a plain ``np.unique`` of integers through a hash table, which for the
    10^5-10^6 distinct m-gram keys of a test set is far slower than sorting; ``np.unique``
    with counts sorts, but with numpy's sort, which the radix sort beats on these keys.
    """
    return run_counts(sorted_keys(values))


SORTED_LOOKUP_MIN = 4096
"""Queries from which :func:`_lookup` sorts them first."""


def _lookup(table: IntArray, raw: IntArray) -> IntArray:
    """Index of each ``raw`` value in the sorted ``table``, or UNKNOWN."""
    if len(table) == 0:
        return np.full(len(raw), UNKNOWN, dtype=np.int64)
    if len(raw) >= SORTED_LOOKUP_MIN:
        # numpy's binary search starts each search where the last one ended when the queries
        # ascend, and then reads the table in order: sorting the queries first, searching and
        # putting the answers back was 2.5 times as fast as searching in text order (one
        # system's chrF 6-grams against its references' 158,000).
        order = np.argsort(raw)
        index = np.empty(len(raw), dtype=np.intp)
        index[order] = np.searchsorted(table, raw[order])
    else:
        index = np.searchsorted(table, raw)
    index[index == len(table)] = 0
    return np.where(table[index] == raw, index, UNKNOWN)


class NgramSpace:
    """Dense numbers for every m-gram (orders 1..max_order) of a reference corpus.

    Numbers are only meaningful within one space: candidates and references compared with
    each other must be numbered by the same space. A space is test-set-wide data (it goes into
    a measure's ``context``), so chunked runs number m-grams exactly as whole runs do.

    Args:
        references: token sequences of every reference of the test set.
        max_order: highest m-gram order to number.
        pad: sentinels per side in layouts (``max_order − 1`` for m-gram measures, 1 for skip
            bigrams).
        keep_references: keep the references' layout and m-gram numbers, found while
            numbering, for the :class:`ReferenceCounts` built next (:meth:`take_references`),
            which would otherwise number them all again.
    """

    def __init__(
        self,
        references: Sequence[Sequence[str]],
        max_order: int,
        pad: int,
        max_skip: int | None = None,
        keep_references: bool = False,
    ) -> None:
        self.vocabulary = Vocabulary(references)
        self.max_order = max_order
        self.pad = pad
        self.max_skip = max_skip
        self.base = len(self.vocabulary)
        self.tables: list[IntArray] = []
        self.prefixes: list[IntArray] = []
        # Per order from 2, the number of each raw key, where the key space is small enough.
        self.dense: list[npt.NDArray[np.int32] | None] = []
        self._kept: tuple[Sequence[Sequence[str]], Padded, list[IntArray]] | None = None
        if max_skip is None:
            padded = self.layout(references)
            keys = self._build_tables(padded)
            if keep_references:
                self._kept = (references, padded, keys)
        else:
            # A skip-bigram space: "order 2" numbers the skip bigrams (spec §6.6).
            self.max_order, self.pad = 2, 1
            raw = self._skip_raw(self.layout(references), "both")[0]
            table = sorted_counts(raw[raw >= 0])[0]
            self.tables, self.prefixes = [table], [table // self.base]

    def _build_tables(self, padded: Padded) -> list[IntArray]:
        """Number the m-grams of ``padded`` (the references), order by order; the numbers of
        the m-gram at each position per order, as :meth:`keys` gives them."""
        keys = padded.ids
        result = [keys]
        for order in range(2, self.max_order + 1):
            raw, inside = self._raw_keys(padded, keys, order)
            table = sorted_counts(raw[inside])[0]
            self.tables.append(table)
            # The prefix number of each m-gram: NIST needs the count of its (m−1)-gram.
            self.prefixes.append(table // self.base)
            # A binary search per m-gram of every candidate is the slowest part of numbering;
            # where the raw keys (prefix number × base + last id) fit, an array indexed by
            # raw key answers at once.
            dense = None
            if self.size(order - 1) * self.base <= DENSE_LIMIT:
                dense = np.full(self.size(order - 1) * self.base, UNKNOWN, dtype=np.int32)
                dense[table] = np.arange(len(table), dtype=np.int32)
            self.dense.append(dense)
            keys = self._number(order, raw, inside)
            result.append(keys)
        return result

    def take_references(
        self, sequences: Sequence[Sequence[str]]
    ) -> tuple[Padded, list[IntArray]] | None:
        """The layout and :meth:`keys` of the references numbered with ``keep_references``,
        once (then the space lets go of them), if ``sequences`` are those very sequences."""
        kept, self._kept = self._kept, None
        if kept is None:
            return None
        references, padded, keys = kept
        same = len(references) == len(sequences) and all(map(operator.is_, references, sequences))
        return (padded, keys) if same else None

    def _number(self, order: int, raw: IntArray, inside: npt.NDArray[np.bool_]) -> IntArray:
        """Numbers of the m-grams with the given raw keys; UNKNOWN outside or not in the table."""
        keys = np.full(len(raw), UNKNOWN, dtype=np.int64)
        known = raw[inside]
        dense = self.dense[order - 2]
        if dense is not None:
            keys[inside] = dense[known]
        else:
            # One binary search per m-gram: deduplicating first (np.unique's argsort) cost
            # more than it saved (BLEU on 48,064 lines: 2.2 s -> 1.7 s without it).
            keys[inside] = _lookup(self.tables[order - 2], known)
        return keys

    def _raw_keys(self, padded: Padded, keys: IntArray, order: int) -> tuple[IntArray, IntArray]:
        # keys holds the (order−1)-gram numbers; the m-gram at p is (keys[p], ids[p+m−1]).
        shift = order - 1
        last = padded.ids[shift:]
        prefix = keys[: len(last)]
        inside = (padded.owner[: len(last)] == padded.owner[shift:]) & (prefix >= 0) & (last >= 0)
        raw = np.where(inside, prefix * self.base + last, UNKNOWN)
        return raw, inside

    def _skip_raw(self, padded: Padded, rule: str) -> tuple[IntArray, IntArray]:
        assert self.max_skip is not None
        first, second, owners = skip_pair_positions(padded, self.max_skip, rule)
        left, right = padded.ids[first], padded.ids[second]
        raw = np.where((left >= 0) & (right >= 0), left * self.base + right, UNKNOWN)
        return raw, owners

    def skip_bigrams(self, padded: Padded, rule: str) -> tuple[IntArray, IntArray]:
        """Numbers and owners of the skip bigrams that count under ``rule``."""
        raw, owners = self._skip_raw(padded, rule)
        known = raw >= 0
        types = np.full(len(raw), UNKNOWN, dtype=np.int64)
        types[known] = _lookup(self.tables[0], raw[known])
        return types, owners

    def layout(self, sequences: Sequence[Sequence[str]]) -> Padded:
        """Encode and pad token sequences with this space's vocabulary."""
        ids, lengths = self.vocabulary.encode(sequences)
        return pad_sequences(ids, lengths, self.pad)

    def type_tokens(self, order: int, types: IntArray) -> list[IntArray]:
        """Token ids of m-grams given by number (last token first)."""
        tokens = []
        for current in range(order, 1, -1):
            raw = self.tables[current - 2][types]
            tokens.append(raw % self.base)
            types = raw // self.base
        tokens.append(types)
        return tokens

    def size(self, order: int) -> int:
        """How many distinct m-grams of ``order`` the references hold (numbers are below it)."""
        return self.base if order == 1 else len(self.tables[order - 2])

    def keys(self, padded: Padded) -> list[IntArray]:
        """Per order 1..max_order, the number of the m-gram starting at each position."""
        keys = padded.ids
        result = [keys]
        for order in range(2, self.max_order + 1):
            raw, inside = self._raw_keys(padded, keys, order)
            keys = self._number(order, raw, inside)
            result.append(keys)
        return result


def count_types(types: IntArray, owners: IntArray, n_types: int) -> tuple[IntArray, IntArray]:
    """Distinct (owner, type) pairs as ``owner * n_types + type``, sorted, with their counts.

    UNKNOWN types are left out (they match nothing).
    """
    known = types >= 0
    owners = owners[known]
    combined = owners * n_types + types[known]
    if owners.size < 2 or bool((owners[1:] >= owners[:-1]).all()):  # windows in segment order
        return grouped_counts(combined, owners)
    pairs, counts = sorted_counts(combined)
    return pairs, counts.astype(np.int64, copy=False)


def pooled_max(
    pairs: IntArray, counts: IntArray, segment_of: IntArray, n_types: int
) -> tuple[IntArray, IntArray]:
    """Re-key (reference, type) counts by segment, keeping the maximum over references.

    This is BLEU's and NIST's pooled reference count vector ñ_{g,k} = max_r ñ_{g,r,k}
    (spec §2.2, Eq. 3.1).
    """
    keyed = segment_of[pairs // n_types] * n_types + pairs % n_types
    order = np.lexsort((counts, keyed))
    keyed, counts = keyed[order], counts[order]
    last = np.ones(len(keyed), dtype=bool)
    last[:-1] = keyed[1:] != keyed[:-1]
    return keyed[last], counts[last]


def clipped(
    pairs: IntArray, counts: IntArray, other_pairs: IntArray, other_counts: IntArray
) -> IntArray:
    """min(count, other count) for each of ``pairs`` (0 where the other side lacks the pair).

    ``other_pairs`` is sorted (tables are built sorted). ``pairs`` nearly always is too
    (segments in test-set order); where a repeated reference maps a later segment to an
    earlier number it is sorted first, and the result put back in the given order.
    """
    if pairs.size < 2 or bool((pairs[1:] >= pairs[:-1]).all()):
        return merged_minimum(pairs, counts, other_pairs, other_counts)
    order = np.argsort(pairs, kind="stable")
    result = np.empty(len(pairs), dtype=np.int64)
    result[order] = merged_minimum(pairs[order], counts[order], other_pairs, other_counts)
    return result


def per_owner(pairs: IntArray, values: npt.ArrayLike, n_types: int, n_owners: int) -> np.ndarray:
    """Sum ``values`` of (owner, type) pairs per owner."""
    return np.bincount(pairs // n_types, weights=values, minlength=n_owners)


def totals(owners: IntArray, n_owners: int) -> IntArray:
    """Number of windows per owner."""
    return np.bincount(owners, minlength=n_owners).astype(np.int64)


def flatten_references(
    references: Sequence[Sequence[Sequence[str]]],
) -> tuple[list[Sequence[str]], IntArray]:
    """All reference token sequences in one list, and the segment each belongs to."""
    flat = [reference for segment in references for reference in segment]
    segment_of = np.repeat(
        np.arange(len(references), dtype=np.int64),
        np.fromiter(map(len, references), dtype=np.int64, count=len(references)),
    )
    return flat, segment_of


@dataclass(frozen=True)
class ClippedCounts:
    """Candidate m-grams of one order against references, per (segment, m-gram) pair.

    Attributes:
        pairs: distinct (segment, m-gram) pairs of the candidates, ``segment * n_types + type``.
        counts: n_{g,k}, the candidate count of each pair.
        clipped: min(n_{g,k}, ñ_{g,k}) of each pair (Eq. 3.2), ñ from the reference side.
        totals: number of candidate m-grams per segment (N_m of the segment).
        n_types: the numbering base of ``pairs``.
    """

    pairs: IntArray
    counts: IntArray
    clipped: IntArray
    totals: IntArray
    n_types: int

    def per_segment(self, weights: npt.ArrayLike | None = None) -> np.ndarray:
        """Σ clipped (optionally times a weight per pair) for every segment."""
        values = self.clipped if weights is None else self.clipped * weights
        return per_owner(self.pairs, values, self.n_types, len(self.totals))

    @property
    def types(self) -> IntArray:
        return self.pairs % self.n_types


class Candidates:
    """Candidate token sequences numbered in a space, with their m-gram counts per order."""

    def __init__(
        self,
        space: NgramSpace,
        sequences: Sequence[Sequence[str]],
        numbered: tuple[Padded, list[IntArray]] | None = None,
    ) -> None:
        """``numbered``: the layout and keys of ``sequences`` if already known
        (:meth:`NgramSpace.take_references`)."""
        self.space = space
        if numbered is not None:
            self.layout, self.keys = numbered
        else:
            self.layout = space.layout(sequences)
            self.keys = space.keys(self.layout) if space.max_skip is None else []
        self.lengths = self.layout.lengths

    def counts(self, order: int, rule: str) -> tuple[IntArray, IntArray, IntArray]:
        """(pairs, counts, totals) of order ``order``: see :func:`count_types`.

        In a skip-bigram space, order 2 means the skip bigrams.
        """
        if self.space.max_skip is not None:
            types, owners = self.space.skip_bigrams(self.layout, rule)
        else:
            positions, owners = window_positions(self.layout, order, rule)
            types = self.keys[order - 1][positions]
        pairs, counts = count_types(types, owners, self.space.size(order))
        return pairs, counts, totals(owners, self.layout.size)


class ReferenceCounts:
    """The references of a test set, counted once: pooled and per-reference m-gram counts.

    Segments are numbered in the order given ("global" numbers). :meth:`locate` maps the
    reference lists of a chunk of segments to those numbers, so the references of a test
    set are tokenized and counted once however many systems and chunks are scored.

    Args:
        space: the numbering of the test set's m-grams.
        texts: raw reference texts per segment (the lookup keys of :meth:`locate`).
        tokens: their token sequences.
        orders: m-gram orders to count.
        rule: pad rule.
    """

    def __init__(
        self,
        space: NgramSpace,
        texts: Sequence[Sequence[str]],
        tokens: Sequence[Sequence[Sequence[str]]],
        orders: Sequence[int],
        rule: str,
    ) -> None:
        self.space = space
        self.rule = rule
        self.index: dict[tuple[str, ...], int] = {}
        for number, segment in enumerate(texts):
            self.index.setdefault(tuple(segment), number)
        self.lengths = [[len(reference) for reference in segment] for segment in tokens]
        self.n_segments = len(tokens)
        self.n_streams = max((len(segment) for segment in tokens), default=0)
        flat, self.segment_of = flatten_references(tokens)
        self.stream_of = np.concatenate(
            [np.arange(len(segment), dtype=np.int64) for segment in tokens]
            or [np.zeros(0, dtype=np.int64)]
        )
        refs = Candidates(space, flat, space.take_references(flat))
        self.pooled: dict[int, tuple[IntArray, IntArray]] = {}
        self.streams: dict[int, list[tuple[IntArray, IntArray, IntArray]]] = {}
        for order in orders:
            self._count(refs, order)

    def _count(self, refs: Candidates, order: int) -> None:
        n_types = self.space.size(order)
        pairs, counts, per_reference = refs.counts(order, self.rule)
        if self.n_streams == 1 and len(self.segment_of) == self.n_segments:
            # One reference per segment: reference r is segment r, and the pairs are already
            # distinct and sorted, so pooling (a lexsort) would give them back unchanged.
            self.pooled[order] = (pairs, counts)
        else:
            self.pooled[order] = pooled_max(pairs, counts, self.segment_of, n_types)
        streams = []
        reference_of = pairs // n_types
        for stream in range(self.n_streams):
            keep = self.stream_of[reference_of] == stream
            mine = self.stream_of == stream
            size = np.zeros(self.n_segments, dtype=np.int64)
            size[self.segment_of[mine]] = per_reference[mine]
            stream_pairs = self.segment_of[reference_of[keep]] * n_types + pairs[keep] % n_types
            streams.append((stream_pairs, counts[keep], size))
        self.streams[order] = streams

    def locate(self, texts: Sequence[Sequence[str]]) -> IntArray | None:
        """Global numbers of the given segments' reference lists, or None if one is unknown."""
        numbers = [self.index.get(tuple(segment), -1) for segment in texts]
        if -1 in numbers:
            return None
        return np.array(numbers, dtype=np.int64)

    def has_stream(self, segments: IntArray) -> npt.NDArray[np.bool_]:
        """(segments × streams) mask: does segment k have an r-th reference? At least one
        column, all False without any reference, as the per-stream arrays it masks keep one."""
        counts = np.array([len(self.lengths[g]) for g in segments], dtype=np.int64)
        return np.arange(max(self.n_streams, 1))[None, :] < counts[:, None]

    def clip(
        self, candidates: Candidates, order: int, segments: IntArray, stream: int | None = None
    ) -> ClippedCounts:
        """Candidate counts of ``order`` clipped by the pooled references (stream None) or by
        the ``stream``-th reference of each segment.

        Args:
            candidates: the candidates of a chunk of segments.
            order: m.
            segments: global number of each chunk segment (from :meth:`locate`).
            stream: None for BLEU/NIST pooling, else the reference index r.
        """
        n_types = self.space.size(order)
        pairs, counts, hyp_totals = candidates.counts(order, self.rule)
        ref_pairs, ref_counts = (
            self.pooled[order] if stream is None else self.streams[order][stream][:2]
        )
        global_pairs = segments[pairs // n_types] * n_types + pairs % n_types
        return ClippedCounts(
            pairs,
            counts,
            clipped(global_pairs, counts, ref_pairs, ref_counts),
            hyp_totals,
            n_types,
        )

    def stream_totals(self, order: int, stream: int, segments: IntArray) -> IntArray:
        """Number of m-grams of the ``stream``-th reference of each segment (0 if absent)."""
        return self.streams[order][stream][2][segments]


def resolve_references(
    context: ReferenceCounts | None,
    references: Sequence[Sequence[str]],
    build: Callable[[Sequence[Sequence[str]]], ReferenceCounts],
) -> tuple[ReferenceCounts, IntArray]:
    """The reference counts for a chunk and the global number of each of its segments.

    The test-set context is used when it holds every reference list of the chunk; otherwise
    (no context, or references it has not seen) the chunk's own references are counted.
    """
    if context is not None:
        segments = context.locate(references)
        if segments is not None:
            return context, segments
    counts = build(references)
    if counts.n_segments == len(references):
        return counts, np.arange(len(references), dtype=np.int64)
    # A builder that counts each distinct reference list once (distinct_segments).
    located = counts.locate(references)
    assert located is not None, "references counted are the ones located"
    return counts, located


def distinct_segments(references: Sequence[Sequence[str]]) -> list[list[str]]:
    """Each distinct list of reference texts once, in the order of first occurrence.

    :meth:`ReferenceCounts.locate` numbers a repeated segment as its first occurrence, so
    counting the repeats is wasted work (the references of 16 systems concatenated into one
    file are the test set's 16 times: 15/16 of the time and memory of the counts).
    """
    return [list(segment) for segment in dict.fromkeys(map(tuple, references))]
