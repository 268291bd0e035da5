"""The search's text index (issue 16): built after the import, in batches; a prefilter that
never hides a match; a word found nowhere costs one look-up instead of reading every text."""

from __future__ import annotations

import logging
import random
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from kombu.exceptions import OperationalError as KombuOperationalError

from evaltrans.corpora import dispatch, selectors, services
from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.models import SegmentWords, TestSet
from evaltrans.corpora.selectors import SEARCH_WINDOW, testset_segment_page
from evaltrans.corpora.services import testset_import, testset_words_index
from evaltrans.corpora.text_index import (
    FTS_TABLE,
    index_available,
    indexed_matches,
    query_words,
    segment_words,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def text_index(db) -> None:
    if not index_available():
        pytest.skip("this SQLite has no FTS5 trigram tokenizer: there is no text index to test")


needs_index = pytest.mark.usefixtures("text_index")

# Words chosen for case folding that differs between SQLite's LIKE (ASCII only), PostgreSQL's
# UPPER and FTS5 (Unicode), and for characters special to LIKE or to FTS5 queries.
VOCABULARY = (
    "alpha Beta GAMMA delta Straße STRASSE strasse ıstanbul Istanbul İzmir naïve NAÏVE Ærø "
    'ærø 100% a_b "quoted" back\\slash ǅemal ﬁnal AND OR NEAR * ^ - ok é É ΣΊΣΥΦΟΣ σίσυφος'
).split()


def _corpus(segments: int, seed: int | str = 7) -> CorpusData:
    """Segments of random words from ``VOCABULARY``, two systems and one reference; a few
    rare words only at given places past the first search window."""
    rng = random.Random(seed)

    def sentence() -> str:
        return " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(0, 7)))

    rare = {SEARCH_WINDOW + 17: "Quetzalcoatl", SEARCH_WINDOW + 200: "quetzalCOATL!", 899: "xyzzy"}
    return CorpusData(
        source_lang="en",
        target_lang="de",
        segments=[
            SegmentData(
                source=f"{sentence()} {i}",
                references={"A": sentence()},
                candidates={"one": sentence(), "two": f"{sentence()} {rare.get(i, '')}".strip()},
            )
            for i in range(segments)
        ],
    )


def _all_matches(test_set: TestSet, query: str) -> tuple[list[int], list[int]]:
    """Every matching index, following the pages forward, then backward from the end."""
    forward, after = [], None
    while True:
        page = testset_segment_page(test_set=test_set, query=query, after=after)
        forward += [row.segment.index for row in page.rows]
        if not page.has_next:
            break
        after = page.next_after
    backward, before = [], 10**9
    while True:
        page = testset_segment_page(test_set=test_set, query=query, before=before)
        backward = [row.segment.index for row in page.rows] + backward
        if not page.rows or not page.has_previous:
            break
        before = page.previous_before
    return forward, backward


def _imported(segments: int, name: str = "indexed") -> TestSet:
    test_set = testset_import(
        corpus=_corpus(segments, seed=name), name=name, import_format="text"
    ).test_set
    assert testset_words_index(test_set_id=test_set.pk) == segments
    test_set.refresh_from_db()
    assert test_set.words_indexed
    return test_set


def test_words_and_query_words():
    assert segment_words(["a b  a", "B\tc", ""]) == "a b B c"
    assert query_words("  ab abc ÄÖÜ abc x\u00a0yzw ") == ["abc", "ÄÖÜ", "yzw"]


@needs_index
def test_the_index_holds_the_distinct_words_of_every_text_of_each_segment():
    test_set = _imported(30)
    for segment in test_set.segments.prefetch_related("references", "candidates"):
        texts = [segment.source, *(r.text for r in segment.references.all())]
        texts += [c.text for c in segment.candidates.order_by("system__name")]
        assert set(SegmentWords.objects.get(segment=segment).words.split()) == set(
            segment_words(texts).split()
        )


@needs_index
def test_search_with_the_index_finds_exactly_what_reading_every_text_finds():
    """Queries cut from the texts at random (in other cases too) and hand-picked ones: the
    pages, forward and backward, are the same with and without the index."""
    test_set = _imported(900)
    rng = random.Random(3)
    texts = list(test_set.segments.values_list("source", flat=True))
    texts += list(SegmentWords.objects.values_list("words", flat=True)[:50])
    queries = [
        "quetzalcoatl", "QUETZAL", "coatl!", "xyzzy", "nowhere-at-all", "Straße", "STRASSE",
        "ıstanbul", "istanbul", "NAÏVE", "naïve", "100%", "0%", "a_b", "a%b", '"quoted"',
        'quoted"', "back\\slash", "ﬁnal", "final", "AND", "NEAR", "*", "^ -", "σίσυφος",
        "ΣΊΣΥΦΟΣ", "ok é", "alpha Beta", "ha Be", "é É", "ærø", "  delta  ",
    ]  # fmt: skip
    for _ in range(40):
        text = rng.choice(texts)
        start = rng.randrange(len(text))
        piece = text[start : start + rng.randint(1, 14)]
        queries.append(piece.swapcase() if rng.random() < 0.5 else piece)
    for query in queries:
        if not query.strip():
            continue
        TestSet.objects.filter(pk=test_set.pk).update(words_indexed=True)
        test_set.refresh_from_db()
        with_index = _all_matches(test_set, query)
        TestSet.objects.filter(pk=test_set.pk).update(words_indexed=False)
        test_set.refresh_from_db()
        assert with_index == _all_matches(test_set, query), query
        assert with_index[0] == with_index[1], query
    TestSet.objects.filter(pk=test_set.pk).update(words_indexed=True)
    test_set.refresh_from_db()
    rare = [SEARCH_WINDOW + 17, SEARCH_WINDOW + 200]
    assert _all_matches(test_set, "quetzalcoatl") == (rare, rare)


@needs_index
def test_a_word_found_nowhere_reads_no_text_past_the_first_window():
    test_set = _imported(2_000)
    for indexed, texts_read in ((True, 1), (False, 4)):  # windows of 250, 500, 1000, 4000
        TestSet.objects.filter(pk=test_set.pk).update(words_indexed=indexed)
        test_set.refresh_from_db()
        with CaptureQueriesContext(connection) as queries:
            page = testset_segment_page(test_set=test_set, query="Quetzalcoatlus")
        assert page.rows == [] and page.count == 0
        candidates = [q for q in queries.captured_queries if 'FROM "corpora_candidate"' in q["sql"]]
        assert len(candidates) == texts_read, indexed
    # The index proposes the segments that hold every word, within the range asked.
    proposed = indexed_matches(test_set, ["quetzalcoatl"], 0, 2_000, cap=10)
    assert [index for index, _ in proposed] == [SEARCH_WINDOW + 17, SEARCH_WINDOW + 200]
    assert indexed_matches(test_set, ["quetzalcoatl"], SEARCH_WINDOW + 18, 2_000, cap=10) == [
        proposed[1]
    ]
    assert indexed_matches(test_set, ["quetzalcoatl", "xyzzy"], 0, 2_000, cap=10) == []
    assert indexed_matches(test_set, ["alpha"], 0, 2_000, cap=10) is None  # too many to check


@needs_index
def test_the_page_says_when_a_search_reads_the_set_because_its_index_is_not_built(
    client, viewer_user, monkeypatch
):
    monkeypatch.setattr(selectors, "SEARCH_SLOW_UNINDEXED", SEARCH_WINDOW)
    test_set = _imported(SEARCH_WINDOW + 10)
    small = _imported(SEARCH_WINDOW, name="small")
    client.force_login(viewer_user)
    note = 'id="search-index-pending"'
    url = reverse("corpora:test_set_detail", args=[test_set.pk])
    assert note not in client.get(url, {"q": "alpha"}).content.decode()  # indexed
    SegmentWords.objects.all().delete()  # as before the worker's build
    TestSet.objects.filter(pk__in=[test_set.pk, small.pk]).update(words_indexed=False)
    page = client.get(url, {"q": "alpha"}).content.decode()
    assert note in page and "manage.py index_words" in page
    assert note not in client.get(url).content.decode()  # no search
    # A set that small is read quickly: nothing to say.
    small_url = reverse("corpora:test_set_detail", args=[small.pk])
    assert note not in client.get(small_url, {"q": "alpha"}).content.decode()
    assert testset_words_index(test_set_id=test_set.pk) == SEARCH_WINDOW + 10
    assert note not in client.get(url, {"q": "alpha"}).content.decode()


@needs_index
def test_the_build_goes_on_after_the_last_stored_batch(monkeypatch):
    monkeypatch.setattr(services, "BULK_BATCH", 100)
    test_set = _imported(350)
    words = dict(SegmentWords.objects.values_list("segment_id", "words"))
    # Interrupted after three batches: the next build stores only the rest.
    SegmentWords.objects.filter(segment__index__gte=300).delete()
    TestSet.objects.filter(pk=test_set.pk).update(words_indexed=False)
    assert testset_words_index(test_set_id=test_set.pk) == 50
    assert dict(SegmentWords.objects.values_list("segment_id", "words")) == words
    assert testset_words_index(test_set_id=test_set.pk) == 0  # indexed: nothing to do
    assert testset_words_index(test_set_id=test_set.pk + 1000) == 0  # gone


@needs_index
def test_a_build_that_meets_another_builds_rows_goes_on_after_them(monkeypatch):
    """Two builds of one set at once: the batch the other stored first is a conflict (Django's
    IntegrityError on both databases, COPY included); the build goes on after it."""
    monkeypatch.setattr(services, "BULK_BATCH", 100)
    test_set = _imported(350)
    words = dict(SegmentWords.objects.values_list("segment_id", "words"))
    SegmentWords.objects.filter(segment__index__gte=200).delete()
    TestSet.objects.filter(pk=test_set.pk).update(words_indexed=False)
    starts = iter([100])  # a stale view: batch 100-199 was stored by the other build
    real = services._words_indexed_until
    monkeypatch.setattr(services, "_words_indexed_until", lambda ts: next(starts, None) or real(ts))
    assert testset_words_index(test_set_id=test_set.pk) == 150
    assert dict(SegmentWords.objects.values_list("segment_id", "words")) == words
    assert TestSet.objects.get(pk=test_set.pk).words_indexed


@needs_index
def test_deleting_a_test_set_deletes_its_index():
    kept, gone = _imported(40, "kept"), _imported(40, "gone")
    gone.delete()
    assert SegmentWords.objects.count() == 40
    assert indexed_matches(kept, ["quetzalcoatl"], 0, 40, cap=10) == []
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH 'alpha'")
            in_fts = cursor.fetchone()[0]
        assert in_fts == SegmentWords.objects.filter(words__contains="alpha").count()


@needs_index
def test_the_import_has_a_worker_index_the_set_once_committed(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        test_set = testset_import(corpus=_corpus(12), name="sent", import_format="text").test_set
    test_set.refresh_from_db()
    assert test_set.words_indexed and SegmentWords.objects.count() == 12


def test_an_import_without_a_broker_is_kept_and_says_how_to_index(
    monkeypatch, caplog, django_capture_on_commit_callbacks
):
    class Unreachable:
        def apply_async(self, *args, **kwargs):
            raise KombuOperationalError("connection refused")

    monkeypatch.setattr(dispatch, "task", lambda name: Unreachable())
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        test_set = testset_import(corpus=_corpus(5), name="alone", import_format="text").test_set
    assert TestSet.objects.filter(pk=test_set.pk, words_indexed=False).exists()
    assert "manage.py index_words" in caplog.text


@needs_index
def test_the_command_indexes_what_is_missing():
    for name in ("first", "second"):
        testset_import(
            corpus=_corpus(30 if name == "first" else 31), name=name, import_format="text"
        )
    with pytest.raises(CommandError, match="no test set named 'third'"):
        call_command("index_words", "--name", "third")
    out = _call("index_words", "--name", "second")
    assert re.fullmatch(r"second v1: 31 segments indexed in \d+\.\d s\n", out)
    assert re.fullmatch(r"first v1: 30 segments indexed in \d+\.\d s\n", _call("index_words"))
    assert _call("index_words") == "every test set is indexed\n"
    assert SegmentWords.objects.count() == 61


def _call(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (set DATABASE_URL=postgres://…)"
)
def test_the_index_query_can_use_the_trigram_index_on_postgresql():
    """Django's ``icontains`` is ``UPPER(words::text) LIKE UPPER(…)``: the GIN index on
    ``UPPER(words)`` must serve it. A set this small is read faster without any index, so
    the planner is left only bitmap scans and hash joins, which the GIN index can serve."""
    test_set = _imported(300)
    with CaptureQueriesContext(connection) as queries:
        indexed_matches(test_set, ["quetzalcoatl", "xyzzy"], 0, 300, cap=10)
    (query,) = queries.captured_queries
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE corpora_segmentwords")
        for setting in ("enable_seqscan", "enable_indexscan", "enable_nestloop"):
            cursor.execute(f"SET LOCAL {setting} = off")
        cursor.execute("EXPLAIN " + query["sql"])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "segmentwords_trgm_idx" in plan, plan
