"""Benchmark of metric runs on WMT17 en-de (16 systems x 3004 segments) imported as a test set.

Rows:

* the default suite through the run machinery with 1 worker process, against calling
  ``metrics.core`` directly in one process (target: overhead <= 10 %, issue 16; it was 20 %);
* the same with 2 worker processes against 1 (target: speed-up >= 1.8x on 2 cores, issue 16),
  beside what the machine gives the direct call split over 2 processes at once (each builds
  its own contexts, as each worker does): the ceiling of that speed-up. From the workers' logs
  the note adds what a 2-worker run spends beyond half of a 1-worker run: how many chunk tasks
  each worker did, how long each worker's first chunk took (it builds every context) against
  the others, and how long the first worker done waited for the other's last chunk;
* loading the stored results for the results page (target: < 200 ms).

The default suite is every registered measure at its defaults except LJWER and INVWER, which
EvalTrans computed only on request (``allow-long-jumps``, ``allow-transpositions``) and which
take minutes per system, and the opt-in measures (``registry.OPT_IN``: EDPM, HTER), which run
only when named. Everything runs in a private ``EVALTRANS_VAR_DIR`` (SQLite file and
filesystem broker, the embedded default) with subprocesses for the workers, which are killed
after each run; stored results are deleted before each run so every run computes everything.
Each time is the best of ``REPEAT`` (direct calls in 1 and 2 processes, 1- and 2-worker runs
alike; the four alternate). Beside the overhead and the speed-up of the best times, the
notes give the lowest and highest of each repetition's own overhead and speed-up: on a shared
machine a single run's time drifts by 10 % and more, which these ranges show. They also split
each repetition's overhead in two, from the ``seconds`` stored with every chunk row (the
measures' own time, contexts included): the time outside the measures' code, which is the run
machinery's own (plan, broker, database, finalize), and the measures' own time inside the run
against the direct call, which moves with the machine; and they give how much more the
measures' own seconds of both workers of a 2-worker run add up to than those of the 1-worker
run beside it (every worker builds every context; two processes share the machine).

The direct call runs in a fresh process each time, as each run's worker is fresh: a process
that scored the same systems before keeps their tokens (TER's tokenizer and the word ids
cache them, and neither cache is the preprocessing cache that was cleared between repeats),
which made the second and third direct calls about 0.4 s faster than any run could be. The
fresh process loads the compiled kernels before the clock starts, as a worker does when it
starts (``metrics.tasks.load_kernels``).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from tests.benchmarks.common import BenchRow

PROJECT = Path(__file__).resolve().parents[2]
DATA_NAME = "wmt17-en-de-sacrebleu"
SLOW = {"ljwer", "invwer"}
TIMEOUT_S = int(os.environ.get("EVALTRANS_BENCH_RUNS_TIMEOUT") or 1800)
REPEAT = 4  # every time is the best of this many (single runs varied by up to 20 % here)


def _first(pair: tuple[float, object]) -> float:
    return pair[0]


def _data_root() -> Path:
    shared = Path(
        os.environ.get("EVALTRANS_SHARED_DATA", PROJECT.parent / "shared" / "mt-eval-data")
    )
    return shared / DATA_NAME


def _read(path: Path) -> list[str]:
    # utf-8-sig: one WMT17 system file starts with a byte-order mark, which the importer drops.
    with gzip.open(path, "rt", encoding="utf-8-sig", newline="") as handle:
        return handle.read().rstrip("\n").split("\n")


def _suite() -> list[str]:
    from metrics.core import METRICS
    from metrics.core.registry import OPT_IN

    # Opt-in measures (EDPM, HTER) run only when named, the slow ones only on request.
    return [name for name in METRICS if name not in OPT_IN | SLOW]


def _direct(
    suite: list[str], refs: list[list[str]], systems: list[list[str]]
) -> tuple[float, dict]:
    from metrics.core import METRICS

    started = time.perf_counter()
    scores: dict[str, list[float]] = {}
    for name in suite:
        measure = METRICS[name]()
        context = measure.context(refs)
        scores[name] = [
            measure.aggregate(measure.statistics(hyps, refs, context), n_refs=1).score
            for hyps in systems
        ]
    return time.perf_counter() - started, scores


def _direct_processes(count: int) -> list[tuple[float, dict]]:
    """``_direct`` in ``count`` new processes at once, process k on systems k, k + count, ...:
    each process's ``(seconds, scores)``. One process is the baseline of the runs (see the
    module's docstring); two show what the machine itself gives two processes at once, the
    ceiling of the 2-worker speed-up. The processes load the data, then start together."""
    code = "import sys; from tests.benchmarks.bench_runs import _direct_main as m; m(*sys.argv[1:])"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(number), str(count)],
            cwd=PROJECT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for number in range(count)
    ]
    try:
        for child in children:
            if child.stdout.readline().strip() != "ready":  # type: ignore[union-attr]
                raise RuntimeError("the direct call failed before its start (see its stderr)")
        for child in children:
            child.stdin.write("go\n")  # type: ignore[union-attr]
            child.stdin.flush()  # type: ignore[union-attr]
        results = []
        for child in children:
            output, _ = child.communicate(timeout=TIMEOUT_S)
            if child.returncode != 0:
                raise RuntimeError(f"the direct call failed (exit status {child.returncode})")
            seconds, scores = json.loads(output)
            results.append((seconds, scores))
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    return results


def _direct_main(number: str, count: str) -> None:
    """A child of ``_direct_processes``: loads the kernels (as a worker does when it starts)
    and the data, says ``ready``, waits for ``go``, prints ``[seconds, scores]`` as JSON."""
    from metrics.core import invwer, kernels, ljwer

    kernels.warm_up(invwer.warm_up, ljwer.warm_up)
    root = _data_root()
    refs = [[line] for line in _read(root / "newstest2017-ende-ref.de.gz")]
    paths = sorted((root / "system-outputs").glob("*.gz"))[int(number) :: int(count)]
    systems = [_read(path) for path in paths]
    print("ready", flush=True)
    sys.stdin.readline()
    print(json.dumps(_direct(_suite(), refs, systems)))


def django_setup() -> None:
    """Django in the benchmark's own process: the workers' logs are read with the task names
    of ``metrics.services.dispatch``, which imports the models."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evaltrans.settings.dev")
    import django

    django.setup()


class _Site:
    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "var" / "broker" / "queue").mkdir(parents=True)
        (root / "var" / "broker" / "processed").mkdir(parents=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
        for key in ("DATABASE_URL", "CELERY_BROKER_URL"):
            self.env.pop(key, None)  # the embedded default, whatever the shell says
        self.env.update(
            EVALTRANS_VAR_DIR=str(root / "var"),
            DJANGO_SETTINGS_MODULE="evaltrans.settings.dev",
            DEBUG="false",
            LOG_LEVEL="WARNING",
        )
        self.workers: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        # Chunk tasks done by each worker of each run: a 2-worker run as slow as one worker
        # shows here whether one of them did nothing.
        self.shares: list[list[int]] = []
        # Per run with several workers: how long the first worker to finish its last chunk
        # waited for the last one, and each worker's first chunk (it builds every context).
        self.waits: list[float] = []
        self.firsts: list[float] = []
        self.others: list[float] = []
        # Per run: the measures' own seconds (the ``seconds`` stored with each chunk row,
        # contexts included), summed over the run's chunks and workers.
        self.measures_own: list[float] = []

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=PROJECT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed: {result.stderr[-2000:]}")
        return result.stdout

    def shell(self, code: str) -> str:
        return self.manage("shell", "-v", "0", "-c", code).strip()

    def start_workers(self, count: int, settings: str = "evaltrans.settings.dev") -> None:
        celery = str(Path(sys.executable).with_name("celery"))
        (self.root / "logs").mkdir(exist_ok=True)
        self.logs = [self.root / "logs" / f"worker{number}.log" for number in range(count)]
        for number, log in enumerate(self.logs):
            self.workers.append(
                subprocess.Popen(
                    [
                        celery,
                        "-A",
                        "evaltrans",
                        "worker",
                        "--concurrency=1",
                        "-n",
                        f"bench{number}@%h",
                        "--loglevel=INFO",  # a line per task: the shares of the workers
                        "--without-gossip",
                        "--without-mingle",
                        "--without-heartbeat",
                    ],
                    cwd=PROJECT,
                    env={**self.env, "DJANGO_SETTINGS_MODULE": settings},
                    stdout=log.open("w"),
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        time.sleep(4)  # let them connect before the clock starts

    def stop_workers(self) -> None:
        for process in self.workers:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=30)
        self.workers.clear()
        if self.logs:
            tasks = [_chunk_tasks(log) for log in self.logs]
            self.shares.append([len(done) for done in tasks])
            if len(self.logs) > 1 and all(tasks):
                self.waits.append(
                    max(done[-1][0] for done in tasks) - min(done[-1][0] for done in tasks)
                )
                self.firsts += [done[0][1] for done in tasks]
                self.others += [seconds for done in tasks for _, seconds in done[1:]]
            if len(self.logs) > 1 and 0 in self.shares[-1]:
                for log, count in zip(self.logs, self.shares[-1], strict=True):
                    if not count:
                        print(f"{log.name} did no chunk task; its log:", file=sys.stderr)
                        print(log.read_text(errors="replace")[-6000:], file=sys.stderr)
            self.logs = []

    def fresh_run(
        self, suite: list[str], workers: int, test_set: str = "wmt17"
    ) -> tuple[float, dict]:
        """One run that computes everything, with freshly started workers (so none reuses the
        contexts a worker process keeps from an earlier run)."""
        self.shell(
            "from metrics.models import SegmentStatistics, SystemScore;"
            "SegmentStatistics.objects.all().delete(); SystemScore.objects.all().delete()"
        )
        self.start_workers(workers)
        try:
            return self.timed_run(suite, test_set)
        finally:
            self.stop_workers()

    def timed_run(self, suite: list[str], test_set: str = "wmt17") -> tuple[float, dict]:
        output = self.manage(
            "evaluate",
            "--test-set",
            test_set,
            "--measures",
            ",".join(suite),
            "--json",
            "--timeout",
            str(TIMEOUT_S),
        )
        payload = json.loads(output)
        seconds, own = json.loads(
            self.shell(
                "import json\n"
                "from django.db.models import Sum\n"
                "from metrics.models import MetricRun as R, SegmentStatistics as S\n"
                f"r = R.objects.get(pk={payload['run']})\n"
                "rows = S.objects.filter(system__in=r.systems.all(), created_at__gte=r.created_at,"
                " signature__in=r.measures.values('signature'))\n"
                "own = rows.aggregate(total=Sum('seconds'))['total'] or 0.0\n"
                "print(json.dumps([(r.finished_at - r.created_at).total_seconds(), own]))\n"
            )
        )
        self.measures_own.append(own)
        return seconds, payload


def _chunk_tasks(log: Path) -> list[tuple[float, float]]:
    """The chunk tasks a worker finished, from its log (Celery's INFO line per task): when each
    ended (seconds since the epoch, to the millisecond) and how long it took, in order."""
    from metrics.services.dispatch import CHUNK_TASK

    done = re.compile(
        r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}): [^\]]*\] Task "
        + re.escape(CHUNK_TASK)
        + r"\[[^\]]*\] succeeded in ([\d.]+)s"
    )
    tasks = []
    with log.open(errors="replace") as lines:
        for line in lines:
            found = done.match(line)
            if found:
                # The workers' local time: only differences between stamps are used.
                when = datetime.strptime(found[1], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
                stamp = when.timestamp()
                tasks.append((stamp + int(found[2]) / 1000, float(found[3])))
    return tasks


def _differences(direct: dict, payload: dict, names: list[str]) -> list[str]:
    """Measures whose run scores differ from the direct ones, with the largest difference."""
    differ = []
    for measure in payload["measures"]:
        label = measure["label"]
        by_name = {s["name"]: s["scores"][label] for s in payload["systems"]}
        got = [by_name[name] for name in names]
        want = direct[measure["measure"]]
        worst = max(
            abs((a if a is not None else float("nan")) - b) for a, b in zip(got, want, strict=True)
        )
        if not worst <= 1e-9 * max(1.0, max(abs(b) for b in want)):
            differ.append(f"{label} by {worst:.2g}")
    return differ


def _spread(
    directs: list[tuple[float, dict]],
    ones: list[tuple[float, dict]],
    twos: list[tuple[float, dict]],
) -> tuple[str, str]:
    """The overhead and the speed-up of each repetition on its own, lowest to highest: how far
    the machine's drift moves the best-of-``REPEAT`` figures beside them."""
    overheads = sorted(
        (one[0] - direct[0]) / direct[0] * 100 for direct, one in zip(directs, ones, strict=True)
    )
    speedups = sorted(one[0] / two[0] for one, two in zip(ones, twos, strict=True))
    return (
        f"each repetition {overheads[0]:+.0f}% to {overheads[-1]:+.0f}%",
        f"each repetition {speedups[0]:.2f}x to {speedups[-1]:.2f}x",
    )


def _split(
    directs: list[tuple[float, dict]], ones: list[tuple[float, dict]], own: list[float]
) -> str:
    """Each 1-worker repetition's overhead in two parts: the time outside the measures' own
    code (plan, queue, database, finalize), which is the run machinery's, and the measures'
    own time in the run against the whole direct call, which moves with the machine."""
    outside = sorted(
        (one[0] - mine) / direct[0] * 100
        for direct, one, mine in zip(directs, ones, own, strict=True)
    )
    inside = sorted(
        (mine - direct[0]) / direct[0] * 100 for direct, mine in zip(directs, own, strict=True)
    )
    return (
        f"outside the measures {outside[0]:+.0f}% to {outside[-1]:+.0f}%, "
        f"the measures' own time {inside[0]:+.0f}% to {inside[-1]:+.0f}%"
    )


def _shared(own_ones: list[float], own_twos: list[float]) -> str:
    """How much more the measures' own seconds add up to in each 2-worker run than in the
    1-worker run beside it: each worker builds every context, and two processes share the
    machine's caches and memory bandwidth."""
    more = sorted((two - one) / one * 100 for one, two in zip(own_ones, own_twos, strict=True))
    return f"the measures' own seconds of both workers {more[0]:+.0f}% to {more[-1]:+.0f}% over 1 worker's"


def _timeline(site: _Site) -> str:
    """Where a 2-worker run loses to half a 1-worker run, from the workers' logs: each worker's
    first chunk builds every context, and one worker waits for the other's last chunk."""
    if not site.waits:
        return "no timeline (a worker did no chunk task)"
    return (
        f"a worker's first chunk (it builds every context) {min(site.firsts):.1f}-"
        f"{max(site.firsts):.1f} s, its others {statistics.median(site.others):.2f} s"
        f" (median); the first worker done waited {min(site.waits):.2f}-{max(site.waits):.2f} s"
        " for the other's last chunk"
    )


def _note(differ: list[str]) -> str:
    return "scores identical" if not differ else "SCORES DIFFER: " + ", ".join(differ)


def run() -> list[BenchRow]:
    root = _data_root()
    reference_path = root / "newstest2017-ende-ref.de.gz"
    if not reference_path.exists():
        print(f"bench_runs: shared data {DATA_NAME} absent (set EVALTRANS_SHARED_DATA); skipped")
        return []
    django_setup()
    suite = _suite()
    reference = _read(reference_path)
    paths = sorted((root / "system-outputs").glob("*.gz"))
    names = [path.name.split(".")[1] for path in paths]
    systems = [_read(path) for path in paths]

    rows: list[BenchRow] = []
    with tempfile.TemporaryDirectory(prefix="bench-runs-") as folder:
        site = _Site(Path(folder))
        try:
            texts = Path(folder) / "texts"
            texts.mkdir()
            (texts / "src.txt").write_text("".join(f"{n}\n" for n in range(len(reference))))
            (texts / "ref.txt").write_text("\n".join(reference) + "\n", encoding="utf-8")
            system_args: list[str] = []
            for name, lines in zip(names, systems, strict=True):
                path = texts / f"{name}.txt"
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
                system_args += ["--system", f"{name}={path}"]
            site.manage("migrate", "--noinput")
            site.manage(
                "import_corpus",
                "text",
                "--name",
                "wmt17",
                "--source-lang",
                "en",
                "--target-lang",
                "de",
                "--source",
                str(texts / "src.txt"),
                "--ref",
                str(texts / "ref.txt"),
                *system_args,
            )
            # Alternating direct calls, 1- and 2-worker runs, so a drift of the machine's speed
            # during the benchmark touches every side of the ratios alike.
            directs, pairs, ones, twos, shares = [], [], [], [], []
            own_ones, own_twos = [], []
            for _ in range(REPEAT):
                directs.append(_direct_processes(1)[0])
                pairs.append(max(seconds for seconds, _ in _direct_processes(2)))
                ones.append(site.fresh_run(suite, workers=1))
                own_ones.append(site.measures_own[-1])
                twos.append(site.fresh_run(suite, workers=2))
                own_twos.append(site.measures_own[-1])
                shares.append("/".join(str(count) for count in site.shares[-1]))
            direct_s, direct = min(directs, key=_first)
            pair_s = min(pairs)
            one_s, payload = min(ones, key=_first)
            same_one = _differences(direct, payload, names)
            two_s, payload = min(twos, key=_first)
            same_two = _differences(direct, payload, names)
            load = json.loads(
                site.shell(
                    "import json, time\n"
                    "from django.contrib.auth.models import User\n"
                    "from django.test import Client\n"
                    "from metrics.models import MetricRun\n"
                    "from metrics.selectors import runs as selectors\n"
                    "run = MetricRun.objects.latest('pk')\n"
                    "best = []\n"
                    "for _ in range(5):\n"
                    "    t = time.perf_counter(); selectors.run_results(run=run);"
                    " selectors.run_progress(run=run); best.append(time.perf_counter() - t)\n"
                    "user = User.objects.create_superuser('bench', password='x')\n"
                    "client = Client(HTTP_HOST='127.0.0.1'); client.force_login(user)\n"
                    "page = []\n"
                    "for _ in range(5):\n"
                    "    t = time.perf_counter(); r = client.get(run.get_absolute_url());"
                    " page.append(time.perf_counter() - t)\n"
                    "print(json.dumps([min(best), min(page), r.status_code]))\n"
                )
            )
        finally:
            site.stop_workers()
    label = f"default suite ({len(suite)} measures), 16 x 3004"
    overhead = (one_s - direct_s) / direct_s * 100
    spread = _spread(directs, ones, twos)
    rows.append(
        BenchRow(
            f"run, {label}, 1 worker",
            one_s,
            "metrics.core direct",
            direct_s,
            "overhead <= 10%",
            f"overhead {overhead:+.0f}% ({spread[0]}; {_split(directs, ones, own_ones)}); "
            f"{_note(same_one)}",
        )
    )
    rows.append(
        BenchRow(
            f"run, {label}, 2 workers",
            two_s,
            "same run, 1 worker",
            one_s,
            "speed-up >= 1.8x",
            f"{spread[1]}; {_shared(own_ones, own_twos)}; "
            f"chunk tasks per worker {', '.join(shares)}; {_timeline(site)}; "
            f"{_note(same_two)}; the machine's own ceiling: {direct_s / pair_s:.2f}x",
        )
    )
    rows.append(
        BenchRow(
            "metrics.core direct, 2 processes at once (8 systems each)",
            pair_s,
            "1 process, 16 systems",
            direct_s,
            note="what 2 cores give 2 processes here: the ceiling of the 2-worker speed-up",
        )
    )
    rows.append(
        BenchRow(
            "results page: stored results of that run",
            load[0],
            target="< 0.2 s",
            note=f"whole page render {load[1] * 1000:.0f} ms (HTTP {load[2]})",
        )
    )
    return rows
