"""Plotly figures of the human-score panels, as plain dicts (no ORM, no plotly import).

Every name that comes from data (judges, systems, aspects, levels) is escaped for plotly's
pseudo-HTML before it enters a figure (``evaltrans.plotting``, which also gives the layout, axes
and palettes). Hover texts use ``hovertemplate`` with ``customdata``/``text`` of escaped strings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from evaltrans.plotting import (
    DIVERGING,
    INK,
    axis,
    escape_label,
    escape_template,
    figure,
    layout,
    level_colors,
)
from metrics.core.significance import SIGNIFICANCE_LEVEL

OUTLIER = "#d97706"
NORMAL = "#2563eb"
CROWD = 200
"""Judges beyond which the per-judge bars are drawn without gaps or outlines."""


# ---------------------------------------------------------------- judge bias


def judge_levels_figure(panel: Mapping[str, Any]) -> dict[str, Any]:
    """Thesis Figure 5.3: one 100 % stacked bar per judge over the levels of the raw scores."""
    judges = panel["judges"]
    names = [escape_label(row["judge"]) for row in judges]
    levels = panel["levels"]
    colors = level_colors(len(levels))
    line = 0.5 if len(judges) <= CROWD else 0.0
    data = []
    for k, (label, color) in enumerate(zip(levels, colors, strict=True)):
        counts = [row["counts"][k] for row in judges]
        shares = [
            100.0 * c / row["n"] if row["n"] else 0.0 for c, row in zip(counts, judges, strict=True)
        ]
        data.append(
            {
                "type": "bar",
                "name": escape_label(label),
                "x": names,
                "y": shares,
                # Thousands of bars (a WMT year's judges) are thinner than their outlines.
                "marker": {"color": color, "line": {"color": "#ffffff", "width": line}},
                "customdata": [[index, count] for index, count in enumerate(counts)],
                "hovertemplate": (
                    "Judge %{x}<br>Level " + escape_template(label) + ": %{customdata[1]} "
                    "judgments "
                    "(%{y:.1f} %)<extra></extra>"
                ),
            }
        )
    aspect = escape_label(panel["aspect"])
    return figure(
        data,
        layout(
            f"Distribution of {aspect} scores per judge (raw levels)",
            barmode="stack",
            bargap=0.15 if len(judges) <= CROWD else 0.0,
            xaxis=axis("Judge", type="category", tickangle=-45 if len(judges) > 12 else 0),
            yaxis=axis("Share of the judge's judgments (%)", range=[0, 100]),
            legend={"title": {"text": "Level"}, "traceorder": "reversed"},
        ),
    )


def judge_z_figure(panel: Mapping[str, Any]) -> dict[str, Any]:
    """Box plots of each judge's normalized scores; outlier judges in amber. Beyond
    ``JUDGE_BOX_POINTS_MAX`` judgments the panel keeps each judge's box summary only: one trace
    of boxes per colour, which a browser draws for thousands of judges where one trace per judge
    would hang it."""
    judges = panel["judges"]
    if judges and judges[0].get("z") is None:
        data = [
            _summary_boxes(judges, outlier)
            for outlier in (False, True)
            if any(row["outlier"] == outlier and row.get("box") for row in judges)
        ]
    else:
        data = [_point_box(index, row) for index, row in enumerate(judges)]
    aspect = escape_label(panel["aspect"])
    source = "the file's z" if panel["z_source"] == "given" else "per-judge (0,1) normalization"
    return figure(
        data,
        layout(
            f"Normalized {aspect} scores per judge ({source})",
            xaxis=axis(
                "Judge",
                type="category",
                tickangle=-45 if len(judges) > 12 else 0,
                # the table's order, outlier judges in place (they are a trace of their own)
                categoryorder="array",
                categoryarray=[escape_label(row["judge"]) for row in judges],
            ),
            yaxis=axis("z-score (judge mean 0, sd 1)", zeroline=True),
        ),
    )


def _point_box(index: int, row: Mapping[str, Any]) -> dict[str, Any]:
    name = escape_label(row["judge"])
    return {
        "type": "box",
        "name": name,
        "y": row["z"],
        "x": [name] * len(row["z"]),
        "marker": {"color": OUTLIER if row["outlier"] else NORMAL, "size": 3},
        "line": {"width": 1.2},
        "boxpoints": "outliers",
        "customdata": [index] * len(row["z"]),
        "hovertemplate": (
            "Judge " + escape_template(row["judge"]) + "<br>z = %{y:.2f}<extra></extra>"
        ),
        "showlegend": False,
    }


def _summary_boxes(judges: Sequence[Mapping[str, Any]], outlier: bool) -> dict[str, Any]:
    picked = [
        (k, row) for k, row in enumerate(judges) if row["outlier"] == outlier and row.get("box")
    ]
    rows = [row for _, row in picked]
    trace: dict[str, Any] = {
        "type": "box",
        "name": "outlier judges" if outlier else "judges",
        "x": [escape_label(row["judge"]) for row in rows],
        "customdata": [k for k, _ in picked],  # the judge's link, as each box's in point mode
        "marker": {"color": OUTLIER if outlier else NORMAL},
        "line": {"width": 1.2},
        "showlegend": outlier,
    }
    for statistic in ("q1", "median", "q3", "lowerfence", "upperfence"):
        trace[statistic] = [row["box"][statistic] for row in rows]
    return trace


# ---------------------------------------------------------------- agreement


def agreement_figure(
    judges: Sequence[str],
    r: Sequence[Sequence[float | None]],
    n_common: Sequence[Sequence[int]],
    *,
    aspect: str,
    normalized: bool,
    unit: str,
) -> dict[str, Any]:
    """Judge x judge Pearson's r heat map (blank where judges share too few items)."""
    names = [escape_label(judge) for judge in judges]
    text = [["" if value is None else f"{value:.2f}" for value in row] for row in r]
    what = "candidates" if unit == "candidate" else "systems (judge means)"
    scores = "normalized" if normalized else "raw"
    data = [
        {
            "type": "heatmap",
            "x": names,
            "y": names,
            "z": [[None if v is None else v for v in row] for row in r],
            "zmin": -1,
            "zmax": 1,
            "colorscale": DIVERGING,
            "colorbar": {"title": {"text": "r"}},
            "text": text,
            "texttemplate": "%{text}" if len(judges) <= 12 else "",
            "customdata": [list(row) for row in n_common],
            "hovertemplate": (
                "%{y} × %{x}<br>r = %{z:.3f} over %{customdata} common " + what + "<extra></extra>"
            ),
            "hoverongaps": False,
            "xgap": 1,
            "ygap": 1,
        }
    ]
    size = max(420, min(900, 90 + 28 * len(judges)))
    return figure(
        data,
        layout(
            f"Agreement between judges: Pearson's r of {scores} {escape_label(aspect)} scores on "
            f"common {what}",
            height=size,
            xaxis=axis("Judge", type="category", tickangle=-45 if len(judges) > 8 else 0),
            yaxis=axis("Judge", type="category", autorange="reversed"),
            margin={"l": 110, "r": 20, "t": 60, "b": 100},
        ),
    )


# ---------------------------------------------------------------- ranking


def ranking_figure(
    systems: Sequence[Mapping[str, Any]],
    *,
    aspect: str,
    normalized: bool,
    colors: Mapping[str, str],
) -> dict[str, Any]:
    """Systems by score, best on top, with their bootstrap confidence intervals.

    Args:
        systems: rows with ``system``, ``score``, ``low``, ``high``, ``n_segments``,
            ``n_judgments``, best first.
        aspect: the aspect's name (title).
        normalized: the scores are z (else raw).
        colors: system -> colour.
    """
    data = []
    for row in systems:
        name = escape_label(row["system"])
        score, low, high = row["score"], row["low"], row["high"]
        error = None
        if low is not None and high is not None:
            error = {
                "type": "data",
                "symmetric": False,
                "array": [high - score],
                "arrayminus": [score - low],
                "color": colors.get(row["system"], INK),
                "thickness": 2,
                "width": 6,
            }
        ci = f"[{low:.3f}, {high:.3f}]" if low is not None and high is not None else "none"
        trace: dict[str, Any] = {
            "type": "scatter",
            "mode": "markers",
            "name": name,
            "x": [score],
            "y": [name],
            "marker": {"color": colors.get(row["system"], INK), "size": 11},
            "customdata": [[ci, row["n_segments"], row["n_judgments"]]],
            "hovertemplate": (
                f"<b>{escape_template(row['system'])}</b><br>score %{{x:.3f}}<br>"
                "95 % CI %{customdata[0]}<br>%{customdata[1]} segments, %{customdata[2]} "
                "judgments<extra></extra>"
            ),
            "showlegend": False,
        }
        if error is not None:
            trace["error_x"] = error
        data.append(trace)
    kind = "normalized (z)" if normalized else "raw"
    height = max(360, 120 + 34 * len(systems))
    return figure(
        data,
        layout(
            f"Human system ranking: {kind} {escape_label(aspect)} score with 95 % bootstrap CI",
            height=height,
            xaxis=axis(
                "Mean normalized score (z)"
                if normalized
                else f"Mean raw {escape_label(aspect)} score"
            ),
            yaxis=axis(
                "System",
                type="category",
                autorange="reversed",
                categoryorder="array",
                categoryarray=[escape_label(row["system"]) for row in systems],
            ),
            margin={"l": 150, "r": 30, "t": 60, "b": 60},
        ),
    )


def significance_figure(
    order: Sequence[str],
    tests: Sequence[Any],
    *,
    aspect: str,
    normalized: bool,
) -> dict[str, Any]:
    """Row minus column score difference for every pair of systems, in ranking order; cells
    whose paired bootstrap test is significant (``PairTest.significant``) are marked with ★ and
    shown in full colour."""
    position = {name: k for k, name in enumerate(order)}
    size = len(order)
    z: list[list[float | None]] = [[None] * size for _ in range(size)]
    text = [[""] * size for _ in range(size)]
    p: list[list[float | None]] = [[None] * size for _ in range(size)]
    biggest = 0.0
    for test in tests:
        if test.a not in position or test.b not in position or math.isnan(test.difference):
            continue
        for row, column, sign in ((test.a, test.b, 1.0), (test.b, test.a, -1.0)):
            i, j = position[row], position[column]
            value = sign * test.difference
            z[i][j] = value if test.significant else value * 0.35
            text[i][j] = f"{value:+.2f}{'★' if test.significant else ''}"
            p[i][j] = test.p
            biggest = max(biggest, abs(value))
    names = [escape_label(name) for name in order]
    customdata = [
        [[text[i][j], "–" if p[i][j] is None else f"{p[i][j]:.3f}"] for j in range(size)]
        for i in range(size)
    ]
    data = [
        {
            "type": "heatmap",
            "x": names,
            "y": names,
            "z": z,
            "zmin": -biggest or -1,
            "zmax": biggest or 1,
            "colorscale": DIVERGING,
            "showscale": False,
            "text": text,
            "texttemplate": "%{text}" if size <= 16 else "",
            "textfont": {"size": 10},
            "customdata": customdata,
            "hovertemplate": (
                "%{y} − %{x}: %{customdata[0]}<br>paired bootstrap p = %{customdata[1]}"
                "<extra></extra>"
            ),
            "hoverongaps": False,
            "xgap": 1,
            "ygap": 1,
        }
    ]
    kind = "normalized" if normalized else "raw"
    height = max(420, 140 + 32 * size)
    return figure(
        data,
        layout(
            f"Pairwise differences ({kind} {escape_label(aspect)}), row − column; ★ significant "
            f"(p < {SIGNIFICANCE_LEVEL:g})",
            height=height,
            xaxis=axis("System", type="category", tickangle=-45, side="bottom"),
            yaxis=axis("System", type="category", autorange="reversed"),
            margin={"l": 150, "r": 20, "t": 60, "b": 130},
        ),
    )
