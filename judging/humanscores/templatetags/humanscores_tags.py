"""Small filters of the human-score pages."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def index(sequence: Any, position: int) -> Any:
    """``sequence[position]``, or "" when out of range."""
    try:
        return sequence[position]
    except (IndexError, TypeError, KeyError):
        return ""


@register.filter
def seconds(value: float | None) -> str:
    """A duration in seconds as "1 h 05 min", "4 min 10 s" or "12 s"."""
    if value is None:
        return ""
    total = int(round(value))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


@register.filter
def per(value: float | None, count: int) -> float | None:
    """``value / count`` (None when either is missing or count is 0)."""
    if value is None or not count:
        return None
    return value / count


@register.filter
def signed(value: float | None, digits: int = 3) -> str:
    """A number with its sign, e.g. "+0.123"; "–" for None."""
    if value is None:
        return "–"
    return f"{value:+.{int(digits)}f}"
