"""An admin logs in, uploads a small text corpus through the form, opens it, sees a candidate."""

from __future__ import annotations

import pytest

from tests.conftest import make_user
from tests.corpora.conftest import REF_A, SOURCE, SYS_X

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
