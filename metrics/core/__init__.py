"""metrics.core: every automatic measure of evaltrans, as a pure library (never Django).

``METRICS`` maps the names users pick (command line, web forms, stored runs) to the
measure classes (:mod:`.registry`). ``get_metric(name)(**options)`` builds one.
"""

from __future__ import annotations

from .base import Measure, MeasureError, Option, Score, Signature
from .registry import METRICS, get_metric

__all__ = ["METRICS", "Measure", "MeasureError", "Option", "Score", "Signature", "get_metric"]
