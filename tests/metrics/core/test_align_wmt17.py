"""Alignments and explanations against the measures' own statistics on real data (issue 18).

On every sentence of two WMT17 en-de systems (and of one WMT21 cs-en system with its two
references): the costs of an alignment add up to the distance the statistics score with, and
its reference length is theirs; TER's shifts plus path edits are sacreBLEU's edit count;
BLEU, NIST and chrF explanations count the statistics' m-grams and give the sentence score.
Skips where the shared data is absent.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from sacrebleu.metrics import TER as SacreTER

from metrics.core.registry import get_metric
from tests.metrics.core.wmt_data import wmt17, wmt21

pytestmark = pytest.mark.shared_data

SYSTEMS = ("newstest2017.online-F.0.en-de", "newstest2017.uedin-nmt.4722.en-de")
"""online-F has the most TER edits of the 16 systems, uedin-nmt was ranked first."""

EDIT_MEASURES = [
    ("wer", {}),
    ("wer", {"substitution-cost-rule": "prefix"}),
    ("per", {}),
    ("per", {"substitution-cost-rule": "prefix"}),
    ("msder", {}),
    ("cder", {}),
    ("cder", {"direction": "bidirectional", "coverage-rule": "half", "pad-rule": "none"}),
    ("cder", {"direction": "maximum", "coverage-rule": "miscoverage", "pad-rule": "left"}),
    ("ljwer", {}),
    ("invwer", {}),
    ("ter", {}),
    ("mper", {}),
    ("mper", {"min-ngram": 1, "max-ngram": 4}),
    ("skipper", {}),
]

NGRAM_MEASURES = [
    ("bleu", {}),
    ("bleu", {"smoothing": "bleu-s", "pad-rule": "both", "tokenize": "mteval-contractions"}),
    ("nist", {}),
    ("nist", {"pad-rule": "both"}),
    ("chrf", {}),
    ("chrf", {"word-order": 2}),
]


@cache
def _system(name: str) -> tuple[list[str], list[list[str]]]:
    reference, systems, _ = wmt17()
    if name not in systems:
        pytest.skip(f"WMT17 system {name} not in the shared data")
    return systems[name], [[line] for line in reference]


def _wmt21_two_references() -> tuple[list[str], list[list[str]]]:
    references, systems, _ = wmt21()
    return systems["Online-B"], [list(pair) for pair in zip(*references, strict=True)]


def _label(config: tuple[str, dict[str, Any]]) -> str:
    name, options = config
    return name + "".join(f"-{key}={value}" for key, value in options.items())


def _check_alignments(
    config: tuple[str, dict[str, Any]], hyps: list[str], refs: list[list[str]]
) -> None:
    name, options = config
    measure = get_metric(name)(**options)
    stats = measure.statistics(hyps, refs, measure.context(refs))
    wrong = []
    for k, (hyp, segment) in enumerate(zip(hyps, refs, strict=True)):
        alignment = measure.align_refs(hyp, segment)
        found = (alignment.cost(), alignment.distance, alignment.extras["reference_length"])
        if not np.allclose(found, [stats[k, 0], stats[k, 0], stats[k, 1]], rtol=0, atol=1e-9):
            wrong.append((k, found, stats[k, :2].tolist()))
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("config", EDIT_MEASURES, ids=_label)
def test_alignment_costs_are_the_statistics_on_every_wmt17_sentence(
    config: tuple[str, dict[str, Any]], system: str
) -> None:
    _check_alignments(config, *_system(system))


@pytest.mark.parametrize(
    "config",
    [c for c in EDIT_MEASURES if c[0] not in ("ljwer", "invwer")]
    + [("wer", {"ref-length-rule": "averageNearest"}), ("cder", {"ref-length-rule": "maximum"})],
    ids=_label,
)
def test_alignment_picks_the_statistics_reference_of_two_on_wmt21(
    config: tuple[str, dict[str, Any]],
) -> None:
    _check_alignments(config, *_wmt21_two_references())


@pytest.mark.parametrize("system", SYSTEMS)
def test_ter_edits_are_sacrebleus_on_every_wmt17_sentence(system: str) -> None:
    """Shifts plus path edits of every alignment equal sacreBLEU's per-sentence TER edits."""
    hyps, refs = _system(system)
    expected = SacreTER()._extract_corpus_statistics(hyps, [[segment[0] for segment in refs]])
    measure = get_metric("ter")()
    wrong = []
    for k, (hyp, segment) in enumerate(zip(hyps, refs, strict=True)):
        operations = measure.align_refs(hyp, segment).costed_operations()
        edits = sum(1 for op in operations if op.cost > 0)
        if edits != expected[k][0]:
            wrong.append((k, edits, expected[k][0]))
    assert not wrong, wrong[:5]


def _check_explanations(
    config: tuple[str, dict[str, Any]], hyps: list[str], refs: list[list[str]]
) -> None:
    name, options = config
    measure = get_metric(name)(**options)
    context = measure.context(refs)
    stats = measure.statistics(hyps, refs, context)
    scores = measure.sentence_scores(stats)
    wrong = []
    for k, (hyp, segment) in enumerate(zip(hyps, refs, strict=True)):
        explanation = measure.explain(hyp, segment, context)
        if name == "chrf":
            row = [
                value
                for order in explanation.orders
                for value in (
                    order.values["total"],
                    order.values["reference_total"],
                    order.values["matches"],
                )
            ]
        else:
            counted = "info" if name == "nist" else "matches"
            row = [explanation.hyp_length, explanation.reference_length]
            row += [order.values[counted] for order in explanation.orders]
            row += [order.values["total"] for order in explanation.orders]
        same_row = np.allclose(row, stats[k], rtol=1e-12, atol=1e-9)
        if not same_row or not np.isclose(explanation.score, scores[k], rtol=1e-12, atol=1e-12):
            wrong.append((k, explanation.score, scores[k]))
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("config", NGRAM_MEASURES, ids=_label)
def test_explanations_count_the_statistics_on_every_wmt17_sentence(
    config: tuple[str, dict[str, Any]], system: str
) -> None:
    _check_explanations(config, *_system(system))


@pytest.mark.parametrize("config", NGRAM_MEASURES, ids=_label)
def test_explanations_with_two_references_on_wmt21(config: tuple[str, dict[str, Any]]) -> None:
    _check_explanations(config, *_wmt21_two_references())
