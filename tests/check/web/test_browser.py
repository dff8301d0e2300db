"""End to end in headless Chromium: paste a text and known writing, check, rewrite, compare, copy."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("playwright")

from authorguard.check.web.app import create_app
from authorguard.experiments.pages import find_chromium

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="headless Chromium not installed (.ci/run installs Debian's chromium)"
)


@pytest.fixture()
def server(habits_world):
    from tests.check.web.conftest import running_server

    with running_server(create_app(background=habits_world[3], methods=["dropout(rate=0.4)"])) as url:
        yield url


def test_paste_check_rewrite_copy(server, habits_world, tmp_path):
    from playwright.sync_api import sync_playwright

    known, mine, _, _ = habits_world
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), headless=True)
        context = browser.new_context(
            permissions=["clipboard-read", "clipboard-write"], viewport={"width": 1200, "height": 1400}
        )
        page = context.new_page()
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(server)
        page.fill("#text", mine)
        page.fill("#known", "\n---\n".join(known))
        page.select_option("#sizes", "10")
        page.click("#check")
        page.wait_for_selector("#verdict:not(:empty)", timeout=120_000)
        assert page.text_content("#verdict").startswith("Yes")
        assert page.locator("#rankings tbody tr").count() == 3  # the three default attackers at 10 candidates
        assert page.locator("#evidence li").count() > 0
        assert page.locator("#marked mark").count() > 0  # the evidence is marked in the text itself
        assert "synthetic habits" in page.text_content("#background-line")
        page.screenshot(path=str(tmp_path / "check.png"), full_page=True)

        # the editor: an edit in the text box is re-checked by the same attackers, the rankings move
        page.locator("#evidence li").first.click()
        assert page.locator("#marked mark.on").count() > 0
        edited = mine.replace("!!", ".").replace("basically ", "")
        page.fill("#text", edited)
        page.click("#recheck")
        page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=60_000)
        assert page.locator("#rankings td.moved").count() > 0
        page.click("#apply-normalise")
        page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=60_000)
        page.fill("#text", mine)
        page.click("#recheck")
        page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=60_000)

        # one click generalises one evidence word and re-checks; "Generalise what gives me away" applies them all
        offer = page.locator("button.generalise-one").first
        word = offer.text_content().removeprefix("Generalise: ").split(" → ")[0]
        assert word in page.input_value("#text")
        offer.click()
        page.wait_for_selector("#generalised-line:has-text('Generalised')", timeout=60_000)
        page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=60_000)
        assert not re.search(rf"\b{re.escape(word)}\b", page.input_value("#text"))
        assert word in page.text_content("#generalised-line")  # the change is shown
        page.fill("#text", mine)  # typed: re-checked when the writer pauses, its evidence offered again
        page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=60_000)
        page.click("#generalise-all")
        page.wait_for_selector("#generalised-line:has-text('Generalised')", timeout=60_000)
        page.wait_for_selector("#recheck-state:has-text('checked your edit')", timeout=60_000)
        assert "[word]" in page.input_value("#text") or "[words]" in page.input_value("#text")
        page.fill("#text", mine)

        assert page.locator("#method option").all_text_contents() == ["dropout(rate=0.4)"]
        page.click("#rewrite")
        # the rewrite is shown as soon as it is written, its rankings when the attackers have read it
        page.wait_for_selector("#rewrite-summary:not(:empty)", timeout=120_000)
        page.wait_for_selector("#recheck-state:has-text('rewrote the text as it stands')", timeout=120_000)
        assert page.locator("#rewrite-box .gone").count() > 0  # dropped words are shown struck out
        assert page.locator("#rewrite-rankings tbody tr").count() == 6  # static and augmented
        page.click("#copy")
        page.wait_for_selector("#copied:has-text('copied')")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.input_value("#rewrite-plain") and copied and copied != mine
        page.screenshot(path=str(tmp_path / "rewrite.png"), full_page=True)
        browser.close()
    assert all(url.startswith(server) for url in requests), [u for u in requests if not u.startswith(server)]
