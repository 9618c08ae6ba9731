"""The page's words in the rulebook's language, in a real headless Chromium (issue 26):
a parameter's type in words, a lasting effect in words, and no character offered as its
own target. The browser, the server and their checks are tests/test_web_browser.py's."""

from __future__ import annotations

from playwright.sync_api import expect
from test_web_browser import browser, open_page, page, server  # noqa: F401 (fixtures)


def test_types_and_lasting_effects_in_words_and_no_character_its_own_target(page, server):  # noqa: F811 (fixtures)
    open_page(page, server, "brujeria", "brujeria_investigadora")
    page.select_option("#action", "asustarse")
    expect(page.locator("#params .type").last).to_have_text("número entero = 0")  # not int
    page.select_option("#param-fuente", "Criatura horrible")
    page.check('input[name="dice"][value="seed"]')
    page.fill("#seed", "6")  # she fails her check: Temblores, for 2 turns
    page.click("#run")
    expect(page.locator("#changes")).to_contain_text(
        "Temblores: -2 a acciones, tiempo restante: 2 turnos"
    )
    expect(page.locator("#changes")).not_to_contain_text("modifier")
    page.select_option("#action", "chequeo_resistido")  # `contra`: another character
    options = page.locator("#param-contra option").all_text_contents()
    assert "ana" in options and "brujeria_investigadora" not in options
