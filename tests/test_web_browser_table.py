"""The shared table end to end, in real headless Chromium (as tests/test_web_browser.py): a
game master and a player, two browser contexts, join, pick, roll, and see the same roll."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import test_web_browser as in_the_page
from playwright.sync_api import expect

from interpreter.web import create_app

ARTIFACTS, serving = in_the_page.ARTIFACTS, in_the_page.serving
browser = in_the_page.browser  # (the page's tests' browser fixture)

expect.set_options(timeout=60_000)

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples/games"
TOKEN = "the-game-masters-token"
CODE = "WXYZ-2345"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("table")
    shutil.copy(GAMES / "fate.rules", folder / "fate.rules")
    for character in ("hero", "thug"):
        shutil.copy(GAMES / "characters" / f"{character}.yaml", folder / f"{character}.yaml")
    app = create_app(folder, token=TOKEN, table={"name": "tuesday", "code": CODE})
    with serving(app, timeout_graceful_shutdown=2) as base:
        yield base


def opened(browser, viewport, failures):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda error: failures.append(str(error)))
    return context, page


def test_a_game_master_and_a_player_see_the_same_roll(browser, server):
    failures: list[str] = []
    gm_context, gm = opened(browser, {"width": 1300, "height": 1000}, failures)
    phone_context, phone = opened(browser, {"width": 390, "height": 844}, failures)
    try:
        gm.goto(f"{server}/?token={TOKEN}&rulebook=fate&character=thug")
        expect(gm.locator("body")).to_have_attribute("data-ready", "yes")
        expect(gm.locator("#table-code")).to_have_text(CODE)
        link = gm.locator("#table-link")
        expect(link).to_have_text(f"{server}/join?code={CODE}")
        qr = gm.locator("#table-qr")
        expect(qr).to_have_attribute("src", "/api/table/qr.svg")
        gm.wait_for_function("document.querySelector('#table-qr').naturalWidth > 0")

        # The player opens the join link (as the QR code gives it), says who they are...
        phone.goto(f"{server}/join?code={CODE}")
        expect(phone.locator("#join-code")).to_have_value(CODE)
        phone.fill("#join-player", "Lu")
        phone.click("#join-button")
        expect(phone.locator("body")).to_have_attribute("data-ready", "yes")
        expect(phone.locator("#table-role")).to_contain_text("Lu")  # (the first rulebook's words)
        expect(phone.locator("#table-join")).to_be_hidden()  # the code is the game master's
        expect(phone.locator("#editor-panel")).to_be_hidden()
        # ... and picks their character, which is theirs from then on.
        phone.select_option("#rulebook", "fate")
        expect(phone.locator("#character option[value='hero']")).to_have_count(1)
        phone.select_option("#character", "hero")
        phone.click("#table-pick")
        # (the page is shown again for the pick: the action chosen after it)
        expect(phone.locator("body")).to_have_attribute("data-picked", "hero")
        expect(phone.locator("#character")).to_be_disabled()
        expect(phone.locator("#character")).to_have_value("hero")
        expect(phone.locator("#table-role")).to_have_text("you are Lu")  # Fate's words
        expect(gm.locator("#table-party")).to_contain_text("Lu plays hero")

        # The player rolls; the game master's page shows the same roll, as it happened.
        phone.select_option("#action", "defend")
        phone.select_option("#param-skill", "Athletics")
        phone.check('input[name="dice"][value="seed"]')
        phone.fill("#seed", "11")
        phone.click("#run")
        expect(phone.locator("#outcome")).to_be_visible()
        mine = phone.locator('#table-log li[data-kind="run"]').first
        expect(mine).to_contain_text("Lu (hero): defend")
        theirs = gm.locator('#table-log li[data-kind="run"]').first
        expect(theirs).to_contain_text("Lu (hero): defend")
        assert theirs.inner_text() == mine.inner_text()
        dice = phone.locator("#dice").inner_text()
        assert dice.endswith("(seed 11)"), dice  # a seed given, never "random"
        shown = dice.split(": ", 1)[1].split(" (", 1)[0].replace(",", "")
        assert f"dice {shown}" in theirs.inner_text()

        # A secret roll is the game master's: the player's log never shows it.
        gm.select_option("#action", "defend")
        gm.select_option("#param-skill", "Fight")
        gm.check("#secret")
        gm.click("#run")
        expect(gm.locator("#table-log li .secret")).to_have_count(1)
        gm.uncheck("#secret")
        gm.click("#run")
        expect(gm.locator('#table-log li[data-kind="run"]')).to_have_count(3)
        expect(phone.locator('#table-log li[data-kind="run"]')).to_have_count(2)
        expect(phone.locator("#table-log")).not_to_contain_text("secret")

        # Nothing the player's page sends runs another character's action.
        csrf = phone.locator('meta[name="csrf-token"]').get_attribute("content")
        refused = phone.request.post(
            f"{server}/api/run",
            data={
                "rulebook": "fate",
                "action": "defend",
                "character": "thug",
                "seed": 1,
                "params": {"skill": "Fight"},
            },
            headers={"x-csrf-token": csrf, "origin": server},
        )
        assert refused.status == 403, refused.text()
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        gm.screenshot(path=str(ARTIFACTS / "table_game_master.png"), full_page=True)
        phone.screenshot(path=str(ARTIFACTS / "table_player.png"), full_page=True)
        gm_context.close()
        phone_context.close()
    assert failures == [], failures


def test_a_new_house_rule_speaks_the_rulebooks_language(browser, server):
    failures: list[str] = []
    context, page = opened(browser, {"width": 1300, "height": 1000}, failures)
    try:
        page.goto(f"{server}/?token={TOKEN}&rulebook=brujeria")
        expect(page.locator("body")).to_have_attribute("data-ready", "yes")
        page.click("#editor-house")
        expect(page.locator("#editor .cm-content")).to_contain_text("extends brujeria {")
        expect(page.locator("#editor .cm-content")).to_contain_text('language "es"')
    finally:
        context.close()
    assert failures == [], failures
