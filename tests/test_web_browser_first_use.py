"""A game master's first evening with the page, in a real headless Chromium: a folder of
their own rulebooks and characters (none names its rulebook), a character of another
game in it, a rule mistyped, a sweep, the page in another language. The browser and its
checks are tests/test_web_browser.py's; the folder is this module's."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from test_web_browser import browser, open_page, page, serving  # noqa: F401 (fixtures)

from interpreter.web import create_app

AGE = """rulebook "AGE test" { language "en" }
sheet {
  counter Strength in -2..6 default 2
  counter Focus in 0..3 default 2
}
action attack(tn: int = 11) "Attack" {
  let r = 3d6
  let total = r + Strength + Focus
  result { hit: total >= tn, stunt_points: if total >= tn then r.dice[3] else 0 }
}
"""
GURPS = """rulebook "GURPS test" { language "en" }
sheet {
  counter DX in 3..20 default 12
}
check dodge(mod: int = 0) "Dodge" { roll 3d6 <= DX + mod }
"""

CHOOSY = """rulebook "Choosy" { language "en" }
action push() "Push" {
  let r = d6
  let done = r >= 4
  if r < 4 {
    choose cost "Push on?" {
      option "push" { set done to yes  note "pushed" }
      option "stop" { note "stopped" }
    }
  }
  result { done: done }
}
"""

BROKEN = """rulebook "Broken" { language "en" }
check go() "Go" { roll d6 + Nope >= 4 }
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evening")
    (folder / "age.rules").write_text(AGE, encoding="utf-8")
    (folder / "gurps.rules").write_text(GURPS, encoding="utf-8")
    (folder / "choosy.rules").write_text(CHOOSY, encoding="utf-8")
    (folder / "broken.rules").write_text(BROKEN, encoding="utf-8")
    # listed first, and names no rulebook: the page's first pick for every rulebook
    (folder / "guy.yaml").write_text("DX: 13\n", encoding="utf-8")
    (folder / "hero.yaml").write_text("Strength: 3\nFocus: 1\n", encoding="utf-8")
    with serving(create_app(folder)) as base:
        yield base, folder


def ready(tab, address: str):
    tab.goto(address)
    expect(tab.locator("body")).to_have_attribute("data-ready", "yes")


def test_a_character_the_rulebook_cannot_read_leaves_the_page_usable(page, server):  # noqa: F811
    base, _ = server
    ready(page, f"{base}/?rulebook=age")  # guy, a GURPS sheet, is the first character
    unfit = page.locator("#sheet-unfit")
    expect(unfit).to_contain_text("guy cannot be played with this rulebook")
    expect(unfit).to_contain_text("DX: not a field of the AGE test sheet")
    expect(page.locator("#character")).to_have_value("")  # the page runs without one
    expect(page.locator("#sheet-title")).to_have_text("Character")
    expect(page.locator("#editor .cm-content")).to_contain_text('rulebook "AGE test"')
    page.click("#run")
    expect(page.locator("#result")).to_contain_text("stunt_points")
    # one that fits, then the unfit one chosen by hand: the select says what is played
    page.select_option("#character", "hero")
    expect(page.locator("#sheet")).to_contain_text("Strength")
    page.select_option("#character", "guy")
    expect(page.locator("#sheet-unfit")).to_be_visible()
    expect(page.locator("#character")).to_have_value("")
    page.click("#run")
    expect(page.locator("#trace")).not_to_contain_text("hero")
    # ?character= with no name asks for none: no complaint
    ready(page, f"{base}/?rulebook=age&character=")
    expect(page.locator("#sheet")).to_have_text("No character.")


def test_the_checkers_findings_are_listed_and_lead_to_their_line(page, server):  # noqa: F811
    open_page(page, server, "gurps", "guy")
    page.click("#editor .cm-content")
    top = page.locator("#editor").bounding_box()["y"]
    page.keyboard.press("Control+End")
    page.keyboard.type('\ncheck broken() "Broken" { roll d6 + Nope >= 4 }')
    problem = page.locator("#editor-problems button")
    expect(problem).to_have_text("line 7: unknown name `Nope`")
    # the list came under the editor: the text being typed did not move
    assert page.locator("#editor").bounding_box()["y"] == top
    page.locator("#editor .cm-content").press("Control+Home")
    problem.focus()
    page.keyboard.press("Enter")  # reached and followed with the keyboard
    selected = page.evaluate("getSelection().toString()")
    assert selected == 'check broken() "Broken" { roll d6 + Nope >= 4 }'
    # a save refused is said beside the editor, not in the action's panel
    page.click("#editor-save")
    error = page.locator("#editor-error")
    expect(error).to_contain_text("gurps.rules was not saved:")
    expect(error).to_contain_text("unknown name `Nope`")
    expect(page.locator("#error")).to_be_hidden()
    problem.click()  # the line selected again, and taken out: the list empties
    page.keyboard.press("Backspace")
    expect(page.locator("#editor-status")).to_have_text("✓ checks")
    expect(page.locator("#editor-problems")).to_be_hidden()


def test_the_sweep_offers_the_actions_own_example_and_says_where_its_field_goes(page, server):  # noqa: F811
    open_page(page, server, "age", "hero")
    over = page.locator("#sweep-over")
    expect(over).to_have_attribute("placeholder", "tn=8..14")  # attack(tn: int = 11)
    page.click("#sweep-button")
    expect(page.locator("#error")).to_have_text("write NAME=VALUES, such as tn=8..14")
    over.fill("tn=8..14")
    page.click("#sweep-button")  # a result of two fields: which one?
    expect(page.locator("#error")).to_contain_text("hit, stunt_points")
    expect(page.locator("#error")).to_contain_text("write it in “Odds of”")
    page.fill("#odds-field", "hit")
    page.click("#sweep-button")
    expect(page.locator("#sweep-summary")).to_have_text("7 cases")
    page.select_option("#rulebook", "gurps")  # no whole-number parameter but mod: its own
    expect(page.locator("#editor .cm-content")).to_contain_text("GURPS test")
    expect(over).to_have_attribute("placeholder", "mod=-3..3")


def test_the_language_chosen_in_the_page_is_kept(page, server):  # noqa: F811
    base, _ = server
    ready(page, f"{base}/?rulebook=age&character=hero")
    choice = page.locator("#language")
    expect(choice).to_have_value("")  # the rulebook's own (English)
    expect(page.locator("#run")).to_have_text("Run")
    expect(page.get_by_role("spinbutton", name="seed", exact=True)).to_have_value("7")
    choice.select_option("es")
    expect(page.locator("#run")).to_have_text("Tirar")
    expect(page.locator("#language option[value='']")).to_have_text("el del reglamento")
    assert "lang=es" in page.url
    page.reload()  # kept in the address
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#language")).to_have_value("es")
    expect(page.locator("#run")).to_have_text("Tirar")
    # fields with no label of their own are named in the language too
    expect(page.get_by_role("spinbutton", name="semilla", exact=True)).to_have_value("7")
    page.locator("#language").select_option("")
    expect(page.locator("#run")).to_have_text("Run")
    assert "lang=" not in page.url


def test_the_odds_say_what_they_answer(page, server):  # noqa: F811
    open_page(page, server, "age", "hero")
    page.fill("#param-tn", "13")
    page.fill("#odds-field", "hit")
    page.click("#odds-button")
    expect(page.locator("#odds-question")).to_have_text("Attack(tn=13) · hero · hit")
    page.fill("#odds-field", "")
    page.select_option("#compare", "gurps")  # asked again: the line follows
    page.select_option("#compare", "")
    page.click("#odds-button")
    expect(page.locator("#odds-question")).to_have_text("Attack(tn=13) · hero")
    # a choice left to the best play says so; answered in advance, it says the answer
    page.select_option("#rulebook", "choosy")
    expect(page.locator("#editor .cm-content")).to_contain_text("Choosy")
    page.click("#odds-button")
    question = page.locator("#odds-question")
    # the action's own goal, said as the goal it is (it read "for the action's own")
    expect(question).to_have_text("Push() · the best play for done")
    expect(page.locator("#odds-summary")).to_have_text(
        "exact, the best play is worth 100.00% to done"
    )
    page.select_option(".odds-choice", "stop")
    page.click("#odds-button")
    expect(question).to_have_text("Push() · cost: stop")


def test_a_rulebook_that_does_not_load_is_opened_mended_and_saved(page, server):  # noqa: F811
    base, folder = server
    ready(page, f"{base}/?rulebook=age&character=hero")
    option = page.locator("#rulebook option[value='broken']")
    expect(option).to_have_text("broken (does not load)")  # (why: listed once, in the editor)
    expect(option).to_be_enabled()
    page.select_option("#rulebook", "broken")
    expect(page.locator("#error")).to_have_text(
        "broken.rules does not load: mend it in the editor below (its errors are listed "
        "there), then save it."
    )
    expect(page.locator("#params")).to_be_empty()  # nothing of the rulebook before
    expect(page.locator("#sheet")).to_have_text("No character.")
    problem = page.locator("#editor-problems button")
    expect(problem).to_have_text("line 2: unknown name `Nope`")
    problem.click()  # the line selected: typed over
    page.keyboard.type('check go() "Go" { roll d6 + 1 >= 4 }')
    expect(page.locator("#editor-status")).to_have_text("✓ checks")
    page.click("#editor-save")
    expect(page.locator("#status")).to_have_text("saved broken.rules")
    expect(page.locator("#action option")).to_have_text(["Go (go)"])
    assert "d6 + 1" in (folder / "broken.rules").read_text(encoding="utf-8")
