"""Layout decisions of the judging screen that the template cannot spell out by itself."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def reference_under_candidate(screen: Any) -> bool:
    """Whether the reference goes right under the translation instead of above it.

    On a screen with one translation judged on levels or sliders (categorical, direct
    assessment), the reference arrives with the aspects that need it, after fluency in the
    "fluency first" order. Placed under the translation, it appears without moving the
    translation the judge has just read (above it, it would push the translation down) and
    stands next to what it is compared with. Not when the source is hidden and document
    context is shown: the context is then the reference's own neighbouring sentences, shown
    around the reference above the translation. Ranking, error spans and post-editing show
    their reference from the start, above the translations, as before.
    """
    if not screen.reference or len(screen.entries) != 1:
        return False
    if screen.is_ranking or screen.has_spans or screen.is_postedit:
        return False
    return bool(screen.source) or not (screen.context_before or screen.context_after)


@register.filter
def instruction_aspects(screen: Any) -> list[Any]:
    """The aspects the instructions name: every aspect of the screen in the "fluency first"
    order (so the instructions read the same before and after the reference is revealed, and
    the translation below them does not move); else the aspects asked."""
    if screen.stage in ("blind", "reference") and len(screen.all_aspects) > len(screen.aspects):
        return list(screen.all_aspects)
    return list(screen.aspects)


@register.filter
def instruction_reference(screen: Any) -> str:
    """How the instructions mention the reference: " and the reference" when it is shown; in
    the "fluency first" order, the same words before and after it is revealed (" and, for
    adequacy, the reference"), so the instructions keep their height."""
    later = [aspect.label.lower() for aspect in screen.all_aspects if aspect.needs_reference]
    staged = screen.stage in ("blind", "reference") and 0 < len(later) < len(screen.all_aspects)
    if staged:
        return f" and, for {' and '.join(later)}, the reference"
    return " and the reference" if screen.reference else ""
