"""Metric runs through real Celery worker processes (not eager mode).

Everything runs in subprocesses against a private database and broker, so the workers and
the ``evaluate`` command share them exactly as in production:

* embedded default: SQLite file and filesystem broker inside a private ``EVALTRANS_VAR_DIR``;
* scale-out: with ``DATABASE_URL=postgres://…`` a private database ``<name>_runs_<hex>`` is
  created on that server (and dropped afterwards); with ``CELERY_BROKER_URL=redis://…`` the
  workers use database 13 of that Redis server, flushed before and after.

Scores are compared with ``metrics.core`` called directly on the same files. Every test is
bounded by timeouts, and every process started here is killed (by its process group) at the end.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest

from evaltrans.corpora.models import TestSet
from metrics.core import get_metric
from metrics.models import SegmentStatistics
from tests.faults.support import celery_worker_command

pytestmark = pytest.mark.worker

PROJECT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
CELERY = str(Path(sys.executable).with_name("celery"))
WORDS = (
    "the a cat dog house garden sat ran on in under over big small red blue green tree car "
    "road river city old new walked saw quickly slowly"
).split()
REDIS_TEST_DB = 13


def synthetic_corpus(folder: Path, segments: int, systems: int, seed: int) -> dict[str, Path]:
    rng = random.Random(seed)
    references = [" ".join(rng.choices(WORDS, k=rng.randint(8, 30))) for _ in range(segments)]
    files = {"src": folder / "src.txt", "ref": folder / "ref.txt"}
    files["src"].write_text("".join(f"source {r}\n" for r in references), encoding="utf-8")
    files["ref"].write_text("".join(f"{r}\n" for r in references), encoding="utf-8")
    for number in range(systems):
        lines = []
        for reference in references:
            tokens = reference.split()
            for _ in range(rng.randint(0, 5)):
                tokens[rng.randrange(len(tokens))] = rng.choice(WORDS)
            if rng.random() < 0.3:
                rng.shuffle(tokens)
            lines.append(" ".join(tokens))
        path = folder / f"sys{number}.txt"
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        files[f"sys{number}"] = path
    return files


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def core_scores(files: dict[str, Path], measure: str) -> dict[str, float]:
    scorer = get_metric(measure)()
    references = [[line] for line in read_lines(files["ref"])]
    return {
        name: scorer.corpus_score(read_lines(path), references).score
        for name, path in files.items()
        if name.startswith("sys")
    }


class Site:
    """The private environment: database, broker, var folder, and the processes started."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.var = root / "var"
        self.var.mkdir()
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("PYTEST", "DJANGO_"))
        }
        self.env.update(
            {
                "EVALTRANS_VAR_DIR": str(self.var),
                "DJANGO_SETTINGS_MODULE": "evaltrans.settings.dev",
                "DEBUG": "false",
                "LOG_LEVEL": "WARNING",
                "PYTHONUNBUFFERED": "1",
            }
        )
        self.workers: list[tuple[subprocess.Popen, Path]] = []
        self.pg_admin_url: str | None = None
        self.pg_name: str | None = None
        self.redis_url: str | None = None
        database_url = os.environ.get("DATABASE_URL", "")
        if database_url.startswith("postgres"):
            self._create_postgres(database_url)
        broker = os.environ.get("CELERY_BROKER_URL", "")
        if broker.startswith("redis"):
            parsed = urlparse(broker)
            self.redis_url = urlunparse(parsed._replace(path=f"/{REDIS_TEST_DB}"))
            self.env["CELERY_BROKER_URL"] = self.redis_url
            self._flush_redis()
        else:
            self.env.pop("CELERY_BROKER_URL", None)
            for folder in ("queue", "processed"):
                (self.var / "broker" / folder).mkdir(parents=True, exist_ok=True)

    def _create_postgres(self, url: str) -> None:
        import psycopg

        parsed = urlparse(url)
        self.pg_name = f"{(parsed.path.lstrip('/') or 'evaltrans')}_runs_{uuid.uuid4().hex[:8]}"
        self.pg_admin_url = urlunparse(parsed._replace(path="/postgres"))
        with psycopg.connect(self.pg_admin_url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self.pg_name}"')
        self.env["DATABASE_URL"] = urlunparse(parsed._replace(path=f"/{self.pg_name}"))

    def _flush_redis(self) -> None:
        import redis

        redis.Redis.from_url(self.redis_url).flushdb()

    def manage(self, *args: str, timeout: float = 180, check: bool = True, **env: str):
        result = subprocess.run(
            [PYTHON, "manage.py", *args],
            cwd=PROJECT,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"manage.py {' '.join(args)} failed:\n{result.stderr}")
        return result

    def shell(self, code: str, **env: str) -> str:
        return self.manage("shell", "-v", "0", "-c", code, timeout=60, **env).stdout.strip()

    def count(self, sql: str, *params: object) -> int:
        """One number straight from the site's database: a poll that costs milliseconds, where
        ``shell`` starts a process (slower than a small run's chunks on a loaded machine)."""
        if self.pg_name is not None:
            import psycopg

            with psycopg.connect(self.env["DATABASE_URL"]) as connection:
                return connection.execute(sql.replace("?", "%s"), params).fetchone()[0]
        import sqlite3

        connection = sqlite3.connect(self.var / "db.sqlite3", timeout=30)
        try:
            return connection.execute(sql, params).fetchone()[0]
        finally:
            connection.close()

    def start_worker(self, name: str, concurrency: int = 1) -> subprocess.Popen:
        log = self.root / f"{name}.log"
        process = subprocess.Popen(
            [*celery_worker_command(name, concurrency), f"--logfile={log}"],
            cwd=PROJECT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: killing it kills its children
        )
        self.workers.append((process, log))
        return process

    def kill(self, process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def close(self) -> None:
        for process, _ in self.workers:
            self.kill(process)
        if self.redis_url:
            self._flush_redis()
        if self.pg_name:
            import psycopg

            with psycopg.connect(self.pg_admin_url, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')

    def import_corpus(self, name: str, files: dict[str, Path]) -> None:
        systems = [
            arg
            for key, path in files.items()
            if key.startswith("sys")
            for arg in ("--system", f"{key}={path}")
        ]
        self.manage(
            "import_corpus",
            "text",
            "--name",
            name,
            "--source-lang",
            "en",
            "--target-lang",
            "en",
            "--source",
            str(files["src"]),
            "--ref",
            str(files["ref"]),
            *systems,
        )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    if not Path(CELERY).exists():
        pytest.skip("celery executable not found beside the Python interpreter")
    site = Site(tmp_path_factory.mktemp("runs-site"))
    try:
        site.manage("migrate", "--noinput", timeout=300)
        yield site
    finally:
        site.close()


def scores_of(output: str) -> dict[str, dict[str, float]]:
    payload = json.loads(output)
    return {
        label["label"]: {
            system["name"]: system["scores"][label["label"]] for system in payload["systems"]
        }
        for label in payload["measures"]
    }


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_run_through_real_workers_equals_core(site, tmp_path):
    files = synthetic_corpus(tmp_path, segments=300, systems=3, seed=1)
    site.import_corpus("plain", files)
    worker = site.start_worker("plain", concurrency=2)
    result = site.manage(
        "evaluate",
        "--test-set",
        "plain",
        "--measures",
        "wer,per",
        "--chunk-size",
        "40",
        "--json",
        "--timeout",
        "120",
    )
    scores = scores_of(result.stdout)
    for measure in ("wer", "per"):
        assert scores[measure] == pytest.approx(core_scores(files, measure), abs=1e-9)
    site.kill(worker, signal.SIGTERM)


def stored_scores(site: Site, test_set: str) -> dict[str, float]:
    """Stored system scores of a test set, keyed "system measure", exactly as stored."""
    return json.loads(
        site.shell(
            "import json; from metrics.models import SystemScore as S;"
            "print(json.dumps({f'{s.system.name} {s.measure}': s.score for s in "
            f"S.objects.filter(test_set__name='{test_set}')}}))"
        )
    )


def test_worker_killed_mid_run_completes_with_identical_scores(site, tmp_path):
    """SIGKILL in the middle of a run; a new worker finishes it; nothing is stored twice; the
    scores are exactly those of the same run left alone."""
    files = synthetic_corpus(tmp_path, segments=600, systems=3, seed=2)
    arguments = ["--measures", "cder,ter", "--chunk-size", "60", "--json", "--timeout", "240"]
    # The same references and systems; another source text, so the import stores a new test set.
    alone = {**files, "src": tmp_path / "src-alone.txt"}
    alone["src"].write_text(
        files["src"].read_text(encoding="utf-8").replace("source", "src"), encoding="utf-8"
    )
    site.import_corpus("uninterrupted", alone)
    site.import_corpus("killed", files)
    first = site.start_worker("first")
    site.manage("evaluate", "--test-set", "uninterrupted", *arguments, timeout=300)
    evaluate = subprocess.Popen(
        [PYTHON, "manage.py", "evaluate", "--test-set", "killed", *arguments],
        cwd=PROJECT,
        env=site.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        total_chunks = 3 * (600 // 60)

        statistics, test_sets = SegmentStatistics._meta.db_table, TestSet._meta.db_table

        def stored() -> int:
            return site.count(
                f"SELECT COUNT(*) FROM {statistics} s JOIN {test_sets} t ON s.test_set_id = t.id "
                "WHERE t.name = ?",
                "killed",
            )

        wait_for(lambda: stored() >= 4, 120, "the first chunks")
        site.kill(first, signal.SIGKILL)
        at_kill = stored()
        assert at_kill < 2 * total_chunks, "the kill should land in the middle of the run"
        site.start_worker("second")
        out, err = evaluate.communicate(timeout=240)
    finally:
        if evaluate.poll() is None:
            os.killpg(evaluate.pid, signal.SIGKILL)
            evaluate.wait(timeout=10)
    assert evaluate.returncode == 0, err
    killed, uninterrupted = stored_scores(site, "killed"), stored_scores(site, "uninterrupted")
    assert len(killed) == 3 * 2
    assert killed == uninterrupted  # exactly, not approximately
    scores = scores_of(out)
    for measure in ("cder", "ter"):
        assert scores[measure] == {
            name: uninterrupted[f"{name} {measure}"] for name in scores[measure]
        }
    counts = json.loads(
        site.shell(
            "import json; from metrics.models import SegmentStatistics as S;"
            "from django.db.models import Count;"
            "print(json.dumps([S.objects.filter(test_set__name='killed').count(),"
            " S.objects.filter(test_set__name='killed').values('system','signature','start')"
            ".annotate(n=Count('id')).filter(n__gt=1).count()]))"
        )
    )
    assert counts == [2 * total_chunks, 0]  # every chunk of both measures, none twice


# Pages fetched with Django's test client while the broker is down: a judge's screen, the
# test set's page and the stored results of a finished run. Prints {name: [status, check]}.
PAGES_WITHOUT_BROKER = """
import json
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from evaltrans.corpora.models import TestSet
from metrics.models import MetricRun
test_set = TestSet.objects.get(name="outage")
judge = User.objects.get(username="outage-judge")
admin = User.objects.get(username="outage-admin")
assignment = judge.judging_assignments.get()
done = MetricRun.objects.get(test_set=test_set, status="done")
judge_client = Client(HTTP_HOST="localhost")
judge_client.force_login(judge)
admin_client = Client(HTTP_HOST="localhost")
admin_client.force_login(admin)
screen = judge_client.get(reverse("judging:judge_next", args=[assignment.pk]), follow=True)
corpus = admin_client.get(test_set.get_absolute_url())
results = admin_client.get(done.get_absolute_url())
csv = admin_client.get(reverse("metrics:run_download", args=[done.pk, "csv"]))
print(json.dumps({
    "judging": [screen.status_code, "/screens/1/" in screen.redirect_chain[-1][0]],
    "test set": [corpus.status_code, "outage" in corpus.content.decode()],
    "results": [results.status_code, 'id="results-table"' in results.content.decode()],
    "csv": [csv.status_code, csv.content.decode().count("\\n") == 1 + 2],
}))
"""
SETUP_JUDGING = """
from django.contrib.auth.models import Group, User
from evaltrans.corpora.models import TestSet
from evaltrans.roles import JUDGES_GROUP
from judging.services import campaign_create
test_set = TestSet.objects.get(name="outage")
judge = User.objects.create_user("outage-judge", password="pw-outage-judge")
judge.groups.add(Group.objects.get_or_create(name=JUDGES_GROUP)[0])
User.objects.create_user("outage-admin", password="pw-outage-admin", is_staff=True)
campaign_create(name="outage", test_set=test_set, systems=list(test_set.systems.all()),
                judges=[judge], judges_per_item=1, repeat_share=0.0, segment_sample=4, seed=1)
"""


def test_broker_down_says_so_and_run_proceeds_when_it_returns(site, tmp_path):
    files = synthetic_corpus(tmp_path, segments=120, systems=2, seed=3)
    site.import_corpus("outage", files)
    # Before the outage: stored results of a finished run, and a judging campaign.
    site.manage("evaluate", "--test-set", "outage", "--measures", "per", "--eager")
    site.shell(SETUP_JUDGING)
    if site.redis_url:
        down = {"CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}  # nothing listens on port 1
        restore = None
    else:
        queue = site.var / "broker" / "queue"
        shutil.rmtree(queue, ignore_errors=True)
        queue.write_text("not a folder")  # the broker's folder is unusable
        down = {}

        def restore() -> None:
            queue.unlink()
            queue.mkdir()

    result = site.manage(
        "evaluate",
        "--test-set",
        "outage",
        "--measures",
        "wer",
        "--timeout",
        "30",
        check=False,
        **down,
    )
    assert result.returncode != 0
    assert "cannot be reached" in result.stderr and "queued" in result.stderr
    # Judging, browsing and stored results keep working without the broker.
    pages = json.loads(site.shell(PAGES_WITHOUT_BROKER, **down))
    assert pages == {name: [200, True] for name in ("judging", "test set", "results", "csv")}
    if restore:
        restore()
    site.start_worker("after-outage")

    def finished() -> bool:
        return (
            site.shell(
                "from metrics.models import MetricRun;"
                "print(MetricRun.objects.filter(test_set__name='outage', measures__measure='wer')"
                ".get().status)"
            )
            == "done"
        )

    wait_for(finished, 120, "the queued run to finish after the broker returned")
    stored = json.loads(
        site.shell(
            "import json; from metrics.models import SystemScore as S;"
            "print(json.dumps({s.system.name: s.score for s in "
            "S.objects.filter(test_set__name='outage', measure='wer')}))"
        )
    )
    assert stored == pytest.approx(core_scores(files, "wer"), abs=1e-9)
