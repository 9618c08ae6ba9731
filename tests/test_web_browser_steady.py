"""The page holds still under a click, in a real headless Chromium (as
tests/test_web_browser.py): what comes on its own (the table's news: another page's roll)
never moves the action's buttons, and the table's panel leaves the action and its result
the desktop's first screen.

CI once waited 60 s for the odds chart after a click on Odds, with no error: the page's own
run reached the table's log about 0.1 s after its answer (the log keeps its lines in
batches), the log above the action grew by a line between the press and the release of
the click, which landed off the button: no click, no odds asked.
"""

from __future__ import annotations

import time

from playwright.sync_api import expect

from tests.test_web_browser import browser, page, server  # noqa: F401  (pytest fixtures)


def _opened(page, server):  # noqa: F811
    base, _ = server
    page.goto(f"{base}/?rulebook=brujeria&character=brujeria_investigadora")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    page.select_option("#action", "asustarse")


def _another_page_runs(page) -> None:  # noqa: F811
    """A run from another page (another player): the table's news of it comes to this one."""
    status = page.evaluate(
        """async () => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const answer = await fetch('/api/run', {method: 'POST', body: JSON.stringify({
              rulebook: 'brujeria', action: 'asustarse', params: {},
              character: 'brujeria_investigadora', seed: 1}),
            headers: {'content-type': 'application/json', 'x-csrf-token': csrf,
                      'x-rulebook-page': 'another page'}});
          return answer.status;
        }"""
    )
    assert status == 200


def test_a_click_on_odds_is_not_lost_when_the_tables_news_comes_meanwhile(page, server):  # noqa: F811
    _opened(page, server)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/api/odds") else None)
    buttons = ("#odds-button", "#run")
    before = {b: page.locator(b).bounding_box() for b in buttons}
    box = before["#odds-button"]
    lines = page.locator("#table-log li").count()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    _another_page_runs(page)
    expect(page.locator("#table-log li")).to_have_count(lines + 1)  # the news, shown
    page.mouse.up()
    expect(page.locator("#odds-chart svg")).to_be_visible()
    assert len(asked) == 1, asked
    assert {b: page.locator(b).bounding_box() for b in buttons} == before
    # more news moves no button, the editor's neither (the table's lists keep their size;
    # the checker's word on the edit comes after the editor's buttons)
    buttons += ("#editor-save", "#editor-odds")
    before = {b: page.locator(b).bounding_box() for b in buttons}
    for _ in range(4):
        _another_page_runs(page)
    expect(page.locator("#table-log li")).to_have_count(lines + 5)
    time.sleep(0.2)  # (a layout after the last line: none expected)
    assert {b: page.locator(b).bounding_box() for b in buttons} == before


def test_the_action_and_its_result_are_the_desktops_first_screen(page, server):  # noqa: F811
    _opened(page, server)
    page.check('input[name="dice"][value="seed"]')
    page.click("#run")
    expect(page.locator("#trace li").first).to_be_visible()
    height = page.viewport_size["height"]
    for shown in ("#action", "#run", "#odds-button", "#result"):
        box = page.locator(shown).bounding_box()
        assert box["y"] + box["height"] <= height, (shown, box, height)
    # the join link and its QR code open on demand, and then show
    assert page.locator("#table-qr").is_hidden()
    page.click("#table-join summary")
    expect(page.locator("#table-qr")).to_be_visible()
    expect(page.locator("#table-link")).to_contain_text("/join?code=")
