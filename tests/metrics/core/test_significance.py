"""Significance: the Fisher-z interval of Pearson's r."""

from __future__ import annotations

import math

import pytest

from metrics.core.significance import fisher_interval


def test_fisher_interval_matches_the_thesis_ranges():
    low, high = fisher_interval(0.285, 7902)
    assert (high - low) / 2 == pytest.approx(0.020, abs=5e-4)
    assert fisher_interval(0.5, 3) is None
    assert not math.isnan(fisher_interval(-0.2, 100)[0])
