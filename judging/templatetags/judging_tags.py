"""Template filters of the judging pages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()


@register.filter
def duration(milliseconds: int | float | None) -> str:
    """``3723000`` -> ``1 h 02 min``; ``95000`` -> ``1 min 35 s``; ``None`` -> ``–``."""
    if milliseconds is None:
        return "–"
    return clock(int(round(milliseconds / 1000)))


def clock(seconds: int) -> str:
    """Whole seconds as "1 h 05 min", "4 min 10 s" or "12 s"."""
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"


@register.filter
def error_spans(text: str, spans: Sequence[Mapping[str, Any]]) -> SafeString:
    """The text with its error spans highlighted: ``<mark class="err err-major">`` pieces
    (the worst severity where spans overlap), titled with severity, category and note. Built
    with ``format_html``: every piece of the text and of the spans is escaped (MT output is
    untrusted)."""
    bounds = sorted({0, len(text), *(s["start"] for s in spans), *(s["end"] for s in spans)})
    pieces = []
    for start, end in pairwise(bounds):
        if start >= end or end > len(text):
            continue
        here = [s for s in spans if s["start"] <= start and end <= s["end"]]
        if not here:
            pieces.append(format_html("{}", text[start:end]))
            continue
        major = any(s["severity"] == "major" for s in here)
        title = "; ".join(
            " · ".join(
                part
                for part in (s["severity"].capitalize(), s.get("category", ""), s.get("note", ""))
                if part
            )
            for s in here
        )
        pieces.append(
            format_html(
                '<mark class="err err-{}" title="{}">{}</mark>',
                "major" if major else "minor",
                title,
                text[start:end],
            )
        )
    return format_html_join("", "{}", ((piece,) for piece in pieces))
