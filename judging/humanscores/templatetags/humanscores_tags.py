"""Small filters of the human-score pages, and the human-score block of the test-set page."""

from __future__ import annotations

from typing import Any

from django import template

from evaltrans.corpora.models import TestSet
from judging.templatetags.judging_tags import clock

from ..selectors import judgmentsets_for_test_set

register = template.Library()


@register.inclusion_tag("humanscores/_test_set_links.html")
def test_set_human_scores(test_set: TestSet) -> dict[str, Any]:
    """Links to the panels of the judgment sets attached to ``test_set`` (its page shows them;
    corpora knows nothing of judgments, so this app contributes the block)."""
    return {"judgment_sets": judgmentsets_for_test_set(test_set=test_set)}


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
    return clock(int(round(value)))


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
