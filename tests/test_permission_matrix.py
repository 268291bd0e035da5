"""Who may do what on every page, generated from the URL configuration.

Every named URL of the project (Django's own admin excepted) must have a row in ``RULES``: who
may use it, for which methods. The matrix requests every URL as each of five users (anonymous,
the judge who owns the assignment, another judge, a viewer, an admin) with GET and POST, and
checks each cell against its row:

* anonymous users are sent to the login page (public pages excepted);
* a user the row does not admit gets 403 (404 for someone else's assignment) or 405, never a
  page, a redirect or an action;
* a user the row admits gets a page or a redirect for the row's methods, and 405 for others;
* no cell gives 500.

A new URL without a row fails ``test_every_url_has_a_rule``: decide who may use it and add it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.models import CorpusImport
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP, VIEWERS_GROUP
from judging.humanscores.models import JudgmentSet
from judging.services import campaign_create
from metrics.services import runs
from tests.conftest import make_user
from tests.judging.conftest import toy_corpus
from tests.judging.humanscores.conftest import SOURCES, mqm_rows, write
from tests.metrics.run_helpers import choices

# Who may use a page, per method:
#   public    everyone, logged in or not;
#   any-user  every logged-in user;
#   judge-own only the judge the assignment belongs to (404 for everyone else, admins too);
#   viewer    viewers and admins;
#   admin     admins (staff) only.
PUBLIC, ANY_USER, JUDGE_OWN, VIEWER, ADMIN = "public", "any-user", "judge-own", "viewer", "admin"
ROLES = ("anonymous", "judge", "other-judge", "viewer", "admin")
METHODS = ("GET", "POST")
EXCLUDED_NAMESPACES = ("admin",)  # Django's admin site checks staff status itself


@dataclass(frozen=True)
class Rule:
    access: dict[str, str]
    """Method -> who may use it; a method not listed must answer 405."""
    pk: str = ""
    """Which fixture object a ``<pk>`` in the URL is."""
    kwargs: dict[str, object] = field(default_factory=dict)
    query: str = ""


def read(who: str, **options: object) -> Rule:
    return Rule({"GET": who}, **options)


def form(who: str, **options: object) -> Rule:
    return Rule({"GET": who, "POST": who}, **options)


SOURCE = {"kind": "set"}

# One row per URL name. A URL missing here fails the suite.
RULES: dict[str, Rule] = {
    "login": form(PUBLIC),
    "logout": Rule({"POST": ANY_USER}),
    # corpora
    "corpora:home": read(ANY_USER),
    "corpora:test_set_list": read(VIEWER),
    "corpora:test_set_import": form(ADMIN),
    "corpora:import_detail": read(ADMIN, pk="corpus_import"),
    "corpora:import_progress": read(ADMIN, pk="corpus_import"),
    "corpora:test_set_detail": read(VIEWER, pk="test_set"),
    "corpora:test_set_export": read(ADMIN, pk="test_set", kwargs={"export_format": "text"}),
    # judging
    "judging:my_assignments": read(ANY_USER),
    "judging:judge_next": read(JUDGE_OWN, pk="assignment"),
    "judging:judge_screen": form(JUDGE_OWN, pk="assignment", kwargs={"screen": 1}),
    # The practice phase (the matrix's campaign has it off: each page redirects to the items).
    "judging:practice": read(JUDGE_OWN, pk="assignment"),
    "judging:practice_screen": form(JUDGE_OWN, pk="assignment", kwargs={"screen": 1}),
    "judging:practice_feedback": read(JUDGE_OWN, pk="assignment", kwargs={"screen": 1}),
    "judging:practice_skip": Rule({"POST": JUDGE_OWN}, pk="assignment"),
    "judging:campaign_list": read(ADMIN),
    "judging:campaign_new": form(ADMIN),
    "judging:campaign_detail": read(ADMIN, pk="campaign"),
    # MQM/ESA judgments with their spans (another protocol's campaign: a redirect to its page).
    "judging:campaign_spans": read(ADMIN, pk="campaign"),
    "judging:campaign_export": read(ADMIN, pk="campaign", kwargs={"export_format": "csv"}),
    # human scores
    "humanscores:index": read(VIEWER),
    "humanscores:import": form(ADMIN),
    "humanscores:ranking": read(VIEWER, pk="judgment_set", kwargs=SOURCE),
    "humanscores:judge_bias": read(VIEWER, pk="judgment_set", kwargs=SOURCE),
    "humanscores:judge_detail": read(
        VIEWER, pk="judgment_set", kwargs=SOURCE, query="?judge=rater1"
    ),
    "humanscores:agreement": read(VIEWER, pk="judgment_set", kwargs=SOURCE),
    # metric runs
    "metrics:run_list": read(VIEWER),
    "metrics:run_create": form(ADMIN),
    "metrics:run_detail": read(VIEWER, pk="run"),
    "metrics:run_progress": read(VIEWER, pk="run"),
    "metrics:run_cancel": Rule({"POST": ADMIN}, pk="run"),
    "metrics:run_sentences": read(VIEWER, pk="run"),
    "metrics:run_download": read(VIEWER, pk="run", kwargs={"file_format": "csv"}),
    # correlation
    "correlation:index": read(VIEWER),
    "correlation:import_scores": form(ADMIN),
    "correlation:matrix": read(VIEWER, pk="judgment_set", kwargs=SOURCE),
    "correlation:matrix_download": read(
        VIEWER, pk="judgment_set", kwargs={**SOURCE, "file_format": "csv"}
    ),
    "correlation:state": read(VIEWER, pk="judgment_set", kwargs=SOURCE),
    "correlation:scatter": read(VIEWER, pk="judgment_set", kwargs=SOURCE),
    # The toy set has two systems, too few for the default system level (a 400 that says so).
    "correlation:scatter_download": read(
        VIEWER, pk="judgment_set", kwargs={**SOURCE, "file_format": "csv"}, query="?level=segment"
    ),
    # Viewers read a sweep; starting its run spends worker time, which is the admins' call.
    "correlation:sweep": Rule({"GET": VIEWER, "POST": ADMIN}, pk="judgment_set", kwargs=SOURCE),
    "correlation:combination": read(VIEWER, pk="judgment_set", kwargs=SOURCE),
    # segments
    "segments:detail": read(VIEWER, kwargs={"number": 1}),
    "segments:grid": read(VIEWER, kwargs={"number": 1}),
    "segments:compare": read(VIEWER, query="?a=sysA&b=sysB"),
}


def url_names(patterns=None, namespace: str = "") -> Iterator[tuple[str, list[str]]]:
    """(name, URL keyword arguments) of every URL pattern, namespaces included."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            if not namespace and entry.namespace in EXCLUDED_NAMESPACES:
                continue
            inner = ":".join(part for part in (namespace, entry.namespace) if part)
            for name, kwargs in url_names(entry.url_patterns, inner):
                yield name, [*entry.pattern.regex.groupindex, *kwargs]
        elif isinstance(entry, URLPattern):
            name = f"{namespace}:{entry.name}" if namespace and entry.name else entry.name
            yield name or f"<unnamed {entry.pattern}>", list(entry.pattern.regex.groupindex)


def test_every_url_has_a_rule():
    found = dict(url_names())
    missing = sorted(set(found) - set(RULES))
    assert not missing, (
        f"URLs without a row in RULES of {__name__}: {missing}. Decide who may use each "
        "(public, any-user, judge-own, viewer, admin) and for which methods, and add it."
    )
    stale = sorted(set(RULES) - set(found))
    assert not stale, f"RULES names URLs that no longer exist: {stale}"


@pytest.fixture
def world(db, tmp_path, django_capture_on_commit_callbacks) -> dict[str, object]:
    """One of everything a URL can name, and a user of each role."""
    users = {
        "judge": make_user("judge-a", group=JUDGES_GROUP),
        "other-judge": make_user("judge-b", group=JUDGES_GROUP),
        "viewer": make_user("vera", group=VIEWERS_GROUP),
        "admin": make_user("boss", staff=True),
    }
    judged = testset_import(corpus=toy_corpus(), name="judged", import_format="text").test_set
    campaign = campaign_create(
        name="matrix",
        test_set=judged,
        systems=list(judged.systems.all()),
        judges=[users["judge"], users["other-judge"]],
        seed=7,
        repeat_share=0.0,
    )
    segments = [
        SegmentData(
            source=source,
            doc_id="doc1",
            seg_id=str(number),
            references={"ref": f"ref {number} text"},
            candidates={"sysA": f"a {number}", "sysB": f"b {number}"},
        )
        for number, source in enumerate(SOURCES, 1)
    ]
    scored = testset_import(
        corpus=CorpusData("de", "en", segments), name="toy", import_format="mqm-tsv"
    ).test_set
    ratings = write(tmp_path / "ratings.tsv", mqm_rows())
    call_command(
        "import_judgments", "mqm-tsv", str(ratings), "--name", "toy mqm", "--test-set", "toy",
        stdout=StringIO(),
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.metric_run_start(
            test_set=scored, systems=scored.systems.all(), measures=choices("wer", "bleu")
        )
    return {
        "users": users,
        "test_set": scored,
        "test_set_pk": scored.pk,
        "campaign": campaign,
        "assignment": campaign.assignments.get(judge=users["judge"]),
        "judgment_set": JudgmentSet.objects.get(name="toy mqm"),
        "run": run,
        "corpus_import": CorpusImport.objects.create(name="queued", import_format="text"),
    }


def url_of(name: str, kwarg_names: list[str], world: dict[str, object]) -> str:
    rule = RULES[name]
    kwargs = {}
    for kwarg in kwarg_names:
        if kwarg in rule.kwargs:
            kwargs[kwarg] = rule.kwargs[kwarg]
        elif kwarg == "pk":
            kwargs[kwarg] = world[rule.pk].pk
        elif kwarg in ("test_set", "test_set_pk"):
            kwargs[kwarg] = world["test_set"].pk
        else:
            raise AssertionError(f"{name}: no value for <{kwarg}>; give it in its Rule")
    return reverse(name, kwargs=kwargs) + rule.query


def admitted(who: str, role: str) -> bool:
    return {
        PUBLIC: True,
        ANY_USER: role != "anonymous",
        JUDGE_OWN: role == "judge",
        VIEWER: role in ("viewer", "admin"),
        ADMIN: role == "admin",
    }[who]


def expected(rule: Rule, role: str, method: str) -> tuple[set[int], str]:
    """The statuses a cell may answer, and why."""
    public = set(rule.access.values()) == {PUBLIC}
    if role == "anonymous" and not public:
        return {302}, "anonymous users are sent to the login page"
    if method in rule.access:
        if admitted(rule.access[method], role):
            return {200, 302}, f"{rule.access[method]} page, admitted"
        if rule.access[method] == JUDGE_OWN:
            return {404}, "someone else's assignment"
        return {403}, f"{rule.access[method]} only"
    # Not served for this method: 405, unless the user may not see the page at all.
    if any(admitted(who, role) for who in rule.access.values()):
        return {405}, f"{method} is not served"
    return {403, 404, 405}, "not admitted, and the method is not served"


def client_for(role: str, world: dict[str, object]) -> Client:
    client = Client(raise_request_exception=False)
    if role != "anonymous":
        client.force_login(world["users"][role])
    return client


def test_permission_matrix(world, settings):
    settings.DEBUG = False
    failures = []
    clients = {role: client_for(role, world) for role in ROLES}
    for name, kwarg_names in sorted(dict(url_names()).items()):
        if name not in RULES:
            continue  # reported by test_every_url_has_a_rule
        url = url_of(name, kwarg_names, world)
        for role in ROLES:
            for method in METHODS:
                # Logging out ends the shared client's session: that cell gets its own.
                client = client_for(role, world) if name == "logout" else clients[role]
                response = client.generic(method, url)
                allowed, reason = expected(RULES[name], role, method)
                status = response.status_code
                problem = ""
                if status not in allowed:
                    problem = f"got {status}, expected {sorted(allowed)} ({reason})"
                elif status == 302 and role == "anonymous" and reason.startswith("anonymous"):
                    if not response["Location"].startswith(reverse("login")):
                        problem = f"redirected to {response['Location']}, not to the login page"
                if problem:
                    failures.append(f"{method} {url} as {role} [{name}]: {problem}")
    assert not failures, "\n".join(failures)
