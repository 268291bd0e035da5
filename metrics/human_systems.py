"""Which "systems" are human translations: a reference judged or scored as if it were a system.

WMT and mt-metrics-eval files list them beside the MT systems (``ref``, ``refA``, ``ref-B``,
``Human-A.0``); the correlation tables leave them out unless asked, and score imports skip
their lines. Django-free.
"""

from __future__ import annotations

import re
from collections.abc import Collection

HUMAN_SYSTEM_NAME = re.compile(r"^(?i:ref|reference|human)($|[-_. ]|[A-Z0-9])")


def is_human_system(name: str, reference_labels: Collection[str] = ()) -> bool:
    """A name equal to a reference label, or ``ref``/``reference``/``human`` followed by the
    end, a separator, a digit or a capital (so ``refinement`` is an MT system)."""
    return name in reference_labels or bool(HUMAN_SYSTEM_NAME.match(name))
