"""The column-wise sentence scores of BLEU, NIST, chrF, m-PER and WNM (what a run stores for
every sentence) equal the measures' scalar per-row code (what the corpus score, the reports and
the explanations use) to the last bit; ``assert_array_equal`` also matches NaNs.

They run on real WMT17 statistics (two systems, 500 lines each), on edge sentences and on
small synthetic rows that reach every branch (orders without candidate m-grams, zero matches,
empty candidates or references).
"""

from __future__ import annotations

import gzip
import itertools

import numpy as np
import pytest

from metrics.core.bleu import BLEU, EFFECTIVE_ORDER, SACREBLEU_METHODS, THESIS_METHODS
from metrics.core.chrf import CHRF
from metrics.core.complexity import normalized_by_complexity
from metrics.core.mper import MPER, rate
from metrics.core.nist import NIST
from metrics.core.wnm import SCORES, WNM
from tests.conftest import shared_path

WMT17 = "wmt17-en-de-sacrebleu"
LINES = 500
SYSTEMS = ("newstest2017.online-B.0.en-de.gz", "newstest2017.PROMT-Rule-based.4735.en-de.gz")
EDGE_HYPS = ["", "Haus", "", "Das ist ein kleiner Test .", "a", "Das Haus", "x y"]
EDGE_REFS = ["Das Haus", "Haus", "", "Das ist ein kleiner Test .", "b", "", "x"]


# -- the scalar per-row code each column-wise form must equal ------------------------


def scalar_bleu(measure: BLEU, row: list[float]) -> float:
    return normalized_by_complexity(measure, measure.parts(np.array(row), sentence=True).score)


def scalar_nist(measure: NIST, row: list[float]) -> float:
    terms, penalty = measure.terms(np.array(row))
    return penalty * sum(terms)


def scalar_wnm(measure: WNM, row: list[float]) -> float:
    raw = 100.0 * measure.values_of(np.array(row))[measure.values["score"]]
    return normalized_by_complexity(measure, raw)


def per_row(formula, stats: np.ndarray) -> np.ndarray:
    return np.array([formula(row.tolist()) for row in stats], dtype=np.float64)


# -- the rows -------------------------------------------------------------------------


def _read(path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8-sig") as handle:
        return handle.read().split("\n")[:LINES]


def wmt17_pairs() -> tuple[list[str], list[list[str]]]:
    """Two systems' first lines with their references (skips without the shared data)."""
    reference = _read(shared_path(WMT17, "newstest2017-ende-ref.de.gz"))
    hyps: list[str] = []
    for name in SYSTEMS:
        hyps += _read(shared_path(WMT17, "system-outputs", name))
    return hyps, [[line] for line in reference] * len(SYSTEMS)


def edge_stats(measure) -> np.ndarray:
    """Edge sentences' statistics and an all-zero row."""
    stats = measure.statistics(EDGE_HYPS, [[ref] for ref in EDGE_REFS])
    return np.vstack([stats, np.zeros((1, stats.shape[1]))])


def real_stats(measure) -> np.ndarray:
    hyps, refs = wmt17_pairs()
    return measure.statistics(hyps, refs, measure.context(refs))


def synthetic_bleu_rows(order: int, rows: int = 3000) -> np.ndarray:
    """Small rows as BLEU's statistics make them, plus corrupted ones (orders without
    candidates before others with them, matches without unigram candidates)."""
    rng = np.random.default_rng(17)
    hyp = rng.integers(0, 7, rows).astype(float)
    ref = rng.integers(0, 9, rows).astype(float)
    total = np.maximum(hyp[:, None] - np.arange(order), 0)
    correct = np.floor(total * rng.random((rows, order)) * 1.3).clip(0, total)
    stats = np.column_stack([hyp, ref, correct, total])
    odd = rng.random(stats.shape) < 0.1
    stats[odd] = rng.integers(0, 4, odd.sum())
    return stats


# -- BLEU -----------------------------------------------------------------------------

BLEU_OPTIONS = [
    {"smoothing": method, "effective-order": effective, "max-ngram": order}
    for method in SACREBLEU_METHODS + ("none",)
    for effective in EFFECTIVE_ORDER
    for order in (1, 4)
]
BLEU_OPTIONS += [
    {"smoothing": method, "max-ngram": order} for method in THESIS_METHODS[1:] for order in (1, 4)
]
BLEU_OPTIONS += [
    {"smoothing": "floor", "smooth-value": 0.5},
    {"smoothing": "add-k", "smooth-value": 3.0, "effective-order": "never"},
    {"complexity-factor": 1.075},
    {"smoothing": "bleu-s-prime", "complexity-factor": 0.9},
]


def _bleu_check(options: dict, stats: np.ndarray) -> None:
    measure = BLEU(**options)
    expected = per_row(lambda row: scalar_bleu(measure, row), stats)
    np.testing.assert_array_equal(measure.sentence_scores(stats), expected)


@pytest.mark.parametrize("options", BLEU_OPTIONS, ids=str)
def test_bleu_sentence_scores_equal_the_row_loop_on_edges_and_synthetic_rows(options):
    order = options.get("max-ngram", 4)
    stats = np.vstack([edge_stats(BLEU(**options)), synthetic_bleu_rows(order)])
    _bleu_check(options, stats)


def test_bleu_sentence_scores_equal_the_row_loop_on_wmt17():
    stats = {order: real_stats(BLEU(**{"max-ngram": order})) for order in (1, 4)}
    for options in BLEU_OPTIONS:
        _bleu_check(options, stats[options.get("max-ngram", 4)])


# -- NIST -----------------------------------------------------------------------------

NIST_OPTIONS = [
    {},
    {"max-ngram": 1},
    {"formula": "clean", "pad-rule": "both", "initial-count": "K"},
    {"ref-length-rule": "minimumNearest", "max-ngram": 3},
]


def synthetic_nist_rows(order: int, rows: int = 2000) -> np.ndarray:
    rng = np.random.default_rng(5)
    stats = synthetic_bleu_rows(order, rows)
    stats[:, 2 : 2 + order] *= rng.random((rows, order)) * 7  # information sums
    stats[rng.random(rows) < 0.05, 1] = 0.0
    return stats


@pytest.mark.parametrize("options", NIST_OPTIONS, ids=str)
def test_nist_sentence_scores_equal_the_row_loop(options):
    measure = NIST(**options)
    stats = np.vstack([edge_stats(measure), synthetic_nist_rows(measure.max_order)])
    np.testing.assert_array_equal(
        measure.sentence_scores(stats), per_row(lambda row: scalar_nist(measure, row), stats)
    )


@pytest.mark.parametrize("options", NIST_OPTIONS, ids=str)
def test_nist_sentence_scores_equal_the_row_loop_on_wmt17(options):
    measure = NIST(**options)
    stats = real_stats(measure)
    np.testing.assert_array_equal(
        measure.sentence_scores(stats), per_row(lambda row: scalar_nist(measure, row), stats)
    )


# -- chrF -----------------------------------------------------------------------------

CHRF_OPTIONS = [
    {},
    {"word-order": 2},
    {"word-order": 2, "beta": 1.0, "eps-smoothing": True},
    {"char-order": 4, "word-order": 1, "beta": 3.0, "whitespace": True, "lowercase": True},
    {"beta": 0.0},
]


def synthetic_chrf_rows(columns: int, rows: int = 3000) -> np.ndarray:
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 6, (rows, columns // 3, 2)).astype(float)
    match = np.floor(np.minimum(counts[..., 0], counts[..., 1]) * rng.random(counts.shape[:2]))
    return np.concatenate([counts, match[..., None]], axis=2).reshape(rows, columns)


def _chrf_expected(measure: CHRF, stats: np.ndarray) -> np.ndarray:
    return per_row(measure.score_of, stats)


@pytest.mark.parametrize("options", CHRF_OPTIONS, ids=str)
def test_chrf_sentence_scores_equal_the_row_loop(options):
    measure = CHRF(**options)
    edges = edge_stats(measure)
    stats = np.vstack([edges, synthetic_chrf_rows(edges.shape[1])])
    np.testing.assert_array_equal(measure.sentence_scores(stats), _chrf_expected(measure, stats))


@pytest.mark.parametrize("options", CHRF_OPTIONS, ids=str)
def test_chrf_sentence_scores_equal_the_row_loop_on_wmt17(options):
    measure = CHRF(**options)
    stats = real_stats(measure)
    np.testing.assert_array_equal(measure.sentence_scores(stats), _chrf_expected(measure, stats))


# -- m-PER and WNM --------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"min-ngram": 1, "max-ngram": 3}], ids=str)
def test_mper_sentence_scores_equal_the_row_loop(options):
    measure = MPER(**options)
    rows = np.array([[0.0, 0.0], [3.0, 0.0], [2.0, 7.0], [7.0, 3.0]])
    rows = np.column_stack([rows, np.zeros((4, 2 * len(measure.orders)))])
    stats = np.vstack([edge_stats(measure), rows])
    np.testing.assert_array_equal(
        measure.sentence_scores(stats), per_row(lambda row: rate(row[0], row[1]), stats)
    )
    assert np.isnan(measure.sentence_scores(rows)[1])


def test_mper_sentence_scores_equal_the_row_loop_on_wmt17():
    measure = MPER()
    stats = real_stats(measure)
    np.testing.assert_array_equal(
        measure.sentence_scores(stats), per_row(lambda row: rate(row[0], row[1]), stats)
    )


WNM_OPTIONS = [
    {"score": score, "complexity-factor": factor}
    for score, factor in itertools.product(SCORES, (1.0, 0.9))
]


@pytest.mark.parametrize("options", WNM_OPTIONS, ids=str)
def test_wnm_sentence_scores_equal_the_row_loop(options):
    measure = WNM(**options)
    rng = np.random.default_rng(2)
    synthetic = rng.integers(0, 4, (500, 6)) * rng.random((500, 6))
    stats = np.vstack([edge_stats(measure), synthetic])
    np.testing.assert_array_equal(
        measure.sentence_scores(stats), per_row(lambda row: scalar_wnm(measure, row), stats)
    )


def test_wnm_sentence_scores_equal_the_row_loop_on_wmt17():
    stats = real_stats(WNM())
    for options in WNM_OPTIONS:
        measure = WNM(**options)
        np.testing.assert_array_equal(
            measure.sentence_scores(stats),
            per_row(lambda row, m=measure: scalar_wnm(m, row), stats),
        )
