"""What every alignment figure shares: the palette and operation names, number and word
labels, axis ticks (thinned out; the page shows more after a zoom), hover texts, legend entries,
plot height and word rows, and the dots of identical words.

Every word from data is escaped for plotly's pseudo-HTML (``evaltrans.plotting.escape_label``);
hover texts are plain ``hovertext`` (no template substitution).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from evaltrans.plotting import escape_label

COLORS = {
    "match": "#2e7d32",
    "substitute": "#ef6c00",
    "insert": "#c62828",
    "delete": "#c62828",
    "jump": "#6a1b9a",
    "shift": "#1565c0",
}
KIND_NAMES = {
    "match": "identity",
    "substitute": "substitution",
    "insert": "insertion",
    "delete": "deletion",
    "jump": "long jump",
    "shift": "shift",
}
LEGEND = {"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom", "font": {"size": 11}}
BLOCK_COLOR = "#6a1b9a"
DOT_COLOR = "#cfd8dc"
EPSILON = "ε"
MAX_TICKS = 40
"""At most this many word labels per axis; the page thins them out again after a zoom."""


def _fmt(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _label(word: str, color: str | None = None) -> str:
    text = escape_label(word)
    return f'<span style="color:{color}">{text}</span>' if color else text


def _ticks(
    positions: Sequence[float], labels: Sequence[str], limit: int = MAX_TICKS
) -> dict[str, Any]:
    """Tick values and texts, every k-th one when there are more than ``limit``; the page's
    script shows more of them after a zoom (``layout.meta.ticks`` keeps them all)."""
    step = max(1, math.ceil(len(positions) / limit))
    keep = range(0, len(positions), step)
    return {
        "tickmode": "array",
        "tickvals": [positions[k] for k in keep],
        "ticktext": [labels[k] for k in keep],
    }


def _tick_angle(count: int) -> int:
    return -90 if count > 25 else -50


def _word_hover(kind: str, cost: float, hyp: str | None, ref: str | None) -> str:
    lines = [f"<b>{KIND_NAMES.get(kind, escape_label(kind))}</b> · cost {_fmt(cost)}"]
    if hyp is not None:
        lines.append(f"candidate: {escape_label(hyp)}")
    if ref is not None:
        lines.append(f"reference: {escape_label(ref)}")
    return "<br>".join(lines)


def _legend_entry(kind: str, dash: str = "solid") -> dict[str, Any]:
    """An empty trace that only puts ``kind`` in the legend (the path traces are many)."""
    return {
        "type": "scatter",
        "mode": "lines",
        "x": [None],
        "y": [None],
        "name": KIND_NAMES[kind],
        "line": {"color": COLORS[kind], "width": 3, "dash": dash},
        "hoverinfo": "skip",
        "legendgroup": kind,
    }


def _plot_height(width: int, height: int, ratio: float) -> int:
    """Square cells in a plot about 640 px wide, within 320–860 px."""
    cell = 640 / (width + 1)
    if not 0.25 <= ratio <= 4:
        return 480
    return int(min(860, max(320, cell * (height + 1) + 150)))


def _identity_dots(x_words: Sequence[str], y_words: Sequence[str], offset: float) -> dict[str, Any]:
    """Light squares where a candidate and a reference word are identical (a dot plot)."""
    xs, ys = [], []
    for i, word in enumerate(x_words, start=1):
        for j, other in enumerate(y_words, start=1):
            if word == other:
                xs.append(i - offset)
                ys.append(j - offset)
    size = max(4, min(16, int(560 / max(len(x_words), len(y_words), 1))))
    return {
        "type": "scatter",
        "mode": "markers",
        "x": xs,
        "y": ys,
        "marker": {"symbol": "square", "size": size, "color": DOT_COLOR},
        "name": "identical words",
        "hoverinfo": "skip",
        "showlegend": bool(xs),
    }


def _row_positions(count: int, span: int) -> list[float]:
    """``count`` words spread over [0, span], centred in equal slots."""
    return [(k + 0.5) * span / count for k in range(count)] if count else []
