"""The test-set browser pages by keyset (issue 16): no OFFSET, an index from any page on.

The EXPLAIN test runs on PostgreSQL only (``DATABASE_URL=postgres://…``): SQLite's planner
says little, and the indexes matter where sets are large.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evaltrans.corpora.bulk import insert_rows
from evaltrans.corpora.models import Candidate, Segment, System, TestSet
from evaltrans.corpora.selectors import SEGMENTS_PER_PAGE, testset_segment_page

pytestmark = pytest.mark.django_db


def _test_set(name: str, segments: int, systems: int = 2) -> TestSet:
    """A test set whose segment ``i`` reads "sentence i", with "match" in every 7th."""
    test_set = TestSet.objects.create(
        name=name, content_hash=name.ljust(64, "x"), source_lang="en", target_lang="de",
        import_format="text",
    )  # fmt: skip
    insert_rows(
        Segment,
        ("test_set_id", "index", "doc_id", "seg_id", "source"),
        [
            (test_set.pk, i, f"doc{i // 100}", str(i + 1), f"sentence {i}{' match' * (i % 7 == 0)}")
            for i in range(segments)
        ],
    )
    ids = list(test_set.segments.order_by("index").values_list("pk", flat=True))
    for number in range(systems):
        system = System.objects.create(test_set=test_set, name=f"sys{number}")
        insert_rows(
            Candidate,
            ("system_id", "segment_id", "text"),
            [(system.pk, pk, f"output {number} of {i}") for i, pk in enumerate(ids)],
        )
    return test_set


def _indexes(page) -> list[int]:  # noqa: ANN001
    return [row.segment.index for row in page.rows]


def test_pages_without_search_start_at_their_index():
    test_set = _test_set("plain", 45)
    first = testset_segment_page(test_set=test_set)
    assert (first.number, first.num_pages, first.count) == (1, 3, 45)
    assert _indexes(first) == list(range(20))
    assert (first.has_previous, first.has_next) == (False, True)
    last = testset_segment_page(test_set=test_set, page_number=3)
    assert _indexes(last) == list(range(40, 45))
    assert (last.has_previous, last.has_next) == (True, False)
    assert testset_segment_page(test_set=test_set, page_number=99).number == 3
    assert testset_segment_page(test_set=test_set, page_number="x").number == 1


def test_search_pages_follow_cursors_both_ways():
    test_set = _test_set("search", 300)
    matching = [i for i in range(300) if i % 7 == 0]  # 43 matches: pages of 20, 20, 3
    first = testset_segment_page(test_set=test_set, query="MATCH")
    assert _indexes(first) == matching[:20]
    assert (first.has_previous, first.has_next, first.count) == (False, True, None)
    second = testset_segment_page(test_set=test_set, query="match", after=first.next_after)
    assert _indexes(second) == matching[20:40]
    third = testset_segment_page(test_set=test_set, query="match", after=second.next_after)
    assert _indexes(third) == matching[40:]
    assert (third.has_previous, third.has_next) == (True, False)
    back = testset_segment_page(test_set=test_set, query="match", before=third.previous_before)
    assert _indexes(back) == matching[20:40]
    assert (back.has_previous, back.has_next) == (True, True)
    start = testset_segment_page(test_set=test_set, query="match", before=back.previous_before)
    assert _indexes(start) == matching[:20]
    assert (start.has_previous, start.has_next) == (False, True)
    # Text found in a candidate counts too; a single page of matches is counted.
    one = testset_segment_page(test_set=test_set, query="output 1 of 299")
    assert (_indexes(one), one.count) == ([299], 1)


def test_browser_links_carry_the_cursor_and_the_filters(client, viewer_user):
    test_set = _test_set("links", 300)
    client.force_login(viewer_user)
    url = reverse("corpora:test_set_detail", args=[test_set.pk])
    first = client.get(url, {"q": "match", "system": "sys1"}).content.decode()
    assert "segments matching “match”, #1 to #134 shown" in first
    next_link = re.search(r'href="\?([^"]*)" rel="next"', first).group(1).replace("&amp;", "&")
    assert sorted(next_link.split("&")) == ["after=133", "q=match", "system=sys1"]
    second = client.get(f"{url}?{next_link}").content.decode()
    assert "#141 to #274 shown" in second and "output 1 of 140" in second
    assert "output 0 of 140" not in second  # only the chosen system
    assert 'rel="prev"' in second
    plain = client.get(url, {"page": "15"}).content.decode()
    assert "Page 15 of 15" in plain and "sentence 280" in plain


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (set DATABASE_URL=postgres://…)"
)
def test_browser_queries_use_indexes_and_no_offset_on_postgresql():
    """EXPLAIN every query of a deep page and of a search page on a set of 20,000 segments
    × 2 systems (beside another set): segments are read through the (test_set, index) index,
    candidates through the segment index, and nothing is skipped with OFFSET."""
    _test_set("other", 5_000)
    test_set = _test_set("big", 20_000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE corpora_segment; ANALYZE corpora_candidate; ANALYZE corpora_system")
    last_page = -(-20_000 // SEGMENTS_PER_PAGE)
    with CaptureQueriesContext(connection) as plain:
        page = testset_segment_page(test_set=test_set, page_number=last_page)
    assert _indexes(page)[-1] == 19_999
    with CaptureQueriesContext(connection) as search:
        page = testset_segment_page(test_set=test_set, query="match", after=19_000)
    assert _indexes(page)[0] == 19_005
    plain_plans, search_plans = _plans(plain.captured_queries), _plans(search.captured_queries)
    for sql, plan in plain_plans.items():
        assert not re.search("Seq Scan on corpora_(segment|candidate|reference)", plan), (sql, plan)
    segment_plans = [plan for sql, plan in plain_plans.items() if 'FROM "corpora_segment"' in sql]
    assert any("segment_position_unique" in plan for plan in segment_plans), segment_plans
    rows = [plan for sql, plan in plain_plans.items() if 'FROM "corpora_candidate"' in sql]
    assert any("corpora_candidate_segment_id" in plan for plan in rows), rows
    # A search reads the set window by window of indexes, then the references and candidates
    # of exactly those segments through their segment indexes.
    for sql, plan in search_plans.items():
        assert not re.search("Seq Scan on corpora_(segment|candidate|reference)", plan), (sql, plan)
    windows = [plan for sql, plan in search_plans.items() if '"corpora_segment"."index" >=' in sql]
    assert windows and all("segment_position_unique" in plan for plan in windows), windows


def _plans(queries: list[dict]) -> dict[str, str]:
    """The EXPLAIN output of each captured query on segments or candidates, by its SQL."""
    plans = {}
    for query in queries:
        sql = query["sql"]
        assert " OFFSET " not in sql.upper(), sql
        if re.search(r'FROM "corpora_(segment|candidate)"', sql):
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN " + sql)
                plans[sql] = "\n".join(row[0] for row in cursor.fetchall())
    assert plans
    return plans
