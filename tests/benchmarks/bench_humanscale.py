"""Benchmark of human scores at WMT DA scale: import, normalization + ranking, panels.

Data (generated into a temporary folder, never committed): a WMT DA per-judge file
(``ad-*-good-stnd.csv`` layout) and its judge-stats file (``ad-*-trk-mean-sd.txt``), made by
repeating the 13,069 rows of the real WMT21 news cs-en file
(``mt-eval-data/wmt21-news-cs-en/humaneval/newstest2021-toen/ad-csen-good-stnd.csv``). Copy 0 is
the real file, its rows and its stats as they are. Copy ``c`` > 0 is a new batch of the same
shape: every worker gets a new id (``M0013`` -> ``M0013-c``), every HIT a new id, every
segment id moves by ``c`` × 10,000 (so a copy judges new candidates, with the real file's
judgments per candidate and judges per candidate), and each raw score (recovered from the real
z and stats, as the importer does) is shifted by a per-(copy, worker) offset plus a per-row
noise, both drawn from ``numpy.random.default_rng(SEED)``, rounded and clipped to 0-100. Each
new worker's mean and sample sd are written with R's 7 significant digits and the z with 15
digits, as WMT did, so the importer's check (z·sd + mean is an integer) holds. A file of
``N`` judgments takes the first ``N`` rows of copy 0, 1, 2, ... in order.

Rows (``B`` = ``EVALTRANS_BENCH_HUMAN_BASE`` judgments, default 5,000; sizes B, 10 B, 100 B,
i.e. 5,000 / 50,000 / 500,000):

* ``manage.py import_judgments wmt-da-csv FILE --judge-stats STATS`` as a whole process on
  SQLite at each size: wall time, peak resident memory of the child (``wait4``), and the
  growth exponent (log-log slope of time and of peak memory from 10 B to 100 B, and fitted
  over the three sizes);
* ``manage.py human_scores --name … --json --bootstrap 1000`` as a whole process at each size:
  loading the set, normalization, segment and system scores, 1,000 bootstrap resamples per
  system; plus, in one ``manage.py shell`` at 100 B, the parts: loading the judgments (one
  query), the panels' cache key (an imported set's id and revision), ``source_human_scores``
  (normalization + ranking with 1,000 resamples), and the ranking panel's data (the scores
  again and the paired bootstrap);
* the three panels (ranking, judge bias, agreement) at 100 B through Django's test client, one
  process each, after a first page (imports and templates warm): cold (cache cleared) and warm
  (cached, best of 3), server time of the whole page;
* the import, the scores and the panels at 100 B on PostgreSQL when ``EVALTRANS_BENCH_PG_URL``
  names a scratch database (it is emptied with ``flush`` first: never name a database you
  need).

Every child runs under ``EVALTRANS_BENCH_HUMAN_TIMEOUT`` seconds (900) and an address-space cap
of ``EVALTRANS_BENCH_HUMAN_MAX_GB`` (8): a step that runs past either is a row with an infinite
time and the reason (the agreement panel at 500,000 judgments asks for an 8.2 GiB array).

``EVALTRANS_BENCH_HUMAN_PROFILE=1`` also profiles the import and each panel at 100 B on SQLite
(cProfile's top functions by cumulative and own time; tracemalloc's peak, and for the import
its top allocation sites once parsed) and prints them to stderr.

Targets (scale issue): 500,000 judgments imported in < 60 s; normalization + system ranking
with 1,000 bootstrap resamples < 5 s; panels < 1 s cached. Run
``python -m tests.benchmarks humanscale``. Without the shared data the module says so and gives
no rows.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from tests.benchmarks.common import BenchRow, manage_env

PROJECT = Path(__file__).resolve().parents[2]
DATA_DIR = Path("wmt21-news-cs-en") / "humaneval" / "newstest2021-toen"
JUDGMENTS = "ad-csen-good-stnd.csv"
STATS = "ad-csen-trk-mean-sd.txt"
DEFAULT_BASE = 5_000
SCALES = (1, 10, 100)
SEED = 20211
SEGMENT_OFFSET = 10_000
JUDGE_SHIFT_SD = 5.0
ROW_NOISE_SD = 3.0
BOOTSTRAP = 1000
TIMEOUT_S = 1800
TARGET_IMPORT_S = 60.0
TARGET_RANKING_S = 5.0
TARGET_PANEL_S = 1.0


def _data_root() -> Path:
    shared = Path(
        os.environ.get("EVALTRANS_SHARED_DATA", PROJECT.parent / "shared" / "mt-eval-data")
    )
    return shared / DATA_DIR


# ---------------------------------------------------------------- data


def _r_digits(value: float, digits: int) -> str:
    """``value`` as R prints it with ``digits`` significant digits (no trailing zeros)."""
    return f"{value:.{digits}g}"


def _read_real(root: Path) -> tuple[list[str], list[list[str]], dict[str, tuple[str, str]]]:
    """Header, rows (fields) and each worker's printed (mean, sd) of the real files."""
    lines = (root / JUDGMENTS).read_text(encoding="utf-8").splitlines()
    header = lines[0].split()
    rows = [line.split() for line in lines[1:] if line.strip()]
    stats_lines = [
        line.split(None, 1)[1].strip()
        for line in (root / STATS).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    stats = {
        stats_lines[k].strip('"'): (stats_lines[k + 1], stats_lines[k + 2])
        for k in range(0, len(stats_lines), 3)
    }
    return header, rows, stats


def generate(folder: Path, judgments: int, root: Path | None = None) -> dict[str, object]:
    """Write ``judgments`` rows and their judge-stats file into ``folder`` (module docstring).

    Returns the two paths (``judgments``, ``stats``), the number of judges and the bytes
    written."""
    header, rows, real_stats = _read_real(root or _data_root())
    column = {name: k for k, name in enumerate(header)}
    worker_col, hit_col, sid_col = column["WorkerId"], column["HITId"], column["sid"]
    score_col = column["score"]
    # The real raw scores, as the importer recovers them (z * sd + mean, an integer).
    raw = np.array(
        [
            round(
                float(row[score_col]) * float(real_stats[row[worker_col]][1])
                + float(real_stats[row[worker_col]][0])
            )
            for row in rows
        ],
        dtype=np.float64,
    )
    if max(int(row[sid_col]) for row in rows) >= SEGMENT_OFFSET:
        raise ValueError(f"segment ids of {JUDGMENTS} reach {SEGMENT_OFFSET}: copies would collide")
    workers = sorted({row[worker_col] for row in rows})
    worker_index = np.array([workers.index(row[worker_col]) for row in rows])
    rng = np.random.default_rng(SEED)
    folder.mkdir(parents=True, exist_ok=True)
    out_path, stats_path = folder / "ad-judgments-good-stnd.csv", folder / "ad-trk-mean-sd.txt"
    written, judges = 0, 0
    with (
        out_path.open("w", encoding="utf-8", newline="\n") as out,
        stats_path.open("w", encoding="utf-8", newline="\n") as stats_out,
    ):
        out.write("\t".join(header) + "\n")
        copy = 0
        while written < judgments:
            take = min(len(rows), judgments - written)
            if copy == 0:
                used = sorted({row[worker_col] for row in rows[:take]})
                for worker in used:
                    mean, sd = real_stats[worker]
                    stats_out.write(f'[1] "{worker}"\n[1] {mean}\n[1] {sd}\n')
                out.writelines("\t".join(row) + "\n" for row in rows[:take])
            else:
                shift = rng.normal(0.0, JUDGE_SHIFT_SD, len(workers))[worker_index[:take]]
                noise = rng.normal(0.0, ROW_NOISE_SD, take)
                scores = np.clip(np.rint(raw[:take] + shift + noise), 0, 100)
                by_worker: dict[int, list[float]] = defaultdict(list)
                for k in range(take):
                    by_worker[int(worker_index[k])].append(float(scores[k]))
                printed: dict[int, tuple[float, float]] = {}
                for index, values in sorted(by_worker.items()):
                    mean = float(np.mean(values))
                    sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
                    mean_text, sd_text = _r_digits(mean, 7), _r_digits(sd, 7)
                    printed[index] = (float(mean_text), float(sd_text))
                    stats_out.write(
                        f'[1] "{workers[index]}-{copy}"\n[1] {mean_text}\n[1] {sd_text}\n'
                    )
                offset = copy * SEGMENT_OFFSET
                for k in range(take):
                    row = list(rows[k])
                    mean, sd = printed[int(worker_index[k])]
                    z = (float(scores[k]) - mean) / sd if sd > 0 else 0.0
                    row[worker_col] = f"{row[worker_col]}-{copy}"
                    row[hit_col] = f"{row[hit_col]}-{copy}"
                    row[sid_col] = str(int(row[sid_col]) + offset)
                    row[score_col] = f"{z:.15g}"
                    out.write("\t".join(row) + "\n")
            judges += len({int(i) for i in worker_index[:take]})
            written += take
            copy += 1
    size = out_path.stat().st_size + stats_path.stat().st_size
    return {"judgments": out_path, "stats": stats_path, "judges": judges, "bytes": size}


# ---------------------------------------------------------------- processes


def _env(var: Path, database_url: str | None) -> dict[str, str]:
    # 500,000 judgments are a 55 MB file, above the default CORPUS_UPLOAD_MAX_BYTES (50 MiB).
    return manage_env(var, database_url, upload_bytes=512 * 1024**2, upload_total_bytes=1024**3)


def _memory_limit_gb() -> float:
    return float(os.environ.get("EVALTRANS_BENCH_HUMAN_MAX_GB") or 8)


def _limit_memory() -> None:
    """In the child: cap its address space, so that a page that would need more memory than
    the machine has (the agreement panel at 500,000 judgments asked for 15 GB) fails with a
    MemoryError instead of pushing the machine, shared with other work, into swap or the OOM
    killer."""
    limit = int(_memory_limit_gb() * 1024**3)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class TimedOut(RuntimeError):
    """The child ran past its time limit and was killed."""


class Failed(RuntimeError):
    """The child exited with an error (e.g. a MemoryError under the memory cap)."""


def _manage(
    env: dict[str, str], *args: str, timeout: float = TIMEOUT_S, python: tuple[str, ...] = ()
) -> tuple[float, float, str]:
    """Run ``manage.py`` as a child process: (wall seconds, peak RSS of the child in MB,
    stdout). ``python`` are interpreter options (e.g. ``-m cProfile -o FILE``)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, *python, "manage.py", *args],
            cwd=PROJECT,
            env=env,
            stdout=out,
            stderr=err,
            preexec_fn=_limit_memory,
        )
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)  # this child's own peak
            if pid:
                break
            if time.perf_counter() - started > timeout:
                child.kill()
                os.wait4(child.pid, 0)
                raise TimedOut(f"manage.py {args[0]} still running after {timeout:.0f} s")
            time.sleep(0.05)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            lines = err.read().strip().splitlines() or ["(no message)"]
            raise Failed(
                f"manage.py {args[0]} failed after {seconds:.1f} s, peak RSS"
                f" {usage.ru_maxrss / 1024:.0f} MB: {lines[-1][:200]}"
            )
        return seconds, usage.ru_maxrss / 1024, out.read()


def _import_args(files: dict[str, object], name: str) -> list[str]:
    return [
        "import_judgments",
        "wmt-da-csv",
        str(files["judgments"]),
        "--judge-stats",
        str(files["stats"]),
        "--name",
        name,
    ]


def _slope(sizes: list[float], values: list[float]) -> float:
    """Least-squares slope of log(value) over log(size): value ~ size^slope."""
    if len(sizes) < 2 or min(values) <= 0:
        return math.nan
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


PARTS = """
import json, time
from judging.humanscores import selectors
started = time.perf_counter()
source = selectors.human_source_by_name(name={name!r})
judgments = len(list(source.records))  # an imported set reads its judgments on first use
loaded = time.perf_counter()
fingerprint = source.fingerprint
fingerprinted = time.perf_counter()
aspect = source.score_aspects[0]
scores = selectors.source_human_scores(source=source, aspect=aspect, bootstrap_samples={boot})
scored = time.perf_counter()
panel = selectors._ranking_panel(source=source, aspect=aspect, weighting=None)
ranked = time.perf_counter()
print(json.dumps({{
    "load": loaded - started,
    "fingerprint": fingerprinted - loaded,
    "scores": scored - fingerprinted,
    "ranking panel data": ranked - scored,
    "segments": len(scores.segments),
    "systems": len(scores.systems),
}}))
"""

LOGGED_IN = """
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from judging.humanscores.models import JudgmentSet
User = get_user_model()
user = User.objects.filter(username="bench").first() or User.objects.create_superuser(
    "bench", password="x")
client = Client(SERVER_NAME="localhost")
client.force_login(user)
pk = JudgmentSet.objects.get(name={name!r}).pk
"""
"""The panels' scripts start here: a superuser "bench" logged in to a test client, ``pk`` the
set's id."""

PANEL = (
    """
import json, time
"""
    + LOGGED_IN
    + """assert client.get("/human/").status_code == 200  # a served process: imports, templates warm
url = f"/human/set/{{pk}}/{page}"
cache.clear()
start = time.perf_counter()
response = client.get(url)
cold = time.perf_counter() - start
assert response.status_code == 200, response.status_code
warm = []
for _ in range(3):
    start = time.perf_counter()
    again = client.get(url)
    warm.append(time.perf_counter() - start)
    assert again.status_code == 200, again.status_code
print(json.dumps({{"cold": cold, "warm": min(warm), "bytes": len(response.content)}}))
"""
)

PANELS = (("ranking", ""), ("judge bias", "judges/"), ("agreement", "agreement/"))


def _last_json(out: str) -> dict[str, object]:
    return json.loads(out.strip().splitlines()[-1])


def _timeout() -> float:
    return float(os.environ.get("EVALTRANS_BENCH_HUMAN_TIMEOUT") or 900)


def _panel_rows(env: dict[str, str], name: str, label: str) -> list[BenchRow]:
    rows = []
    for title, page in PANELS:
        try:
            _, peak, out = _manage(
                env,
                "shell",
                "-v",
                "0",
                "-c",
                PANEL.format(name=name, page=page),
                timeout=_timeout(),
            )
        except (TimedOut, Failed) as error:
            rows.append(
                BenchRow(
                    f"{title} panel, {label}",
                    math.inf,
                    target=f"< {TARGET_PANEL_S:.0f} s",
                    note=str(error),
                )
            )
            continue
        result = _last_json(out)
        note = f"{int(result['bytes']) / 1e3:,.0f} kB of HTML; peak RSS {peak:.0f} MB"
        rows.append(
            BenchRow(
                f"{title} panel, cold (cache cleared), {label}",
                float(result["cold"]),
                note=note,
            )
        )
        rows.append(
            BenchRow(
                f"{title} panel, warm (cached), {label}",
                float(result["warm"]),
                target=f"< {TARGET_PANEL_S:.0f} s",
                note="best of 3; page through the test client, server time",
            )
        )
    return rows


# ---------------------------------------------------------------- profiles

PROFILE_PANEL = (
    """
import cProfile, io, pstats, time, tracemalloc
"""
    + LOGGED_IN
    + """client.get("/human/")
url = f"/human/set/{{pk}}/{page}"
cache.clear()
profile = cProfile.Profile()
profile.enable()
client.get(url)
profile.disable()
for order in ("cumulative", "tottime"):
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats(order).print_stats({top})
    print(text.getvalue())
cache.clear()
tracemalloc.start(1)
client.get(url)
current, peak = tracemalloc.get_traced_memory()
print(f"tracemalloc: peak {{peak / 1e6:.0f}} MB during the cold page")
"""
)

PROFILE_IMPORT_MEMORY = """
import tracemalloc
from pathlib import Path
from evaltrans.corpora.formats.base import InputFile
from judging.humanscores import services
tracemalloc.start(1)
snapshot = []
check = services.check_records
def checked(file, records, limits):
    snapshot.append(tracemalloc.take_snapshot())
    return check(file, records, limits)
services.check_records = checked
services.judgmentset_import_file(
    import_format="wmt-da-csv",
    file=InputFile("judgments", Path({judgments!r}).read_bytes()),
    judge_stats=InputFile("stats", Path({stats!r}).read_bytes()),
    name={name!r},
)
current, peak = tracemalloc.get_traced_memory()
print(f"tracemalloc: peak {{peak / 1e6:.0f}} MB; after parsing, by line:")
for stat in snapshot[0].statistics("lineno")[:8]:
    print("  ", stat)
"""


def _profile(env: dict[str, str], files: dict[str, object], name: str, folder: Path) -> None:
    """cProfile and tracemalloc of the import and of the slowest panel (stderr)."""
    import pstats

    top = 20
    stats_path = folder / "import.prof"
    _manage(
        env,
        *_import_args(files, f"{name}-profiled"),
        python=("-m", "cProfile", "-o", str(stats_path)),
    )
    for order in ("cumulative", "tottime"):
        print(f"\n--- import_judgments, {order}", file=sys.stderr)
        pstats.Stats(str(stats_path), stream=sys.stderr).sort_stats(order).print_stats(top)
    code = PROFILE_IMPORT_MEMORY.format(
        judgments=str(files["judgments"]), stats=str(files["stats"]), name=f"{name}-traced"
    )
    print(_manage(env, "shell", "-v", "0", "-c", code)[2], file=sys.stderr)
    for title, page in PANELS:
        print(f"\n--- {title} panel, cold", file=sys.stderr)
        try:
            code = PROFILE_PANEL.format(name=name, page=page, top=top)
            print(
                _manage(env, "shell", "-v", "0", "-c", code, timeout=_timeout())[2], file=sys.stderr
            )
        except (TimedOut, Failed) as error:
            print(error, file=sys.stderr)


# ---------------------------------------------------------------- run


def _database_rows(
    env: dict[str, str], database: str, sized: list[tuple[int, dict[str, object]]]
) -> list[BenchRow]:
    """Import and score every size, then the parts and the panels at the largest."""
    rows: list[BenchRow] = []
    sizes, import_s, import_mb, score_s = [], [], [], []
    for judgments, files in sized:
        name = f"bench-{judgments}"
        seconds, peak, _ = _manage(env, *_import_args(files, name))
        sizes.append(judgments)
        import_s.append(seconds)
        import_mb.append(peak)
        note = (
            f"peak RSS {peak:.0f} MB; {int(files['bytes']) / 1e6:.1f} MB of files;"
            f" {files['judges']:,} judges; {judgments / seconds:,.0f} judgments/s"
        )
        if judgments == sized[-1][0] and len(sizes) > 1:
            note += (
                f"; time ~ size^{_slope(sizes[-2:], import_s[-2:]):.2f},"
                f" memory ~ size^{_slope(sizes[-2:], import_mb[-2:]):.2f}"
                f" from {sizes[-2]:,} (fitted over all: {_slope(sizes, import_s):.2f}"
                f" / {_slope(sizes, import_mb):.2f})"
            )
        rows.append(
            BenchRow(
                f"import_judgments wmt-da-csv, {database}, {judgments:,} judgments",
                seconds,
                target=f"< {TARGET_IMPORT_S:.0f} s" if judgments >= 500_000 else "",
                note=note,
            )
        )
        try:
            seconds, peak, out = _manage(
                env,
                "human_scores",
                "--name",
                name,
                "--json",
                "--bootstrap",
                str(BOOTSTRAP),
                timeout=_timeout(),
            )
        except (TimedOut, Failed) as error:
            rows.append(
                BenchRow(
                    f"human_scores --json, {database}, {judgments:,}", math.inf, note=str(error)
                )
            )
            continue
        score_s.append(seconds)
        result = json.loads(out)
        segments = sum(system["n_segments"] for system in result["systems"])
        note = (
            f"whole process; peak RSS {peak:.0f} MB; {len(result['systems'])} systems,"
            f" {segments:,} segment scores; {result['signature'].split('|')[5]}"
        )
        if judgments == sized[-1][0] and len(score_s) > 1:
            note += f"; time ~ size^{_slope(sizes[-2:], score_s[-2:]):.2f} from {sizes[-2]:,}"
        rows.append(
            BenchRow(
                f"human_scores --json --bootstrap {BOOTSTRAP}, {database}, {judgments:,}",
                seconds,
                target=f"< {TARGET_RANKING_S:.0f} s" if judgments >= 500_000 else "",
                note=note,
            )
        )
    judgments, files = sized[-1]
    name = f"bench-{judgments}"
    label = f"{database}, {judgments:,}"
    try:
        _, peak, out = _manage(
            env,
            "shell",
            "-v",
            "0",
            "-c",
            PARTS.format(name=name, boot=BOOTSTRAP),
            timeout=_timeout(),
        )
        parts = _last_json(out)
        shape = f"{parts['systems']} systems, {parts['segments']:,} segment scores"
        rows += [
            BenchRow(f"  load the set (one query), {label}", float(parts["load"]), note=shape),
            BenchRow(
                f"  panel cache key (the set's id and revision), {label}",
                float(parts["fingerprint"]),
                note="paid by every panel request, cached or not",
            ),
            BenchRow(
                f"  normalization + system scores + {BOOTSTRAP} bootstrap CIs, {label}",
                float(parts["scores"]),
                target=f"< {TARGET_RANKING_S:.0f} s" if judgments >= 500_000 else "",
                note=f"source_human_scores; peak RSS {peak:.0f} MB (whole shell)",
            ),
            BenchRow(
                f"  ranking panel data (scores again + paired bootstrap), {label}",
                float(parts["ranking panel data"]),
                note="selectors._ranking_panel, uncached",
            ),
        ]
    except (TimedOut, Failed) as error:
        rows.append(BenchRow(f"  parts, {label}", math.inf, note=str(error)))
    rows += _panel_rows(env, name, label)
    return rows


def run() -> list[BenchRow]:
    root = _data_root()
    if not (root / JUDGMENTS).exists():
        print(
            f"bench_humanscale: shared data {DATA_DIR} absent (set EVALTRANS_SHARED_DATA); skipped"
        )
        return []
    base = int(os.environ.get("EVALTRANS_BENCH_HUMAN_BASE") or DEFAULT_BASE)
    pg_url = os.environ.get("EVALTRANS_BENCH_PG_URL", "")
    rows: list[BenchRow] = []
    with tempfile.TemporaryDirectory(prefix="bench-humanscale-") as folder:
        var = Path(folder) / "var"
        started = time.perf_counter()
        sized = [
            (base * scale, generate(Path(folder) / f"x{scale}", base * scale, root))
            for scale in SCALES
        ]
        print(
            f"bench_humanscale: generated {', '.join(f'{n:,}' for n, _ in sized)} judgments"
            f" in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )
        env = _env(var, None)
        _manage(env, "migrate", "--noinput", "-v", "0")
        rows += _database_rows(env, "SQLite", sized)
        if os.environ.get("EVALTRANS_BENCH_HUMAN_PROFILE"):
            _profile(env, sized[-1][1], f"bench-{sized[-1][0]}", Path(folder))
        if pg_url:
            pg_env = _env(var, pg_url)
            _manage(pg_env, "migrate", "--noinput", "-v", "0")
            _manage(pg_env, "flush", "--noinput")
            rows += _database_rows(pg_env, "PostgreSQL", sized[-1:])
    return rows
