"""TER equals sacreBLEU 2.6.0's TER (and the frozen tercom 0.7.25 values) on real data.

What the real-data tests compare (sacreBLEU's TER costs seconds per system, so all of it
would take minutes):

* corpus TER of all 16 WMT17 en-de systems: the frozen tercom 0.7.25 and sacreBLEU values;
* sentence statistics (edits, reference length) of every WMT17 system against sacreBLEU on a
  strided subset: segment k of the j-th system when k ≡ j (mod 4), so every segment index is
  checked on four systems; online-F (the system with most edits) on all 3004 segments;
* WMT21 cs-en, all 8 systems, with reference A and with references A and B: every sentence
  and the corpus score against sacreBLEU, and the frozen tercom/sacreBLEU values for A.

Also the ``lowercase`` alias of ``case-sensitive``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from unittest import mock

import numpy as np
import pytest
from sacrebleu.metrics import TER as SacreTER
from sacrebleu.metrics import ter as sacre_ter_module
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from metrics.core.base import MeasureError
from metrics.core.ter import TER, tercom_tokenize, translation_edit_rate
from tests.metrics.core.wmt_data import wmt17, wmt21

WMT17_STRIDE = 4
WMT17_FULL_SYSTEM = "newstest2017.online-F.0.en-de"


@pytest.mark.parametrize(
    ("hyp", "ref", "expected"),
    [  # sacreBLEU test/test_ter.py
        ("a b c", "a b c", 0.0),
        ("a b c", "d e f", 100.0),
        ("", "a", 100.0),
        ("a", "", 100.0),
        ("", "", 0.0),
        ("d e f g h a b c", "a b c d e f g h", 100 / 8),
    ],
)
def test_sacrebleu_vectors(hyp: str, ref: str, expected: float) -> None:
    assert TER().corpus_score([hyp], [[ref]]).score == pytest.approx(expected)


def test_no_unicode_normalisation_as_sacrebleu() -> None:
    hyp, ref = "cafe\u0301 noir", "caf\u00e9 noir"
    expected = SacreTER().corpus_score([hyp], [[ref]]).score
    assert expected == 50.0
    assert TER().corpus_score([hyp], [[ref]]).score == expected


def test_shift_alignment() -> None:
    alignment = TER().align("d e f g h a b c", "a b c d e f g h")
    assert alignment.distance == 1
    (shift,) = alignment.extras["shifts"]
    assert shift.words == ["a", "b", "c"]
    assert alignment.extras["shifted_hyp"] == "a b c d e f g h".split()
    assert all(op.kind == "match" for op in alignment.operations)


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"normalized": True},
        {"no_punct": True},
        {"normalized": True, "asian_support": True, "case_sensitive": True},
    ],
)
@pytest.mark.shared_data
def test_tercom_tokenizer_equals_sacrebleu(flags: dict[str, bool]) -> None:
    references, systems, _ = wmt21()
    oracle = TercomTokenizer(**flags)
    lines = references[0] + systems["Online-A"] + ["日本語のテキスト。", "Jim's car."]
    assert [" ".join(tercom_tokenize(line.rstrip(), **flags)) for line in lines] == [
        oracle(line.rstrip()) for line in lines
    ]


@cache
def _ours_wmt17() -> dict[str, np.ndarray]:
    """Our segment statistics ``[edits, reference length]`` of every WMT17 system."""
    reference, systems, _ = wmt17()
    measure = TER()
    return {
        name: measure.statistics(hyps, [[line] for line in reference])
        for name, hyps in systems.items()
    }


def _as_floats(rows: Sequence[Sequence[float]]) -> list[list[float]]:
    return [[float(value) for value in row] for row in rows]


@pytest.mark.shared_data
def test_corpus_ter_equals_frozen_tercom_on_all_wmt17_systems() -> None:
    _, systems, expected = wmt17()
    measure = TER()
    ours = {name: measure.aggregate(stats).score for name, stats in _ours_wmt17().items()}
    assert len(ours) == len(systems) == 16
    for name in systems:
        assert f"{ours[name] / 100:.3f}" == expected[name]["tercom_0.7.25_ter"], name
        assert f"{ours[name] / 100:.3f}" == expected[name]["sacrebleu_2.6.0_ter"], name


def _wmt17_checked_segments(position: int, name: str, size: int) -> list[int]:
    if name == WMT17_FULL_SYSTEM:
        return list(range(size))
    return list(range(position % WMT17_STRIDE, size, WMT17_STRIDE))


@pytest.mark.shared_data
def test_sentence_statistics_equal_sacrebleu_on_every_wmt17_system() -> None:
    """Strided segments of every system, all segments of online-F (module docstring)."""
    reference, systems, _ = wmt17()
    oracle, measure = SacreTER(), TER()
    for position, (name, hyps) in enumerate(systems.items()):
        checked = _wmt17_checked_segments(position, name, len(hyps))
        expected = oracle._extract_corpus_statistics(
            [hyps[k] for k in checked], [[reference[k] for k in checked]]
        )
        ours = _ours_wmt17()[name][checked]
        assert ours.tolist() == _as_floats(expected), name
        corpus = oracle._compute_score_from_stats(
            [sum(column) for column in zip(*expected, strict=True)]
        )
        assert measure.aggregate(ours).score == pytest.approx(corpus.score, abs=1e-9), name


@cache
def _sacre_wmt21() -> dict[tuple[str, int], list[list[float]]]:
    """sacreBLEU's segment statistics of every WMT21 system, keyed by (system, number of
    references): reference A alone, and references A and B. sacreBLEU's edit computation is
    memoised per (hypothesis, reference) pair, so the two-reference run only adds reference B;
    everything else is sacreBLEU's own code."""
    references, systems, _ = wmt21()
    compute = sacre_ter_module.translation_edit_rate
    memo = cache(lambda hyp, ref: compute(list(hyp), list(ref)))

    def memoised(hyp: list[str], ref: list[str]) -> tuple[int, int]:
        return memo(tuple(hyp), tuple(ref))

    oracle = SacreTER()
    result = {}
    with mock.patch.object(sacre_ter_module, "translation_edit_rate", memoised):
        for name, hyps in systems.items():
            for n_refs in (1, 2):
                stats = oracle._extract_corpus_statistics(hyps, references[:n_refs])
                result[name, n_refs] = _as_floats(stats)
    return result


@pytest.mark.shared_data
@pytest.mark.parametrize("n_refs", [1, 2])
def test_wmt21_every_system_equals_sacrebleu_per_sentence(n_refs: int) -> None:
    references, systems, _ = wmt21()
    segments = [list(refs) for refs in zip(*references[:n_refs], strict=True)]
    oracle, measure = SacreTER(), TER()
    assert len(systems) == 8
    for name, hyps in systems.items():
        expected = _sacre_wmt21()[name, n_refs]
        stats = measure.statistics(hyps, segments)
        assert stats.tolist() == expected, name
        wanted = [oracle._compute_score_from_stats(row).score for row in expected]
        assert measure.sentence_scores(stats).tolist() == pytest.approx(wanted, abs=1e-9), name
        corpus = oracle._compute_score_from_stats(
            [sum(column) for column in zip(*expected, strict=True)]
        )
        assert measure.aggregate(stats, n_refs=n_refs).score == pytest.approx(
            corpus.score, abs=1e-9
        ), name


@pytest.mark.shared_data
def test_wmt21_one_reference_equals_frozen_values() -> None:
    """Equal to the frozen sacreBLEU values; equal to tercom wherever sacreBLEU is (on Online-A
    sacreBLEU's port and tercom differ by one edit, 11231 against 11230)."""
    references, systems, expected = wmt21()
    measure = TER()
    for name, hypothesis in systems.items():
        score = measure.corpus_score(hypothesis, [[line] for line in references[0]])
        row = expected[name]
        assert f"{score.score:.4f}" == f"{float(row['sacrebleu_ter_refA']):.4f}", name
        assert score.details["distance"] == int(row["sacrebleu_ter_edits_refA"]), name
        tercom_edits = int(row["tercom_edits_refA"])
        if tercom_edits == int(row["sacrebleu_ter_edits_refA"]):
            assert f"{score.score:.4f}" == f"{float(row['tercom_ter_refA']):.4f}", name
        else:
            assert abs(score.details["distance"] - tercom_edits) == 1, name


def test_ter_signature() -> None:
    assert str(TER().signature(1)) == "ter|nrefs:1|norm:no|nopunct:no|asian:no|cs:no|version:1.0"


def test_translation_edit_rate_examples() -> None:
    assert translation_edit_rate([], ["a"]) == (1, 1)
    assert translation_edit_rate(["a"], []) == (1, 0)


SACREBLEU_DEFAULT_SIGNATURE = "ter|nrefs:1|norm:no|nopunct:no|asian:no|cs:no|version:1.0"


def test_ter_lowercase_alias_keeps_the_default_signature() -> None:
    assert str(TER().signature(1)) == SACREBLEU_DEFAULT_SIGNATURE
    assert str(TER(lowercase="true").signature(1)) == SACREBLEU_DEFAULT_SIGNATURE
    # An alias, not an option of its own: stored option values and forms stay as they were.
    assert "lowercase" not in TER().values and "lowercase" not in TER.options


def test_ter_lowercase_false_is_case_sensitive() -> None:
    hyps, refs = ["The Cat sat"], [["the cat sat"]]
    by_alias, by_key = TER(lowercase=False), TER(case_sensitive=True)
    assert str(by_alias.signature(1)) == str(by_key.signature(1))
    assert "cs:yes" in str(by_alias.signature(1))
    assert by_alias.corpus_score(hyps, refs).score == pytest.approx(100 * 2 / 3)
    assert by_key.corpus_score(hyps, refs).score == pytest.approx(100 * 2 / 3)
    assert TER().corpus_score(hyps, refs).score == 0.0
    assert TER(lowercase=True).corpus_score(hyps, refs).score == 0.0


def test_ter_contradicting_case_options_are_rejected() -> None:
    with pytest.raises(MeasureError, match="contradict"):
        TER(lowercase=True, case_sensitive=True)
    with pytest.raises(MeasureError, match="contradict"):
        TER(lowercase=False, case_sensitive=False)
    assert TER(lowercase=False, case_sensitive=True).values["case-sensitive"] is True
    assert TER(lowercase="true", case_sensitive="false").values["case-sensitive"] is False
    with pytest.raises(MeasureError, match="true or false"):
        TER(lowercase="maybe")
