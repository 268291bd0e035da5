"""The faster forms of TER's beam bound and trace, the pooled reference counts of one
reference per segment and the 13a period runs, each against the plain form it replaced."""

from __future__ import annotations

import math
import random
from itertools import accumulate

import pytest
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from metrics.core import ngrams, preprocessing, ter


def _plain_threshold(n: int, m: int) -> float:
    """The scan ``exactness_threshold`` replaced: every row, every candidate column."""
    width = ter._beam_width(n, m)
    best = math.inf
    for i in range(1, n + 1):
        low, high = ter._beam_columns(i, n, m, width)
        cheapest = (min(i, m - n + i), max(i, m - n + i))
        for first, last in ((0, low - 1), (high, m)):
            if first > last:
                continue
            candidates = {first, last} | {min(max(j, first), last) for j in cheapest}
            best = min(best, *(abs(i - j) + abs((n - i) - (m - j)) for j in candidates))
    return best


def test_exactness_threshold_equals_the_scan() -> None:
    for n in range(70):
        for m in range(70):
            assert ter.exactness_threshold(n, m) == _plain_threshold(n, m), (n, m)
    for n, m in [(1, 400), (400, 1), (150, 300), (3, 260), (260, 3), (100, 100)]:
        assert ter.exactness_threshold(n, m) == _plain_threshold(n, m), (n, m)


def _plain_trace(hyp: list[int], ref: list[int]) -> tuple[int, str]:
    """Full Levenshtein table and tercom's backtrace (diagonal, hypothesis word, reference)."""
    n, m = len(hyp), len(ref)
    table = [[i + j if i == 0 or j == 0 else 0 for j in range(m + 1)] for i in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            table[i][j] = min(
                table[i - 1][j - 1] + (hyp[i - 1] != ref[j - 1]),
                table[i - 1][j] + 1,
                table[i][j - 1] + 1,
            )
    trace = []
    i, j = n, m
    while i > 0 and j > 0:
        if table[i - 1][j - 1] + (hyp[i - 1] != ref[j - 1]) == table[i][j]:
            trace.append(" " if hyp[i - 1] == ref[j - 1] else "s")
            i, j = i - 1, j - 1
        elif table[i - 1][j] + 1 == table[i][j]:
            trace.append("d")
            i -= 1
        else:
            trace.append("i")
            j -= 1
    trace.extend("d" * i + "i" * j)
    return table[n][m], "".join(reversed(trace))


def test_bit_parallel_trace_equals_the_table() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        vocabulary = rng.randint(1, 6)
        hyp = [rng.randint(0, vocabulary) for _ in range(rng.randint(0, 30))]
        ref = [rng.randint(0, vocabulary) for _ in range(rng.randint(0, 70))]
        masks: dict[int, int] = {}
        for position, word in enumerate(ref):
            masks[word] = masks.get(word, 0) | (1 << position)
        assert ter.bit_parallel_trace(hyp, ref, masks) == _plain_trace(hyp, ref), (hyp, ref)


def _plain_alignment(trace: str) -> tuple[list[int], list[int], list[int]]:
    """sacreBLEU's ``_flip_trace``/alignment: flags per word, summed afterwards."""
    hyp_position = -1
    aligned, hyp_errors, ref_errors = [], [], []
    for operation in trace:
        if operation in (" ", "s"):
            hyp_position += 1
            aligned.append(hyp_position)
            hyp_errors.append(int(operation == "s"))
            ref_errors.append(int(operation == "s"))
        elif operation == "d":
            hyp_position += 1
            hyp_errors.append(1)
        else:
            aligned.append(hyp_position)
            ref_errors.append(1)
    return aligned, list(accumulate(ref_errors, initial=0)), list(accumulate(hyp_errors, initial=0))


def test_trace_to_alignment_gives_prefix_sums_of_errors() -> None:
    rng = random.Random(3)
    for length in range(40):
        trace = "".join(rng.choice(" sdi") for _ in range(length))
        assert ter._trace_to_alignment(trace) == _plain_alignment(trace), trace


@pytest.mark.parametrize(
    "references",
    [
        [["a b c"], ["b c a b"], ["a"]],  # one reference each: the pairs as they are
        [["a b c", "a b"], [], ["b c a b"]],  # as many references as segments, not one each
        [[], ["a b", "b a b"], ["a"]],
    ],
)
def test_pooled_counts_equal_the_pooled_maximum(references: list[list[str]]) -> None:
    tokens = [[tuple(text.split()) for text in segment] for segment in references]
    flat = [reference for segment in tokens for reference in segment]
    space = ngrams.NgramSpace(flat, 3, 2)
    counts = ngrams.ReferenceCounts(space, references, tokens, [1, 2, 3], "both")
    refs = ngrams.Candidates(space, flat)
    for order in (1, 2, 3):
        pairs, per_pair, _ = refs.counts(order, "both")
        expected = ngrams.pooled_max(pairs, per_pair, counts.segment_of, space.size(order))
        assert [a.tolist() for a in counts.pooled[order]] == [a.tolist() for a in expected]


def test_apostrophe_test_knows_every_apostrophe() -> None:
    for mark in preprocessing.APOSTROPHES:
        assert preprocessing._has_apostrophe(f"we{mark}d")
    assert not preprocessing._has_apostrophe("we would`")


RUNS = [
    "a.., b",
    "1,.,2",
    "x .,.,. y",
    "end...",
    "3...4,,5",
    ",,a..",
    "a,..,b.",
    "9.,",
    "U.S.., e.g.,,",
]


def test_period_and_comma_runs_equal_sacrebleu() -> None:
    oracle = Tokenizer13a()
    assert preprocessing.tokenize_13a_many(RUNS) == [oracle(text).split() for text in RUNS]
