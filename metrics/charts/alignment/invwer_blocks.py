"""INVWER: its BTG parse as nested rectangles (inverted blocks purple) over the
identical-word dots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaltrans.plotting import axis, escape_label, figure, layout
from metrics.charts.alignment.drawing import (
    BLOCK_COLOR,
    COLORS,
    EPSILON,
    KIND_NAMES,
    LEGEND,
    _fmt,
    _identity_dots,
    _label,
    _plot_height,
    _tick_angle,
    _ticks,
    _word_hover,
)

STRAIGHT_COLOR = "#78909c"


def block_figure(view: Mapping[str, Any]) -> dict[str, Any]:
    """INVWER: the BTG parse as nested rectangles over the word cells (inverted blocks purple,
    straight ones grey), its leaves as squares, insertions and deletions as red bars, over the
    dots of identical words (thesis Fig. 4.6)."""
    hyp, ref = list(view["hyp"]), list(view["ref"])
    width, height = len(hyp), len(ref)
    shapes: list[dict[str, Any]] = []
    hover_x, hover_y, hover_text = [], [], []
    tree = view.get("tree")
    if tree:
        _tree_shapes(tree, 0, shapes, hover_x, hover_y, hover_text, hyp, ref)
    traces: list[dict[str, Any]] = [_identity_dots(hyp, ref, offset=0.0)]
    leaf_x: dict[str, list[float]] = {}
    leaf_y: dict[str, list[float]] = {}
    for pair in view.get("matching", []):
        i, j, kind = pair.get("hyp_index"), pair.get("ref_index"), pair["kind"]
        if i is None or j is None:
            continue
        leaf_x.setdefault(kind, []).append(i + 1)
        leaf_y.setdefault(kind, []).append(j + 1)
        hover_x.append(i + 1)
        hover_y.append(j + 1)
        hover_text.append(
            _word_hover(kind, pair["cost"], pair.get("hyp_word"), pair.get("ref_word"))
        )
    for kind in ("match", "substitute"):
        if kind in leaf_x:
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "x": leaf_x[kind],
                    "y": leaf_y[kind],
                    "marker": {"symbol": "square", "size": 9, "color": COLORS[kind]},
                    "name": KIND_NAMES[kind],
                    "hoverinfo": "skip",
                }
            )
    gaps_x: list[float | None] = []
    gaps_y: list[float | None] = []
    for node in _leaves(tree) if tree else []:
        (i0, i1), (l0, l1) = node["hyp_span"], node["ref_span"]
        if node["type"] == "insert":
            gaps_x += [i0 + 0.5, i0 + 0.5, None]
            gaps_y += [l0 + 0.5, l1 + 0.5, None]
        elif node["type"] == "delete":
            gaps_x += [i0 + 0.5, i1 + 0.5, None]
            gaps_y += [l0 + 0.5, l0 + 0.5, None]
    if gaps_x:
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": gaps_x,
                "y": gaps_y,
                "line": {"color": COLORS["delete"], "width": 3.5},
                "name": "insertion / deletion",
                "hoverinfo": "skip",
            }
        )
    if any(shape["line"]["color"] == BLOCK_COLOR for shape in shapes):
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": [None],
                "y": [None],
                "line": {"color": BLOCK_COLOR, "width": 2},
                "name": "inverted block ⟨ ⟩",
                "hoverinfo": "skip",
            }
        )
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "x": hover_x,
            "y": hover_y,
            "hovertext": hover_text,
            "hoverinfo": "text",
            "marker": {"size": 12, "opacity": 0},
            "showlegend": False,
            "name": "blocks",
        }
    )
    x_positions = list(range(1, width + 1))
    y_positions = list(range(1, height + 1))
    x_labels = [_label(word) for word in hyp]
    y_labels = [_label(word) for word in ref]
    ratio = (height + 1) / (width + 1)
    y_axis = axis(
        f"reference ({height} words)",
        range=[0.5, height + 0.5],
        showgrid=False,
        zeroline=False,
        ticks="",
        automargin=True,
        minor={
            "showgrid": True,
            "gridcolor": "#f1f3f4",
            "tickvals": [k + 0.5 for k in range(height + 1)],
        },
        **_ticks(y_positions, y_labels),
    )
    x_axis = axis(
        f"candidate ({width} words)",
        range=[0.5, width + 0.5],
        automargin=True,
        showgrid=False,
        zeroline=False,
        ticks="",
        tickangle=_tick_angle(width),
        minor={
            "showgrid": True,
            "gridcolor": "#f1f3f4",
            "tickvals": [k + 0.5 for k in range(width + 1)],
        },
        **_ticks(x_positions, x_labels),
    )
    if 0.25 <= ratio <= 4:
        y_axis.update(scaleanchor="x", scaleratio=1, constrain="domain")
        x_axis["constrain"] = "domain"
    return figure(
        traces,
        layout(
            "",
            height=_plot_height(width, height, ratio),
            margin={"l": 60, "r": 10, "t": 36, "b": 40},
            xaxis=x_axis,
            yaxis=y_axis,
            shapes=shapes,
            legend=LEGEND,
            hovermode="closest",
            meta={
                "ticks": [
                    {"axis": "xaxis", "values": x_positions, "labels": x_labels},
                    {"axis": "yaxis", "values": y_positions, "labels": y_labels},
                ]
            },
        ),
    )


def _leaves(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if node.get("children"):
        return [leaf for child in node["children"] for leaf in _leaves(child)]
    return [node]


def _span_words(words: Sequence[str], span: Sequence[int], limit: int = 8) -> str:
    chosen = list(words[span[0] : span[1]])
    text = " ".join(chosen[:limit]) + (" …" if len(chosen) > limit else "")
    return escape_label(text) if text else EPSILON


def _tree_shapes(
    node: Mapping[str, Any],
    depth: int,
    shapes: list[dict[str, Any]],
    hover_x: list[float],
    hover_y: list[float],
    hover_text: list[str],
    hyp: Sequence[str],
    ref: Sequence[str],
    half: bool = False,
) -> None:
    """Rectangles of the inverted blocks (purple) and of the two halves each one swaps (grey,
    dotted); blocks joined straight are not drawn (every alignment has them)."""
    (i0, i1), (l0, l1) = node["hyp_span"], node["ref_span"]
    inverted = node["type"] == "inverted"
    if (inverted or half) and i1 > i0 and l1 > l0:
        inset = min(0.2, 0.035 * depth)
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "y",
                "x0": i0 + 0.5 + inset,
                "x1": i1 + 0.5 - inset,
                "y0": l0 + 0.5 + inset,
                "y1": l1 + 0.5 - inset,
                "line": {
                    "color": BLOCK_COLOR if inverted else STRAIGHT_COLOR,
                    "width": 2 if inverted else 1.2,
                    "dash": "solid" if inverted else "dot",
                },
                "fillcolor": "rgba(106, 27, 154, 0.07)" if inverted else "rgba(0, 0, 0, 0)",
                "layer": "below",
            }
        )
        if inverted:
            hover_x.append(i0 + 0.5 + inset)
            hover_y.append(l1 + 0.5 - inset)
            hover_text.append(
                f"<b>inverted block</b> · cost {_fmt(node['cost'])} (its words + inversions)"
                f"<br>candidate: {_span_words(hyp, (i0, i1))}"
                f"<br>reference: {_span_words(ref, (l0, l1))}"
            )
    for child in node.get("children") or []:
        _tree_shapes(child, depth + 1, shapes, hover_x, hover_y, hover_text, hyp, ref, inverted)
