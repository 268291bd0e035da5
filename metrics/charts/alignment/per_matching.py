"""PER: a matching between two rows of words (PER ignores word order)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaltrans.plotting import INK, axis, escape_label, figure, layout
from metrics.charts.alignment.drawing import (
    COLORS,
    KIND_NAMES,
    _label,
    _legend_entry,
    _row_positions,
    _tick_angle,
    _ticks,
    _word_hover,
)


def matching_figure(view: Mapping[str, Any]) -> dict[str, Any]:
    """PER: candidate words on top, reference words below, a line for every matched
    (green) or substituted (orange) pair; unpaired words red (thesis Fig. 4.1)."""
    hyp, ref = list(view["hyp"]), list(view["ref"])
    span = max(len(hyp), len(ref), 1)
    top, bottom = _row_positions(len(hyp), span), _row_positions(len(ref), span)
    status_hyp = ["delete"] * len(hyp)
    status_ref = ["insert"] * len(ref)
    lines: dict[str, tuple[list[float | None], list[float | None]]] = {}
    hover_x, hover_y, hover_text = [], [], []
    for pair in view.get("matching", []):
        i, j = pair.get("hyp_index"), pair.get("ref_index")
        if i is not None and i < len(hyp):
            status_hyp[i] = pair["kind"]
        if j is not None and j < len(ref):
            status_ref[j] = pair["kind"]
        if i is None or j is None or i >= len(hyp) or j >= len(ref):
            continue
        kind = pair["kind"] if pair["kind"] in COLORS else "substitute"
        xs, ys = lines.setdefault(kind, ([], []))
        xs.extend([top[i], bottom[j], None])
        ys.extend([1, 0, None])
        hover_x.append((top[i] + bottom[j]) / 2)
        hover_y.append(0.5)
        hover_text.append(_word_hover(kind, pair["cost"], hyp[i], ref[j]))
    traces: list[dict[str, Any]] = []
    for kind, (xs, ys) in lines.items():
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": xs,
                "y": ys,
                "line": {"color": COLORS[kind], "width": 2.5 if kind == "match" else 1.2},
                "opacity": 1 if kind == "match" else 0.75,
                "name": KIND_NAMES[kind],
                "hoverinfo": "skip",
            }
        )
    for row, positions, words, status, side in (
        (1, top, hyp, status_hyp, "candidate"),
        (0, bottom, ref, status_ref, "reference"),
    ):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": positions,
                "y": [row] * len(positions),
                "marker": {
                    "size": 9,
                    "color": [COLORS.get(kind, INK) for kind in status],
                    "line": {"color": "#ffffff", "width": 1},
                },
                "hovertext": [
                    f"{side} word {k + 1}: {escape_label(word)}<br>{KIND_NAMES.get(kind, kind)}"
                    for k, (word, kind) in enumerate(zip(words, status, strict=True))
                ],
                "hoverinfo": "text",
                "showlegend": False,
                "name": side,
                "xaxis": "x2" if row == 1 else "x",
            }
        )
    if any(kind in ("insert", "delete") for kind in status_hyp + status_ref):
        traces.append(
            {
                **_legend_entry("delete"),
                "mode": "markers",
                "marker": {"color": COLORS["delete"], "size": 9},
                "name": "unpaired (insertion / deletion)",
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
            "marker": {"size": 10, "opacity": 0},
            "showlegend": False,
            "name": "pairs",
        }
    )
    hyp_labels = [
        _label(w, COLORS["delete"] if s == "delete" else None)
        for w, s in zip(hyp, status_hyp, strict=True)
    ]
    ref_labels = [
        _label(w, COLORS["insert"] if s == "insert" else None)
        for w, s in zip(ref, status_ref, strict=True)
    ]
    many = span > 25
    return figure(
        traces,
        layout(
            "",
            height=320 + (110 if many else 40),
            margin={"l": 90, "r": 10, "t": 40, "b": 40},
            xaxis=axis(
                "reference",
                range=[0, span],
                automargin=True,
                showgrid=False,
                zeroline=False,
                tickangle=_tick_angle(span),
                ticks="",
                **_ticks(bottom, ref_labels),
            ),
            xaxis2=axis(
                "candidate",
                range=[0, span],
                overlaying="x",
                anchor="y",
                side="top",
                matches="x",
                automargin=True,
                showgrid=False,
                zeroline=False,
                tickangle=_tick_angle(span),
                ticks="",
                **_ticks(top, hyp_labels),
            ),
            yaxis=axis(
                "",
                range=[-0.15, 1.15],
                showgrid=False,
                zeroline=False,
                showticklabels=False,
                fixedrange=True,
            ),
            showlegend=False,
            hovermode="closest",
            meta={
                "ticks": [
                    {"axis": "xaxis", "values": bottom, "labels": ref_labels},
                    {"axis": "xaxis2", "values": top, "labels": hyp_labels},
                ]
            },
        ),
    )
