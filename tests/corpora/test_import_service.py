"""testset_import when a concurrent import stores its test set between our checks and our insert."""

from __future__ import annotations

from unittest import mock

import pytest

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.models import TestSet
from evaltrans.corpora.services import (
    DUPLICATE_CONTENT,
    VERSION_TAKEN,
    CorpusImportError,
    corpus_content_hash,
    testset_import,
)

from .bad_inputs import database_counts

pytestmark = pytest.mark.django_db


def small_corpus() -> CorpusData:
    return CorpusData("de", "en", [SegmentData("Hallo.", references={"A": "Hello."})])


def competitor_stores_after_the_checks(**fields: object):
    """Let the import pass its own checks, then store a rival row first (the race window)."""
    checks = TestSet.full_clean

    def full_clean_then_race(self: TestSet, *args: object, **kwargs: object) -> None:
        checks(self, *args, **kwargs)
        TestSet.objects.create(source_lang="de", target_lang="en", import_format="text", **fields)

    return mock.patch.object(TestSet, "full_clean", full_clean_then_race)


def test_race_on_the_same_content_names_the_winning_test_set():
    corpus = small_corpus()
    before = database_counts()
    rival = {"name": "rival", "version": 4, "content_hash": corpus_content_hash(corpus)}
    with competitor_stores_after_the_checks(**rival), pytest.raises(CorpusImportError) as refused:
        testset_import(corpus=corpus, name="mine", import_format="text")
    assert str(refused.value) == DUPLICATE_CONTENT.format(name="rival", version=4)
    assert database_counts() == before


def test_race_on_name_and_version_says_the_version_was_taken():
    before = database_counts()
    rival = {"name": "mine", "version": 1, "content_hash": "f" * 64}
    with competitor_stores_after_the_checks(**rival), pytest.raises(CorpusImportError) as refused:
        testset_import(corpus=small_corpus(), name="mine", import_format="text")
    assert str(refused.value) == VERSION_TAKEN.format(name="mine", version=1)
    assert "already stored" not in str(refused.value)
    assert database_counts() == before
