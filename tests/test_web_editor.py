"""The page's editor helps as `rulebook lsp` does (POST /api/editor, the same functions):
completion, hover and the outline, in a real headless Chromium (as tests/test_web_browser.py)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

from playwright.sync_api import expect

from tests.test_web_browser import browser, open_page, page, server  # noqa: F401 (fixtures)


def test_the_outline_lists_the_rules_and_leads_to_them(page, server):  # noqa: F811
    open_page(page, server, "brujeria", "brujeria_investigadora")
    outline = page.locator("#editor-outline")
    expect(outline).to_contain_text("Esquema")  # the page's word, in the rulebook's language
    for name in ("Brujería", "sheet", "Fuerza", "abierta", "Dificultad", "asustarse"):
        expect(outline.get_by_role("button", name=name, exact=True).first).to_be_visible()
    outline.get_by_role("button", name="Dificultad", exact=True).click()
    expect(page.locator("#editor .cm-activeLine")).to_contain_text("table Dificultad {")


def test_completion_offers_a_tables_rows_and_the_names_in_scope(page, server):  # noqa: F811
    open_page(page, server, "brujeria", "brujeria_investigadora")
    editor = page.locator("#editor .cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\naction nuevo(bono: int = 0) {\n  let x = Dificultad[")
    page.keyboard.press("Control+Space")
    popup = page.locator(".cm-tooltip-autocomplete")
    expect(popup).to_contain_text("Rutinario")
    expect(popup).to_contain_text("Casi imposible")
    page.keyboard.press("Escape")
    page.keyboard.insert_text('"Normal"]\n  let y = bo')
    page.keyboard.press("Control+Space")
    option = popup.locator("li", has_text=re.compile("^bono"))
    expect(option).to_be_visible()
    option.click()
    expect(page.locator("#editor .cm-activeLine")).to_contain_text("let y = bono")


def test_hover_shows_a_dice_terms_odds_and_a_keywords_entry(page, server):  # noqa: F811
    open_page(page, server, "brujeria", "brujeria_investigadora")
    page.locator("#editor-outline").get_by_role("button", name="abierta", exact=True).click()
    line = page.locator("#editor .cm-line", has_text="roll abierta = d10 then {")
    line.locator("span", has_text=re.compile(r"^d10$")).hover()
    tooltip = page.locator(".cm-rulebook-hover")
    expect(tooltip).to_contain_text("media 5,5")  # in the rulebook's language
    expect(tooltip).to_contain_text("1..10")
    expect(tooltip).to_contain_text("10: 10,00 %")
    page.mouse.move(0, 0)
    expect(tooltip).to_have_count(0)
    line.locator("span", has_text=re.compile(r"^roll$")).hover()
    expect(tooltip).to_contain_text("Named rolls")


def _post(base: str, body: dict) -> tuple[int, dict]:
    with urllib.request.urlopen(f"{base}/api/session", timeout=60) as answer:
        csrf = json.load(answer)["csrf_token"]  # what the page is served with
    request = urllib.request.Request(
        f"{base}/api/editor",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "origin": base, "x-csrf-token": csrf},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_the_editor_api_answers_as_the_language_server(server):  # noqa: F811
    base, _ = server
    text = 'rulebook "x" { }\ntable T { a: 1 }\nformula f(n: int) = T["a"] + n\n'
    status, answer = _post(base, {"text": text, "what": "outline"})
    assert status == 200 and [s["name"] for s in answer["outline"]] == ["x", "T", "f"]
    status, answer = _post(base, {"text": text, "what": "hover", "position": text.index("T[")})
    assert status == 200 and "**table** `T`" in answer["hover"]["markdown"]
    status, answer = _post(base, {"text": text, "what": "delete"})
    assert status == 400 and "complete, hover, outline" in answer["error"]["message"]
    # A base outside the folder is never read, as everywhere in the page: the text's own
    # outline, nothing of the file it names.
    status, answer = _post(
        base, {"text": 'rulebook "y" extends "/etc/passwd" { }', "what": "outline"}
    )
    assert status == 200 and [s["name"] for s in answer["outline"]] == ["y"]
    assert "root:" not in json.dumps(answer)
