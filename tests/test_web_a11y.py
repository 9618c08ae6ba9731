"""The page's accessibility (issue 26): dark mode and the editor, in a real headless Chromium."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.test_web_browser import browser, server  # noqa: F401  (pytest fixtures)


def _luminance(css: str) -> float:
    red, green, blue = (int(n) / 255 for n in re.findall(r"\d+", css)[:3])

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def _contrast(one: str, other: str) -> float:
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _colours(browser, server, scheme: str) -> dict:  # noqa: F811
    base, _ = server
    context = browser.new_context(viewport={"width": 1300, "height": 1000}, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(f"{base}/?rulebook=fate.rules&character=hero")
        expect(page.locator("body")).to_have_attribute("data-ready", "yes", timeout=60_000)
        return page.evaluate(
            """() => {
              const style = (selector) => getComputedStyle(document.querySelector(selector));
              return {page: style('body').backgroundColor, paper: style('section').backgroundColor,
                      text: style('section').color, muted: style('.muted').color};
            }"""
        )
    finally:
        context.close()


def test_dark_mode_is_dark_and_its_text_readable(browser, server):  # noqa: F811
    dark = _colours(browser, server, "dark")
    light = _colours(browser, server, "light")
    assert _luminance(dark["page"]) < 0.05 and _luminance(dark["paper"]) < 0.05, dark
    assert _luminance(light["page"]) > 0.8, light  # light stays the default
    for colours in (dark, light):
        assert _contrast(colours["text"], colours["paper"]) >= 4.5, colours
        assert _contrast(colours["muted"], colours["paper"]) >= 4.5, colours


def _editor(browser, server, scheme: str) -> dict:  # noqa: F811
    base, _ = server
    context = browser.new_context(viewport={"width": 1300, "height": 1000}, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(f"{base}/?rulebook=fate.rules&character=hero")
        expect(page.locator("body")).to_have_attribute("data-ready", "yes", timeout=60_000)
        content = page.locator("#editor .cm-content")
        expect(content).to_contain_text("rulebook", timeout=60_000)
        content.click()
        page.keyboard.press("Tab")
        found = page.evaluate(
            """() => {
              const content = document.querySelector('#editor .cm-content');
              const comment = [...content.querySelectorAll('span')].find(
                (span) => span.textContent.trim().startsWith('#')
                  && getComputedStyle(span).fontStyle === 'italic');
              return {label: content.getAttribute('aria-label'),
                      focusInEditor: content.contains(document.activeElement),
                      comment: comment ? getComputedStyle(comment).color : null,
                      paper: getComputedStyle(content.closest('section')).backgroundColor};
            }"""
        )
        return found
    finally:
        context.close()


def test_the_editor_is_named_lets_tab_out_and_its_comments_are_readable(browser, server):  # noqa: F811
    for scheme in ("light", "dark"):
        editor = _editor(browser, server, scheme)
        assert editor["label"], editor
        assert editor["focusInEditor"] is False, editor  # Tab moved the focus out
        assert editor["comment"] is not None, editor
        assert _contrast(editor["comment"], editor["paper"]) >= 4.5, editor


def test_a_phone_wide_page_does_not_scroll_sideways(browser, server):  # noqa: F811
    base, _ = server
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        try:
            page = context.new_page()
            page.goto(f"{base}/?rulebook=fate.rules&character=hero")
            expect(page.locator("body")).to_have_attribute("data-ready", "yes", timeout=60_000)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 390, (scheme, width)
        finally:
            context.close()


def test_on_a_phone_the_action_form_comes_first_and_the_charts_text_is_readable(browser, server):  # noqa: F811
    base, _ = server
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        try:
            page = context.new_page()
            page.set_default_timeout(90_000)
            page.goto(f"{base}/?rulebook=brujeria&character=brujeria_investigadora")
            expect(page.locator("body")).to_have_attribute("data-ready", "yes")
            top = page.evaluate(
                "() => document.querySelector('#action-form').getBoundingClientRect().top"
                " + window.scrollY"
            )
            assert 0 < top <= 844, (scheme, top)  # within the first screen
            page.select_option("#action", "asustarse")
            # two series, and a whole result (records: the longest labels)
            for field, compare in (("Esencia", "brujeria_miedo_duro"), ("", "")):
                page.fill("#odds-field", field)
                page.select_option("#compare", compare)
                page.click("#odds-button")
                chart = page.locator("#odds-chart svg").first
                expect(chart).to_be_visible()
                expect(page.locator("#odds-progress")).to_be_hidden()
                drawn = page.evaluate(
                    """() => [...document.querySelectorAll('#odds-chart svg text')].map((t) => {
                      const box = t.getBoundingClientRect();
                      return {size: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
                              left: box.left, right: box.right};
                    })"""
                )
                assert drawn, scheme
                sizes = [d["size"] for d in drawn]
                assert min(sizes) >= 12, (scheme, field, min(sizes))  # as rendered, in px
                # every text inside the screen: none cut at the chart's edge
                assert all(d["left"] >= 0 and d["right"] <= 390 for d in drawn), (scheme, field)
                width = page.evaluate("() => document.documentElement.scrollWidth")
                assert width <= 390, (scheme, field, width)
        finally:
            context.close()


def test_a_chart_drawn_wide_is_drawn_again_for_a_narrower_window(browser, server):  # noqa: F811
    base, _ = server
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(f"{base}/?rulebook=brujeria&character=brujeria_investigadora")
        expect(page.locator("body")).to_have_attribute("data-ready", "yes")
        page.select_option("#action", "asustarse")
        page.fill("#odds-field", "Esencia")
        page.click("#odds-button")
        expect(page.locator("#odds-chart svg")).to_be_visible()
        smallest = """() => Math.min(...[...document.querySelectorAll('#odds-chart svg text')]
          .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""
        assert page.evaluate(smallest) >= 12
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function(f"() => ({smallest})() >= 12")  # drawn again, not shrunk
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
