"""A run page in Chromium while no worker is running: the warning says so and how to start one,
and goes away by itself (the page polls its progress JSON) once a worker reports again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from evaltrans.roles import VIEWERS_GROUP
from metrics.models import MetricRun
from metrics.services import runs, workers
from tests.metrics.run_helpers import choices, make_test_set

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

expect = pytest.importorskip("playwright.sync_api").expect


def test_a_run_without_a_worker_says_so_until_a_worker_reports(live_server, page, settings):
    settings.METRICS_STALLED_AFTER_S = 60
    test_set = make_test_set("browser-stalled")
    run = runs.metric_run_create(
        test_set=test_set, systems=test_set.systems.all(), measures=choices("wer")
    )
    started = timezone.now() - timedelta(minutes=3, seconds=10)
    MetricRun.objects.filter(pk=run.pk).update(
        status=MetricRun.Status.RUNNING,
        created_at=started,
        dispatched_at=started,
        started_at=started,
    )
    account = User.objects.create_user("vic", password="pw-vic")
    account.groups.add(Group.objects.get_or_create(name=VIEWERS_GROUP)[0])
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "vic")
    page.fill("#id_password", "pw-vic")
    with page.expect_navigation():
        page.click("button[type=submit]")

    page.goto(f"{live_server.url}{run.get_absolute_url()}")
    warning = page.locator("#run-stalled")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("No worker has reported for 3 min — is a worker running?")
    expect(warning).to_contain_text("make worker")
    expect(warning).to_contain_text("the run resumes where it stopped")
    screenshot(page, "run-stalled")

    workers.worker_heartbeat_record(hostname="celery@alpha")
    expect(warning).to_be_hidden()
    expect(page.locator("#run-status")).to_have_text("Running")
