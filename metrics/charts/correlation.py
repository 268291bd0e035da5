"""Plotly figures of the correlation dashboards, as plain dicts (no ORM, no plotly import).

Every name from data (measure settings, systems, aspects) is escaped for plotly's pseudo-HTML
(``evaltrans.plotting``); hover texts are templates over ``customdata`` of escaped strings.
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
    system_colors,
)
from metrics.core.correlation import format_value

BEST_OUTLINE = "#111827"
TOP_CLUSTER = "#111827"
LINE_COLORS = {"y_on_x": "#2563eb", "x_on_y": "#9333ea", "orthogonal": "#059669"}
LINE_NAMES = {
    "y_on_x": "OLS human | measure",
    "x_on_y": "OLS measure | human",
    "orthogonal": "orthogonal (LOS)",
}
WEBGL_FROM = 10_000


def _number(value: float | None) -> str:
    return format_value(value, missing="–")


def matrix_figure(matrix: Mapping[str, Any]) -> dict[str, Any]:
    """Heat map of one coefficient: rows = measure settings, columns = human columns.

    Colour = value on a fixed −1…1 diverging scale (so two matrices compare by eye); the best
    value of each column is bold with ★; cells of each column's top significance cluster are
    outlined.
    """
    rows = [escape_label(label) for label in matrix["row_labels"]]
    columns = [escape_label(label) for label in matrix["column_labels"]]
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    hover: list[list[list[str]]] = []
    shapes = []
    for r, cells in enumerate(matrix["cells"]):
        z_row, text_row, hover_row = [], [], []
        for c, cell in enumerate(cells):
            if cell is None or cell["value"] is None:
                z_row.append(None)
                text_row.append("")
                hover_row.append(["undefined here", "", ""])
                continue
            value = cell["value"]
            z_row.append(value)
            label = _number(value)
            text_row.append(f"<b>{label}★</b>" if cell["best"] else label)
            ci = (
                f"95 % CI [{_number(cell['ci'][0])}, {_number(cell['ci'][1])}]"
                if cell["ci"]
                else ""
            )
            cluster = f"significance cluster {cell['cluster']}" if cell["cluster"] else ""
            hover_row.append([ci, f"n = {cell['n']}", cluster])
            if cell["cluster"] == 1:
                shapes.append(_cell_outline(c, r))
        z.append(z_row)
        text.append(text_row)
        hover.append(hover_row)
    height = max(320, 90 + 34 * len(rows))
    return figure(
        [
            {
                "type": "heatmap",
                "x": columns,
                "y": rows,
                "z": z,
                "zmin": -1,
                "zmax": 1,
                "colorscale": DIVERGING,
                "text": text,
                "texttemplate": "%{text}",
                "textfont": {"size": 11},
                "customdata": hover,
                "hovertemplate": (
                    "%{y}<br>%{x}<br><b>%{z:.3f}</b> %{customdata[0]}<br>%{customdata[1]}"
                    "<br>%{customdata[2]}<extra></extra>"
                ),
                "xgap": 2,
                "ygap": 2,
                "colorbar": {"title": {"text": escape_label(matrix["coefficient"])}, "len": 0.8},
            }
        ],
        layout(
            "",
            height=height,
            margin={"l": 220, "r": 20, "t": 20, "b": 170},
            xaxis=axis("", tickangle=-35, side="bottom", showgrid=False),
            yaxis=axis("", autorange="reversed", showgrid=False, automargin=True),
            shapes=shapes,
        ),
    )


def _whiskers(
    values: Sequence[float], intervals: Sequence[Sequence[float] | None], color: str
) -> dict[str, Any]:
    """Asymmetric error bars from each value to the ends of its interval (none: no bar)."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [ci[1] - v if ci else 0.0 for v, ci in zip(values, intervals, strict=True)],
        "arrayminus": [v - ci[0] if ci else 0.0 for v, ci in zip(values, intervals, strict=True)],
        "color": color,
        "thickness": 1.2,
    }


def _cell_outline(column: int, row: int) -> dict[str, Any]:
    return {
        "type": "rect",
        "xref": "x",
        "yref": "y",
        "x0": column - 0.5,
        "x1": column + 0.5,
        "y0": row - 0.5,
        "y1": row + 0.5,
        "line": {"color": TOP_CLUSTER, "width": 1.5},
    }


def _clipped(slope: float, intercept: float, box: Sequence[float]) -> list[tuple[float, float]]:
    """The ends of y = intercept + slope·x inside the box (x0, x1, y0, y1)."""
    x0, x1, y0, y1 = box
    points = []
    for x in (x0, x1):
        y = intercept + slope * x
        if y0 <= y <= y1:
            points.append((x, y))
    if slope != 0:
        for y in (y0, y1):
            x = (y - intercept) / slope
            if x0 < x < x1:
                points.append((x, y))
    points = sorted(set(points))
    return [points[0], points[-1]] if len(points) >= 2 else []


def _lines(lines: Mapping[str, Mapping[str, float]], box: Sequence[float]) -> list[dict[str, Any]]:
    traces = []
    for key, line in lines.items():
        slope, intercept = line["slope"], line["intercept"]
        if not (math.isfinite(slope) and math.isfinite(intercept)):
            continue
        ends = _clipped(slope, intercept, box)
        if not ends:
            continue
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": LINE_NAMES[key],
                "x": [ends[0][0], ends[1][0]],
                "y": [ends[0][1], ends[1][1]],
                "line": {
                    "color": LINE_COLORS[key],
                    "width": 2,
                    "dash": "solid" if key == "orthogonal" else "dash",
                },
                "hoverinfo": "skip",
            }
        )
    return traces


def _box(x: Sequence[float], y: Sequence[float]) -> list[float]:
    if not x:
        return [0.0, 1.0, 0.0, 1.0]
    return [min(x), max(x), min(y), max(y)]


def _stats_annotation(stats: Mapping[str, float | None]) -> dict[str, Any]:
    text = " · ".join(
        f"{escape_label(name)} = {int(value) if name == 'n' else _number(value)}"
        for name, value in stats.items()
        if value is not None or name != "n"
    )
    return {
        "xref": "paper",
        "yref": "paper",
        "x": 0.0,
        "y": 1.0,
        "yanchor": "bottom",
        "showarrow": False,
        "align": "left",
        "text": text,
        "font": {"size": 13, "color": INK},
    }


def system_scatter_figure(data: Mapping[str, Any]) -> dict[str, Any]:
    """Measure vs human, one labelled point per system, human 95 % CI as whiskers."""
    colors = system_colors(data["systems"])
    traces = []
    for point in data["points"]:
        ci = point.get("human_ci")
        trace: dict[str, Any] = {
            "type": "scatter",
            "mode": "markers+text",
            "name": escape_label(point["system"]),
            "x": [point["x"]],
            "y": [point["y"]],
            "text": [escape_label(point["system"])],
            "textposition": "top center",
            "marker": {"size": 11, "color": colors[point["system"]]},
            "hovertemplate": (
                escape_template(point["system"])
                + "<br>measure %{x:.4f}<br>human %{y:.4f}<extra></extra>"
            ),
            "showlegend": False,
        }
        if point.get("measure_ci"):
            trace["error_x"] = _whiskers(
                [point["x"]], [point["measure_ci"]], colors[point["system"]]
            )
        if ci:
            trace["error_y"] = _whiskers([point["y"]], [ci], colors[point["system"]])
        traces.append(trace)
    x = [point["x"] for point in data["points"]]
    y = [point["y"] for point in data["points"]]
    traces.extend(_lines(data["lines"], _box(x, y)))
    return figure(
        traces,
        layout(
            "",
            height=520,
            margin={"l": 70, "r": 20, "t": 50, "b": 60},
            xaxis=axis(escape_label(data["x_title"])),
            yaxis=axis(escape_label(data["y_title"])),
            annotations=[_stats_annotation(data["stats"])],
            legend={"orientation": "h", "y": -0.15},
        ),
    )


def segment_scatter_figure(data: Mapping[str, Any]) -> dict[str, Any]:
    """Measure vs human per (system, segment): one colour per system, translucent markers
    (WebGL from 10,000 points), human scores jittered when they take few distinct values;
    a click opens the segment (``customdata[0]`` is its URL)."""
    colors = system_colors(data["systems"])
    kind = "scattergl" if data["count"] >= WEBGL_FROM else "scatter"
    traces = []
    for system, points in data["by_system"].items():
        traces.append(
            {
                "type": kind,
                "mode": "markers",
                "name": escape_label(system),
                "x": points["x"],
                "y": points["y"],
                "customdata": [
                    [url, index]
                    for url, index in zip(points["url"], points["segment"], strict=True)
                ],
                "marker": {"size": 6, "color": colors[system], "opacity": data["opacity"]},
                "hovertemplate": (
                    escape_template(system)
                    + " · segment %{customdata[1]}<br>measure %{x:.4f}<br>human %{y:.3f}"
                    "<br><i>click to open the segment</i><extra></extra>"
                ),
            }
        )
    traces.extend(_lines(data["lines"], data["x_range"] + data["y_range"]))
    return figure(
        traces,
        layout(
            "",
            height=560,
            margin={"l": 70, "r": 20, "t": 50, "b": 60},
            xaxis=axis(escape_label(data["x_title"]), range=data["x_range"]),
            yaxis=axis(escape_label(data["y_title"]), range=data["y_range"]),
            annotations=[_stats_annotation(data["stats"])],
            legend={"orientation": "v", "x": 1.01, "y": 1, "itemsizing": "constant"},
            hovermode="closest",
        ),
    )


def ranking_slope_figure(data: Mapping[str, Any]) -> dict[str, Any]:
    """Human rank (left) and measure rank (right) of every system, joined by a line; lines of
    systems in a discordant pair are red, the rest grey. Human significance clusters label the
    left axis."""
    traces = []
    discordant = set(data["significant_systems"])
    for row in data["rows"]:
        bad = row["system"] in discordant
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers+text",
                "x": [0, 1],
                "y": [row["human_rank"], row["measure_rank"]],
                "text": [
                    escape_label(
                        f"{row['system']} ({row['human_cluster']})"
                        if row["human_cluster"]
                        else row["system"]
                    ),
                    escape_label(row["system"]),
                ],
                "textposition": ["middle left", "middle right"],
                "line": {"color": "#dc2626" if bad else "#9ca3af", "width": 2.5 if bad else 1.5},
                "marker": {"size": 8, "color": "#dc2626" if bad else "#6b7280"},
                "hovertemplate": (
                    escape_template(row["system"])
                    + f"<br>human rank {row['human_rank']}, measure rank {row['measure_rank']}"
                    "<extra></extra>"
                ),
                "showlegend": False,
                "cliponaxis": False,
            }
        )
    count = len(data["rows"])
    return figure(
        traces,
        layout(
            "",
            height=max(360, 60 + 30 * count),
            margin={"l": 190, "r": 190, "t": 40, "b": 30},
            xaxis={
                "tickvals": [0, 1],
                "ticktext": ["human", escape_label(data["measure_label"])],
                "range": [-0.05, 1.05],
                "side": "top",
                "showgrid": False,
                "zeroline": False,
            },
            yaxis={"autorange": "reversed", "visible": False},
        ),
    )


def sweep_figure(data: Mapping[str, Any], coefficient: str) -> dict[str, Any]:
    """Correlation per value of the swept option, with 95 % intervals; the default value is a
    filled diamond, the best value labelled; values not computed yet are left out."""
    rows = [row for row in data["values"] if row.correlation is not None]
    x = [escape_label(row.value) for row in rows]
    y = [row.correlation for row in rows]
    best = data["best"]
    trace = {
        "type": "scatter",
        "mode": "markers+lines",
        "x": x,
        "y": y,
        "line": {"color": "#93c5fd", "width": 1.5},
        "marker": {
            "size": [14 if row.is_default else 10 for row in rows],
            "symbol": ["diamond" if row.is_default else "circle" for row in rows],
            "color": ["#b45309" if row.correlation == best else "#2563eb" for row in rows],
        },
        "error_y": _whiskers(y, [row.ci for row in rows], "#64748b"),
        "customdata": [[escape_template(row.signature), row.n] for row in rows],
        "hovertemplate": "%{x}: <b>%{y:.4f}</b> (n = %{customdata[1]})<br>%{customdata[0]}"
        "<extra></extra>",
    }  # fmt: skip
    return figure(
        [trace],
        layout(
            "",
            height=420,
            margin={"l": 70, "r": 20, "t": 30, "b": 90},
            xaxis=axis(escape_label(f"{data['measure']} {data['option']}"), type="category"),
            yaxis=axis(escape_label(coefficient)),
            showlegend=False,
        ),
    )


def combination_curve_figure(data: Mapping[str, Any]) -> dict[str, Any]:
    """Thesis Fig. 8.1: r of w·X₁ + (1 − w)·X₂ over w ∈ [0, 1], the optimum marked."""
    curve = data["curve"]
    first, second = (escape_label(label) for label in data["labels"])
    weights = data["weights"]
    total = weights[0] + weights[1]
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": curve["w"],
            "y": curve["r"],
            "line": {"color": "#2563eb", "width": 2.5},
            "hovertemplate": "w = %{x:.2f}: r = %{y:.4f}<extra></extra>",
            "name": "r(w)",
        }
    ]
    if total > 0 and 0 <= weights[0] / total <= 1:
        w_star = weights[0] / total
        k = min(range(len(curve["w"])), key=lambda i: abs(curve["w"][i] - w_star))
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [w_star],
                "y": [curve["r"][k]],
                "text": [f"w* = {w_star:.2f}"],
                "textposition": "top center",
                "marker": {"size": 11, "color": "#b45309"},
                "hoverinfo": "skip",
                "name": "optimum",
            }
        )
    return figure(
        traces,
        layout(
            "",
            height=380,
            margin={"l": 70, "r": 20, "t": 30, "b": 60},
            xaxis=axis(f"w (weight of {first}; 1 − w of {second})", range=[0, 1]),
            yaxis=axis("Pearson r with the humans"),
            showlegend=False,
        ),
    )
