"""axe-core (tests/vendor/axe-core, MPL-2.0) on the page, in a real headless Chromium: no
violation of WCAG 2 A and AA with a run, odds and the editor shown, nor on the join page,
in the light theme and the dark one (issue 26)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from interpreter.web import create_app
from tests.test_web_browser import browser, server, serving  # noqa: F401  (pytest fixtures)

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "tests/vendor/axe-core/axe.min.js"
TOKEN = "the-game-masters-token"
CODE = "WXYZ-2345"
#: the rules axe runs: those of WCAG 2.0 and 2.1, levels A and AA
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def violations(page) -> list[dict]:
    """axe's violations on the page as it is now: each rule, its impact and where."""
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = page.evaluate(
        """async (tags) => {
          const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
          return result.violations.map((v) => ({
            id: v.id, impact: v.impact,
            nodes: v.nodes.slice(0, 5).map((n) => [n.target.join(' '), n.failureSummary]),
          }));
        }""",
        TAGS,
    )
    assert isinstance(found, list)
    return found


def test_axe_itself_finds_a_violation_planted_in_the_page(browser, server):  # noqa: F811
    # the check can fail: an image without a text and a grey on grey are found
    base, _ = server
    context = browser.new_context(bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(f"{base}/join")
        page.evaluate(
            """() => {
              const picture = document.createElement('img');
              picture.src = 'data:,';
              const faint = document.createElement('p');
              faint.textContent = 'hard to read';
              faint.style.cssText = 'color: #aaa; background: #bbb';
              document.querySelector('main').append(picture, faint);
            }"""
        )
        ids = {v["id"] for v in violations(page)}
        assert {"image-alt", "color-contrast"} <= ids, ids
    finally:
        context.close()


def _shown_page(browser, base, scheme, width):  # noqa: F811
    context = browser.new_context(
        viewport={"width": width, "height": 1000}, color_scheme=scheme, bypass_csp=True
    )
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.goto(f"{base}/?rulebook=brujeria&character=brujeria_investigadora")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#editor .cm-content")).to_contain_text("rulebook")
    page.select_option("#action", "asustarse")
    page.check('input[name="dice"][value="seed"]')
    page.click("#run")
    expect(page.locator("#trace li").first).to_be_visible()
    page.fill("#odds-field", "Esencia")
    page.select_option("#compare", "brujeria_miedo_duro")
    page.click("#odds-button")
    expect(page.locator("#odds-chart svg")).to_be_visible()
    expect(page.locator("#odds-progress")).to_be_hidden()
    return context, page


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_wcag_violation_with_a_run_odds_and_the_editor_shown(browser, server, scheme):  # noqa: F811
    base, _ = server
    for width in (1300, 390):
        context, page = _shown_page(browser, base, scheme, width)
        try:
            assert page.locator("#outcome").is_visible() and page.locator("#odds").is_visible()
            assert page.locator("#editor .cm-editor").is_visible()
            assert violations(page) == [], (scheme, width)
        finally:
            context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_wcag_violation_on_the_join_page(browser, server, scheme):  # noqa: F811
    base, _ = server
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, color_scheme=scheme, bypass_csp=True
    )
    try:
        page = context.new_page()
        page.goto(f"{base}/join?code=ABCD-EFGH")
        expect(page.locator("#join-code")).to_have_value("ABCD-EFGH")
        assert violations(page) == [], scheme
        # and with its error shown (a wrong code)
        page.fill("#join-player", "Lu")
        page.click("#join-button")
        expect(page.locator("#join-error")).to_be_visible()
        assert violations(page) == [], scheme
    finally:
        context.close()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A table with a game master's token: a player joins it from a phone."""
    folder = tmp_path_factory.mktemp("table")
    shutil.copy(ROOT / "examples/games/fate.rules", folder / "fate.rules")
    for character in ("hero", "thug"):
        shutil.copy(ROOT / f"examples/games/characters/{character}.yaml", folder)
    app = create_app(folder, token=TOKEN, table={"name": "tuesday", "code": CODE})
    with serving(app, timeout_graceful_shutdown=2) as base:
        yield base


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_wcag_violation_on_a_players_phone_or_the_game_masters_page(browser, table, scheme):  # noqa: F811
    gm_context = browser.new_context(
        viewport={"width": 1300, "height": 1000}, color_scheme=scheme, bypass_csp=True
    )
    phone_context = browser.new_context(
        viewport={"width": 390, "height": 844}, color_scheme=scheme, bypass_csp=True
    )
    try:
        gm, phone = gm_context.new_page(), phone_context.new_page()
        for page in (gm, phone):
            page.set_default_timeout(90_000)
        gm.goto(f"{table}/?token={TOKEN}&rulebook=fate&character=thug")
        expect(gm.locator("body")).to_have_attribute("data-ready", "yes")
        gm.wait_for_function("() => document.querySelector('#table-qr').naturalWidth > 0")
        phone.goto(f"{table}/join?code={CODE}")
        phone.fill("#join-player", f"Lu {scheme}")
        phone.click("#join-button")
        expect(phone.locator("body")).to_have_attribute("data-ready", "yes")
        mine = {"light": "hero", "dark": "thug"}[scheme]  # (one table: a character each)
        phone.select_option("#rulebook", "fate")
        expect(phone.locator(f"#character option[value='{mine}']")).to_have_count(1)
        phone.select_option("#character", mine)
        phone.click("#table-pick")
        expect(phone.locator("body")).to_have_attribute("data-picked", mine)
        phone.select_option("#action", "defend")
        phone.select_option("#param-skill", "Athletics")
        phone.check('input[name="dice"][value="seed"]')
        phone.click("#run")
        expect(phone.locator("#outcome")).to_be_visible()
        gm.select_option("#action", "defend")
        gm.select_option("#param-skill", "Fight")
        gm.check("#secret")
        gm.click("#run")
        expect(gm.locator("#table-log li .secret").first).to_be_visible()
        expect(gm.locator("#table-party")).to_contain_text(f"Lu {scheme}")
        assert violations(phone) == [], ("player", scheme)
        assert violations(gm) == [], ("game master", scheme)
    finally:
        gm_context.close()
        phone_context.close()
