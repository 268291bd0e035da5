"""Template helpers for corpus pages."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def highlight(text: str, query: str) -> SafeString:
    """Escape ``text`` and wrap case-insensitive occurrences of ``query`` in <mark>.

    Escaping comes first and the pattern is matched on the raw text, so MT output such as
    ``<script>`` is always shown as text, never interpreted.
    """
    if not query:
        return escape(text)
    pieces = re.split(f"({re.escape(query)})", text, flags=re.IGNORECASE)
    out = [
        f"<mark>{escape(piece)}</mark>" if index % 2 else escape(piece)
        for index, piece in enumerate(pieces)
    ]
    return mark_safe("".join(out))  # noqa: S308 - every piece is escaped above


@register.simple_tag(takes_context=True)
def page_url(context: template.Context, page_number: int) -> str:
    """The current query string with another page number (and no search cursor)."""
    return _with(context, page=page_number)


@register.simple_tag(takes_context=True)
def cursor_url(
    context: template.Context, after: int | None = None, before: int | None = None
) -> str:
    """The current query string with a search cursor of the browser: the page of matches
    ``after`` or ``before`` a segment index; neither gives the first page."""
    return _with(context, after=after, before=before)


def _with(context: template.Context, **values: int | None) -> str:
    query = context["request"].GET.copy()
    for key in ("page", "after", "before"):
        query.pop(key, None)
    for key, value in values.items():
        if value is not None:
            query[key] = str(value)
    return "?" + query.urlencode()
