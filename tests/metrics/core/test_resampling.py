"""Resampling: the paired bootstrap test of system differences."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.core.resampling import paired_bootstrap


def test_paired_bootstrap_finds_a_clear_difference_and_not_a_null_one():
    rng = np.random.default_rng(5)
    base = rng.normal(size=200)
    sentence = {
        "good": {str(k): base[k] + 0.5 for k in range(200)},
        "same": {str(k): base[k] + rng.normal(scale=0.01) for k in range(200)},
        "base": {str(k): base[k] for k in range(200)},
    }
    tests = {
        (t.a, t.b): t for t in paired_bootstrap(sentence, dict.fromkeys(map(str, range(200)), 1.0))
    }
    assert tests[("base", "good")].significant and tests[
        ("base", "good")
    ].difference == pytest.approx(-0.5)
    assert not tests[("base", "same")].significant
    again = paired_bootstrap(sentence, dict.fromkeys(map(str, range(200)), 1.0))
    assert [t.p for t in again] == [t.p for t in tests.values()]
