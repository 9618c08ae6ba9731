"""An encounter in the page, end to end in a real headless Chromium (as tests/test_web_browser):
the chosen character against a rival, who wins and the rounds, as the engine counts them."""

from __future__ import annotations

import shutil
from fractions import Fraction

import pytest
import test_web_browser as in_the_page
from playwright.sync_api import expect

import dsl
from interpreter.balance.encounters.answering import encounter_odds
from interpreter.engine import Engine
from interpreter.web import create_app

GAMES = in_the_page.GAMES
open_page = in_the_page.open_page
# the browser and its page, as the page's own tests have them (this module's server)
browser = in_the_page.browser
page = in_the_page.page


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("campaign")
    shutil.copy(GAMES / "dnd5e.rules", folder / "dnd5e.rules")
    for character in ("fighter", "goblin"):
        shutil.copy(GAMES / "characters" / f"{character}.yaml", folder / f"{character}.yaml")
    with in_the_page.serving(create_app(folder)) as base:
        yield base, folder


def expected(rounds: int) -> tuple:
    """The engine's own answer to the fight the page asks for: (winners, rounds)."""
    engine = Engine(dsl.load(GAMES / "dnd5e.rules"))
    side = {"action": "attack", "target": "target", "params": {}}
    characters = GAMES / "characters"
    data = {
        "rounds": rounds,
        "health": "Hit Points",
        "sides": {
            name: [
                {
                    **side,
                    "name": name,
                    "sheet": engine.load_sheet(characters / f"{name}.yaml"),
                }
            ]
            for name in ("fighter", "goblin")
        },
    }
    answer = encounter_odds(engine, data, method="exact")
    return answer.winners(), answer.rounds()


def percent(p: Fraction) -> str:
    return f"{100 * float(p):.2f}%"


def test_an_encounter_shows_who_wins_and_the_rounds(page, server):
    open_page(page, server, "dnd5e", "fighter")
    page.select_option("#action", "attack")
    page.select_option("#encounter-rival", "goblin")
    page.fill("#encounter-health", "Hit Points")
    page.fill("#encounter-rounds", "6")
    page.click("#encounter-button")
    expect(page.locator("#encounter")).to_be_visible()
    expect(page.locator("#encounter-method")).to_have_text("exact: every state counted")
    winners, rounds = expected(6)
    rows = page.locator("#encounter-winners tr")
    expect(rows).to_have_count(3)
    shown = [rows.nth(i).locator("th, td.p").all_inner_texts() for i in range(3)]
    assert shown == [
        ["fighter", percent(winners["fighter"])],
        ["goblin", percent(winners["goblin"])],
        ["undecided after 6 rounds", percent(winners[None])],
    ]
    lines = page.locator("#encounter-rounds-table tr")
    expect(lines).to_have_count(len(rounds))
    assert lines.nth(0).locator("th, td.p").all_inner_texts() == ["1", percent(rounds[1])]
    assert page.locator("#encounter-mean").inner_text().startswith("mean rounds: ")


def test_the_health_field_is_offered_from_the_sheet_and_asked_for_when_emptied(page, server):
    open_page(page, server, "dnd5e", "fighter")
    page.select_option("#action", "attack")
    health = page.locator("#encounter-health")
    expect(health).to_have_value("Hit Points")  # the sheet's first resource
    page.fill("#encounter-rounds", "2")
    page.click("#encounter-button")
    expect(page.locator("#encounter-mean")).to_contain_text("mean rounds: ")
    health.fill("")
    page.click("#encounter-button")
    expect(page.locator("#error")).to_have_text(
        "name the health field: the field of the sheet a combatant falls by"
    )
