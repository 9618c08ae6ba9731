"""A first-time game master's second look at the page, in a real headless Chromium, on a
phone and on a desktop: a small game of their own (a d20 game none of the shipped
rulebooks is), its character file naming the rulebook, a rulebook that does not parse.
The browser and its checks are tests/test_web_browser.py's; the folder is this module's."""

from __future__ import annotations

import pytest
import yaml
from playwright.sync_api import expect
from test_web_browser import browser, open_page, page, serving  # noqa: F401 (fixtures)

from interpreter.web import create_app

DUNGEON = """rulebook "Dungeon Delvers" { language "en" }
sheet {
  attribute STR, DEX, CON in 1..20 default 10
  counter Level in 1..20 default 1
  skills in 0..1 default 0
  resource HP max 8 + CON
  ensure STR + DEX + CON <= 50 else "at most 50 points in all"
}
formula mod(score: int) = floor((score - 10) / 2)
check roll(ability: attribute, skill: skill = none, dc: int = 10) "Roll" {
  let die = d20
  roll die + mod(ability) + (if skill = none then 0 else 2 * skill) >= dc
  degrees {
    critical: die = 20
    success: success
    failure: else
  }
}
action attack(ac: int = 13, weapon: light | heavy = "heavy") "Attack" {
  let hit = roll(STR, none, ac)
  let die = if weapon = "heavy" then d8 else d6
  let damage = if hit.success then max(die + mod(STR), 1) else 0
  result { hit: hit.success, damage: damage }
}
roll initiative = d20 + mod(DEX)
check volley(archers: int = 2) "Volley" { roll (archers + 1)d6kh(archers) >= 8 }
"""
NARRATIVE = """rulebook "Narrative" { language "en" }
symbols success, advantage
die Boost { blank, success, success + advantage, advantage }
check go() "Go" { roll 2dBoost.success >= 1 }
"""
FIGHTER = "rulebook: dungeon\nSTR: 16\nCON: 14\nskills:\n  Athletics: 1\n"
UNPARSED = """rulebook "Unparsed" { language "en" }
check go() "Go" { roll d6 + >= 4 }
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("second_look")
    (folder / "dungeon.rules").write_text(DUNGEON, encoding="utf-8")
    (folder / "narrative.rules").write_text(NARRATIVE, encoding="utf-8")
    (folder / "unparsed.rules").write_text(UNPARSED, encoding="utf-8")
    (folder / "fighter.yaml").write_text(FIGHTER, encoding="utf-8")
    with serving(create_app(folder)) as base:
        yield base, folder


def test_a_phone_names_the_rulebook_and_the_action_once(page, server):  # noqa: F811
    page.set_viewport_size({"width": 375, "height": 667})
    open_page(page, server, "dungeon", "fighter")
    expect(page.locator("#rulebook option:checked")).to_have_text("Dungeon Delvers (dungeon)")
    expect(page.locator("#status")).to_have_text("")  # (it said the title again)
    header = page.locator("header").evaluate(
        "h => [...h.querySelectorAll('h1, label > span, #status, select')]"
        ".map(e => e.tagName === 'SELECT' ? e.selectedOptions[0].text : e.textContent)"
        ".join(' | ')"
    )
    assert header.count("Dungeon Delvers") == 1, header
    # the action's label, said once too: in its select (a line under it said it again)
    page.select_option("#action", "attack")
    expect(page.locator("#action option:checked")).to_have_text("Attack (attack)")
    outside = page.locator("#play-panel").evaluate(
        "p => { const c = p.cloneNode(true); c.querySelectorAll('select').forEach(s => s.remove());"
        " return c.textContent; }"
    )
    assert "Attack" not in outside, outside


def test_the_sheet_shows_values_not_the_files_rulebook_key(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    sheet = page.locator("#sheet")
    expect(sheet.locator("[data-field='STR']")).to_contain_text("16")
    expect(sheet.locator("[data-field='Athletics']")).to_contain_text("1")
    expect(sheet.locator("[data-field='rulebook']")).to_have_count(0)
    expect(sheet).not_to_contain_text("dungeon")


def test_a_rulebook_that_does_not_parse_says_its_error_once(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    option = page.locator("#rulebook option[value='unparsed']")
    expect(option).to_have_text("unparsed (does not load)")
    page.select_option("#rulebook", "unparsed")
    expect(page.locator("#editor-problems button")).to_contain_text("line 2: unexpected '>='")
    expect(page.locator("#error")).to_contain_text("unparsed.rules does not load")
    said = page.evaluate("document.body.textContent.split(\"unexpected '>='\").length - 1")
    assert said == 1


def test_the_outline_has_every_part_of_the_rulebook(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    outline = page.locator("#editor-outline")
    rule = "ensure STR + DEX + CON <= 50"  # a rule of the sheet, by its condition
    for name in ("Dungeon Delvers", "sheet", "STR", "skills", "HP", rule, "mod", "roll", "attack"):
        expect(outline.get_by_role("button", name=name, exact=True)).to_be_visible()
    outline.get_by_role("button", name="skills", exact=True).click()
    expect(page.locator("#editor .cm-activeLine")).to_contain_text("skills in 0..1 default 0")
    outline.get_by_role("button", name=rule, exact=True).click()
    expect(page.locator("#editor .cm-activeLine")).to_contain_text("ensure STR + DEX + CON")
    page.select_option("#rulebook", "narrative")  # every symbol, not only the first
    expect(page.locator("#editor .cm-content")).to_contain_text("Narrative")
    for name in ("symbols", "success", "advantage", "Boost", "go"):
        expect(outline.get_by_role("button", name=name, exact=True)).to_be_visible()


def test_a_typed_die_for_a_check_labelled_roll_reads_naturally(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    page.select_option("#action", "roll")
    page.select_option("#param-ability", "STR")
    page.check('input[name="dice"][value="typed"]')
    page.click("#run")
    prompt = page.locator("#ask-prompt")
    expect(prompt).to_have_text("Roll: die 1, d20 (1–20) — line 11: d20")
    page.click("#ask-faces button:text-is('20')")
    expect(page.locator("#result")).to_contain_text("critical")


def test_a_typed_die_of_a_pool_says_the_dice_it_amounts_to(page, server):  # noqa: F811
    # `(archers + 1)d6kh(archers)` with 3 archers: the person rolls 4d6 and keeps 3
    open_page(page, server, "dungeon", "fighter")
    page.select_option("#action", "volley")
    page.fill("#param-archers", "3")
    page.check('input[name="dice"][value="typed"]')
    page.click("#run")
    expect(page.locator("#ask-prompt")).to_have_text("Volley: die 1, d6 (1–6) — line 26: 4d6kh3")
    for face in ("6", "5", "1", "2"):
        page.click(f"#ask-faces button:text-is('{face}')")
    expect(page.locator("#result")).to_contain_text("success")


def test_the_odds_offer_the_result_fields_before_any_run(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    page.select_option("#action", "attack")
    offered = page.locator("#odds-fields option")
    expect(offered).to_have_count(2)
    assert [o.get_attribute("value") for o in offered.all()] == ["hit", "damage"]
    page.select_option("#action", "roll")  # a check: its record's fields
    expect(offered).to_have_count(5)
    values = [o.get_attribute("value") for o in offered.all()]
    assert values == ["total", "target", "success", "margin", "degree"]


def test_the_sweeps_error_names_the_pages_field_not_the_command_lines(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    page.select_option("#action", "attack")
    page.fill("#sweep-over", "ac=10..16")
    page.click("#sweep-button")
    error = page.locator("#error")
    expect(error).to_contain_text("name the result field to sweep: hit, damage")
    expect(error).to_contain_text("write it in “Odds of”")
    expect(error).not_to_contain_text("--field")


def test_a_named_rolls_odds_ask_no_field_left_from_another_action(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    page.select_option("#action", "roll")
    page.select_option("#param-ability", "STR")
    page.click("#run")  # its record has `success`: "Odds of" is filled with it
    expect(page.locator("#odds-field")).to_have_value("success")
    page.select_option("#action", "initiative")  # a number: no field to ask of it
    expect(page.locator("#odds-field")).to_be_disabled()
    page.click("#odds-button")
    expect(page.locator("#odds-chart svg")).to_be_visible()
    expect(page.locator("#error")).to_be_hidden()  # (it said "leave out --field")
    page.select_option("#action", "attack")
    expect(page.locator("#odds-field")).to_be_enabled()


def test_an_encounter_whose_action_cannot_hurt_the_rival_says_so(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    page.select_option("#action", "attack")  # no character parameter: hurts no one itself
    expect(page.locator("#encounter-health")).to_have_value("HP")
    page.click("#encounter-button")
    expect(page.locator("#error")).to_have_text(
        "attack takes no rival: name its damage field, the field of its result the rival "
        "loses from its health (hit, damage)"
    )  # (it answered "undecided after 20 rounds: 100%", with no word of why)
    expect(page.locator("#encounter")).to_be_hidden()
    offered = page.locator("#encounter-damages option")
    assert [o.get_attribute("value") for o in offered.all()] == ["hit", "damage"]
    page.fill("#encounter-damage", "damage")
    page.click("#encounter-button")
    winner = page.locator("#encounter-winners tr", has_text="fighter 2")
    expect(winner).to_be_visible()
    expect(winner).not_to_contain_text("0.00%")


def test_the_sweeps_inputs_are_checked_in_the_pages_words(page, server):  # noqa: F811
    open_page(page, server, "dungeon", "fighter")
    page.select_option("#action", "attack")
    page.fill("#odds-field", "hit")
    error = page.locator("#error")
    for written, said in (
        ("ac=13", "give ac a range or a list, such as ac=10..16"),
        ("STR=all", "give STR a range or a list, such as STR=1..5"),
        ("weapon=huge", "weapon: huge is not one of its choices: light, heavy"),
        (
            "Strength=10..12",
            "Strength is neither a parameter of the action nor a field of the sheet: ac, "
            "weapon, STR, DEX, CON, Level, HP, Athletics",
        ),
    ):
        page.fill("#sweep-over", written)
        page.click("#sweep-button")
        expect(error).to_have_text(said)  # (the server's named --param and --vary)
    page.fill("#sweep-over", "weapon=all; Athletics=0..1")  # a skill of the sheet
    page.click("#sweep-button")
    expect(page.locator("#sweep-summary")).to_have_text("4 cases")
    expect(error).to_be_hidden()


def test_a_new_character_gets_skills_of_an_open_list_and_more_later(page, server):  # noqa: F811
    _, folder = server
    open_page(page, server, "dungeon", "fighter")
    page.click("#new-character")
    form = page.locator("#character-editor form")
    page.fill("#new-name", "rogue")
    form.get_by_label("DEX", exact=True).fill("16")
    skills = form.get_by_label("skills", exact=True)  # (`skills in 0..1`: no row before)
    expect(skills).to_have_attribute("placeholder", "Climbing: 2, Stealth: 1")
    skills.fill("Stealth: 1, Acrobatics: 1")
    page.click("#character-editor button[type=submit]")
    expect(page.locator("#character")).to_have_value("rogue")
    expect(page.locator("#sheet [data-field='Stealth']")).to_contain_text("1")
    data = yaml.safe_load((folder / "rogue.yaml").read_text(encoding="utf-8"))
    assert data["skills"] == {"Stealth": 1, "Acrobatics": 1} and data["DEX"] == 16
    page.click("#edit-values")  # one more, later: as the others, by its path
    form.get_by_label("new skills", exact=True).fill("Perception: 1")
    page.click("#character-editor button[type=submit]")
    expect(page.locator("#character-editor")).to_be_hidden()
    expect(page.locator("#sheet [data-field='Perception']")).to_contain_text("1")
    data = yaml.safe_load((folder / "rogue.yaml").read_text(encoding="utf-8"))
    assert data["skills"] == {"Stealth": 1, "Acrobatics": 1, "Perception": 1}


def test_a_parameter_with_long_choices_fits_a_phone(page, server):  # noqa: F811
    page.set_viewport_size({"width": 375, "height": 667})
    open_page(page, server, "arcana_mundi", "menecma")  # (shipped: in every folder)
    page.select_option("#action", "usar_numina")  # its núminas' names are long
    expect(page.locator("#param-numina")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    right = page.locator("#param-numina").evaluate("s => s.getBoundingClientRect().right")
    assert right <= 375
