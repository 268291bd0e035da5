"""Pure pieces of the panels: plotly figure dicts (escaping, colours, labels) and the panel
statistics (levels, outliers, fast bootstraps equal to the core functions, paired tests)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from judging.humanscores import analysis, charts
from judging.humanscores.selectors import Judgment
from metrics.core.agreement import cohen_kappa, krippendorff_alpha

HOSTILE = '<img src=x onerror="alert(1)">'


def test_names_are_escaped_in_every_figure():
    panel = {
        "aspect": "<i>mqm</i>",
        "levels": ["1", "2"],
        "z_source": "computed",
        "judges": [
            {"judge": HOSTILE, "n": 2, "counts": [1, 1], "z": [-1.0, 1.0], "outlier": True},
            {"judge": "ok", "n": 1, "counts": [0, 1], "z": [0.0], "outlier": False},
        ],
    }
    rows = [{"system": HOSTILE, "score": 1.0, "low": 0.5, "high": 1.5, "n_segments": 3,
             "n_judgments": 6}]  # fmt: skip
    tests = [analysis.PairTest(HOSTILE, "b", 0.5, 0.01, 10)]
    figures = [
        charts.judge_levels_figure(panel),
        charts.judge_z_figure(panel),
        charts.agreement_figure([HOSTILE, "ok"], [[1.0, None], [None, 1.0]], [[0, 0], [0, 0]],
                                aspect="<i>mqm</i>", normalized=True, unit="candidate"),
        charts.ranking_figure(rows, aspect="<i>mqm</i>", normalized=False, colors={}),
        charts.significance_figure([HOSTILE, "b"], tests, aspect="mqm", normalized=True),
    ]  # fmt: skip
    for figure in figures:
        text = json.dumps(figure)
        assert "<img" not in text and "<i>" not in text
        assert figure["layout"]["title"]["text"]
        assert figure["layout"]["xaxis"]["title"]["text"]
    assert charts.esc(HOSTILE) in figures[0]["data"][0]["x"]


def test_system_colours_do_not_depend_on_order():
    assert charts.system_colors(["b", "a", "c"]) == charts.system_colors(["c", "b", "a"])
    assert len(set(charts.system_colors([str(k) for k in range(20)]).values())) == 20


def test_level_colours_run_from_red_to_green():
    colours = charts.level_colors(5)
    assert colours[0] == charts.LEVEL_RAMP[0] and colours[-1] == charts.LEVEL_RAMP[-1]
    assert charts.level_colors(1) == [charts.LEVEL_RAMP[-1]]


def test_ranking_figure_draws_the_interval_around_the_score():
    rows = [{"system": "a", "score": 1.0, "low": 0.25, "high": 1.5, "n_segments": 3,
             "n_judgments": 6}]  # fmt: skip
    trace = charts.ranking_figure(rows, aspect="mqm", normalized=True, colors={"a": "#123456"})[
        "data"
    ][0]
    assert trace["error_x"]["array"] == [0.5] and trace["error_x"]["arrayminus"] == [0.75]
    assert trace["marker"]["color"] == "#123456"


def test_significance_figure_is_antisymmetric_and_marks_significant_cells():
    tests = [analysis.PairTest("a", "b", 0.5, 0.01, 10), analysis.PairTest("a", "c", 0.1, 0.4, 10)]
    figure = charts.significance_figure(["a", "b", "c"], tests, aspect="x", normalized=False)
    text = figure["data"][0]["text"]
    assert text[0][1] == "+0.50★" and text[1][0] == "-0.50★"
    assert text[0][2] == "+0.10" and text[1][1] == ""


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


def _records(judge_offsets: dict[str, float], items: int = 20) -> list[Judgment]:
    rng = np.random.default_rng(3)
    records = []
    for judge, offset in judge_offsets.items():
        for k in range(items):
            raw = float(np.clip(round(3 + offset + rng.normal()), 1, 5))
            records.append(Judgment("s", str(k), judge, "adequacy", raw, None, "SYSTEM"))
    return records


def test_an_outlier_judge_is_marked_and_a_constant_judge_flagged():
    records = _records({"a": 0.0, "b": 0.1, "c": -0.1, "d": 0.05, "e": 1.9})
    records += [Judgment("s", str(k), "f", "adequacy", 3.0, None, "SYSTEM") for k in range(12)]
    data = analysis.aspect_data(records, "adequacy")
    summaries = {
        s.judge: s for s in analysis.judge_summaries(data, analysis.scale_categories({}, data.raw))
    }
    assert summaries["e"].outlier and not summaries["a"].outlier
    assert analysis.FLAG_NOT_NORMALIZABLE in summaries["f"].flags
    assert analysis.FLAG_SAME_LEVEL in summaries["f"].flags


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


def test_fast_bootstraps_equal_the_core_functions():
    rng = np.random.default_rng(1)
    a = rng.integers(1, 6, 50).astype(float)
    b = np.clip(a + rng.integers(-1, 2, 50), 1, 5)
    picks = rng.integers(0, 50, (20, 50))
    categories = [1.0, 2.0, 3.0, 4.0, 5.0, 7.0]
    fast = analysis.kappa_resampled(a, b, picks, categories)
    slow = [
        cohen_kappa(a[p], b[p], weights="quadratic", categories=categories).kappa for p in picks
    ]
    assert fast == pytest.approx(slow, abs=1e-12)
    matrix = rng.integers(1, 6, (4, 30)).astype(float)
    matrix[rng.random((4, 30)) < 0.4] = np.nan
    matrix = matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]
    picks = rng.integers(0, matrix.shape[1], (20, matrix.shape[1]))
    for level in ("nominal", "ordinal", "interval", "ratio"):
        fast = analysis.alpha_resampled(matrix, picks, level=level)
        slow = [krippendorff_alpha(matrix[:, p], level=level).alpha for p in picks]
        assert fast == pytest.approx(slow, abs=1e-12, nan_ok=True)


def test_paired_bootstrap_finds_a_clear_difference_and_not_a_null_one():
    rng = np.random.default_rng(5)
    base = rng.normal(size=200)
    sentence = {
        "good": {str(k): base[k] + 0.5 for k in range(200)},
        "same": {str(k): base[k] + rng.normal(scale=0.01) for k in range(200)},
        "base": {str(k): base[k] for k in range(200)},
    }
    tests = {
        (t.a, t.b): t
        for t in analysis.paired_bootstrap(sentence, dict.fromkeys(map(str, range(200)), 1.0))
    }
    assert tests[("base", "good")].significant and tests[
        ("base", "good")
    ].difference == pytest.approx(-0.5)
    assert not tests[("base", "same")].significant
    again = analysis.paired_bootstrap(sentence, dict.fromkeys(map(str, range(200)), 1.0))
    assert [t.p for t in again] == [t.p for t in tests.values()]


def test_fisher_interval_matches_the_thesis_ranges():
    low, high = analysis.fisher_interval(0.285, 7902)
    assert (high - low) / 2 == pytest.approx(0.020, abs=5e-4)
    assert analysis.fisher_interval(0.5, 3) is None
    assert not math.isnan(analysis.fisher_interval(-0.2, 100)[0])
