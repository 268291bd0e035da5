"""WER: the spec's DP matrix and cost vectors, and equality with jiwer on real data."""

from __future__ import annotations

import jiwer
import numpy as np
import pytest

from metrics.core.preprocessing import TOKENIZERS
from metrics.core.wer import WER, levenshtein_substitution_cost, prefix_substitution_cost
from tests.metrics.core.wmt_data import wmt17, wmt21


def test_dp_matrix_of_spec_section_7() -> None:
    alignment = WER(tokenize="none").align("we have been there", "we were there", grid=True)
    assert alignment.distance == 2
    expected_top_down = [[3, 2, 2, 2, 2], [2, 1, 1, 2, 3], [1, 0, 1, 2, 3], [0, 1, 2, 3, 4]]
    assert alignment.grid == expected_top_down[::-1]
    kinds = [op.kind for op in alignment.operations]
    assert kinds.count("match") == 2 and sum(op.cost for op in alignment.operations) == 2


def test_invwer_example_levenshtein_is_5() -> None:
    measure = WER(tokenize="none")
    pair = ("we will meet at noon in the lobby", "we will meet in the lobby at twelve o'clock")
    assert measure.align(*pair).distance == 5


@pytest.mark.parametrize(
    ("hyp", "ref", "levenshtein", "prefix"),
    [
        ("usual", "unusual", 2 / 7, 1 - 1 / 6),
        ("understanding", "misunderstanding", 3 / 16, 1.0),
        ("talk", "talks", 1 / 5, 1 - 4 / 4.5),
        ("zusagen", "sagen", 2 / 7, 1.0),
    ],
)
def test_table_4_2(hyp: str, ref: str, levenshtein: float, prefix: float) -> None:
    assert levenshtein_substitution_cost(hyp, ref) == pytest.approx(levenshtein)
    assert prefix_substitution_cost(hyp, ref) == pytest.approx(prefix)
    assert round(levenshtein_substitution_cost(hyp, ref), 2) == round(levenshtein, 2)


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [("ab", "ba", 1.0), ("abc", "cab", 0.5), ("talk", "listen", 1.0), ("fast", "quickly", 1.0)],
)
def test_levenshtein_cost_uses_the_shortest_optimal_path(
    hyp: str, ref: str, expected: float
) -> None:
    assert levenshtein_substitution_cost(hyp, ref) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("rule", "expected"), [("none", 2), ("prefix", 1 + 1 - 4 / 4.5), ("levenshtein", 1.2)]
)
def test_word_dependent_costs_sentence(rule: str, expected: float) -> None:
    measure = WER(tokenize="none", substitution_cost_rule=rule)
    assert measure.statistics(["he talks fast"], [["he talk quickly"]])[0, 0] == pytest.approx(
        expected
    )
    assert measure.align("he talks fast", "he talk quickly").distance == pytest.approx(expected)


def test_empty_reference_rate_is_undefined() -> None:
    measure = WER(tokenize="none")
    stats = measure.statistics(["a b"], [[""]])
    assert stats.tolist() == [[2.0, 0.0]]
    assert np.isnan(measure.sentence_scores(stats)[0])


def test_signature_names_every_option() -> None:
    signature = str(WER().signature(2))
    for part in (
        "nrefs:2",
        "tok:mteval-contractions",
        "lc:no",
        "reflen:lowestError",
        "subcost:none",
    ):
        assert part in signature


def _jiwer_edits(refs: list[str], hyps: list[str]) -> tuple[float, list[int]]:
    output = jiwer.process_words(refs, hyps)
    per_sentence = [
        sum(
            max(c.ref_end_idx - c.ref_start_idx, c.hyp_end_idx - c.hyp_start_idx)
            for c in chunks
            if c.type != "equal"
        )
        for chunks in output.alignments
    ]
    return output.wer, per_sentence


def _test_sets() -> list[tuple[list[str], dict[str, list[str]]]]:
    """Every system of WMT17 en-de (16) and WMT21 cs-en (8, reference A)."""
    reference, systems, _ = wmt17()
    references, cs_systems, _ = wmt21()
    return [(reference, systems), (references[0], cs_systems)]


@pytest.mark.shared_data
@pytest.mark.parametrize("tokenizer", sorted(set(TOKENIZERS) - {"mteval"}))
def test_wer_equals_jiwer_on_real_systems(tokenizer: str) -> None:
    """Same tokens (ours, joined by spaces) into jiwer; corpus and sentence edit counts."""
    measure = WER(tokenize=tokenizer, ref_length_rule="average")
    for reference, systems in _test_sets():
        ref_text = [" ".join(measure.tokens(line)) for line in reference]
        for name, hypothesis in systems.items():
            stats = measure.statistics(hypothesis, [[line] for line in reference])
            hyp_text = [" ".join(measure.tokens(line)) for line in hypothesis]
            kept = [k for k, line in enumerate(ref_text) if line]  # jiwer needs a reference word
            expected_wer, expected_edits = _jiwer_edits(
                [ref_text[k] for k in kept], [hyp_text[k] for k in kept]
            )
            ours = measure.aggregate(stats[kept])
            assert ours.score == pytest.approx(100 * expected_wer, rel=1e-12), name
            assert stats[kept, 0].tolist() == expected_edits, name
