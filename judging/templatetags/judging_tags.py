"""Template filters of the judging pages."""

from __future__ import annotations

from django import template

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
