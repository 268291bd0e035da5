"""Migration 0004 converts stored JSON statistics to packed arrays and back, losing nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from metrics.models import pack_floats, unpack_floats
from tests.metrics.run_helpers import make_test_set

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("metrics", "0003_run_command_line_help")]
AFTER = [("metrics", "0004_segment_statistics_packed")]


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def test_json_statistics_become_packed_arrays_and_back():
    test_set = make_test_set()
    system = test_set.systems.first()
    try:
        old = migrate(BEFORE).get_model("metrics", "SegmentStatistics")
        old.objects.create(
            test_set_id=test_set.pk,
            system_id=system.pk,
            signature="bleu|x",
            measure="bleu",
            start=0,
            stop=2,
            stat_names=["a", "b", "c"],
            stats=[[1.5, None, 3.0], [4.0, 5.0, 6.25]],
            sentence_scores=[0.5, None],
        )
        new = migrate(AFTER).get_model("metrics", "SegmentStatistics")
        row = new.objects.get()
        stats = unpack_floats(row.stats, 3)
        assert stats.shape == (2, 3)
        assert stats[0, 0] == 1.5 and math.isnan(stats[0, 1]) and stats[1, 2] == 6.25
        sentence = unpack_floats(row.sentence_scores)
        assert sentence[0] == 0.5 and math.isnan(sentence[1])
        back = migrate(BEFORE).get_model("metrics", "SegmentStatistics").objects.get()
        assert back.stats == [[1.5, None, 3.0], [4.0, 5.0, 6.25]]
        assert back.sentence_scores == [0.5, None]
    finally:
        migrate(AFTER)


def test_packing_keeps_every_bit():
    values = np.array([[0.1, math.inf, -0.0], [1e-300, 2.0**52 + 1, math.pi]])
    np.testing.assert_array_equal(unpack_floats(pack_floats(values), 3), values)
