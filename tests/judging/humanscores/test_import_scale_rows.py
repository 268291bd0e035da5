"""The import's fast path stores exactly what ``bulk_create`` of model instances stored.

Judgments are written as plain tuples (``evaltrans.corpora.bulk.insert_rows``: ``COPY`` on
PostgreSQL, ``executemany`` on SQLite) instead of ``ExternalJudgment`` instances, and the WMT
DA parser shares one string object per distinct value; both for speed and memory at 500,000
judgments (docs/performance.md, "Human scores at WMT scale"). These tests store the same
records both ways and compare every column, the JSON of ``extra`` as the database holds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from evaltrans.corpora.formats.base import InputFile
from judging.formats.wmt_da import parse_wmt_da_csv, system_name
from judging.humanscores import services
from judging.humanscores.models import ExternalJudgment, JudgmentSet
from tests.conftest import shared_path

pytestmark = pytest.mark.django_db

WMT21 = ("wmt21-news-cs-en", "humaneval", "newstest2021-toen")


def _read(path: Path) -> InputFile:
    return InputFile(path.name, path.read_bytes())


def _stored(judgment_set: JudgmentSet) -> list[tuple[object, ...]]:
    """Every column of the set's judgments in insertion order, ``extra`` as stored text."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT system, segment_key, segment_id, judge, aspect, raw, z_given, kind, "
            f"CAST(extra AS TEXT) FROM {ExternalJudgment._meta.db_table} "
            "WHERE judgment_set_id = %s ORDER BY id",
            [judgment_set.pk],
        )
        return cursor.fetchall()


@pytest.fixture
def stored_both_ways(monkeypatch):
    """Every import also stores its records the old way, as model instances through
    ``bulk_create``, in a second set; yields the list of (new set, old set)."""
    pairs: list[tuple[int, JudgmentSet]] = []
    insert = services._insert_judgments

    def both(set_pk, records, segments):
        insert(set_pk, records, segments)
        judgment_set = JudgmentSet.objects.get(pk=set_pk)
        old = JudgmentSet.objects.create(
            name=f"{judgment_set.name} (bulk_create)", source_format=judgment_set.source_format
        )
        ExternalJudgment.objects.bulk_create(
            (
                ExternalJudgment(
                    judgment_set=old,
                    system=record.system,
                    segment_key=record.segment_id,
                    segment=segments.get(record.segment_id),
                    judge=record.judge,
                    aspect=record.aspect,
                    raw=record.raw,
                    z_given=record.z_given,
                    kind=record.kind,
                    extra=record.extra,
                )
                for record in records
            ),
            batch_size=services.BULK_BATCH,
        )
        pairs.append((set_pk, old))

    monkeypatch.setattr(services, "_insert_judgments", both)
    return pairs


def _check_same_rows(pairs: list[tuple[int, JudgmentSet]]) -> None:
    ((new_pk, old),) = pairs
    rows = _stored(JudgmentSet.objects.get(pk=new_pk))
    assert rows
    assert rows == _stored(old)


def test_da_rows_equal_bulk_create(files, stored_both_ways):
    result = services.judgmentset_import_file(
        import_format="wmt-da-csv",
        file=_read(files["da"]),
        judge_stats=_read(files["stats"]),
        name="da",
    )
    _check_same_rows(stored_both_ways)
    first = result.judgment_set.judgments.order_by("pk").first()
    assert (first.raw, first.z_given, first.extra["line"], first.extra["sys_id"]) == (
        60.0,
        0.5,
        2,
        "sysA.1",
    )


def test_da_without_stats_stores_null_raw(files, stored_both_ways):
    result = services.judgmentset_import_file(
        import_format="wmt-da-csv", file=_read(files["da"]), name="da z only"
    )
    _check_same_rows(stored_both_ways)
    assert not result.judgment_set.judgments.filter(raw__isnull=False).exists()


def test_attached_mqm_rows_keep_their_segment_links(files, toy_test_set, stored_both_ways):
    result = services.judgmentset_import_file(
        import_format="mqm-tsv", file=_read(files["mqm"]), name="mqm", test_set=toy_test_set
    )
    assert result.judgment_set.test_set == toy_test_set
    _check_same_rows(stored_both_ways)
    assert not result.judgment_set.judgments.filter(segment__isnull=True).exists()


def test_evaltrans_xml_rows_equal_bulk_create(files, stored_both_ways):
    services.judgmentset_import_file(
        import_format="evaltrans-xml", file=_read(files["xml"]), name="xml"
    )
    _check_same_rows(stored_both_ways)


@pytest.mark.shared_data
def test_wmt21_rows_equal_bulk_create(stored_both_ways):
    folder = shared_path(*WMT21)
    result = services.judgmentset_import_file(
        import_format="wmt-da-csv",
        file=_read(folder / "ad-csen-good-stnd.csv"),
        judge_stats=_read(folder / "ad-csen-trk-mean-sd.txt"),
        name="wmt21 cs-en",
    )
    assert result.count == 13069
    _check_same_rows(stored_both_ways)


@pytest.mark.shared_data
def test_wmt21_records_are_the_rows_as_split():
    """Shared strings change no value: each record is its line split on whitespace."""
    path = shared_path(*WMT21, "ad-csen-good-stnd.csv")
    records = parse_wmt_da_csv(_read(path))
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split()
    assert len(records) == len(lines) - 1
    for number, (line, record) in enumerate(zip(lines[1:], records, strict=True), 2):
        row = dict(zip(header, line.split(), strict=True))
        extra = {"line": number}
        extra.update(
            {k: v for k, v in row.items() if k not in ("WorkerId", "type", "sid", "score")}
        )
        assert record.extra == extra
        assert list(record.extra) == list(extra)
        assert (record.system, record.segment_id, record.judge, record.kind) == (
            system_name(row["sys_id"]),
            row["sid"],
            row["WorkerId"],
            row["type"],
        )
        assert record.z_given == float(row["score"])


def test_repeated_header_column_keeps_the_last_value(tmp_path):
    """A column named twice: its value is the last one, at the place of the first (as
    ``dict(zip(header, fields))`` gave)."""
    path = tmp_path / "twice.csv"
    path.write_text(
        "WorkerId time sys_id type sid score time\nW1 1.0 sysA.1 SYSTEM 1 0.5 2.0\n",
        encoding="utf-8",
    )
    (record,) = parse_wmt_da_csv(_read(path))
    assert record.extra == {"line": 2, "time": "2.0", "sys_id": "sysA.1"}
    assert list(record.extra) == ["line", "time", "sys_id"]


def test_failure_after_some_batches_leaves_nothing(files, monkeypatch):
    """Rows go in batch by batch inside the import's transaction: a failure in a later batch
    rolls back the set and the batches already written."""
    insert = services.insert_rows
    calls = []

    def second_fails(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        insert(*args, **kwargs)

    monkeypatch.setattr(services, "BULK_BATCH", 2)
    monkeypatch.setattr(services, "insert_rows", second_fails)
    with pytest.raises(RuntimeError):
        services.judgmentset_import_file(
            import_format="wmt-da-csv",
            file=_read(files["da"]),
            judge_stats=_read(files["stats"]),
            name="da",
        )
    assert len(calls) == 2
    assert JudgmentSet.objects.count() == 0
    assert ExternalJudgment.objects.count() == 0
