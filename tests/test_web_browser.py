"""The page end to end, in a real headless Chromium: Debian's `chromium` (at
/usr/bin/chromium, installed by .ci/run), driven by Playwright for Python, against
`rulebook serve`'s app on a real uvicorn server on 127.0.0.1.

Every wait is on a condition (an element, a text), never a sleep. Each test leaves a
screenshot in artifacts/ (or $RULEBOOK_ARTIFACTS), and checks that the page asked for
nothing but the server itself.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn
import yaml
from playwright.sync_api import expect, sync_playwright

from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("RULEBOOK_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("RULEBOOK_ARTIFACTS", ROOT / "artifacts"))
# As this machine's notes say: no sandbox as root, and no background connections.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("campaign")
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    port = _free_port()
    config = uvicorn.Config(create_app(folder), host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", folder
    running.should_exit = True
    thread.join(15)


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"the browser tests need Debian's chromium at {CHROMIUM}: apt-get install chromium"
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server, request):
    base, _folder = server
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    failures: list[str] = []
    asked: list[str] = []
    page.on("pageerror", lambda error: failures.append(str(error)))
    page.on("request", lambda r: asked.append(r.url))
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert failures == [], failures
    elsewhere = [url for url in asked if not url.startswith(base + "/")]
    assert asked and elsewhere == [], elsewhere


def open_page(page, server, rulebook: str, character: str):
    base, _ = server
    page.goto(f"{base}/?rulebook={rulebook}&character={character}")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#editor .cm-content")).to_contain_text("rulebook")


def test_run_an_action_with_typed_dice_and_save_it(page, server):
    base, folder = server
    info = page.request.get(f"{base}/api/rulebooks/arcana_mundi").json()
    roll_line = next(r["line"] for r in info["rolls"] if r["name"] == "capicua")
    check_line = next(c["line"] for c in info["checks"] if c["name"] == "tirada_basica")
    open_page(page, server, "arcana_mundi", "menecma")
    page.select_option("#action", "usar_numina")
    page.select_option("#param-numina", "Grito Báquico")
    page.check('input[name="dice"][value="typed"]')
    page.click("#run")
    expect(page.locator("#ask-prompt")).to_have_text(
        f"Roll die 1: d10 (1–10) — line {roll_line}: 2d10"
    )
    page.click("#ask-faces button:text-is('3')")  # a die button: the face shown
    expect(page.locator("#ask-typed")).to_have_text("typed so far: 3")
    expect(page.locator("#ask-prompt")).to_contain_text("Roll die 2")
    page.fill("#ask-input", "4")  # or typed in
    page.press("#ask-input", "Enter")
    expect(page.locator("#outcome")).to_be_visible()
    expect(page.locator("#ask")).to_be_hidden()
    # The worked example: 20 against 15, three Virtus spent, the dice marked as typed in.
    expect(page.locator("#result")).to_contain_text("total20")
    expect(page.locator("#changes")).to_have_text("dinamis.Virtus: 5 → 2")
    expect(page.locator("#dice")).to_have_text("dice: 3, 4 (typed in)")
    expect(page.locator("#trace")).to_contain_text("capicua: [3, 4] = 7 (a mano)")
    virtus = page.locator('.resource[data-path="dinamis.Virtus"]')
    expect(virtus).to_have_class(re.compile("changed"))
    expect(virtus.locator(".value")).to_have_text("2 / 5")
    expect(virtus.locator('[role="meter"]')).to_have_attribute("aria-valuenow", "2")
    # A trace line leads to its rulebook line in the editor.
    page.click(f'#trace a.line[data-line="{check_line}"]')
    expect(page.locator("#editor .cm-lineNumbers .cm-activeLineGutter")).to_have_text(
        str(check_line)
    )
    expect(page.locator("#editor .cm-activeLine")).to_contain_text("check tirada_basica(")
    # Saved (a shipped character: a copy in the folder), journaled, undone.
    page.click("#save-sheet")
    expect(page.locator("#saved")).to_have_text("saved in menecma.yaml (journal entry 1)")
    saved = yaml.safe_load((folder / "menecma.yaml").read_text(encoding="utf-8"))
    assert saved["dinamis"]["Virtus"] == 2
    entry = page.locator('#history li[data-entry="1"]')
    expect(entry).to_contain_text("usar_numina: dinamis.Virtus 5 → 2")
    entry.locator("button.undo").click()
    expect(page.locator('#history li[data-entry="2"]')).to_contain_text("undo of run 1")
    expect(entry).to_have_class("undone")
    expect(virtus.locator(".value")).to_have_text("5 / 5")


def test_odds_drawn_as_bars_compared_with_a_house_rule(page, server):
    open_page(page, server, "brujeria", "brujeria_investigadora")
    page.select_option("#action", "asustarse")
    page.fill("#odds-field", "Esencia")
    page.select_option("#compare", "brujeria_miedo_duro")
    page.click("#odds-button")
    chart = page.locator("#odds-chart svg")
    expect(chart).to_be_visible()
    a, b = chart.locator("rect.bar-a[data-outcome]"), chart.locator("rect.bar-b[data-outcome]")
    assert a.count() >= 6 and b.count() == a.count()  # a bar of each series per outcome
    expect(chart).to_contain_text("A: Brujería")
    expect(chart).to_contain_text("B: Brujería: miedo duro")
    expect(page.locator("#odds-summary")).to_contain_text("A: exact, mean 16.700")
    # "At least": from the lowest outcome the bar is 100%.
    page.check('input[name="odds-view"][value="at-least"]')
    expect(chart.locator("text").nth(2)).to_have_text(re.compile("^≥ "))
    expect(chart).to_contain_text("100.00%")
    first = [float(a.nth(i).get_attribute("width")) for i in range(a.count())]
    assert first == sorted(first, reverse=True)


def test_a_progress_bar_while_the_odds_are_computed(page, server):
    open_page(page, server, "arcana_mundi", "menecma")
    page.select_option("#action", "usar_numina")
    page.select_option("#param-numina", "Grito Báquico")
    page.fill("#odds-field", "success")
    # Record every text the progress bar shows (it may come and go within a second).
    page.evaluate(
        """() => {
          window.progressSeen = [];
          const text = document.querySelector('#odds-progress-text');
          new MutationObserver(() => window.progressSeen.push(text.textContent))
            .observe(text, {childList: true, characterData: true, subtree: true});
        }"""
    )
    page.click("#odds-button")
    expect(page.locator("#odds-chart svg")).to_be_visible()
    seen = page.evaluate("window.progressSeen")
    assert any(re.fullmatch(r"exact: \d+ of 100000 units of work", s) for s in seen), seen
    expect(page.locator("#odds-progress")).to_be_hidden()
    expect(page.locator("#odds-chart svg")).to_contain_text("sí")  # the rulebook speaks Spanish


def test_edit_a_rule_and_see_diagnostics_and_the_odds_it_gives(page, server):
    open_page(page, server, "brujeria", "brujeria_investigadora")
    expect(page.locator("#editor-status")).to_have_text(re.compile("^✓ checks"))
    editor = page.locator("#editor .cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\naction roto() {\n  let x = Voluntat\n}\n")
    underline = page.locator("#editor .cm-lintRange-error")
    expect(underline).to_have_text("Voluntat")
    expect(page.locator("#editor-status")).to_have_text(re.compile("^1 error"))
    underline.hover()
    expect(page.locator(".cm-tooltip-lint")).to_contain_text("did you mean Voluntad?")
    # The edit's effect on an action's odds: the house rule's text in the editor.
    house = (ROOT / "rulebooks/brujeria_miedo_duro.rules").read_text(encoding="utf-8")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(house)
    expect(page.locator("#editor-status")).to_have_text(re.compile("^✓ checks"))
    expect(page.locator("#editor .cm-lintRange-error")).to_have_count(0)
    page.select_option("#action", "asustarse")
    page.fill("#odds-field", "Esencia")
    page.click("#editor-odds")
    expect(page.locator("#odds-chart svg")).to_contain_text("B: Brujería: miedo duro (editado)")
    # Highlighting: keywords and dice terms are told apart.
    assert page.locator("#editor .cm-content span").count() > 50
