"""Metric-run models: the constraints that make writes idempotent and keep results apart."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from metrics.models import MetricRun, SegmentStatistics, SystemScore
from tests.metrics.run_helpers import make_test_set

pytestmark = pytest.mark.django_db


def chunk(test_set, system, start=0, stop=4, signature="wer|x"):
    return SegmentStatistics(
        test_set=test_set, system=system, signature=signature, measure="wer", start=start, stop=stop
    )


def test_a_chunk_is_stored_once_per_signature():
    test_set = make_test_set()
    system = test_set.systems.first()
    chunk(test_set, system).save()
    with pytest.raises(IntegrityError), transaction.atomic():
        chunk(test_set, system).save()
    chunk(test_set, system, signature="wer|y").save()  # another signature is another result
    chunk(test_set, system, start=4, stop=8).save()
    assert SegmentStatistics.objects.count() == 3


def test_chunk_span_must_not_be_empty():
    test_set = make_test_set()
    with pytest.raises(IntegrityError), transaction.atomic():
        chunk(test_set, test_set.systems.first(), start=4, stop=4).save()


def test_system_scores_are_keyed_by_test_set_system_signature():
    test_set = make_test_set()
    system = test_set.systems.first()
    SystemScore.objects.create(test_set=test_set, system=system, signature="s", measure="wer")
    with pytest.raises(IntegrityError), transaction.atomic():
        SystemScore.objects.create(test_set=test_set, system=system, signature="s", measure="wer")


def test_run_defaults_and_urls():
    test_set = make_test_set()
    run = MetricRun.objects.create(test_set=test_set)
    assert run.status == MetricRun.Status.QUEUED and run.is_active
    assert run.get_absolute_url() == f"/runs/{run.pk}/"
    assert str(run) == f"Run {run.pk} on {test_set}"
