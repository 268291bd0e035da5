"""The shared base of the edit-distance measures."""

from __future__ import annotations

from metrics.core import METRICS
from metrics.core.base import TextMeasure
from metrics.core.error_rate import ErrorRateMeasure


def test_error_rate_measures_use_the_batch_path() -> None:
    assert issubclass(ErrorRateMeasure, TextMeasure)
    ter = METRICS["ter"]()
    # TER keeps tercom's own tokenizer in the batch path.
    assert ter.tokens_many(["Hello, World"]) == [ter.tokens("Hello, World")]
