"""The page end to end, in a real headless Chromium: Debian's `chromium` (at
/usr/bin/chromium, installed by .ci/run), driven by Playwright for Python, against
`rulebook serve`'s app on a real uvicorn server on 127.0.0.1.

Every wait is on a condition (an element, a text), never a sleep. Each test leaves a
screenshot in artifacts/ (or $RULEBOOK_ARTIFACTS), and checks that the page asked for
nothing but the server itself.
"""

from __future__ import annotations

import contextlib
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

# Every wait is on a condition; its bound is generous, for a loaded machine (the first
# page loads every shipped rulebook): Playwright's own 5 s would fail a slow CI, not a bug.
expect.set_options(timeout=60_000)

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples/games"
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


@contextlib.contextmanager
def serving(app, **options):
    """The app served by uvicorn in a thread on a free port, for the page's browser tests:
    its base address, until the block ends."""
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options)
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(15)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("campaign")
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    for game in ("fate.rules", "pbta.rules"):  # English rulebooks with choices and targets
        shutil.copy(GAMES / game, folder / game)
    for character in ("hero", "thug", "driver", "gang_boss"):
        shutil.copy(GAMES / "characters" / f"{character}.yaml", folder / f"{character}.yaml")
    with serving(create_app(folder)) as base:
        yield base, folder


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
    page.set_default_timeout(60_000)  # a bound on each wait (they wait on conditions)
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
    # Arcana Mundi speaks Spanish: so does the page.
    expect(page.locator("#ask-prompt")).to_have_text(
        f"capicua: dado 1, d10 (1–10) — línea {roll_line}: 2d10"  # what it is for
    )
    page.click("#ask-faces button:text-is('3')")  # a die button: the face shown
    expect(page.locator("#ask-typed")).to_have_text("escritos hasta ahora: 3")
    expect(page.locator("#ask-prompt")).to_contain_text("capicua: dado 2")
    page.fill("#ask-input", "4")  # or typed in
    page.press("#ask-input", "Enter")
    expect(page.locator("#outcome")).to_be_visible()
    expect(page.locator("#ask")).to_be_hidden()
    # The worked example: 20 against 15, three Virtus spent, the dice marked as typed in.
    expect(page.locator("#result")).to_contain_text("total20")
    expect(page.locator("#changes")).to_have_text("dinamis.Virtus: 5 → 2")
    expect(page.locator("#dice")).to_have_text("dados: 3, 4 (a mano)")
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
    expect(page.locator("#saved")).to_have_text("guardado en menecma.yaml (entrada 1 del diario)")
    saved = yaml.safe_load((folder / "menecma.yaml").read_text(encoding="utf-8"))
    assert saved["dinamis"]["Virtus"] == 2
    entry = page.locator('#history li[data-entry="1"]')
    expect(entry).to_contain_text("usar_numina: dinamis.Virtus 5 → 2")
    entry.locator("button.undo").click()
    expect(page.locator('#history li[data-entry="2"]')).to_contain_text("deshace la tirada 1")
    expect(entry).to_have_class("undone")
    expect(virtus.locator(".value")).to_have_text("5 / 5")
    expect(page.locator("#saved")).to_have_text("entrada 1 deshecha")  # no longer "guardado"


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
    expect(page.locator("#odds-summary")).to_contain_text("A: exacto, media 16,700")
    # "At least": from the lowest outcome the bar is 100%.
    page.check('input[name="odds-view"][value="at-least"]')
    expect(chart.locator("text").nth(2)).to_have_text(re.compile("^≥ "))
    expect(chart).to_contain_text("100,00 %")  # (as Spanish writes it)
    first = [float(a.nth(i).get_attribute("width")) for i in range(a.count())]
    assert first == sorted(first, reverse=True)


def test_a_progress_bar_while_the_odds_are_computed(page, server):
    open_page(page, server, "arcana_mundi", "menecma")
    page.select_option("#action", "usar_numina")
    page.select_option("#param-numina", "Grito Báquico")
    page.check("#param-sacrificium")  # (several thousand units: progress every 2,000)
    page.fill("#odds-field", "éxito")
    # Record every text the progress line is given and every time the bar is shown: each
    # mutation keeps the text node it added, so texts set in one burst are all seen.
    page.evaluate(
        """() => {
          window.progressSeen = [];
          window.progressShown = false;
          const text = document.querySelector('#odds-progress-text');
          new MutationObserver((records) => {
            for (const r of records) for (const n of r.addedNodes) progressSeen.push(n.textContent);
          }).observe(text, {childList: true});
          const box = document.querySelector('#odds-progress');
          // shown, and seen (not inside a hidden box), before any chart: the first click too
          new MutationObserver(() => {
            if (box.checkVisibility() && !document.querySelector('#odds-chart svg'))
              window.progressShown = true;
          }).observe(box, {attributes: true, attributeFilter: ['hidden']});
        }"""
    )
    expect(page.locator("#odds")).to_be_hidden()  # the page's first computation of odds
    page.click("#odds-button")
    # Conditions, not times: the exact phase's progress is seen, then the chart is drawn.
    page.wait_for_function(
        "() => window.progressSeen.some("
        "  (s) => /^contando todas las maneras en que pueden caer los dados: \\d+%$/.test(s))",
        timeout=90_000,
    )
    expect(page.locator("#odds-chart svg")).to_be_visible(timeout=90_000)
    assert page.evaluate("window.progressShown")
    assert page.evaluate("window.progressSeen")[0] == "calculando…"
    expect(page.locator("#odds-progress")).to_be_hidden()
    expect(page.locator("#odds-chart svg")).to_contain_text("sí")  # the rulebook speaks Spanish


def test_edit_a_rule_and_see_diagnostics_and_the_odds_it_gives(page, server):
    open_page(page, server, "brujeria", "brujeria_investigadora")
    expect(page.locator("#editor-status")).to_have_text(re.compile("^✓ correcto"))
    editor = page.locator("#editor .cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\naction roto() {\n  let x = Voluntat\n}\n")
    underline = page.locator("#editor .cm-lintRange-error")
    expect(underline).to_have_text("Voluntat")
    expect(page.locator("#editor-status")).to_have_text(re.compile("^1 error"))
    underline.hover()
    expect(page.locator(".cm-tooltip-lint")).to_contain_text(
        "¿querías decir Voluntad?"
    )  # in the rulebook's language
    # The edit's effect on an action's odds: the house rule's text in the editor.
    house = (ROOT / "rulebooks/brujeria_miedo_duro.rules").read_text(encoding="utf-8")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(house)
    expect(page.locator("#editor-status")).to_have_text(re.compile("^✓ correcto"))
    expect(page.locator("#editor .cm-lintRange-error")).to_have_count(0)
    page.select_option("#action", "asustarse")
    page.fill("#odds-field", "Esencia")
    page.click("#editor-odds")
    expect(page.locator("#odds-chart svg")).to_contain_text("B: Brujería: miedo duro (editado)")
    # Highlighting: keywords and dice terms are told apart.
    assert page.locator("#editor .cm-content span").count() > 50


def posting(page, base: str) -> dict:
    """The headers a request that posts carries: the CSRF token the page is served with."""
    return {"x-csrf-token": page.request.get(f"{base}/api/session").json()["csrf_token"]}


def choice_seed(page, server, body: dict) -> int:
    """A seed whose run stops at a choice of several options (asked in the page)."""
    base, _ = server
    headers = posting(page, base)
    for seed in range(200):
        data = {**body, "seed": seed, "answers": []}
        answer = page.request.post(f"{base}/api/run", data=data, headers=headers)
        if answer.json().get("need", {}).get("kind") == "choice":
            return seed
    raise AssertionError("no seed of 200 asks the choice")


def test_a_choice_after_the_roll_answered_in_the_page_against_a_target(page, server):
    _base, folder = server
    body = {"rulebook": "fate", "action": "attack", "character": "hero"}
    seed = choice_seed(
        page, server, {**body, "targets": {"target": "thug"}, "params": {"skill": "Fight"}}
    )
    open_page(page, server, "fate", "hero")
    expect(page.locator("header")).to_contain_text("Rulebook")  # an English rulebook
    page.select_option("#action", "attack")
    expect(page.locator("#action-choices")).to_have_text("asks during the run: invoke")
    page.select_option("#param-target", "thug")  # the other character: the folder's
    # the form is built again once the character has loaded: its skills become a select
    expect(page.locator("select#param-skill")).to_be_attached()
    page.select_option("#param-skill", "Fight")
    page.check('input[name="dice"][value="seed"]')
    page.fill("#seed", str(seed))
    page.click("#run")
    # The choice comes after the roll: the page shows what was rolled, then asks.
    choose = page.locator("#choose")
    expect(choose).to_be_visible()
    expect(page.locator("#choose-prompt")).to_have_text(
        "invoke: Invoke an aspect for +2 (a fate point)?"
    )
    expect(page.locator("#choose-who")).to_have_text(re.compile(r"^hero decides \(line \d+\)$"))
    expect(page.locator("#choose-trace")).to_contain_text("Roll: 4dF")
    expect(page.locator("#choose-trace")).to_contain_text("as thug:")
    expect(page.locator("#choose-options button")).to_have_text(["no", "yes"])
    expect(page.locator("#outcome")).to_be_hidden()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "choice_asked.png"), full_page=True)
    page.click("#choose-options button:text-is('yes')")
    expect(page.locator("#outcome")).to_be_visible()
    expect(choose).to_be_hidden()
    expect(page.locator("#choices")).to_have_text(["invoke: yes — hero, chosen at the table"])
    expect(page.locator("#trace")).to_contain_text("invoke: yes (chosen at the table)")
    # Every character's changes: the fate point spent, the target's stress marked.
    changes = page.locator("#changes li")
    expect(changes.first).to_have_text("Fate Points: 3 → 2")
    expect(page.locator('#changes li[data-role="target"]').first).to_have_text(
        re.compile(r"^thug: Stress: 1 → 0$")
    )
    # Saved together, journaled: both files written.
    page.click("#save-sheet")
    expect(page.locator("#saved")).to_have_text(
        re.compile(r"^saved in hero.yaml and thug.yaml \(journal entry \d+\)$")
    )
    hero = yaml.safe_load((folder / "hero.yaml").read_text(encoding="utf-8"))
    thug = yaml.safe_load((folder / "thug.yaml").read_text(encoding="utf-8"))
    assert (hero["Fate Points"], thug["Stress"]) == (2, 0)


def test_the_other_character_decides_and_the_page_says_so(page, server):
    body = {"rulebook": "pbta", "action": "go_aggro", "character": "driver"}
    seed = choice_seed(page, server, {**body, "targets": {"target": "gang_boss"}})
    open_page(page, server, "pbta", "driver")
    page.select_option("#action", "go_aggro")
    page.select_option("#param-target", "gang_boss")
    page.check('input[name="dice"][value="seed"]')
    page.fill("#seed", str(seed))
    page.click("#run")
    expect(page.locator("#choose-who")).to_have_text(re.compile(r"^gang_boss decides "))
    expect(page.locator("#choose-options button").first).to_have_text("suck it up")
    # The closed option (a weak hit's only) is said, not offered, on a strong hit.
    page.click("#choose-options button:text-is('cave')")
    expect(page.locator("#outcome")).to_be_visible()
    expect(page.locator("#choices")).to_have_text(["answer: cave — gang_boss, chosen at the table"])
    expect(page.locator("#result")).to_contain_text("cavedyes")


def test_the_page_speaks_the_rulebooks_language(page, server):
    open_page(page, server, "brujeria", "brujeria_investigadora")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator("header label").first).to_have_text(re.compile("^Reglamento"))
    expect(page.locator("#run")).to_have_text("Tirar")
    expect(page.locator("#odds-field")).to_have_attribute("placeholder", "el resultado entero")
    expect(page.locator("footer")).to_contain_text("no se trae nada de fuera")
    # Another rulebook, another language: the labels follow it.
    page.select_option("#rulebook", "fate")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#run")).to_have_text("Run")
    expect(page.locator("#play-title")).to_have_text("Action")
    # ?lang= asks for a language whatever the rulebook's (as --lang does).
    base, _ = server
    page.goto(f"{base}/?rulebook=brujeria&character=brujeria_investigadora&lang=en")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#run")).to_have_text("Run")
    page.select_option("#action", "asustarse")
    page.check('input[name="dice"][value="seed"]')
    page.click("#run")
    # (a seed given is said as such: issue 26, "a seeded run is labelled al azar")
    expect(page.locator("#dice")).to_have_text(re.compile(r"^dice: .* \(seed \d+\)$"))


def test_odds_of_an_action_with_a_choice_under_the_best_play(page, server):
    open_page(page, server, "pbta", "driver")
    page.select_option("#action", "read_a_sitch")
    expect(page.locator("#best-box")).to_be_hidden()  # an action that asks nothing
    page.select_option("#rulebook", "fate")
    page.select_option("#character", "hero")
    page.select_option("#action", "overcome")
    expect(page.locator("#best-box")).to_be_visible()  # overcome asks `invoke`
    # the form is built again once the character has loaded: its skills become a select
    # (once for the rulebook's first character, once for hero: wait until both are in)
    expect(page.locator("select#param-skill")).to_be_attached()
    page.wait_for_load_state("networkidle")
    page.select_option("#param-skill", "Fight")
    expect(page.locator("#param-skill")).to_have_value("Fight")
    page.fill("#odds-field", "shifts")
    page.fill("#odds-best", "mean shifts")
    page.click("#odds-button")
    chart = page.locator("#odds-chart svg")
    expect(chart).to_be_visible(timeout=90_000)
    expect(page.locator("#odds-summary")).to_contain_text(re.compile(r"^exact, mean \d"))
    assert chart.locator("rect.bar-a[data-outcome]").count() >= 3
    best_play = page.locator("#odds-summary").text_content()
    # the same choice answered in advance: never invoking is worse than the best play
    page.select_option('select.odds-choice[data-choice="invoke"]', "no")
    page.click("#odds-button")
    expect(page.locator("#odds-summary")).not_to_have_text(best_play, timeout=90_000)
    never = page.locator("#odds-summary").text_content()
    assert never.startswith("exact") and mean_in(never) < mean_in(best_play)
    # a goal that weighs the fate point spent: what the best play is worth to it
    page.select_option('select.odds-choice[data-choice="invoke"]', "")
    page.fill("#odds-best", "mean shifts - spent('Fate Points') * 3")
    page.click("#odds-button")
    expect(page.locator("#odds-summary")).to_contain_text("the best play is worth", timeout=90_000)


def mean_in(summary: str) -> float:
    return float(re.search(r"mean (-?[\d.]+)", summary).group(1))


def test_checks_opposed_checks_and_rolls_are_offered_run_and_counted(page, server):
    open_page(page, server, "brujeria", "brujeria_investigadora")
    groups = page.locator("#action optgroup")
    labels = [groups.nth(i).get_attribute("label") for i in range(groups.count())]
    assert labels == ["Acciones", "Chequeos", "Chequeos enfrentados", "Tiradas"]
    # An opposed check on its own: its form, a seeded run, its record, its odds.
    page.select_option("#action", "resistido")
    expect(page.locator("#action option:checked")).to_have_text("Chequeo resistido (resistido)")
    page.select_option("#param-atributo", "Fuerza")
    page.check('input[name="dice"][value="seed"]')
    page.click("#run")
    expect(page.locator("#outcome")).to_be_visible()
    for name in ("won", "tie", "margin", "ours", "theirs"):
        expect(page.locator("#result th", has_text=re.compile(f"^{name}$"))).to_have_count(1)
    page.fill("#odds-field", "won")
    page.click("#odds-button")
    chart = page.locator("#odds-chart svg")
    expect(chart).to_be_visible(timeout=90_000)
    expect(page.locator("#odds-summary")).to_contain_text(re.compile("^exacto"))
    assert chart.locator("rect.bar-a[data-outcome]").count() == 2  # won: no / yes
    # A named roll gives a number: shown as the result, and its odds with no field.
    page.select_option("#action", "abierta")
    page.click("#run")
    expect(page.locator("#result td")).to_have_count(1)  # the new run's: one number
    expect(page.locator("#result td")).to_have_text(re.compile(r"^-?\d+$"))
    expect(page.locator("#odds-field")).to_be_disabled()  # (no field is asked of a number)
    page.click("#odds-button")
    base, _ = server
    odds = page.request.post(
        f"{base}/api/odds",
        data={"rulebook": "brujeria", "action": "abierta"},
        headers=posting(page, base),
    )
    mean = odds.json()["mean"]  # the open d10: 5.38 (a 10 rolls again, a 1 takes away)
    shown = f"{mean:.3f}".replace(".", ",")  # (as Spanish writes it)
    expect(page.locator("#odds-summary")).to_contain_text(f"exacto, media {shown}")


def test_a_rulebook_saved_over_meanwhile_is_not_lost_and_a_save_is_undone(page, server):
    base, folder = server
    house = 'rulebook "Casa del test" extends brujeria {\n}\n'
    (folder / "casa_test.rules").write_text(house, encoding="utf-8")
    open_page(page, server, "casa_test", "brujeria_investigadora")
    expect(page.locator("#editor-file")).to_contain_text("casa_test.rules")
    expect(page.locator("#editor-name")).to_have_value("casa_test")
    # someone else saves the rulebook while it is open in the page
    headers = posting(page, base)
    version = page.request.get(f"{base}/api/rulebooks/casa_test/source").json()["version"]
    theirs = house + "# their edit\n"
    answer = page.request.put(
        f"{base}/api/rulebooks/casa_test",
        data={"text": theirs},
        headers={**headers, "if-match": version},
    )
    assert answer.status == 200
    editor = page.locator("#editor .cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("# my edit\n")
    page.click("#editor-save")
    # (the page speaks the house rule's language: Brujería's Spanish; said by the editor)
    expect(page.locator("#editor-error")).to_contain_text(
        "casa_test.rules lo cambió otra persona desde que lo abriste: no se guardó nada"
    )
    assert (folder / "casa_test.rules").read_text(encoding="utf-8") == theirs
    # opened again, the edit is made on their text, saved, journaled, and undone
    page.select_option("#rulebook", "brujeria")
    page.select_option("#rulebook", "casa_test")
    expect(page.locator("#editor .cm-content")).to_contain_text("# their edit")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("# my edit\n")
    page.click("#editor-save")
    expect(page.locator("#editor-saved")).to_contain_text(
        re.compile(r"^guardado casa_test\.rules \(entrada \d+ del diario\)")
    )
    assert (folder / "casa_test.rules").read_text(encoding="utf-8") == theirs + "# my edit\n"
    page.click("#editor-saved button.undo")
    expect(page.locator("#status")).to_contain_text("deshecho el guardado de casa_test.rules")
    assert (folder / "casa_test.rules").read_text(encoding="utf-8") == theirs
    # a new name that is another rulebook of the folder: refused, nothing written
    page.fill("#editor-name", "fate")
    before = (folder / "fate.rules").read_text(encoding="utf-8")
    page.click("#editor-save")
    expect(page.locator("#editor-error")).to_contain_text("fate.rules ya está en tu carpeta")
    assert (folder / "fate.rules").read_text(encoding="utf-8") == before


def test_odds_past_the_listed_outcomes_say_how_many_were_left_out(page, server):
    base, folder = server
    (folder / "wide.rules").write_text(
        "# a rulebook whose odds have more outcomes than an answer lists\n"
        "action ancho() { result { total: 3d100 } }\n",
        encoding="utf-8",
    )
    answer = page.request.post(
        f"{base}/api/odds",
        data={"rulebook": "wide", "action": "ancho", "field": "total"},
        headers={"X-CSRF-Token": page.request.get(f"{base}/api/session").json()["csrf_token"]},
    ).json()
    left = answer["left_out"]  # 298 outcomes: 200 listed, 98 left out, on both sides
    count = left["before"]["outcomes"] + left["after"]["outcomes"]
    assert len(answer["outcomes"]) == 200 and count == 98
    open_page(page, server, "wide", "")
    page.select_option("#action", "ancho")
    page.fill("#odds-field", "total")
    page.click("#odds-button")
    chart = page.locator("#odds-chart svg")
    expect(chart.locator("rect.bar-a[data-outcome]")).to_have_count(200)
    notes = chart.locator("text.left-out")
    expect(notes).to_have_count(2)
    for side, note in zip(("before", "after"), notes.all(), strict=True):
        gone = left[side]
        percent = f"{gone['probability'] * 100:.2f}%"
        expect(note).to_have_text(f"… {gone['outcomes']} more outcomes ({percent} in all)")


def test_a_sheets_warnings_are_shown_with_the_sheet_the_run_and_the_odds(page, server):
    _base, folder = server
    (folder / "look.rules").write_text(
        "# a rulebook with open skills\nsheet {\n  attribute Fuerza in 1..10\n"
        "  skills in 0..10 default 0\n}\naction golpe() { let x = d6  result { total: x } }\n",
        encoding="utf-8",
    )
    lookalike = "Pel\u0435a"  # a Cyrillic е beside the Latin Pelea
    (folder / "lookalike.yaml").write_text(
        f"rulebook: look\nFuerza: 3\nskills:\n  Pelea: 2\n  {lookalike}: 3\n", encoding="utf-8"
    )
    open_page(page, server, "look", "lookalike")
    warning = re.compile(f"{lookalike}.*U\\+0435")
    expect(page.locator("#sheet-warnings")).to_contain_text(warning)
    page.select_option("#action", "golpe")
    page.click("#run")
    expect(page.locator("#run-warnings")).to_contain_text(warning)
    page.fill("#odds-field", "total")
    page.click("#odds-button")
    expect(page.locator("#odds-warnings")).to_contain_text(warning)


#: a choice asked once per die (issue 30): each time answered apart, in a run and in the odds
PLACED = """rulebook "Placed" { language "en" }
action place() "Place each die" {
  let r = 2d4
  let first = 0
  let second = 0
  for each d in r.dice {
    choose into "Which set for {d}?" {
      option none
      option each s in 1..2 {
        if s = 1 { set first to first + d } else { set second to second + d }
      }
    }
  }
  result { first: first, second: second }
}
"""


def test_a_choice_asked_once_per_die_is_answered_each_time_apart(page, server):
    _base, folder = server
    (folder / "placed.rules").write_text(PLACED, encoding="utf-8")
    open_page(page, server, "placed", "")
    page.select_option("#action", "place")
    expect(page.locator("#action-choices")).to_have_text("asks during the run: into")
    # A run asks the choice for each die in turn: the first die to set 1, the second to 2.
    page.check('input[name="dice"][value="seed"]')
    page.fill("#seed", "3")
    page.click("#run")
    prompt = page.locator("#choose-prompt")
    expect(prompt).to_have_text(re.compile(r"^into: Which set for [1-4]\?$"))
    page.click("#choose-options button:text-is('1')")
    expect(page.locator("#choose-back")).to_be_visible()
    expect(page.locator("#choose-trace")).to_contain_text("into: 1 (chosen at the table)")
    page.click("#choose-options button:text-is('2')")
    expect(page.locator("#outcome")).to_be_visible()
    expect(page.locator("#choices li")).to_have_text(
        ["into: 1 — the acting character, chosen at the table",
         "into: 2 — the acting character, chosen at the table"]
    )  # fmt: skip

    def shown(name: str) -> int:
        row = page.locator("#result tr", has=page.locator("th", has_text=re.compile(f"^{name}$")))
        return int(row.locator("td").text_content())

    first, second = shown("first"), shown("second")
    assert 1 <= first <= 4 and 1 <= second <= 4  # one die in each set
    # The odds: every time answered 1, nothing is ever in the second set...
    page.fill("#odds-field", "second")
    page.fill("#odds-best", "mean first")
    page.fill('input.odds-choice[data-choice="into"]', "1")
    page.click("#odds-button")
    summary = page.locator("#odds-summary")
    expect(summary).to_contain_text(re.compile(r"^exact, mean 0(\.0+)?\b"), timeout=90_000)
    # ...and the second time answered apart (`into#2`), the second die is there.
    page.click('button.odds-apart[data-choice="into"]')
    row = page.locator("label.odds-occurrence")
    expect(row.locator("input.odds-time")).to_have_value("2")
    row.locator("input.odds-choice").fill("2")
    page.click("#odds-button")
    expect(summary).to_contain_text(re.compile(r"^exact, mean 2\.50*\b"), timeout=90_000)
    bars = page.locator("#odds-chart svg rect.bar-a[data-outcome]")
    expect(bars).to_have_count(4)  # the second die: 1 to 4 alike


def test_a_sweep_drawn_beside_a_house_rule(page, server):
    open_page(page, server, "brujeria", "brujeria_investigadora")
    page.select_option("#action", "chequeo_sencillo")
    page.fill("#odds-field", "éxito")
    page.select_option("#compare", "brujeria_miedo_duro")
    page.fill("#sweep-over", "modificador=-2..2; Voluntad=1..3")
    page.click("#sweep-button")
    picture = page.locator("#sweep-picture")
    expect(picture).to_be_visible()
    expect(page.locator("#sweep-summary")).to_have_text("30 casos")  # 5 x 3 x 2 rulebooks
    assert picture.get_attribute("src").startswith("data:image/svg+xml")
    assert picture.evaluate("image => image.naturalWidth") > 100  # the SVG drew
    assert "P(éxito=sí)" in picture.get_attribute("alt")
