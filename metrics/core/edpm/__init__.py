"""EDPM, expected dependency-pair match (Kahn, Ostendorf & Roark 2009), and the DPM family.

* :mod:`.fragments`: the pure core (fragments, expected bags, counts, F; tree conventions);
* :mod:`.cache`: the parse cache (memory and an SQLite file);
* :mod:`.parsing`: spaCy, imported lazily (greedy and beam parses);
* :mod:`.measure`: the measure with its options, tiers and signature.
"""

from __future__ import annotations

from .measure import EDPM

__all__ = ["EDPM"]
