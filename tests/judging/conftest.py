"""Fixtures for judging tests: a toy test set, judges, and a campaign factory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.models import TestSet
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Campaign
from judging.services import campaign_create
from tests.conftest import make_user

XSS = "<script>alert(1)</script>"


def toy_corpus(name: str = "toy", extra: str = "") -> CorpusData:
    """Four segments in two documents, references A and B, systems x, y, z.

    On segment 1, x and y wrote the same text (one item for both); on segment 2, z wrote
    exactly reference A; on segment 3, x wrote HTML that must be shown as text.
    """
    rows = [
        (
            "d1",
            "Guten Morgen.",
            "Good morning.",
            "Morning!",
            "Good morning.",
            "Good morning.",
            "Hello morning.",
        ),
        (
            "d1",
            "Wie geht es dir?",
            "How are you?",
            "How are you doing?",
            "How goes it?",
            "How is it?",
            "How are you?",
        ),
        ("d2", "Das ist gut.", "That is good.", "This is good.", XSS, "That good.", "It is good."),
        (
            "d2",
            "Danke schön." + extra,
            "Thank you.",
            "Thanks a lot.",
            "Thanks nice.",
            "Thank you.",
            "Danke.",
        ),
    ]
    segments = [
        SegmentData(
            source=source,
            doc_id=doc,
            seg_id=str(number + 1),
            references={"A": ref_a, "B": ref_b},
            candidates={"x": x, "y": y, "z": z},
        )
        for number, (doc, source, ref_a, ref_b, x, y, z) in enumerate(rows)
    ]
    return CorpusData(source_lang="de", target_lang="en", segments=segments, name=name)


@pytest.fixture
def test_set(db) -> TestSet:
    return testset_import(corpus=toy_corpus(), name="toy", import_format="text").test_set


@pytest.fixture
def judges(db) -> list:
    return [make_user(f"judge{number}", group=JUDGES_GROUP) for number in range(1, 4)]


@pytest.fixture
def make_campaign(test_set, judges) -> Callable[..., Campaign]:
    def factory(**overrides: Any) -> Campaign:
        options: dict[str, Any] = {
            "name": f"campaign-{Campaign.objects.count() + 1}",
            "test_set": test_set,
            "systems": list(test_set.systems.all()),
            "judges": judges,
            "seed": 7,
            "repeat_share": 0.0,
        }
        options.update(overrides)
        return campaign_create(**options)

    return factory
