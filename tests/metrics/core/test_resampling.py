"""Resampling: the paired bootstrap test of system differences."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.core.resampling import paired_bootstrap, paired_bootstraps


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


def _plain_p_values(sentence, weights, samples, seed):
    """Koehn's test written out: one draw of all resamples, each pair's weighted mean
    difference per resample, two-sided p."""
    systems = sorted(sentence)
    segments = sorted({seg for scores in sentence.values() for seg in scores})
    picks = np.random.default_rng(seed).integers(0, len(segments), (samples, len(segments)))
    p = {}
    for i, a in enumerate(systems):
        for b in systems[i + 1 :]:
            common = [s for s in segments if s in sentence[a] and s in sentence[b]]
            diff = np.array([sentence[a].get(s, 0.0) - sentence[b].get(s, 0.0) for s in segments])
            w = np.array([weights[s] if s in common else 0.0 for s in segments])
            means = (w[picks] * diff[picks]).sum(axis=1) / w[picks].sum(axis=1)
            p[(a, b)] = min(1.0, 2.0 * min(np.mean(means <= 0), np.mean(means >= 0)))
    return p


def test_tables_of_the_same_segments_share_one_draw_and_give_what_each_gives_alone():
    rng = np.random.default_rng(8)
    segments = [str(k) for k in range(300)]
    raw = {name: {s: float(rng.integers(0, 101)) for s in segments} for name in "abcd"}
    normalized = {
        name: {s: v / 25.0 - 2.0 for s, v in scores.items()} for name, scores in raw.items()
    }
    partial = {"a": {s: 1.0 for s in segments[:100]}, "b": {s: 0.5 for s in segments[50:]}}
    weights = {s: float(rng.integers(1, 30)) for s in segments}
    together = paired_bootstraps([raw, normalized, partial], weights, samples=450, seed=3)
    alone = [paired_bootstrap(t, weights, samples=450, seed=3) for t in (raw, normalized, partial)]
    assert together == alone
    # Blocks of resamples (RESAMPLE_BLOCK) change nothing: the plain formula's p-values.
    plain = _plain_p_values(raw, weights, 450, 3)
    assert {(t.a, t.b): t.p for t in together[0]} == pytest.approx(plain, abs=0)
