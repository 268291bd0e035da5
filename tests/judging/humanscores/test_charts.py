"""The panels' plotly figure dicts: escaping, colours, labels."""

from __future__ import annotations

import json

from evaltrans.plotting import escape_label
from judging.humanscores import charts
from metrics.core.resampling import PairTest

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
    tests = [PairTest(HOSTILE, "b", 0.5, 0.01, 10)]
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
    assert escape_label(HOSTILE) in figures[0]["data"][0]["x"]


def test_ranking_figure_draws_the_interval_around_the_score():
    rows = [{"system": "a", "score": 1.0, "low": 0.25, "high": 1.5, "n_segments": 3,
             "n_judgments": 6}]  # fmt: skip
    trace = charts.ranking_figure(rows, aspect="mqm", normalized=True, colors={"a": "#123456"})[
        "data"
    ][0]
    assert trace["error_x"]["array"] == [0.5] and trace["error_x"]["arrayminus"] == [0.75]
    assert trace["marker"]["color"] == "#123456"


def test_significance_figure_is_antisymmetric_and_marks_significant_cells():
    tests = [PairTest("a", "b", 0.5, 0.01, 10), PairTest("a", "c", 0.1, 0.4, 10)]
    figure = charts.significance_figure(["a", "b", "c"], tests, aspect="x", normalized=False)
    text = figure["data"][0]["text"]
    assert text[0][1] == "+0.50★" and text[1][0] == "-0.50★"
    assert text[0][2] == "+0.10" and text[1][1] == ""
