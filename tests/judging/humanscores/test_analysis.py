"""The panel statistics: levels and bins, outliers and flags, agreement on biased judges."""

from __future__ import annotations

import numpy as np
import pytest

from judging import qc
from judging.formats import JudgmentRecord
from judging.humanscores import analysis


def test_mqm_and_da_scores_fall_into_their_bins():
    mqm = analysis.scale_categories({"kind": "mqm"}, np.array([0.0, -0.1, -1.0, -5.0, -12, -30]))
    assert [mqm.labels[i] for i in mqm.index] == [
        "0 (no error)", "−0.1 to −0.9", "−1 to −4.9", "−5 to −9.9", "−10 to −24.9", "−25 or less",
    ]  # fmt: skip
    da = analysis.scale_categories({"kind": "da"}, np.array([0.0, 9.0, 55.0, 100.0, np.nan]))
    assert da.index == [0, 0, 5, 9, -1] and da.labels[-1] == "90–100"
    levels = analysis.scale_categories({"kind": "levels", "values": [1, 2, 3]}, np.array([3.0]))
    assert levels.labels == ["1", "2", "3"] and levels.index == [2]
    many = analysis.scale_categories({}, np.linspace(0, 1, 50))
    assert len(many.labels) == 10 and many.index[-1] == 9


def _records(judge_offsets: dict[str, float], items: int = 20) -> list[JudgmentRecord]:
    rng = np.random.default_rng(3)
    records = []
    for judge, offset in judge_offsets.items():
        for k in range(items):
            raw = float(np.clip(round(3 + offset + rng.normal()), 1, 5))
            records.append(JudgmentRecord("s", str(k), judge, "adequacy", raw, None, "SYSTEM"))
    return records


def test_an_outlier_judge_is_marked_and_a_constant_judge_flagged():
    records = _records({"a": 0.0, "b": 0.1, "c": -0.1, "d": 0.05, "e": 1.9})
    records += [
        JudgmentRecord("s", str(k), "f", "adequacy", 3.0, None, "SYSTEM") for k in range(12)
    ]
    data = analysis.aspect_data(records, "adequacy")
    summaries = {
        s.judge: s for s in analysis.judge_summaries(data, analysis.scale_categories({}, data.raw))
    }
    assert summaries["e"].outlier and not summaries["a"].outlier
    assert qc.FLAG_NOT_NORMALIZABLE in summaries["f"].flags
    assert qc.FLAG_SAME_LEVEL in summaries["f"].flags


def test_normalization_raises_agreement_of_biased_judges():
    records = _records({"a": -1.0, "b": 1.0})
    data = analysis.aspect_data(records, "adequacy")
    result = analysis.agreement(data, scale={"kind": "levels", "values": [1, 2, 3, 4, 5]})
    assert result.shared_items == 20
    assert result.r_raw[0][1] == pytest.approx(result.r_normalized[0][1])
    assert (
        result.kappa.value is not None
        and result.kappa.low <= result.kappa.value <= result.kappa.high
    )
    assert result.alpha_interval.value is not None
