"""The page's screenshots in docs/screens/: a phone (390 px), a laptop (1280 px), light and dark.

    PYTHONPATH=$PWD python docs/screenshots.py     # writes docs/screens/page-*.png

Serves the page as the browser tests do (tests/test_web_browser.py: `serving`, Debian's
chromium driven by Playwright), on a copy of the shipped Brujería character, runs an
action with a seed and its odds compared with a house rule, and takes each picture. No
test runs it: pictures are looked at, not compared.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.web import create_app  # noqa: E402
from tests.test_web_browser import CHROMIUM, CHROMIUM_FLAGS, serving  # noqa: E402

OUT = ROOT / "docs/screens"
#: (name, viewport) of each picture; a phone's is a screen (and one of the odds), a laptop's
#: the whole page
SIZES = (("390", {"width": 390, "height": 844}), ("1280", {"width": 1280, "height": 900}))


def shoot(browser, base: str, width: str, viewport: dict, scheme: str) -> Path:
    context = browser.new_context(viewport=viewport, color_scheme=scheme, device_scale_factor=1)
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{base}/?rulebook=brujeria&character=ana")
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
        path = OUT / f"page-{width}-{scheme}.png"
        if width == "390":  # one screen from the top (the action form), one of the odds
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(path))
            page.locator("#odds").scroll_into_view_if_needed()
            page.screenshot(path=str(OUT / f"page-{width}-{scheme}-odds.png"))
        else:
            page.screenshot(path=str(path), full_page=True)
        return path
    finally:
        context.close()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(
            ROOT / "rulebooks/characters/brujeria_investigadora.yaml", Path(folder) / "ana.yaml"
        )
        app = create_app(Path(folder), table={"name": "martes", "code": "ABCD-EFGH"})
        with serving(app) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            try:
                for width, viewport in SIZES:
                    for scheme in ("light", "dark"):
                        print(shoot(browser, base, width, viewport, scheme).relative_to(ROOT))
            finally:
                browser.close()


if __name__ == "__main__":
    main()
