"""Characters in the page end to end, in real headless Chromium (as tests/test_web_browser.py):
a character made from the rulebook's sheet (a value wrong shown beside its field), a
value edited and undone, and the sheet of an action's target shown."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import test_web_browser as in_the_page
import yaml
from playwright.sync_api import expect

from interpreter.web import create_app

ARTIFACTS, serving, posting = in_the_page.ARTIFACTS, in_the_page.serving, in_the_page.posting
browser = in_the_page.browser  # (the page's tests' browser fixture)

expect.set_options(timeout=60_000)

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples/games"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("characters")
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    shutil.copy(GAMES / "fate.rules", folder / "fate.rules")
    for character in ("hero", "thug"):
        shutil.copy(GAMES / "characters" / f"{character}.yaml", folder / f"{character}.yaml")
    with serving(create_app(folder)) as base:
        yield base, folder


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    failures: list[str] = []
    page.on("pageerror", lambda error: failures.append(str(error)))
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert failures == [], failures


def open_page(page, base: str, rulebook: str, character: str):
    page.goto(f"{base}/?rulebook={rulebook}&character={character}")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")


def test_a_character_made_from_the_rulebooks_sheet(page, server):
    base, folder = server
    open_page(page, base, "brujeria", "ana")
    page.click("#new-character")  # Brujería speaks Spanish: so does the form
    form = page.locator("#character-editor form")
    expect(form.locator("h3")).to_have_text("Nuevo personaje")
    page.fill("#new-name", "eva")
    values = {"Fuerza": "11", "Destreza": "3", "Constitución": "3", "Inteligencia": "4"}
    values |= {"Percepción": "3", "Voluntad": "5"}
    for label, value in values.items():
        form.get_by_label(label, exact=True).fill(value)
    form.get_by_label("Mundano", exact=True).select_option("true")
    form.get_by_label("Pelea", exact=True).fill("12")
    page.click("#character-editor button[type=submit]")
    # Fuerza 11 is past its range, Pelea too: each said beside it, in Spanish, and
    # nothing is written.
    fuerza, pelea = form.get_by_label("Fuerza", exact=True), form.get_by_label("Pelea", exact=True)
    expect(page.locator(f"#{fuerza.get_attribute('id')}-error")).to_contain_text("11")
    expect(page.locator(f"#{pelea.get_attribute('id')}-error")).to_contain_text("12")
    expect(fuerza).to_have_attribute("aria-invalid", "true")
    expect(form.locator("[aria-invalid=true]")).to_have_count(2)
    assert not (folder / "eva.yaml").exists()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    form.screenshot(path=str(ARTIFACTS / "new_character_refused.png"))
    fuerza.fill("2")
    pelea.fill("")
    page.click("#character-editor button[type=submit]")
    expect(page.locator("#character-editor")).to_be_hidden()
    expect(page.locator("#character")).to_have_value("eva")
    expect(page.locator("#sheet-title")).to_contain_text("eva")
    vida = page.locator('#sheet .resource[data-path="Vida"] .value')
    expect(vida).to_have_text("30 / 30")  # left empty: full, 4 × (3 + 2) + 10
    data = yaml.safe_load((folder / "eva.yaml").read_text(encoding="utf-8"))
    assert data == {"rulebook": "brujeria", **{k: int(v) for k, v in values.items()},
                    "Fuerza": 2, "Mundano": True}  # fmt: skip
    expect(page.locator("#history li").first).to_contain_text("personaje creado")


def test_a_value_edited_by_hand_then_undone(page, server):
    base, folder = server
    before = (folder / "ana.yaml").read_text(encoding="utf-8")
    open_page(page, base, "brujeria", "ana")
    vida = page.locator('#sheet .resource[data-path="Vida"] .value')
    expect(vida).to_have_text("30 / 30")
    page.click("#edit-values")
    form = page.locator("#character-editor form")
    form.get_by_label("Vida", exact=True).fill("24")  # a wound kept between sessions
    form.get_by_label("Fuerza", exact=True).fill("3")  # and advancement: Vida's max moves
    page.click("#character-editor button[type=submit]")
    expect(page.locator("#character-editor")).to_be_hidden()
    expect(vida).to_have_text("24 / 34")
    text = (folder / "ana.yaml").read_text(encoding="utf-8")
    assert "Fuerza: 3" in text and "Vida: 24" in text
    entry = page.locator("#history li").first
    expect(entry).to_contain_text("hoja editada")
    expect(entry).to_contain_text("Vida 30 → 24")
    entry.locator("button.undo").click()
    expect(vida).to_have_text("30 / 30")
    expect(page.locator("#history li").first).to_contain_text("deshace")
    # (an entry undone, whatever its kind: not "tirada", which a sheet edited is not)
    expect(page.locator("#saved")).to_have_text(re.compile(r"^entrada \d+ deshecha$"))
    assert (folder / "ana.yaml").read_text(encoding="utf-8") == before


def _hitting_seed(page, base: str) -> int:
    """A seed whose attack (the fate point invoked) marks the thug's stress."""
    body = {"rulebook": "fate", "action": "attack", "character": "hero"}
    body |= {"targets": {"target": "thug"}, "params": {"skill": "Fight"}}
    headers = posting(page, base)
    for seed in range(200):
        data = {**body, "seed": seed, "choices": {"invoke": "yes"}}
        answer = page.request.post(f"{base}/api/run", data=data, headers=headers).json()
        if any(c["changes"] for c in answer.get("characters", [])):
            return seed
    raise AssertionError("no seed of 200 hits")


def test_the_targets_sheet_is_shown_and_what_the_run_changed_on_it(page, server):
    base, _ = server
    seed = _hitting_seed(page, base)
    open_page(page, base, "fate", "hero")
    page.select_option("#action", "attack")
    expect(page.locator("#target-sheets")).to_be_hidden()
    page.select_option("#param-target", "thug")
    target = page.locator('#target-sheets .target-sheet[data-character="thug"]')
    expect(page.locator("#target-sheets h3")).to_have_text("target: thug")
    stress = target.locator('.resource[data-path="Stress"]')
    expect(stress.locator(".value")).to_have_text("1 / 3")
    expect(page.locator("select#param-skill")).to_be_attached()
    page.select_option("#param-skill", "Fight")
    page.check('input[name="dice"][value="seed"]')
    page.fill("#seed", str(seed))
    page.click("#run")
    page.click("#choose-options button:text-is('yes')")
    expect(page.locator("#outcome")).to_be_visible()
    # the target as the run left it, what changed marked
    expect(stress).to_have_class(re.compile("changed"))
    expect(stress.locator(".value")).to_have_text("0 / 3")


def test_another_page_showing_the_character_reads_the_edit_and_its_undo(browser, server):
    base, _ = server
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    failures: list[str] = []
    try:
        editing, watching = context.new_page(), context.new_page()
        for one in (editing, watching):
            one.set_default_timeout(60_000)
            one.on("pageerror", lambda error: failures.append(str(error)))
            open_page(one, base, "fate", "thug")
        stress = watching.locator('#sheet .resource[data-path="Stress"] .value')
        expect(stress).to_have_text(re.compile(r"^\d / 3$"))
        shown = stress.inner_text()
        wanted = "3" if not shown.startswith("3") else "2"
        editing.click("#edit-values")
        editing.locator("#character-editor form").get_by_label("Stress", exact=True).fill(wanted)
        editing.click("#character-editor button[type=submit]")
        # the table's event reaches the other page, which reads the sheet again
        expect(stress).to_have_text(f"{wanted} / 3")
        expect(watching.locator("#table-log")).to_contain_text("set values of thug: Stress")
        editing.locator("#history li").first.locator("button.undo").click()
        expect(stress).to_have_text(shown)
        # a character made in one page is offered in the other
        editing.click("#new-character")
        editing.fill("#new-name", "mook")
        editing.click("#character-editor button[type=submit]")
        expect(editing.locator("#character")).to_have_value("mook")
        expect(watching.locator('#character option[value="mook"]')).to_be_attached()
    finally:
        context.close()
    assert failures == [], failures


def test_a_list_and_a_catalog_edited_by_hand(page, server):
    base, folder = server
    open_page(page, base, "brujeria", "ana")
    page.click("#edit-values")
    form = page.locator("#character-editor form")
    form.get_by_label("Invocaciones", exact=True).fill('{"Escudo": {"nivel": 2}}')
    page.click("#character-editor button[type=submit]")
    expect(page.locator("#character-editor")).to_be_hidden()
    expect(page.locator('#sheet tr[data-field="Invocaciones"]')).to_contain_text("Escudo")
    data = yaml.safe_load((folder / "ana.yaml").read_text(encoding="utf-8"))
    assert data["Invocaciones"] == {"Escudo": {"nivel": 2}}
    page.locator("#history li").first.locator("button.undo").click()
    expect(page.locator('#sheet tr[data-field="Invocaciones"]')).not_to_contain_text("Escudo")
