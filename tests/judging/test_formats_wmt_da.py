"""WMT DA parser: the official WMT21 cs-en aggregates reproduced from the per-judge rows, and
clear errors for bad files."""

from __future__ import annotations

import math

import pytest

from evaltrans.corpora.formats.base import CorpusFormatError, InputFile
from judging.formats import parse_judgments
from judging.formats.wmt_da import (
    WMT_DA_RECOMPUTED,
    WMT_DA_SCORING,
    parse_judge_stats,
    parse_wmt_da_csv,
    system_name,
)
from metrics.core.human_scores import (
    Rounding,
    human_scores,
    judge_stats,
    normalize_by_judge,
)
from tests.conftest import shared_path

FOLDER = ("wmt21-news-cs-en", "humaneval", "newstest2021-toen")


def _shared(name: str) -> InputFile:
    path = shared_path(*FOLDER, name)
    return InputFile(name, path.read_bytes())


@pytest.fixture(scope="module")
def records():
    return parse_wmt_da_csv(
        _shared("ad-csen-good-stnd.csv"), judge_stats=_shared("ad-csen-trk-mean-sd.txt")
    )


def _table(name: str) -> list[list[str]]:
    lines = shared_path(*FOLDER, name).read_text().splitlines()
    return [line.split() for line in lines[1:] if line.strip()]


def _printed(value: float) -> float:
    """The value as R's write.table prints it (15 significant digits)."""
    return float(f"{value:.15g}")


def test_parser_reads_every_row_with_its_kind(records):
    kinds = {}
    for record in records:
        kinds[record.kind] = kinds.get(record.kind, 0) + 1
    assert kinds == {"SYSTEM": 9449, "BAD_REF": 1216, "REPEAT": 1202, "REF": 1202}
    first = records[0]
    assert (first.system, first.segment_id, first.judge, first.aspect) == (
        "Facebook-AI",
        "177",
        "M0013",
        "adequacy",
    )
    assert first.z_given == 0.620848309044951
    assert first.raw == 100.0
    assert first.extra["sys_id"] == "Facebook-AI.7"
    assert first.extra["line"] == 2


def _z_column() -> list[str]:
    """The ``score`` column of the per-judge file as printed (R's write.table, 15 digits)."""
    lines = shared_path(*FOLDER, "ad-csen-good-stnd.csv").read_text().splitlines()
    column = lines[0].split().index("score")
    return [line.split()[column] for line in lines[1:] if line.strip()]


SCORINGS = pytest.mark.parametrize(
    "scoring", [WMT_DA_SCORING, WMT_DA_RECOMPUTED], ids=["given-z", "recomputed-z"]
)


@SCORINGS
def test_segment_scores_reproduce_wmt_ad_seg_scores_exactly(records, scoring):
    """SYS SID RAW.SCR Z.SCR N: every row, to the printed digits, from the per-judge rows, with
    WMT's z as given and with the z recomputed from the raw scores."""
    result = human_scores(records, aspect="adequacy", bootstrap_samples=0, **scoring)
    ours = {(s.system, s.segment_id): s for s in result.segments}
    official = _table("ad-seg-scores-cs-en.csv")
    assert len(official) == len(ours) == 8155
    for sys_id, sid, raw, z, n in official:
        segment = ours[(system_name(sys_id), sid)]
        assert _printed(segment.raw) == float(raw), (sys_id, sid)
        assert _printed(segment.normalized) == float(z), (sys_id, sid)
        assert segment.n == int(n)


@SCORINGS
def test_system_scores_reproduce_wmt_ad_sys_scores_exactly(records, scoring):
    """RAW.SCR Z.SCR N SYS N.ALL: unweighted mean of segment scores, to the printed digits; N
    segments, N.ALL judgments; HUMAN is rated as a system."""
    result = human_scores(records, aspect="adequacy", bootstrap_samples=0, **scoring)
    official = _table("ad-sys-scores-cs-en.csv")
    assert len(official) == len(result.systems) == 9
    for raw, z, n, sys_id, n_all in official:
        system = result.system(system_name(sys_id))
        assert _printed(system.raw) == float(raw), sys_id
        assert _printed(system.normalized) == float(z), sys_id
        assert (system.n_segments, system.n_judgments) == (int(n), int(n_all))


def test_each_of_wmts_roundings_is_needed(records):
    """Leaving out any one rounding step of WMT's R scripts breaks the reproduction: the
    recomputed z must use the stats printed with 7 digits, and the z and the segment scores
    must be averaged as written (15 digits)."""
    official = {
        (system_name(row[0]), row[1]): float(row[3]) for row in _table("ad-seg-scores-cs-en.csv")
    }
    systems = {system_name(row[3]): float(row[1]) for row in _table("ad-sys-scores-cs-en.csv")}
    for rounding in (Rounding(None, 15, 15), Rounding(7, None, 15), Rounding(7, 15, None)):
        result = human_scores(
            records, aspect="adequacy", bootstrap_samples=0,
            **{**WMT_DA_RECOMPUTED, "rounding": rounding},
        )  # fmt: skip
        segment_misses = sum(
            _printed(s.normalized) != official[(s.system, s.segment_id)] for s in result.segments
        )
        system_misses = sum(_printed(s.normalized) != systems[s.system] for s in result.systems)
        assert segment_misses + system_misses > 0, rounding


def test_our_sample_statistics_are_wmts_judge_statistics(records):
    """Per judge, the sample mean and sd of the raw scores over all the judge's rows (quality
    control included) equal the stats file to its 7 printed digits; the population sd does not."""
    printed = parse_judge_stats(_shared("ad-csen-trk-mean-sd.txt"))
    by_judge: dict[str, list[float]] = {}
    for record in records:
        by_judge.setdefault(record.judge, []).append(record.raw)
    assert len(by_judge) == 92
    population_mismatch = 0
    for judge, scores in by_judge.items():
        ours = judge_stats(judge, scores)
        assert float(f"{ours.mean:.7g}") == printed[judge].mean
        assert float(f"{ours.sd:.7g}") == printed[judge].sd
        population = judge_stats(judge, scores, sd="population").sd
        population_mismatch += float(f"{population:.7g}") != printed[judge].sd
    assert population_mismatch == 92


def test_wmts_z_column_was_computed_from_the_stats_rounded_to_7_digits(records):
    """Why full-precision z differ from WMT's at 1e-5: WMT divided by its judge statistics as R
    printed them (7 significant digits). Our normalization with the mean and sd rounded to 7
    digits gives every printed z of the file, all 15 digits; at full precision nearly none."""
    judges = [record.judge for record in records]
    raw = [record.raw for record in records]
    rounded = normalize_by_judge(judges, raw, stats_digits=7).z
    full = normalize_by_judge(judges, raw).z
    printed = _z_column()
    assert len(printed) == len(records)
    full_misses = 0
    for text, ours, exact in zip(printed, rounded, full, strict=True):
        assert f"{ours:.15g}" == f"{float(text):.15g}"
        assert exact == pytest.approx(float(text), abs=1e-5)
        full_misses += f"{exact:.15g}" != f"{float(text):.15g}"
    assert full_misses > 0.99 * len(records)


def test_without_stats_only_the_given_z_is_known():
    records = parse_wmt_da_csv(_shared("ad-csen-good-stnd.csv"))
    assert all(record.raw is None for record in records)
    result = human_scores(records, aspect="adequacy", weighting="none", bootstrap_samples=0)
    assert result.system("Facebook-AI").raw is None
    assert _printed(result.system("Facebook-AI").normalized) == 0.111334676751657


# --------------------------------------------------------------------------- bad input

HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
ROW = "H1\tM1\tcs\ten\tad\t4\tSys-A.1\t1000039\t{type}\t{sid}\t{score}\t931.0\n"
STATS = '[1] "M1"\n[1] 50\n[1] 25\n'


def _csv(*rows: str, header: str = HEADER) -> InputFile:
    return InputFile("judgments.csv", (header + "".join(rows)).encode())


def _row(type_: str = "SYSTEM", sid: str = "1", score: str = "0.5") -> str:
    return ROW.format(type=type_, sid=sid, score=score)


def _stats(text: str = STATS) -> InputFile:
    return InputFile("stats.txt", text.encode())


def test_small_file_parses_with_raw_scores():
    records = parse_wmt_da_csv(
        _csv(_row(score="0.52"), _row("REPEAT", score="-1")), judge_stats=_stats()
    )
    assert [(r.system, r.kind, r.raw) for r in records] == [
        ("Sys-A", "SYSTEM", 63.0),
        ("Sys-A", "REPEAT", 25.0),
    ]
    assert parse_judgments("wmt-da-csv", _csv(_row()))[0].z_given == 0.5


@pytest.mark.parametrize(
    ("file", "stats", "where", "message"),
    [
        (
            _csv(_row(), header="HITId Worker sys_id type sid score\n"),
            None,
            "judgments.csv, line 1",
            "missing column(s) WorkerId",
        ),
        (
            _csv("H1\tM1\tcs\ten\tad\n"),
            None,
            "judgments.csv, line 2",
            "5 fields, the header has 12",
        ),
        (
            _csv(_row(), _row(sid="2", score="high")),
            None,
            "judgments.csv, line 3",
            "score is not a number: 'high'",
        ),
        (_csv(_row(score="nan")), None, "judgments.csv, line 2", "score is not finite"),
        (_csv(_row(type_="SYSTEMS")), None, "judgments.csv, line 2", "unknown type 'SYSTEMS'"),
        (_csv(_row(), _row()), None, "judgments.csv, line 3", "scored Sys-A segment 1"),
        (
            _csv(_row()),
            '[1] "M2"\n[1] 50\n[1] 25\n',
            "judgments.csv, line 2",
            "worker M1 is not in stats.txt",
        ),
        (_csv(_row(score="0.123")), STATS, "judgments.csv, line 2", "is not an integer"),
        (_csv(_row()), '[1] "M1"\n[1] 50\n', "stats.txt, line 2", "truncated"),
        (_csv(_row()), '[1] "M1"\n50\n[1] 25\n', "stats.txt, line 2", "expected R print output"),
        (_csv(_row()), "[1] M1\n[1] 50\n[1] 25\n", "stats.txt, line 1", "expected a quoted"),
        (
            _csv(_row()),
            '[1] "M1"\n[1] fifty\n[1] 25\n',
            "stats.txt, line 2",
            "mean is not a number",
        ),
        (_csv(_row()), '[1] "M1"\n[1] 50\n[1] -2\n', "stats.txt, line 3", "negative"),
        (_csv(_row()), STATS + '[1] "M1"\n[1] 51\n[1] 25\n', "stats.txt, line 4", "listed again"),
        (
            InputFile("judgments.csv", HEADER.encode() + b"H1\tM\xe9\n"),
            None,
            "judgments.csv, line 2",
            "not valid UTF-8",
        ),
        (_csv(_row()), b'[1] "M1"\n[1] 5\xff0\n[1] 25\n', "stats.txt, line 2", "not valid UTF-8"),
        (_csv(), None, "judgments.csv", "no judgments after the header"),
        (InputFile("judgments.csv", b""), None, "judgments.csv", "empty"),
    ],
)
def test_bad_input_names_file_line_and_problem(file, stats, where, message):
    judge_stats = None
    if stats is not None:
        data = stats if isinstance(stats, bytes) else stats.encode()
        judge_stats = InputFile("stats.txt", data)
    with pytest.raises(CorpusFormatError) as error:
        parse_wmt_da_csv(file, judge_stats=judge_stats)
    assert str(error.value).startswith(where + ":")
    assert message in str(error.value)


def test_unknown_format_and_misplaced_stats_are_reported():
    with pytest.raises(CorpusFormatError, match="unknown judgments format 'csv'"):
        parse_judgments("csv", _csv(_row()))
    with pytest.raises(CorpusFormatError, match="has no judge-stats file"):
        parse_judgments("mqm-tsv", _csv(_row()), judge_stats=_stats())


def test_system_index_is_kept_on_request():
    records = parse_wmt_da_csv(_csv(_row()), strip_system_index=False)
    assert records[0].system == "Sys-A.1"
    assert math.isclose(records[0].z_given, 0.5)
