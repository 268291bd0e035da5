"""Load run of the judging pages: gunicorn + PostgreSQL on loopback, 20 judges for 60 s.

A fresh PostgreSQL database (created here, dropped at the end) gets the demo corpus and a
campaign of 14 systems (13 + the reference judged as a system) x 529 segments, two judges per
item, 20 judges. Simulated judges log in and loop for ``DURATION_S`` seconds: open their next
screen, score it, submit; one submission in 20 is sent twice with the same token (a double
click); each judge "reads" about ``THINK_S`` seconds per stage. Reported: p50/p95 of the server's own time (gunicorn's ``%(D)s``) for the judging page
and for a submission, the client-side p95, and a check that every submission is stored
exactly once. Target: p95 under 100 ms on a 2-core machine.

Needs PostgreSQL at ``BENCH_POSTGRES_URL`` (default ``postgres://postgres@127.0.0.1:5432/postgres``);
without it the module prints why and returns no rows.
"""

from __future__ import annotations

import http.client
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

from tests.benchmarks.common import BenchRow

PROJECT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
JUDGES = 20
DURATION_S = float(os.environ.get("BENCH_JUDGING_SECONDS", "60"))
# Seconds a simulated judge "reads" before answering a stage (uniform 0.5x-1.5x). Real judges
# take ~30 s per sentence (Nießen et al. 2000), so 1 s is a heavy load: ~20 screens/s for
# 20 judges. 0 saturates the 2-core machine, and then server time is mostly CPU queueing.
THINK_S = float(os.environ.get("BENCH_JUDGING_THINK_S", "1.0"))
WORKERS = 4
DOUBLE_SUBMIT_EVERY = 20
SETUP_TIMEOUT_S = 600

SETUP_CODE = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from evaltrans.corpora.models import TestSet
from judging.services import campaign_create
group = Group.objects.get_or_create(name="judges")[0]
users = get_user_model()
judges = []
for number in range(1, {judges} + 1):
    user = users.objects.create_user(username=f"bench{{number:02d}}", password="bench-pw")
    user.groups.add(group)
    judges.append(user)
test_set = TestSet.objects.get(name="WMT21 TED MQM en-de")
label = test_set.metadata["reference_labels"][0]
campaign = campaign_create(name="bench", test_set=test_set, systems=list(test_set.systems.all()),
    judges=judges, reference_as_system=label, judges_per_item=2, repeat_share=0.05, seed=1)
for assignment in campaign.assignments.select_related("judge"):
    print("ASSIGNMENT", assignment.judge.username, assignment.pk)
print("ITEMS", campaign.items.count())
"""

TOKEN = re.compile(r'name="token" value="([^"]+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
SCORE = re.compile(r'name="(score-\d+-[\w-]+)" value="(\d+)"')
LOG_LINE = re.compile(r"^(GET|POST) (\S+) (\d{3}) (\d+)$")
SCREEN_PATH = re.compile(r"^/judging/assignments/\d+/screens/\d+/$")


def run() -> list[BenchRow]:
    try:
        import psycopg
    except ImportError:
        print("bench_judging: psycopg is not installed; skipped", file=sys.stderr)
        return []
    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.Error as error:
        print(f"bench_judging: PostgreSQL not reachable at {ADMIN_URL} ({error}); skipped")
        return []
    name = f"evaltrans_bench_judging_{os.getpid()}"
    admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
    admin.execute(f'CREATE DATABASE "{name}"')
    server = None
    try:
        with tempfile.TemporaryDirectory(prefix="bench-judging-") as folder:
            env = _environment(name, Path(folder))
            assignments, items = _set_up(env)
            port = _free_port()
            log = Path(folder) / "access.log"
            server = _start_gunicorn(env, port, log)
            results = _load(port, assignments)
            _stop(server)
            server = None
            stored = _stored(env["DATABASE_URL"])
            return _rows(results, stored, _server_times(log), items)
    finally:
        if server is not None:
            _stop(server)
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def _environment(database: str, folder: Path) -> dict[str, str]:
    parts = urllib.parse.urlsplit(ADMIN_URL)
    env = dict(os.environ)
    env.update(
        DATABASE_URL=urllib.parse.urlunsplit(parts._replace(path=f"/{database}")),
        DJANGO_SETTINGS_MODULE="evaltrans.settings.dev",
        DEBUG="0",
        SECRET_KEY="bench-only-not-secret",
        EVALTRANS_VAR_DIR=str(folder / "var"),
        LOG_LEVEL="WARNING",
    )
    return env


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=SETUP_TIMEOUT_S,
        check=True,
    )
    return done.stdout


def _set_up(env: dict[str, str]) -> tuple[dict[str, int], int]:
    started = time.perf_counter()
    _manage(env, "migrate", "--noinput", "-v", "0")
    _manage(env, "load_demo", "--force")
    out = _manage(env, "shell", "-c", SETUP_CODE.format(judges=JUDGES))
    assignments = {
        line.split()[1]: int(line.split()[2])
        for line in out.splitlines()
        if line.startswith("ASSIGNMENT")
    }
    items = int(next(line.split()[1] for line in out.splitlines() if line.startswith("ITEMS")))
    print(f"bench_judging: set-up in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return assignments, items


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_gunicorn(env: dict[str, str], port: int, log: Path) -> subprocess.Popen:
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "evaltrans.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(WORKERS),
            "--timeout",
            "30",
            "--access-logfile",
            str(log),
            "--access-logformat",
            "%(m)s %(U)s %(s)s %(D)s",
        ],
        cwd=PROJECT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    _stop(server)
    raise RuntimeError("gunicorn did not start")


def _stop(server: subprocess.Popen) -> None:
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=5)


class _Client:
    """A judge's browser: one keep-alive connection and the session and CSRF cookies."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: dict[str, str] | None = None):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Referer"] = "http://127.0.0.1/"
        started = time.perf_counter()
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode()
        elapsed = time.perf_counter() - started
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
        return response.status, response.getheader("Location", ""), text, elapsed


def _login(port: int, username: str) -> _Client:
    client = _Client(port)
    _, _, page, _ = client.request("GET", "/login/")
    form = {
        "csrfmiddlewaretoken": CSRF.search(page).group(1),
        "username": username,
        "password": "bench-pw",
    }
    client.request("POST", "/login/", form)
    return client


def _judge(client: _Client, assignment: int, stop_at: float, out: dict, seed: int) -> None:
    """Open, answer and submit screens until time is up. A submission counts as stored when
    the page it leads to shows no error message (errors come back as a message)."""
    rng = random.Random(seed)
    status, location, _, _ = client.request("GET", f"/judging/assignments/{assignment}/")
    pending: list[str] = []
    while status == 302 and SCREEN_PATH.match(location):
        status, _, page, elapsed = client.request("GET", location)
        _settle(out, assignment, pending, page)
        if time.time() >= stop_at:
            return
        out["page"].append(elapsed)
        time.sleep(THINK_S * rng.uniform(0.5, 1.5))
        pending = sorted({name for name, _ in SCORE.findall(page)})
        form = {
            "csrfmiddlewaretoken": client.cookies.get("csrftoken", ""),
            "token": TOKEN.search(page).group(1),
            "active_ms": "0",
        }
        form.update({name: str(rng.randint(1, 5)) for name in pending})
        status, target, _, elapsed = client.request("POST", location, form)
        out["submit"].append(elapsed)
        if rng.randrange(DOUBLE_SUBMIT_EVERY) == 0:
            client.request("POST", location, form)  # the double click
            out["doubles"] += 1
        location = target
    if status == 302:  # the done page
        _settle(out, assignment, pending, client.request("GET", location)[2])


def _settle(out: dict, assignment: int, pending: list[str], page: str) -> None:
    if not pending:
        return
    if 'class="message error"' in page:
        out["errors"] += 1
    else:
        out["stored_keys"].update((assignment, name) for name in pending)
    pending.clear()


def _load(port: int, assignments: dict[str, int]) -> dict:
    results = {"page": [], "submit": [], "stored_keys": set(), "errors": 0, "doubles": 0}
    shared_lock = threading.Lock()
    # Password hashing is deliberately slow: log everyone in first, then start the clock.
    stop_at = [0.0]

    def start_clock() -> None:  # runs once, before any thread passes the barrier
        stop_at[0] = time.time() + DURATION_S

    ready = threading.Barrier(len(assignments) + 1, action=start_clock)
    per_thread = []

    def worker(number: int, username: str, assignment: int) -> None:
        own = {"page": [], "submit": [], "stored_keys": set(), "errors": 0, "doubles": 0}
        try:
            client = _login(port, username)
            ready.wait(timeout=120)
            _judge(client, assignment, stop_at[0], own, seed=number)
        finally:
            with shared_lock:
                per_thread.append(own)

    threads = [
        threading.Thread(target=worker, args=(number, username, assignment), daemon=True)
        for number, (username, assignment) in enumerate(sorted(assignments.items()))
    ]
    for thread in threads:
        thread.start()
    ready.wait(timeout=120)
    for thread in threads:
        thread.join(timeout=DURATION_S + 60)
    for own in per_thread:
        results["page"] += own["page"]
        results["submit"] += own["submit"]
        results["stored_keys"] |= own["stored_keys"]
        results["errors"] += own["errors"]
        results["doubles"] += own["doubles"]
    return results


def _stored(database_url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(database_url) as connection:
        count = connection.execute("SELECT count(*) FROM judging_judgment").fetchone()[0]
        revised = connection.execute(
            "SELECT count(*) FROM judging_judgment WHERE revision_count > 0"
        ).fetchone()[0]
        duplicates = connection.execute(
            "SELECT count(*) FROM (SELECT assigned_item_id, aspect_id FROM judging_judgment "
            "GROUP BY 1, 2 HAVING count(*) > 1) AS twice"
        ).fetchone()[0]
    return {"count": count, "revised": revised, "duplicates": duplicates}


def _server_times(log: Path) -> dict[str, list[float]]:
    """Seconds the server spent on each screen GET and each screen POST (gunicorn %(D)s)."""
    times: dict[str, list[float]] = {"page": [], "submit": []}
    for line in log.read_text().splitlines():
        match = LOG_LINE.match(line.strip())
        if match and SCREEN_PATH.match(match[2]):
            kind = "page" if match[1] == "GET" else "submit"
            times[kind].append(int(match[4]) / 1e6)
    return times


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def _rows(
    results: dict, stored: dict[str, int], server: dict[str, list[float]], items: int
) -> list[BenchRow]:
    rows = []
    for kind, label in (("page", "judging page"), ("submit", "judging submission")):
        values = server[kind]
        client_p95 = _percentile(results[kind], 0.95)
        rows.append(
            BenchRow(
                task=f"{label}: server p50",
                ours_s=_percentile(values, 0.50),
                note=(
                    f"n={len(values)}; {JUDGES} judges thinking ~{THINK_S:g} s, "
                    f"{WORKERS} gunicorn workers, {items} items"
                ),
            )
        )
        rows.append(
            BenchRow(
                task=f"{label}: server p95",
                ours_s=_percentile(values, 0.95),
                target="< 0.100 s",
                note=f"client-side p95 {client_p95 * 1000:.0f} ms (incl. queueing)",
            )
        )
    submitted = len(results["stored_keys"])
    exact = submitted == stored["count"] and stored["duplicates"] == 0 and stored["revised"] == 0
    rows.append(
        BenchRow(
            task="judging: every submission stored once",
            ours_s=DURATION_S,
            target="exactly once",
            note=(
                f"{'OK' if exact else 'MISMATCH'}: {submitted} judgments sent, {stored['count']} stored, "
                f"{stored['duplicates']} duplicated, {results['doubles']} double submits, "
                f"{results['errors']} errors"
            ),
        )
    )
    return rows


if __name__ == "__main__":
    from tests.benchmarks.common import format_table

    print(format_table(run()))
