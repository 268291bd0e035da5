"""TER's shifts: they move words between the original and the shifted candidate; the grid
labels the shifted words' columns blue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaltrans.plotting import axis, escape_label, figure, layout
from metrics.charts.alignment.drawing import COLORS, _label, _row_positions, _tick_angle, _ticks


def _moved_columns(view: Mapping[str, Any]) -> set[int]:
    """Columns of TER's shifted candidate that hold a shifted word (labelled blue)."""
    positions = view.get("shift_positions") or []
    return {positions[old] for old in view.get("moved", []) if 0 <= old < len(positions)}


def shift_figure(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """TER: the candidate as written (top) and after its shifts (bottom); every word joined to
    its new place, the shifted words blue. None without shifts."""
    shifts = view.get("shifts") or []
    original = list(view.get("original_hyp") or [])
    positions = list(view.get("shift_positions") or [])
    if not shifts or len(positions) != len(original):
        return None
    moved = set(view.get("moved", []))
    span = max(len(original), 1)
    top = _row_positions(len(original), span)
    still_x: list[float | None] = []
    still_y: list[float | None] = []
    moved_x: list[float | None] = []
    moved_y: list[float | None] = []
    hover_x, hover_y, hover_text = [], [], []
    for old, new in enumerate(positions):
        xs, ys = (moved_x, moved_y) if old in moved else (still_x, still_y)
        xs.extend([top[old], top[new], None])
        ys.extend([1, 0, None])
        if old in moved:
            hover_x.append((top[old] + top[new]) / 2)
            hover_y.append(0.5)
            hover_text.append(
                f"<b>shifted</b>: {escape_label(original[old])}<br>word {old + 1} → {new + 1}"
            )
    shifted = [""] * len(original)
    for old, new in enumerate(positions):
        shifted[new] = original[old]
    final_moved = {positions[old] for old in moved}
    top_labels = [
        _label(w, COLORS["shift"] if k in moved else None) for k, w in enumerate(original)
    ]
    bottom_labels = [
        _label(w, COLORS["shift"] if k in final_moved else None) for k, w in enumerate(shifted)
    ]
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": still_x,
            "y": still_y,
            "line": {"color": "#cfd8dc", "width": 1},
            "name": "kept in order",
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": moved_x,
            "y": moved_y,
            "line": {"color": COLORS["shift"], "width": 3},
            "marker": {"size": 6, "color": COLORS["shift"]},
            "name": "shifted (cost 1 per shift)",
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": hover_x,
            "y": hover_y,
            "hovertext": hover_text,
            "hoverinfo": "text",
            "marker": {"size": 10, "opacity": 0},
            "showlegend": False,
            "name": "shifts",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "xaxis": "x2",
            "x": top,
            "y": [1] * len(top),
            "marker": {
                "size": 5,
                "color": [COLORS["shift"] if k in moved else "#b0bec5" for k in range(len(top))],
            },
            "hoverinfo": "skip",
            "showlegend": False,
            "name": "as written",
        },
    ]
    return figure(
        traces,
        layout(
            "",
            height=230 + (90 if span > 25 else 30),
            margin={"l": 90, "r": 10, "t": 40, "b": 30},
            xaxis=axis(
                "after the shifts",
                range=[0, span],
                automargin=True,
                showgrid=False,
                zeroline=False,
                ticks="",
                tickangle=_tick_angle(span),
                **_ticks(top, bottom_labels),
            ),
            xaxis2=axis(
                "candidate as written",
                range=[0, span],
                overlaying="x",
                anchor="y",
                side="top",
                matches="x",
                automargin=True,
                showgrid=False,
                zeroline=False,
                ticks="",
                tickangle=_tick_angle(span),
                **_ticks(top, top_labels),
            ),
            yaxis=axis(
                "",
                range=[-0.1, 1.1],
                showgrid=False,
                zeroline=False,
                showticklabels=False,
                fixedrange=True,
            ),
            showlegend=False,
            hovermode="closest",
            meta={
                "ticks": [
                    {"axis": "xaxis", "values": top, "labels": bottom_labels},
                    {"axis": "xaxis2", "values": top, "labels": top_labels},
                ]
            },
        ),
    )
