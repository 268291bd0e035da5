"""Benchmark of corpus import at scale, and of the test-set browser on the imported set.

A deterministic plain-text corpus is generated from WMT17 en-de (the reference and the 16
system outputs of ``mt-eval-data/wmt17-en-de-sacrebleu``; never committed) into a temporary
folder: segment ``i`` takes line ``i mod 3004``; every repetition after the first rotates the
words of the line and ends it with the repetition's number; systems 17-20 are systems 1-4 with
their words rotated once more. The "source" column is the reference with its words reversed
(the data set has no English source; only the sizes matter here).

Rows (``N`` = ``EVALTRANS_BENCH_IMPORT_BASE`` segments, default 1,000, × 20 systems):

* ``import_corpus text`` as a whole process at 1×, 10× and 100× of N on SQLite: time, peak
  resident memory of the process (``wait4``), and the growth exponent from 10× to 100×;
* the web form's job at 100× (``corpus_import_create`` storing the upload, then
  ``corpus_import_execute``, what the Celery worker runs), with another source file so it is
  not refused as a duplicate;
* the search index of the 100× set (``index_words``, what a worker runs after an import) as a
  whole process;
* the test-set browser on the 100× set: first page, last page, a search for a common word
  (first page, and the page after segment 90,000) and for a word found nowhere (one look-up
  in the search index), each the best of 5 through Django's test client;
* the same command, web job and browser rows on PostgreSQL when ``EVALTRANS_BENCH_PG_URL``
  names a scratch database (it is emptied with ``flush`` first: never name a database you
  need), e.g. ``postgres://postgres@127.0.0.1:5432/evalimport``.

Targets (issue 16): 2 M candidates (N = 1,000, i.e. 100,000 × 20) in < 120 s; < 0.2 s per
browser page (the search index built). The default is the full size: about 2.5 minutes on
SQLite alone, 4 with PostgreSQL, on the 2-core project machine;
``EVALTRANS_BENCH_IMPORT_BASE=100`` runs a tenth of it. Run ``python -m tests.benchmarks import``. Without the shared data the module says so and
gives no rows.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.common import BenchRow, manage_env

PROJECT = Path(__file__).resolve().parents[2]
DATA_NAME = "wmt17-en-de-sacrebleu"
SYSTEMS = 20
DEFAULT_BASE = 1_000
SCALES = (1, 10, 100)
TIMEOUT_S = 1800
TARGET_S_PER_2M = 120.0


def _data_root() -> Path:
    shared = Path(
        os.environ.get("EVALTRANS_SHARED_DATA", PROJECT.parent / "shared" / "mt-eval-data")
    )
    return shared / DATA_NAME


def _read(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8-sig", newline="") as handle:
        return handle.read().rstrip("\n").split("\n")


def _rotate(line: str, shift: int) -> str:
    words = line.split(" ")
    shift %= len(words)
    return " ".join(words[shift:] + words[:shift])


def generate(folder: Path, segments: int, root: Path | None = None) -> dict[str, object]:
    """Write the corpus of ``segments`` × 20 systems into ``folder``; returns the file paths
    (``source``, ``reference``, ``systems``: list of (name, path)) and the total bytes."""
    root = root or _data_root()
    reference = _read(root / "newstest2017-ende-ref.de.gz")
    paths = sorted((root / "system-outputs").glob("*.gz"))
    outputs = [(path.name.split(".")[1], _read(path)) for path in paths]
    columns: list[tuple[str, list[str], int]] = [(name, lines, 0) for name, lines in outputs] + [
        (f"{name}-rot", lines, 1) for name, lines in outputs[: SYSTEMS - len(outputs)]
    ]
    folder.mkdir(parents=True, exist_ok=True)
    size = len(reference)

    def line(lines: list[str], index: int, extra: int) -> str:
        text = lines[index % size]
        repeat = index // size
        if repeat or extra:
            text = _rotate(text, repeat + extra)
        return f"{text} ({repeat})" if repeat else text

    def write(path: Path, make) -> Path:  # noqa: ANN001
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            for index in range(segments):
                handle.write(make(index) + "\n")
        return path

    source = write(
        folder / "source.en", lambda i: " ".join(reversed(line(reference, i, 0).split(" ")))
    )
    ref = write(folder / "ref.de", lambda i: line(reference, i, 0))
    systems = [
        (name, write(folder / f"{name}.de", lambda i, ls=lines, e=extra: line(ls, i, e)))
        for name, lines, extra in columns
    ]
    total = sum(path.stat().st_size for path in [source, ref] + [path for _, path in systems])
    return {"source": source, "reference": ref, "systems": systems, "bytes": total}


def _env(var: Path, database_url: str | None) -> dict[str, str]:
    # 20 system files of 100,000 lines are about 300 MB together.
    return manage_env(var, database_url, upload_bytes=512 * 1024**2, upload_total_bytes=2 * 1024**3)


def _manage(env: dict[str, str], *args: str) -> tuple[float, float, str]:
    """Run ``manage.py`` as a child process: (wall seconds, peak RSS in MB, stdout)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "manage.py", *args], cwd=PROJECT, env=env, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, unlike getrusage
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed: {err.read()[-2000:]}")
        return seconds, usage.ru_maxrss / 1024, out.read()


def _import_args(files: dict[str, object], name: str) -> list[str]:
    args = ["import_corpus", "text", "--name", name, "--source-lang", "en"]
    args += ["--target-lang", "de", "--source", str(files["source"])]
    args += ["--ref", str(files["reference"])]
    for system, path in files["systems"]:  # type: ignore[attr-defined]
        args += ["--system", f"{system}={path}"]
    return args


WEB_IMPORT = """
import json, time
from pathlib import Path
from django.core.files import File
from evaltrans.corpora.import_jobs import Upload, corpus_import_create, corpus_import_execute
files = json.loads({files!r})
handles = [open(files['source'], 'rb'), open(files['reference'], 'rb')]
uploads = [Upload('source', File(handles[0], name='source.en')),
           Upload('reference', File(handles[1], name='ref.de'))]
for name, path in files['systems']:
    handles.append(open(path, 'rb'))
    uploads.append(Upload('system', File(handles[-1], name=Path(path).name), label=name))
started = time.perf_counter()
job = corpus_import_create(name={name!r}, import_format='text',
    options={{'source_lang': 'en', 'target_lang': 'de'}}, uploads=uploads)
stored = time.perf_counter()
job = corpus_import_execute(import_id=job.pk)
print(json.dumps([job.status, job.message, stored - started, time.perf_counter() - started]))
"""

BROWSE = """
import json, time
from django.contrib.auth.models import User
from django.test import Client
from evaltrans.corpora.models import TestSet
test_set = TestSet.objects.get(name={name!r})
user = User.objects.filter(username='bench').first() or User.objects.create_superuser(
    'bench', password='x')
client = Client(HTTP_HOST='127.0.0.1')
client.force_login(user)
url = test_set.get_absolute_url()
count = test_set.segments.count()

def best(query):
    times = []
    for _ in range(5):
        t = time.perf_counter(); response = client.get(url, query)
        times.append(time.perf_counter() - t)
        assert response.status_code == 200, response.status_code
    return min(times)

print(json.dumps({{
    'first page': best({{}}),
    'last page': best({{'page': -(-count // 20)}}),
    'search, common word': best({{'q': 'Regierung'}}),
    'search, common word, page after #90,000': best({{'q': 'Regierung', 'after': 90000}}),
    'search, word in no segment': best({{'q': 'Quetzalcoatl'}}),
    'count': count,
}}))
"""


def _browse(env: dict[str, str], name: str, database: str) -> list[BenchRow]:
    """Browser rows: each page the best of 5 through Django's test client."""
    out = _manage(env, "shell", "-v", "0", "-c", BROWSE.format(name=name))[2]
    times = json.loads(out.strip().splitlines()[-1])
    count = times.pop("count")
    rows = []
    for label, seconds in times.items():
        rows.append(
            BenchRow(
                f"browser {label}, {database}, {count:,} x {SYSTEMS}",
                seconds,
                target="< 0.2 s",
                note="whole page through the test client",
            )
        )
    return rows


def _index(env: dict[str, str], name: str, database: str) -> BenchRow:
    """The search index of test set ``name``, built by ``index_words`` as a whole process."""
    seconds, peak, out = _manage(env, "index_words", "--name", name)
    return BenchRow(
        f"search index (index_words), {database}, {name}",
        seconds,
        note=f"{out.strip().splitlines()[-1]}; peak RSS {peak:.0f} MB; after the import, "
        "by a worker",
    )


def run() -> list[BenchRow]:
    root = _data_root()
    if not (root / "newstest2017-ende-ref.de.gz").exists():
        print(f"bench_import: shared data {DATA_NAME} absent (set EVALTRANS_SHARED_DATA); skipped")
        return []
    base = int(os.environ.get("EVALTRANS_BENCH_IMPORT_BASE") or DEFAULT_BASE)
    pg_url = os.environ.get("EVALTRANS_BENCH_PG_URL", "")
    rows: list[BenchRow] = []
    with tempfile.TemporaryDirectory(prefix="bench-import-") as folder:
        var = Path(folder) / "var"
        env = _env(var, None)
        _manage(env, "migrate", "--noinput")
        biggest: dict[str, object] = {}
        times: list[float] = []
        for scale in SCALES:
            segments = base * scale
            files = generate(Path(folder) / f"x{scale}", segments, root)
            seconds, peak, _ = _manage(env, *_import_args(files, f"bench-x{scale}"))
            times.append(seconds)
            candidates = segments * SYSTEMS
            growth = ""
            if scale == SCALES[-1]:
                exponent = math.log(times[-1] / times[-2]) / math.log(SCALES[-1] / SCALES[-2])
                growth = f"; time ~ size^{exponent:.2f} from {SCALES[-2]}x"
            rows.append(
                BenchRow(
                    f"import_corpus text, SQLite, {segments:,} x {SYSTEMS} ({scale}x)",
                    seconds,
                    target=f"< {TARGET_S_PER_2M * candidates / 2e6:.0f} s"
                    if scale == SCALES[-1]
                    else "",
                    note=f"peak RSS {peak:.0f} MB; {int(files['bytes']) / 1e6:.0f} MB of text;"
                    f" {candidates / seconds:,.0f} candidates/s{growth}",
                )
            )
            biggest = files
        segments = base * SCALES[-1]
        # The web job imports the same texts with another source (other content, so it is not
        # refused as a duplicate of the command's import).
        web_source = Path(folder) / "web-source.en"
        with (
            Path(str(biggest["source"])).open(encoding="utf-8") as lines,
            web_source.open("w", encoding="utf-8") as out,
        ):
            out.writelines(line.rstrip("\n") + " ·\n" for line in lines)
        web = {
            "source": str(web_source),
            "reference": str(biggest["reference"]),
            "systems": [(name, str(path)) for name, path in biggest["systems"]],  # type: ignore[attr-defined]
        }
        code = WEB_IMPORT.format(files=json.dumps(web), name="bench-web")
        seconds, peak, out = _manage(env, "shell", "-v", "0", "-c", code)
        status, message, upload_s, total_s = json.loads(out.strip().splitlines()[-1])
        rows.append(
            BenchRow(
                f"web import job (upload stored + worker), SQLite, {segments:,} x {SYSTEMS}",
                total_s,
                target=f"< {TARGET_S_PER_2M * segments * SYSTEMS / 2e6:.0f} s",
                note=f"{status}; storing the upload {upload_s:.1f} s; peak RSS {peak:.0f} MB"
                + ("" if status == "done" else f"; {message[:80]}"),
            )
        )
        rows.append(_index(env, "bench-x100", "SQLite"))
        rows += _browse(env, "bench-x100", "SQLite")
        if pg_url:
            pg_env = _env(var, pg_url)
            _manage(pg_env, "migrate", "--noinput")
            _manage(pg_env, "flush", "--noinput")
            seconds, peak, _ = _manage(pg_env, *_import_args(biggest, "bench-x100"))
            rows.append(
                BenchRow(
                    f"import_corpus text, PostgreSQL, {segments:,} x {SYSTEMS}",
                    seconds,
                    target=f"< {TARGET_S_PER_2M * segments * SYSTEMS / 2e6:.0f} s",
                    note=f"peak RSS {peak:.0f} MB",
                )
            )
            code = WEB_IMPORT.format(files=json.dumps(web), name="bench-web")
            seconds, peak, out = _manage(pg_env, "shell", "-v", "0", "-c", code)
            status, message, upload_s, total_s = json.loads(out.strip().splitlines()[-1])
            rows.append(
                BenchRow(
                    f"web import job (upload stored + worker), PostgreSQL, {segments:,} x {SYSTEMS}",
                    total_s,
                    target=f"< {TARGET_S_PER_2M * segments * SYSTEMS / 2e6:.0f} s",
                    note=f"{status}; storing the upload {upload_s:.1f} s; peak RSS {peak:.0f} MB"
                    + ("" if status == "done" else f"; {message[:80]}"),
                )
            )
            rows.append(_index(pg_env, "bench-x100", "PostgreSQL"))
            rows += _browse(pg_env, "bench-x100", "PostgreSQL")
    return rows
