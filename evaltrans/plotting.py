"""Shared pieces of every plotly figure: layout, axes, palettes and label escaping.

Pure: plain data in, plotly figure dicts out (no ORM, no plotly import); pages render them with
``static/js/charts.js``.

**Escaping.** Plotly renders its text (titles, axis ticks, legend entries, hover labels, heat map
texts) through a small pseudo-HTML converter: it interprets the tags ``<br>``, ``<b>``, ``<i>``,
``<em>``, ``<s>``, ``<u>``, ``<sub>``, ``<sup>``, ``<span>`` and ``<a>`` and decodes the entities
``&amp; &lt; &gt; &nbsp; &mu; &times; &plusmn; &deg;`` and numeric ``&#…;``; any other text,
``&quot;`` included, is shown as written, and a newline becomes a space. So a name from data
(a judge, a system, an MT sentence) is shown literally once ``&``, ``<`` and ``>`` are written
as entities (:func:`escape_label`); escaping quotes as HTML does would show ``&quot;``.
Templates (``hovertemplate``, ``texttemplate``) also substitute ``%{…}``: text put into a
template literally goes through :func:`escape_template`, which writes ``%`` as ``&#37;``
(decoded after the substitution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
INK = "#1f2937"
GRID = "#e5e7eb"
ZERO_LINE = "#9ca3af"
# Plotly's and D3's qualitative palettes: distinct colours for up to 20 systems, then reused.
SYSTEM_PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#e7969c", "#637939", "#ad494a", "#7b4173", "#3182bd",
    "#e6550d", "#31a354", "#756bb1", "#636363",
)  # fmt: skip
# Worst level red to best level green (RdYlGn), spread over however many levels a scale has.
LEVEL_RAMP = ("#d73027", "#f46d43", "#fdae61", "#fee08b", "#d9ef8b", "#a6d96a", "#66bd63",
              "#1a9850")  # fmt: skip
DIVERGING = [[0.0, "#b2182b"], [0.25, "#ef8a62"], [0.5, "#f7f7f7"], [0.75, "#67a9cf"],
             [1.0, "#2166ac"]]  # fmt: skip

_LABEL_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_TEMPLATE_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "%": "&#37;"})


def escape_label(text: object) -> str:
    """``text`` as plotly shows it literally in any label or hover text (module docstring)."""
    return str(text).translate(_LABEL_ESCAPES)


def escape_template(text: object) -> str:
    """``text`` shown literally inside a ``hovertemplate`` or ``texttemplate`` string."""
    return str(text).translate(_TEMPLATE_ESCAPES)


def system_colors(systems: Sequence[str]) -> dict[str, str]:
    """One colour per system, by sorted name, so every panel of a set agrees."""
    return {name: SYSTEM_PALETTE[k % len(SYSTEM_PALETTE)] for k, name in enumerate(sorted(systems))}


def level_colors(count: int) -> list[str]:
    """``count`` colours from red (worst) to green (best)."""
    if count <= 1:
        return [LEVEL_RAMP[-1]] * count
    step = (len(LEVEL_RAMP) - 1) / (count - 1)
    return [LEVEL_RAMP[round(k * step)] for k in range(count)]


def layout(title: str, **extra: Any) -> dict[str, Any]:
    """The house layout with ``title`` (already escaped); ``extra`` keys replace its own."""
    result: dict[str, Any] = {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 16}},
        "font": {"family": FONT, "color": INK, "size": 12},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "margin": {"l": 70, "r": 20, "t": 60, "b": 70},
        "hoverlabel": {"font": {"family": FONT}},
    }
    result.update(extra)
    return result


def axis(title: str, **extra: Any) -> dict[str, Any]:
    """An axis with ``title`` (already escaped) and the house grid colours."""
    result = {"title": {"text": title}, "gridcolor": GRID, "zerolinecolor": ZERO_LINE}
    result.update(extra)
    return result


def figure(data: list[dict[str, Any]], layout: dict[str, Any]) -> dict[str, Any]:
    """A figure dict as ``static/js/charts.js`` renders it."""
    return {"data": data, "layout": layout, "config": {"displaylogo": False, "responsive": True}}
