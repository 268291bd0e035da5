"""Load run of the judging pages: gunicorn + PostgreSQL on loopback, every protocol.

A fresh PostgreSQL database (created here, dropped at the end) gets the demo corpus; then, one
row after the other, a campaign of 14 systems (13 + the reference judged as a system) x 529
segments in one protocol (:data:`PROTOCOLS`: categorical, direct assessment, ranking, MQM, ESA,
post-editing) with ``judges`` judges. Simulated judges log in and loop for the row's duration:
open their next screen, fill a valid answer for the protocol (a level or a slider value per
question, a rank per candidate, error spans or none (MQM), spans and the 0-100 score (ESA), an
edited text (post-editing)), submit; one submission in 20 is sent twice with the same token (a
double click); each judge "reads" about ``THINK_S`` seconds per stage. Reported per row: the
p95 of the server's own time (gunicorn's ``%(D)s``; the larger of page and submission) against
the target, p50/p95 of the judging page and of a submission, the client-side p95, and a check
that every submission is stored exactly once (judgments, and the error spans and post-edit
texts they carry). Target: p95 under 100 ms on a 2-core machine (issues #13 and #16).

Rows: each protocol at :data:`JUDGES` (20) judges for ``BENCH_JUDGING_SECONDS`` (default 30 s),
then the categorical protocol at :data:`BIG_JUDGES` (100) judges for
``BENCH_JUDGING_BIG_SECONDS`` (default 60 s; 300 s is issue #16's five minutes).
``BENCH_JUDGING_PROTOCOLS`` (comma-separated) narrows the protocols of the 20-judge rows;
``BENCH_JUDGING_BIG_SECONDS=0`` drops the 100-judge row.

Needs PostgreSQL at ``BENCH_POSTGRES_URL`` (default ``postgres://postgres@127.0.0.1:5432/postgres``);
without it the module prints why and returns no rows.
"""

from __future__ import annotations

import html
import http.client
import json
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
from dataclasses import dataclass, field
from pathlib import Path

from tests.benchmarks.common import BenchRow

PROJECT = Path(__file__).resolve().parents[2]
ADMIN_URL = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
PROTOCOLS = ("categorical", "direct-assessment", "ranking", "mqm", "esa", "post-edit")
JUDGES = 20
BIG_JUDGES = 100
BIG_PROTOCOL = "categorical"
DURATION_S = float(os.environ.get("BENCH_JUDGING_SECONDS", "30"))
BIG_DURATION_S = float(os.environ.get("BENCH_JUDGING_BIG_SECONDS", "60"))
ISSUE_DURATION_S = 300  # issue #16: 100 judges for 5 minutes
CHOSEN = [
    name.strip()
    for name in os.environ.get("BENCH_JUDGING_PROTOCOLS", ",".join(PROTOCOLS)).split(",")
    if name.strip()
]
# Seconds a simulated judge "reads" before answering a stage (uniform 0.5x-1.5x). Real judges
# take ~30 s per sentence (Nießen et al. 2000), so 1 s is a heavy load: ~20 screens/s for
# 20 judges. 0 saturates the 2-core machine, and then server time is mostly CPU queueing.
THINK_S = float(os.environ.get("BENCH_JUDGING_THINK_S", "1.0"))
WORKERS = 4
DOUBLE_SUBMIT_EVERY = 20
# Each judge gets about as much work at 100 judges as at 20 (2 judges per item at 20 judges,
# 10 at 100), so nobody runs out of screens before the clock does.
ITEMS_PER_JUDGE_OF = 20
SETUP_TIMEOUT_S = 600
TARGET_S = 0.1

USERS_CODE = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
group = Group.objects.get_or_create(name="judges")[0]
users = get_user_model()
for number in range(1, {judges} + 1):
    user = users.objects.create_user(username=f"bench{{number:03d}}", password="bench-pw")
    user.groups.add(group)
"""

CAMPAIGN_CODE = """
from django.contrib.auth import get_user_model
from evaltrans.corpora.models import TestSet
from judging.services import campaign_create
judges = list(get_user_model().objects.filter(username__startswith="bench")
    .order_by("username")[:{judges}])
test_set = TestSet.objects.get(name="WMT21 TED MQM en-de")
label = test_set.metadata["reference_labels"][0]
campaign = campaign_create(name="{name}", protocol="{protocol}", test_set=test_set,
    systems=list(test_set.systems.all()), judges=judges, reference_as_system=label,
    judges_per_item={per_item}, seed=1)
for assignment in campaign.assignments.select_related("judge"):
    print("ASSIGNMENT", assignment.judge.username, assignment.pk)
print("ITEMS", campaign.items.count())
print("CAMPAIGN", campaign.pk)
"""

TOKEN = re.compile(r'name="token" value="([^"]+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
INPUT = re.compile(r"<input\b([^>]*)>")
ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
SCORE_FIELD = re.compile(r"^score-(\d+)-([\w-]+)$")
SPANS_FIELD = re.compile(r"^spans-(\d+)$")
SPAN_TEXT = re.compile(
    r'<p class="candidate-text span-text"[^>]*aria-labelledby="span-label-(\d+)"[^>]*>(.*?)</p>',
    re.S,
)
CATEGORY = re.compile(r'<option value="([^"]*)"')
POSTEDIT = re.compile(r'<textarea[^>]*name="postedit-(\d+)"[^>]*>(.*?)</textarea>', re.S)
LOG_LINE = re.compile(r"^(GET|POST) (\S+) (\d{3}) (\d+)$")
SCREEN_PATH = re.compile(r"^/judging/assignments/\d+/screens/\d+/$")


@dataclass
class Plan:
    """One row: a campaign of ``protocol`` judged by ``judges`` judges for ``seconds``."""

    protocol: str
    judges: int
    seconds: float


@dataclass
class Answer:
    """What one submission sends, and what it must leave in the database once stored:
    judgments keyed by (assigned item id, aspect; "spans"/"postedit" for the protocols whose
    page has no score field), the number of error spans and the post-edit text per item."""

    form: dict[str, str]
    judgments: set[tuple[int, str]]
    spans: dict[int, int]
    postedits: dict[int, str]


@dataclass
class Tally:
    """What the judges sent (one per thread, merged at the end)."""

    page: list[float] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    judgments: set[tuple[int, str]] = field(default_factory=set)
    spans: dict[int, int] = field(default_factory=dict)
    postedits: dict[int, str] = field(default_factory=dict)
    errors: int = 0
    doubles: int = 0
    finished: int = 0

    def merge(self, other: Tally) -> None:
        self.page += other.page
        self.submit += other.submit
        self.judgments |= other.judgments
        self.spans.update(other.spans)
        self.postedits.update(other.postedits)
        self.errors += other.errors
        self.doubles += other.doubles
        self.finished += other.finished


def plans() -> list[Plan]:
    unknown = set(CHOSEN) - set(PROTOCOLS)
    if unknown:
        raise ValueError(f"BENCH_JUDGING_PROTOCOLS: unknown {sorted(unknown)}; know {PROTOCOLS}")
    rows = [Plan(protocol, JUDGES, DURATION_S) for protocol in PROTOCOLS if protocol in CHOSEN]
    if BIG_DURATION_S > 0:
        rows.append(Plan(BIG_PROTOCOL, BIG_JUDGES, BIG_DURATION_S))
    return rows


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
    todo = plans()
    name = f"evaltrans_bench_judging_{os.getpid()}"
    admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
    admin.execute(f'CREATE DATABASE "{name}"')
    rows: list[BenchRow] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-judging-") as folder:
            env = _environment(name, Path(folder))
            _set_up(env, max(plan.judges for plan in todo))
            for number, plan in enumerate(todo):
                rows.append(_measure(env, Path(folder) / f"access-{number}.log", plan))
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
    return rows


def _measure(env: dict[str, str], log: Path, plan: Plan) -> BenchRow:
    """One row: the plan's campaign, a gunicorn of its own, the judges, the check."""
    campaign, assignments, items = _campaign(env, plan)
    port = _free_port()
    server = _start_gunicorn(env, port, log)
    try:
        tally = _load(port, assignments, plan.seconds)
    finally:
        _stop(server)
    stored = _stored(env["DATABASE_URL"], campaign, tally)
    return _row(plan, tally, stored, _server_times(log), items)


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
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"manage.py {args[0]} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def _set_up(env: dict[str, str], judges: int) -> None:
    started = time.perf_counter()
    _manage(env, "migrate", "--noinput", "-v", "0")
    _manage(env, "load_demo", "--force")
    _manage(env, "shell", "-c", USERS_CODE.format(judges=judges))
    print(f"bench_judging: set-up in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def _campaign(env: dict[str, str], plan: Plan) -> tuple[int, dict[str, int], int]:
    started = time.perf_counter()
    per_item = max(2, round(2 * plan.judges / ITEMS_PER_JUDGE_OF))
    code = CAMPAIGN_CODE.format(
        judges=plan.judges,
        name=f"bench-{plan.protocol}-{plan.judges}",
        protocol=plan.protocol,
        per_item=per_item,
    )
    out = _manage(env, "shell", "-c", code)
    lines = [line.split() for line in out.splitlines()]
    assignments = {line[1]: int(line[2]) for line in lines if line[:1] == ["ASSIGNMENT"]}
    items = next(int(line[1]) for line in lines if line[:1] == ["ITEMS"])
    campaign = next(int(line[1]) for line in lines if line[:1] == ["CAMPAIGN"])
    print(
        f"bench_judging: {plan.protocol} campaign for {plan.judges} judges "
        f"({per_item} per item) in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return campaign, assignments, items


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


def _answer(page: str, rng: random.Random) -> Answer:
    """A valid answer to the screen, whatever the protocol, read from the form as a browser
    without script would: a random level of every radio question (levels, ranks), a random
    value of every slider (DA, ESA), 0-2 error spans inside each candidate text (MQM with a
    category of the page's list, ESA without), and the candidate edited (post-editing)."""
    form: dict[str, str] = {}
    judgments: set[tuple[int, str]] = set()
    radios: dict[str, list[str]] = {}
    for tag in INPUT.findall(page):
        attributes = dict(ATTRIBUTE.findall(tag))
        name = attributes.get("name", "")
        score = SCORE_FIELD.match(name)
        if not score:
            continue
        judgments.add((int(score[1]), score[2]))
        if attributes.get("type") == "range":
            low, high = int(attributes["min"]), int(attributes["max"])
            form[name] = str(rng.randint(low, high))
        else:
            radios.setdefault(name, []).append(attributes["value"])
    form.update({name: rng.choice(values) for name, values in radios.items()})
    scored = {assigned for assigned, _ in judgments}
    categories = [html.unescape(value) for value in CATEGORY.findall(page)]
    spans: dict[int, int] = {}
    for assigned, escaped in SPAN_TEXT.findall(page):
        marked = _spans(html.unescape(escaped), categories, rng)
        form[f"spans-{assigned}"] = json.dumps(marked)
        spans[int(assigned)] = len(marked)
        if int(assigned) not in scored:  # MQM: the score comes from the spans
            judgments.add((int(assigned), "spans"))
    postedits: dict[int, str] = {}
    for assigned, escaped in POSTEDIT.findall(page):
        text = _edit(html.unescape(escaped), rng)
        form[f"postedit-{assigned}"] = text
        postedits[int(assigned)] = " ".join(text.split())
        judgments.add((int(assigned), "postedit"))
    return Answer(form, judgments, spans, postedits)


def _spans(text: str, categories: list[str], rng: random.Random) -> list[dict]:
    """None (a third of the time: "no errors"), or one or two spans of up to 12 characters."""
    if not text or rng.randrange(3) == 0:
        return []
    spans = []
    for _ in range(rng.randint(1, 2)):
        start = rng.randrange(len(text))
        span = {
            "start": start,
            "end": min(len(text), start + rng.randint(1, 12)),
            "severity": rng.choice(("minor", "major")),
        }
        if categories:
            span["category"] = rng.choice(categories)
        spans.append(span)
    return spans


def _edit(text: str, rng: random.Random) -> str:
    """The candidate with a word dropped or two neighbours swapped; from scratch (an empty
    box), a made-up translation."""
    words = text.split()
    if not words:
        return f"Eine Übersetzung von Grund auf, Nummer {rng.randrange(10**6)}."
    if len(words) > 2 and rng.randrange(2):
        del words[rng.randrange(len(words))]
    elif len(words) > 1:
        at = rng.randrange(len(words) - 1)
        words[at], words[at + 1] = words[at + 1], words[at]
    return " ".join(words)


def _judge(client: _Client, assignment: int, stop_at: float, out: Tally, seed: int) -> None:
    """Open, answer and submit screens until time is up. A submission counts as stored when
    the page it leads to shows no error message (errors come back as a message)."""
    rng = random.Random(seed)
    status, location, _, _ = client.request("GET", f"/judging/assignments/{assignment}/")
    pending: list[Answer] = []
    while status == 302 and SCREEN_PATH.match(location):
        status, _, page, elapsed = client.request("GET", location)
        _settle(out, pending, page)
        if time.time() >= stop_at:
            return
        out.page.append(elapsed)
        time.sleep(THINK_S * rng.uniform(0.5, 1.5))
        answer = _answer(page, rng)
        form = {
            "csrfmiddlewaretoken": client.cookies.get("csrftoken", ""),
            "token": TOKEN.search(page).group(1),
            "active_ms": "0",
            **answer.form,
        }
        status, target, _, elapsed = client.request("POST", location, form)
        out.submit.append(elapsed)
        if status != 302:  # a 503 (the page would retry): nothing stored; open it again
            out.errors += 1
            status, target = 302, location
        else:
            pending.append(answer)
        if rng.randrange(DOUBLE_SUBMIT_EVERY) == 0:
            client.request("POST", location, form)  # the double click
            out.doubles += 1
        location = target
    if status == 302:  # the done page
        _settle(out, pending, client.request("GET", location)[2])
        out.finished += 1


def _settle(out: Tally, pending: list[Answer], page: str) -> None:
    if not pending:
        return
    if 'class="message error"' in page:
        out.errors += 1
    else:
        for answer in pending:
            out.judgments |= answer.judgments
            out.spans.update(answer.spans)
            out.postedits.update(answer.postedits)
    pending.clear()


def _load(port: int, assignments: dict[str, int], seconds: float) -> Tally:
    results = Tally()
    shared_lock = threading.Lock()
    # Password hashing is deliberately slow: log everyone in first, then start the clock.
    stop_at = [0.0]

    def start_clock() -> None:  # runs once, before any thread passes the barrier
        stop_at[0] = time.time() + seconds

    ready = threading.Barrier(len(assignments) + 1, action=start_clock)

    def worker(number: int, username: str, assignment: int) -> None:
        own = Tally()
        try:
            client = _login(port, username)
            ready.wait(timeout=300)
            _judge(client, assignment, stop_at[0], own, seed=number)
        finally:
            with shared_lock:
                results.merge(own)

    threads = [
        threading.Thread(target=worker, args=(number, username, assignment), daemon=True)
        for number, (username, assignment) in enumerate(sorted(assignments.items()))
    ]
    for thread in threads:
        thread.start()
    ready.wait(timeout=300)
    for thread in threads:
        thread.join(timeout=seconds + 60)
    return results


def _stored(database_url: str, campaign: int, tally: Tally) -> dict[str, int]:
    """What the campaign's tables hold, and how far it is from what the judges sent."""
    import psycopg

    of_campaign = (
        "FROM judging_judgment j JOIN judging_assigneditem ai ON ai.id = j.assigned_item_id "
        "JOIN judging_assignment a ON a.id = ai.assignment_id WHERE a.campaign_id = %s"
    )
    with psycopg.connect(database_url) as connection:

        def one(sql: str) -> int:
            return connection.execute(sql, (campaign,)).fetchone()[0]

        count = one(f"SELECT count(*) {of_campaign}")
        revised = one(f"SELECT count(*) {of_campaign} AND j.revision_count > 0")
        duplicates = one(
            f"SELECT count(*) FROM (SELECT j.assigned_item_id, j.aspect_id {of_campaign} "
            "GROUP BY 1, 2 HAVING count(*) > 1) AS twice"
        )
        spans = one(
            f"SELECT count(*) FROM judging_errorspan s WHERE s.judgment_id IN "
            f"(SELECT j.id {of_campaign})"
        )
        texts = dict(
            connection.execute(
                f"SELECT j.assigned_item_id, p.text FROM judging_postedit p JOIN "
                f"(SELECT j.id, j.assigned_item_id {of_campaign}) AS j ON j.id = p.judgment_id",
                (campaign,),
            ).fetchall()
        )
    wrong_texts = sum(texts.get(assigned) != text for assigned, text in tally.postedits.items())
    return {
        "count": count,
        "revised": revised,
        "duplicates": duplicates,
        "spans": spans,
        "postedits": len(texts),
        "wrong_texts": wrong_texts,
    }


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


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def _row(
    plan: Plan, tally: Tally, stored: dict[str, int], server: dict[str, list[float]], items: int
) -> BenchRow:
    page, submit = server["page"], server["submit"]
    sent_spans = sum(tally.spans.values())
    exact = (
        len(tally.judgments) == stored["count"]
        and stored["duplicates"] == 0
        and stored["revised"] == 0
        and sent_spans == stored["spans"]
        and len(tally.postedits) == stored["postedits"]
        and stored["wrong_texts"] == 0
    )
    stored_once = (
        f"{'OK' if exact else 'MISMATCH'} {len(tally.judgments)} judgments sent, "
        f"{stored['count']} stored, {stored['duplicates']} duplicated, "
        f"{stored['revised']} revised"
    )
    if tally.spans:
        stored_once += f"; spans {sent_spans} sent, {stored['spans']} stored"
    if tally.postedits:
        stored_once += (
            f"; post-edits {len(tally.postedits)} sent, {stored['postedits']} stored, "
            f"{stored['wrong_texts']} differ"
        )
    duration = f"{plan.seconds:g} s"
    if plan.judges == BIG_JUDGES:
        duration += (
            " = issue #16's 5 minutes"
            if plan.seconds >= ISSUE_DURATION_S
            else f", not issue #16's {ISSUE_DURATION_S} s"
        )
    note = (
        f"page p50/p95 {_ms(_percentile(page, 0.5))}/{_ms(_percentile(page, 0.95))} ms, "
        f"submission p50/p95 {_ms(_percentile(submit, 0.5))}/{_ms(_percentile(submit, 0.95))} ms; "
        f"client p95 page/submission {_ms(_percentile(tally.page, 0.95))}/"
        f"{_ms(_percentile(tally.submit, 0.95))} ms; {len(page)} pages, {len(submit)} submissions "
        f"({tally.doubles} double), {tally.errors} errors; {stored_once}; {duration}, "
        f"think ~{THINK_S:g} s, {WORKERS} workers, {items} items"
    )
    if tally.finished:
        note += f", {tally.finished} judges ran out of screens"
    return BenchRow(
        task=f"judging load: {plan.protocol}, {plan.judges} judges",
        ours_s=max(_percentile(page, 0.95), _percentile(submit, 0.95)),
        target=f"< {TARGET_S:g} s",
        note=note,
    )


if __name__ == "__main__":
    from tests.benchmarks.common import format_table

    print(format_table(run()))
