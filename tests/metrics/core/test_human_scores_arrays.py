"""The array pipeline of ``human_scores`` gives, to the last bit, what the plain per-candidate
formulas give: ``math.fsum`` means and ``statistics.median`` of each candidate's judgments, A+F
as the fsum of the parts, system scores as fsum-weighted means, segments in natural order."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judging.formats import JudgmentRecord as J
from metrics.core.human_scores import human_scores, normalize_by_judge

SCORES = st.sampled_from([0.0, -0.0, 1.0, 2.5, 3.0, 0.1, 0.2, 0.7, 100.0, -4.25, 1e-300])
ROW = st.tuples(
    st.sampled_from(["s1", "s2", "s10"]),
    st.sampled_from(["1", "2", "10", "x", "03"]),
    st.sampled_from(["j1", "j2", "j3", "j4"]),
    st.sampled_from(["adequacy", "fluency"]),
    st.one_of(SCORES, st.none()),
    st.sampled_from(["SYSTEM", "SYSTEM", "REPEAT", "BAD_REF"]),
)


def _records(rows):
    seen, records = set(), []
    for system, segment, judge, aspect, raw, kind in rows:
        if (system, segment, judge, aspect, kind) in seen:
            continue
        seen.add((system, segment, judge, aspect, kind))
        records.append(J(system, segment, judge, aspect, raw, 0.5 if raw is None else None, kind))
    return records


def _natural(segment_id):
    return (0, int(segment_id)) if segment_id.isdigit() else (1, segment_id)


def _plain(records, aspect, statistic):
    """The formulas one candidate at a time, as the module documents them."""
    parts = aspect.split("+")
    cells = []
    for part in parts:
        mine = [r for r in records if r.aspect == part]
        if all(r.raw is not None for r in mine):
            z = normalize_by_judge([r.judge for r in mine], [r.raw for r in mine]).z.tolist()
        else:
            z = [r.z_given for r in mine]
        raw, norm = defaultdict(list), defaultdict(list)
        for record, value in zip(mine, z, strict=True):
            if record.kind in ("SYSTEM", "REPEAT"):
                raw[(record.system, record.segment_id)].append(record.raw)
                norm[(record.system, record.segment_id)].append(value)

        def combine(values):
            if statistic == "median":
                return float(statistics.median(values))
            return math.fsum(values) / len(values)

        cells.append(
            {
                key: (
                    None if None in raw[key] else combine(raw[key]),
                    combine(norm[key]),
                    len(norm[key]),
                )
                for key in norm
            }
        )
    keys = set.intersection(*(set(part) for part in cells))
    segments = []
    for key in sorted(keys, key=lambda k: (k[0], _natural(k[1]), k[1])):
        row = [part[key] for part in cells]
        raws = [cell[0] for cell in row]
        raw = None if None in raws else math.fsum(raws)
        segments.append((*key, raw, math.fsum(cell[1] for cell in row), sum(c[2] for c in row)))
    return segments


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(ROW, min_size=1, max_size=70),
    aspect=st.sampled_from(["adequacy", "adequacy+fluency"]),
    statistic=st.sampled_from(["mean", "median"]),
)
def test_sentence_scores_are_the_plain_formulas_to_the_bit(rows, aspect, statistic):
    records = _records(rows)
    try:
        result = human_scores(
            records, aspect=aspect, weighting="none", sentence_statistic=statistic,
            bootstrap_samples=0,
        )  # fmt: skip
    except ValueError:
        return  # no judgment of a part, or a part mixing raw and z-only judgments
    expected = _plain(records, aspect, statistic)
    got = [(s.system, s.segment_id, s.raw, s.normalized, s.n) for s in result.segments]
    assert [row[:2] for row in got] == [row[:2] for row in expected]
    for ours, theirs in zip(got, expected, strict=True):
        # repr tells -0.0 from 0.0 and compares NaN-free floats bit for bit
        assert repr(ours[2:]) == repr(theirs[2:])
    for system in result.systems:
        mine = [s for s in result.segments if s.system == system.system]
        assert repr(system.normalized) == repr(
            math.fsum(s.normalized for s in mine) / math.fsum(1.0 for _ in mine)
        )
        assert system.n_judgments == sum(s.n for s in mine)


def test_a_candidate_of_many_judgments_is_summed_exactly():
    """Three or more judgments go through fsum: 1e16 + 1 + 1 - 1e16 is 2, not 0 or 4."""
    records = [
        J("s", "1", f"j{k}", "x", value, None) for k, value in enumerate([1e16, 1.0, 1.0, -1e16])
    ] + [J("s", "2", f"j{k}", "x", 0.0, None) for k in range(4)]
    result = human_scores(records, aspect="x", weighting="none", bootstrap_samples=0)
    assert result.segments[0].raw == pytest.approx(0.5)


def test_sentence_scores_are_made_when_first_read():
    """The system scores alone leave the sentence scores unmade; read, they are the same
    list however they are reached (index, slice, iteration, comparison)."""
    records = [J(f"s{k % 3}", str(k % 7), f"j{k % 4}", "x", float(k % 11), None) for k in range(60)]
    result = human_scores(records, aspect="x", weighting="none", bootstrap_samples=10)
    result.as_dict()
    assert result.segments._scores is None
    assert len(result.segments) == 21
    made = list(result.segments)
    assert result.segments == made and made == list(result.segments)
    assert result.segments[3] == made[3] and result.segments[2:5] == made[2:5]
    assert result.as_dict(segments=True)["segments"] == [score.as_dict() for score in made]
    assert result.segments != made[:-1]
