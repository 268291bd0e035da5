"""Fixtures shared by the metrics.core tests."""

from __future__ import annotations

import pytest

from tests.metrics.core import _ngram_data as data


@pytest.fixture(scope="module")
def wmt21_english() -> list[str]:
    ref_a, ref_b, systems, _ = data.wmt21()
    return ref_a + ref_b + systems["Online-B"]
