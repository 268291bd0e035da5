"""An admin logs in, uploads a small text corpus through the form, opens it, sees a candidate;
with every upload sent to the background, the import page shows the progress until done."""

from __future__ import annotations

import pytest

from tests.conftest import make_user
from tests.corpora.conftest import REF_A, SOURCE, SYS_X

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path_factory):
    """Uploaded files wait in a folder of the test, never in var/media."""
    settings.MEDIA_ROOT = str(tmp_path_factory.mktemp("media"))


def test_admin_uploads_a_text_corpus_and_sees_a_candidate(live_server, page, tmp_path):
    make_user("boss", staff=True)
    files = {}
    for name, lines in {"src.de": SOURCE, "ref.en": REF_A, "sysX.en": SYS_X}.items():
        files[name] = tmp_path / name
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")

    page.goto(f"{live_server.url}/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "pw-boss")
    page.click("button[type=submit]")
    page.click("text=Import")
    page.fill("#id_name", "browser-toy")
    page.select_option("#id_format", "text")
    page.fill("#id_source_lang", "de")
    page.fill("#id_target_lang", "en")
    page.set_input_files("#id_source", str(files["src.de"]))
    page.set_input_files("#id_references", str(files["ref.en"]))
    page.set_input_files("#id_systems", str(files["sysX.en"]))
    screenshot(page, "corpus-import-form")
    page.click("#import-form button[type=submit]")

    page.wait_for_selector("text=Imported browser-toy v1")
    assert page.locator("h1").inner_text().startswith("browser-toy")
    candidate = page.locator("tr.candidate-row td").nth(2)
    # MT output that looks like HTML is shown as text, not run.
    assert candidate.inner_text() == "<script>alert(1)</script>"
    assert page.locator("tr.candidate-row th").first.inner_text() == "sysX"
    screenshot(page, "corpus-detail")


def test_a_background_import_shows_its_progress_until_done(live_server, page, tmp_path, settings):
    """With the threshold at 0 every upload goes to the (eager) worker task: the browser lands
    on the import page, which reaches done and links the test set."""
    settings.CORPUS_BACKGROUND_IMPORT_BYTES = 0
    make_user("boss", staff=True)
    files = {}
    for name, lines in {"src.de": SOURCE, "ref.en": REF_A, "sysX.en": SYS_X}.items():
        files[name] = tmp_path / name
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")

    page.goto(f"{live_server.url}/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "pw-boss")
    page.click("button[type=submit]")
    page.click("text=Import")
    page.fill("#id_name", "background-toy")
    page.select_option("#id_format", "text")
    page.fill("#id_source_lang", "de")
    page.fill("#id_target_lang", "en")
    page.set_input_files("#id_source", str(files["src.de"]))
    page.set_input_files("#id_references", str(files["ref.en"]))
    page.set_input_files("#id_systems", str(files["sysX.en"]))
    page.click("#import-form button[type=submit]")

    page.wait_for_selector("#import-status.status-done")
    assert page.locator("h1").inner_text().startswith("Import of background-toy")
    assert page.locator("#import-bar").get_attribute("aria-valuenow") == "100"
    assert page.locator("#import-count").inner_text() == "3 / 3 segments"
    link = page.locator("#test-set-link")
    assert link.inner_text() == "Open background-toy v1"
    screenshot(page, "corpus-import-background-done")
    link.click()
    page.wait_for_selector("tr.candidate-row")
    assert page.locator("h1").inner_text().startswith("background-toy")

    page.goto(f"{live_server.url}/test-sets/import/")
    row = page.locator("#recent-imports tbody tr").first
    assert "background-toy" in row.inner_text() and "Done" in row.inner_text()
