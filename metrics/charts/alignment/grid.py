"""The DP grid of WER, CDER, TER and LJWER, and :func:`alignment_figure`, the figure of any
alignment view (PER's and INVWER's come from ``per_matching`` and ``invwer_blocks``).

* the DP grid is a heat map of the cost Q(i, l) at each node: candidate positions i along x,
  reference positions l along y, the start (0, 0) lower left; node i stands after the candidate's
  i-th word, so the column labelled with word e_i is the node reached by consuming it, and
  ε labels the empty prefix (node 0);
* the path is drawn over it, each edge coloured by its operation: identity green, substitution
  orange, insertion and deletion red, long jumps as purple dashed arcs within their row, TER
  shifts blue; every other co-optimal edge thin grey where the measure lists them;
* CDER's coverage of each candidate word is a strip under the grid (0 red, 1 green, ≥ 2 amber).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaltrans.plotting import axis, figure, layout
from metrics.charts.alignment.drawing import (
    COLORS,
    EPSILON,
    KIND_NAMES,
    LEGEND,
    _fmt,
    _identity_dots,
    _label,
    _legend_entry,
    _plot_height,
    _tick_angle,
    _ticks,
    _word_hover,
)
from metrics.charts.alignment.invwer_blocks import block_figure
from metrics.charts.alignment.ljwer_blocks import _block_shape, _is_block
from metrics.charts.alignment.per_matching import matching_figure
from metrics.charts.alignment.ter_shifts import _moved_columns

DRAW_ORDER = ("match", "substitute", "insert", "delete", "jump")
COVERAGE_COLORS = ("#e53935", "#43a047", "#f9a825")
"""Coverage 0, 1 and ≥ 2 (the babbling view)."""
HEAT_SCALE = [[0.0, "#ffffff"], [0.5, "#dbe7f3"], [1.0, "#8fb3d9"]]
OPTIMAL_COLOR = "#9e9e9e"
CELL_TEXT_UP_TO = 16
"""Costs are printed inside the cells up to this many nodes per side."""


def alignment_figure(view: Mapping[str, Any]) -> dict[str, Any]:
    """The figure of one alignment view: the grid (WER, CDER, TER, LJWER), PER's matching or
    INVWER's blocks."""
    if view["measure"] == "per":
        return matching_figure(view)
    if view["measure"] == "invwer":
        return block_figure(view)
    return grid_figure(view)


def grid_figure(view: Mapping[str, Any]) -> dict[str, Any]:
    """DP costs as a heat map with the path on top (and CDER's coverage strip below)."""
    x_words, y_words = list(view["x_words"]), list(view["y_words"])
    width, height = len(x_words), len(y_words)
    grid = view.get("grid")
    coverage = view.get("coverage")
    moved = _moved_columns(view)
    traces: list[dict[str, Any]] = []
    if grid is not None:
        traces.append(_heatmap(grid, width, height))
    else:
        traces.append(_identity_dots(x_words, y_words, offset=0.5))
    if view.get("optimal"):
        traces.append(_optimal_trace(view["optimal"]))
    traces.extend(_path_traces(view["steps"]))
    x_labels = [EPSILON] + [
        _label(word, COLORS["shift"] if k in moved else None) for k, word in enumerate(x_words)
    ]
    y_labels = [EPSILON] + [_label(word) for word in y_words]
    x_positions = list(range(width + 1))
    y_positions = list(range(height + 1))
    shapes = [_block_shape(block) for block in view.get("blocks", []) if _is_block(block)]
    x_title = f"{view['x_side']} ({width} words)"
    y_title = f"{view['y_side']} ({height} words)"
    x_axis = axis(
        x_title,
        range=[-0.5, width + 0.5],
        showgrid=False,
        zeroline=False,
        tickangle=_tick_angle(width),
        ticks="",
        automargin=True,
        **_ticks(x_positions, x_labels),
    )
    y_axis = axis(
        y_title,
        range=[-0.5, height + 0.5],
        showgrid=False,
        zeroline=False,
        ticks="",
        automargin=True,
        **_ticks(y_positions, y_labels),
    )
    if grid is None:
        lattice = {"showgrid": True, "gridcolor": "#eceff1", "tickvals": x_positions}
        x_axis["minor"] = lattice
        y_axis["minor"] = {**lattice, "tickvals": y_positions}
    ratio = (height + 1) / (width + 1)
    if 0.25 <= ratio <= 4:
        y_axis.update(scaleanchor="x", scaleratio=1, constrain="domain")
        x_axis["constrain"] = "domain"
    tick_meta = [
        {"axis": "xaxis", "values": x_positions, "labels": x_labels},
        {"axis": "yaxis", "values": y_positions, "labels": y_labels},
    ]
    extra: dict[str, Any] = {}
    if coverage is not None:
        traces.append(_coverage_trace(coverage))
        y_axis["domain"] = [0.12, 1.0]
        x_axis.update(showticklabels=False, title={"text": ""})
        extra["xaxis2"] = axis(
            x_title,
            anchor="y2",
            matches="x",
            showgrid=False,
            zeroline=False,
            tickangle=_tick_angle(width),
            ticks="",
            automargin=True,
            **_ticks(x_positions, x_labels),
        )
        extra["yaxis2"] = axis(
            "",
            domain=[0.0, 0.07],
            anchor="x2",
            range=[-0.5, 0.5],
            showgrid=False,
            zeroline=False,
            tickmode="array",
            tickvals=[0],
            ticktext=["coverage"],
            fixedrange=True,
        )
        tick_meta[0]["axis"] = "xaxis2"
    plot_height = _plot_height(width, height, ratio)
    return figure(
        traces,
        layout(
            "",
            height=plot_height + (60 if coverage is not None else 0),
            margin={"l": 60, "r": 10, "t": 36, "b": 40},
            xaxis=x_axis,
            yaxis=y_axis,
            shapes=shapes,
            showlegend=True,
            legend=LEGEND,
            hovermode="closest",
            meta={"ticks": tick_meta},
            **extra,
        ),
    )


def _heatmap(grid: Sequence[Sequence[float | None]], width: int, height: int) -> dict[str, Any]:
    finite = [value for row in grid for value in row if value is not None]
    trace: dict[str, Any] = {
        "type": "heatmap",
        "z": [list(row) for row in grid],
        "x": list(range(width + 1)),
        "y": list(range(height + 1)),
        "colorscale": HEAT_SCALE,
        "zmin": 0,
        "zmax": max(finite) if finite else 1,
        "showscale": True,
        "colorbar": {
            "title": {"text": "cost Q", "side": "right"},
            "thickness": 10,
            "len": 0.5,
            "y": 0.75,
            "outlinewidth": 0,
        },
        "hovertemplate": "node (%{x}, %{y})<br>least cost to here: %{z}<extra></extra>",
        "hoverongaps": False,
        "name": "DP cost",
        "showlegend": False,
    }
    if max(width, height) + 1 <= CELL_TEXT_UP_TO:
        trace.update(
            texttemplate="%{z}",
            textfont={"size": 10, "color": "#607d8b"},
            xgap=1,
            ygap=1,
        )
    return trace


def _optimal_trace(edges: Sequence[Sequence[Sequence[int]]]) -> dict[str, Any]:
    xs: list[float | None] = []
    ys: list[float | None] = []
    for source, target in edges:
        if abs(target[0] - source[0]) > 1 or abs(target[1] - source[1]) > 1:
            continue  # long jumps of other optimal paths would cover the grid
        xs += [source[0], target[0], None]
        ys += [source[1], target[1], None]
    return {
        "type": "scatter",
        "mode": "lines",
        "x": xs,
        "y": ys,
        "line": {"color": OPTIMAL_COLOR, "width": 1},
        "name": "other optimal paths",
        "hoverinfo": "skip",
    }


def _arc(source: Sequence[int], target: Sequence[int], points: int = 24) -> list[list[float]]:
    """A long jump within its row as an arc above the row (below it in row 0 of a tall grid)."""
    (x0, y0), (x1, y1) = source, target
    bulge = min(0.9, 0.25 + 0.06 * abs(x1 - x0))
    xs, ys = [], []
    for k in range(points + 1):
        t = k / points
        xs.append(x0 + (x1 - x0) * t)
        ys.append(y0 + (y1 - y0) * t + bulge * 4 * t * (1 - t))
    return [xs, ys]


def _path_traces(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One line trace per operation kind (jumps dashed arcs), a legend entry each, and one
    marker trace whose invisible points carry the hover texts."""
    lines: dict[str, tuple[list[float | None], list[float | None]]] = {}
    hover_x: list[float] = []
    hover_y: list[float] = []
    hover_text: list[str] = []
    hover_color: list[str] = []
    for step in steps:
        source, target = step.get("source"), step.get("target")
        if source is None or target is None:
            continue
        kind = step["kind"] if step["kind"] in COLORS else "substitute"
        xs, ys = lines.setdefault(kind, ([], []))
        if kind == "jump":
            arc_x, arc_y = _arc(source, target)
            xs.extend([*arc_x, None])
            ys.extend([*arc_y, None])
            mid_x, mid_y = arc_x[len(arc_x) // 2], arc_y[len(arc_y) // 2]
            text = (
                f"<b>long jump</b> · cost {_fmt(step['cost'])}<br>"
                f"from node ({source[0]}, {source[1]}) to ({target[0]}, {target[1]})"
            )
        else:
            xs.extend([source[0], target[0], None])
            ys.extend([source[1], target[1], None])
            mid_x, mid_y = (source[0] + target[0]) / 2, (source[1] + target[1]) / 2
            text = _word_hover(kind, step["cost"], step.get("hyp_word"), step.get("ref_word"))
        hover_x.append(mid_x)
        hover_y.append(mid_y)
        hover_text.append(text)
        hover_color.append(COLORS[kind])
    traces = []
    for kind in DRAW_ORDER:
        if kind not in lines:
            continue
        xs, ys = lines[kind]
        dash = "dash" if kind == "jump" else "solid"
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": xs,
                "y": ys,
                "line": {"color": COLORS[kind], "width": 3.5, "dash": dash},
                "hoverinfo": "skip",
                "showlegend": False,
                "legendgroup": kind,
                "name": KIND_NAMES[kind],
            }
        )
    legend = [_legend_entry(kind, "dash" if kind == "jump" else "solid") for kind in DRAW_ORDER]
    present = [entry for entry in legend if entry["legendgroup"] in lines]
    if present and {"insert", "delete"} <= set(lines):
        present = [entry for entry in present if entry["legendgroup"] != "delete"]
        for entry in present:
            if entry["legendgroup"] == "insert":
                entry["name"] = "insertion / deletion"
    elif present:
        for entry in present:
            if entry["legendgroup"] in ("insert", "delete"):
                entry["name"] = "insertion / deletion"
    traces.extend(present)
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": hover_x,
            "y": hover_y,
            "hovertext": hover_text,
            "hoverinfo": "text",
            "marker": {"size": 12, "color": hover_color, "opacity": 0},
            "showlegend": False,
            "name": "path",
        }
    )
    return traces


def _coverage_trace(coverage: Sequence[int]) -> dict[str, Any]:
    """One cell per column word: how often the path consumes it (0 red, 1 green, ≥ 2 amber)."""
    level = [min(int(count), 2) for count in coverage]
    return {
        "type": "heatmap",
        "xaxis": "x2",
        "yaxis": "y2",
        "x": list(range(1, len(coverage) + 1)),
        "y": [0],
        "z": [level],
        "text": [[str(count) for count in coverage]],
        "texttemplate": "%{text}" if len(coverage) <= 60 else "",
        "textfont": {"size": 10, "color": "#ffffff"},
        "zmin": -0.5,
        "zmax": 2.5,
        "colorscale": [
            [0.0, COVERAGE_COLORS[0]],
            [1 / 3, COVERAGE_COLORS[0]],
            [1 / 3, COVERAGE_COLORS[1]],
            [2 / 3, COVERAGE_COLORS[1]],
            [2 / 3, COVERAGE_COLORS[2]],
            [1.0, COVERAGE_COLORS[2]],
        ],
        "showscale": False,
        "xgap": 1,
        "hovertemplate": "word %{x}: covered %{text} time(s)<extra></extra>",
        "name": "coverage",
        "showlegend": False,
    }
