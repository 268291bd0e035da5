"""``Measure.whole_score``, the command line's path: the same numbers to the last bit as
``statistics`` -> ``aggregate`` / ``sentence_scores`` for every measure, chunked or not; the
error rates' plain-Python path (no numpy, no numba); rapidfuzz's WER distances against the
compiled kernel; the n-gram measures' counting of each distinct reference list once."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics.core import METRICS, base, get_metric, ngrams
from metrics.core.alignment import edit_distances
from metrics.core.base import Measure
from metrics.core.wer import WER
from tests.metrics.core.wmt_data import wmt17

PROJECT = Path(__file__).resolve().parents[3]

HYPOTHESES = [
    "the cat sat on the mat .",
    "",
    "a dog barked at the postman",
    "we will meet at noon in the lobby",
    "exactly the same words",
    "nothing",
    "It's Mr. Smith's U.S. trip , isn't it ?",
]
ONE_REFERENCE = [
    ["the cat is on the mat ."],
    ["an empty candidate"],
    [""],
    ["we will meet in the lobby at twelve o'clock"],
    ["exactly the same words"],
    [""],
    ["It is Mr. Smith's trip to the U.S. , is it not ?"],
]
TWO_REFERENCES = [
    [*segment, other]
    for segment, other in zip(
        ONE_REFERENCE,
        ["a cat sat on a mat", "", "the dog barked", "we meet at noon", "same words", "", "x"],
        strict=True,
    )
]

# EDPM needs spaCy's model; HTER's references come from a post-editing campaign.
MEASURES = sorted(set(METRICS) - {"edpm", "hter"})


def _reference(
    measure: Measure, hypotheses: list[str], references: list[list[str]], n_refs: int
) -> tuple[float, list[float]]:
    stats = measure.statistics(hypotheses, references, measure.context(references))
    score = measure.aggregate(stats, n_refs=n_refs)
    return score.score, [float(x) for x in measure.sentence_scores(stats)]


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _check(measure: Measure, hypotheses: list[str], references: list[list[str]]) -> None:
    n_refs = max(len(segment) for segment in references)
    expected_score, expected_sentences = _reference(measure, hypotheses, references, n_refs)
    score, sentences = measure.whole_score(hypotheses, references, n_refs, sentences=True)
    assert _same(score.score, expected_score), (measure.name, score.score, expected_score)
    assert sentences is not None and len(sentences) == len(expected_sentences)
    assert all(map(_same, sentences, expected_sentences)), measure.name
    assert str(score.signature) == str(measure.signature(n_refs))
    without, none = measure.whole_score(hypotheses, references, n_refs)
    assert none is None and _same(without.score, score.score)


@pytest.mark.parametrize("name", MEASURES)
@pytest.mark.parametrize("references", [ONE_REFERENCE, TWO_REFERENCES], ids=["1ref", "2refs"])
def test_whole_score_equals_the_pipeline(name: str, references: list[list[str]]) -> None:
    _check(get_metric(name)(), HYPOTHESES, references)


@pytest.mark.parametrize("name", MEASURES)
def test_whole_score_in_chunks_equals_the_pipeline(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "WHOLE_SCORE_CHUNK", 3)
    hypotheses = HYPOTHESES * 2
    _check(get_metric(name)(), hypotheses, TWO_REFERENCES * 2)


@pytest.mark.parametrize(
    "options",
    [
        {"ref-length-rule": "average"},
        {"substitution-cost-rule": "prefix"},
        {"tokenize": "none", "lowercase": "true"},
        {"ref-length-rule": "minimumNearest"},
    ],
)
def test_wer_options_with_fractions_fall_back_to_numpy(options: dict[str, str]) -> None:
    """Fractional rows (the average of two reference lengths, word costs) are summed by
    numpy, as ``aggregate`` sums them."""
    _check(WER(**options), HYPOTHESES, TWO_REFERENCES)


def test_ter_whole_score_with_several_references() -> None:
    _check(get_metric("ter")(), HYPOTHESES, TWO_REFERENCES)
    _check(get_metric("ter")(normalized=True, case_sensitive=True), HYPOTHESES, ONE_REFERENCE)


def test_plain_rows_only_for_two_column_rows() -> None:
    assert get_metric("ljwer")().plain_rows(HYPOTHESES, ONE_REFERENCE) is None
    assert get_metric("cder")().plain_rows(HYPOTHESES, ONE_REFERENCE) is None
    assert WER(substitution_cost_rule="levenshtein").plain_rows(HYPOTHESES, ONE_REFERENCE) is None
    rows = WER().plain_rows(HYPOTHESES, ONE_REFERENCE)
    assert rows is not None
    assert np.array(rows).tolist() == WER().statistics(HYPOTHESES, ONE_REFERENCE).tolist()


@pytest.mark.parametrize("name", sorted(METRICS))
def test_empty_test_set(name: str) -> None:
    # chrF's statistics once refused an empty test set (a broadcasting error: the reference
    # mask had no column without references); every measure scores one, by whole_score as by
    # its statistics.
    measure = get_metric(name)()
    statistics = measure.statistics([], [], measure.context([]))
    assert len(statistics) == 0
    expected = measure.aggregate(statistics, n_refs=1)
    score, sentences = measure.whole_score([], [], 1, sentences=True)
    assert sentences == []
    assert _same(score.score, expected.score)


EDGE_PAIRS = [
    ((), ()),
    (("a", "b"), ()),
    ((), ("a", "b", "c")),
    (("a",), ("a",)),
    (("a", "b", "c"), ("c", "a", "b")),
    (tuple("abcdefghij"), tuple("jihgfedcba")),
]


def test_rapidfuzz_wer_equals_the_kernel_on_edge_cases() -> None:
    """Empty hypothesis, empty reference, both empty: the same integer edit counts."""
    pairs = [(list(hyp), list(ref)) for hyp, ref in EDGE_PAIRS]
    assert WER().plain_distances(EDGE_PAIRS) == edit_distances(pairs).tolist()
    assert WER().plain_distances(EDGE_PAIRS) == [0.0, 2.0, 3.0, 0.0, 2.0, 10.0]


@pytest.mark.shared_data
def test_rapidfuzz_wer_equals_the_kernel_on_real_systems() -> None:
    reference, systems, _ = wmt17()
    measure = WER()
    ref_tokens = measure.tokens_many(reference)
    for name in sorted(systems)[:4]:
        pairs = list(zip(measure.tokens_many(systems[name]), ref_tokens, strict=True))
        assert measure.plain_distances(pairs) == edit_distances(pairs).tolist(), name


# Scores a test set in a fresh interpreter and prints the heavy modules it loaded.
LOADED = """
import json, sys
from metrics.core.cli import main
main(sys.argv[1:])
print(json.dumps(sorted(m for m in ("numpy", "numba", "scipy", "regex") if m in sys.modules)))
"""


@pytest.mark.parametrize("name", ["wer", "ter"])
def test_one_off_error_rates_load_neither_numpy_nor_numba(name: str, tmp_path: Path) -> None:
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(HYPOTHESES) + "\n", encoding="utf-8")
    ref.write_text("\n".join(segment[0] for segment in ONE_REFERENCE) + "\n", encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    args = ["score", "--measure", name, "--ref", str(ref), "--hyp", str(hyp), "--sentences"]
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result, loaded = done.stdout.splitlines()
    assert json.loads(loaded) == []
    measure = get_metric(name)()
    expected = _reference(measure, HYPOTHESES, [[s[0]] for s in ONE_REFERENCE], 1)
    printed = json.loads(result)
    assert printed["score"] == expected[0]
    assert printed["sentences"] == [None if math.isnan(x) else x for x in expected[1]]


# -- counting each distinct reference list once ------------------------------------------


def test_distinct_segments_keep_the_first_occurrence_order() -> None:
    refs = [["b"], ["a"], ["b"], ["a", "c"], ["a"], ["a", "c"]]
    assert ngrams.distinct_segments(refs) == [["b"], ["a"], ["a", "c"]]
    assert ngrams.distinct_segments([]) == []


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("bleu", {}),
        ("bleu", {"lowercase": "true", "ref-length-rule": "average"}),
        ("chrf", {}),
        ("chrf", {"word-order": "2"}),
    ],
)
def test_repeated_references_give_the_rows_of_each_segment_alone(
    name: str, options: dict[str, str]
) -> None:
    """A test set whose references repeat (several systems in one file): the context counts
    each distinct reference list once, and every row equals the row of its segment scored
    alone, with a context or without."""
    measure = get_metric(name)(**options)
    hypotheses = HYPOTHESES + HYPOTHESES[::-1] + HYPOTHESES
    references = TWO_REFERENCES * 3
    context = measure.context(references)
    counts = context if name == "bleu" else context.characters
    assert counts.n_segments == len(TWO_REFERENCES)
    together = measure.statistics(hypotheses, references, context)
    without_context = measure.statistics(hypotheses, references, None)
    alone = np.concatenate(
        [measure.statistics([h], [r], None) for h, r in zip(hypotheses, references, strict=True)]
    )
    assert together.tolist() == alone.tolist()
    assert without_context.tolist() == alone.tolist()


def test_space_hands_over_the_reference_numbers_once() -> None:
    sequences = [("a", "b", "c", "a", "b"), (), ("b", "c")]
    space = ngrams.NgramSpace(sequences, 3, 2, keep_references=True)
    expected = space.keys(space.layout(sequences))
    assert space.take_references([tuple(list(s)) for s in sequences]) is None  # equal copies
    space = ngrams.NgramSpace(sequences, 3, 2, keep_references=True)
    taken = space.take_references(list(sequences))
    assert taken is not None
    layout, keys = taken
    assert layout.ids.tolist() == space.layout(sequences).ids.tolist()
    assert [k.tolist() for k in keys] == [k.tolist() for k in expected]
    assert space.take_references(list(sequences)) is None  # handed over once
    assert ngrams.NgramSpace(sequences, 3, 2).take_references(sequences) is None


@pytest.mark.parametrize("size", [10, ngrams.SORTED_LOOKUP_MIN, 50_000])
def test_lookup_in_sorted_order_equals_the_plain_search(size: int) -> None:
    rng = np.random.default_rng(size)
    table = np.unique(rng.integers(0, 10 * size, size))
    raw = rng.integers(-1, 11 * size, size)
    index = np.searchsorted(table, raw)
    index[index == len(table)] = 0
    expected = np.where(table[index] == raw, index, ngrams.UNKNOWN)
    assert ngrams._lookup(table, raw).tolist() == expected.tolist()
    assert ngrams._lookup(table[:0], raw).tolist() == [ngrams.UNKNOWN] * size
