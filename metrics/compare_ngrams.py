"""Confirmed n-grams of two systems (MT-ComparEval's "confirmed n-grams"), Django-free.

A candidate's n-gram is **confirmed** when it also occurs in the segment's reference: the
candidate and the references are lowercased and split on whitespace, and the n-gram's clipped
count as BLEU takes it, min(count in the candidate, max over the references of its count
there), is at least 1. An n-gram one system gets right and the other does not is confirmed in
that system's candidate and not in the other's candidate of the same segment; it is counted
once per segment, over every segment that has a reference.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from metrics.core.explanation import ngram_list, pooled_counts

ORDERS = (1, 2, 3, 4)
TOP = 15


def tokens(text: str) -> list[str]:
    return text.lower().split()


def confirmed(candidate: str, references: Sequence[str], order: int) -> set[tuple[str, ...]]:
    """The distinct n-grams of ``order`` whose clipped count against the pooled references is
    at least 1 (module docstring)."""
    pooled = pooled_counts([tokens(ref) for ref in references], order)
    grams = Counter(ngram_list(tokens(candidate), order))
    return {gram for gram, count in grams.items() if min(count, pooled.get(gram, 0)) >= 1}


def confirmed_differences(
    segments: Sequence[tuple[str, str, Sequence[str]]],
    orders: Sequence[int] = ORDERS,
    top: int = TOP,
) -> dict[int, tuple[list[tuple[str, int]], list[tuple[str, int]]]]:
    """Per order, (confirmed in a but not b, confirmed in b but not a): the ``top`` n-grams as
    (space-joined n-gram, number of segments), most segments first, then alphabetically.

    Args:
        segments: (candidate of a, candidate of b, references) per segment; a segment without
            references is skipped.
    """
    result = {}
    for order in orders:
        only_a: Counter[tuple[str, ...]] = Counter()
        only_b: Counter[tuple[str, ...]] = Counter()
        for text_a, text_b, references in segments:
            if not references:
                continue
            good_a = confirmed(text_a, references, order)
            good_b = confirmed(text_b, references, order)
            only_a.update(good_a - good_b)
            only_b.update(good_b - good_a)
        result[order] = (_top(only_a, top), _top(only_b, top))
    return result


def _top(counts: Counter[tuple[str, ...]], top: int) -> list[tuple[str, int]]:
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(" ".join(gram), count) for gram, count in ranked[:top]]
