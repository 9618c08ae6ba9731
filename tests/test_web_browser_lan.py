"""The page served beyond loopback, end to end in the real Chromium (as
tests/test_web_browser.py drives it): `rulebook serve --host ADDRESS` on an address of
this machine that is not loopback, the page opened with the address it printed (its
token taken into a cookie the page's scripts cannot read, and out of the address bar),
a run and a save done from the page; without the token, or with a foreign Host,
nothing is answered.

Skipped, saying why, when this machine has no address but loopback to bind to.
"""

from __future__ import annotations

import http.client
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import test_web_browser as in_the_page
import yaml
from playwright.sync_api import expect
from test_web_access import stop_serving

from interpreter.web.access import is_loopback, machine_names

ARTIFACTS = in_the_page.ARTIFACTS
browser = in_the_page.browser  # (the page's tests' browser fixture)

ROOT = Path(__file__).resolve().parent.parent
expect.set_options(timeout=60_000)


def lan_address() -> str | None:
    """An IPv4 address of this machine, not loopback, that a server can listen on."""
    for name in sorted(machine_names()):
        if ":" in name or is_loopback(name) or not name.replace(".", "").isdigit():
            continue
        with socket.socket() as probe:
            try:
                probe.bind((name, 0))
            except OSError:
                continue
        return name
    return None


ADDRESS = lan_address()
pytestmark = pytest.mark.skipif(
    ADDRESS is None,
    reason="this machine has no address but loopback to serve on (and no network "
    "namespace is made here): a server beyond loopback cannot be reached",
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`rulebook serve FOLDER --host ADDRESS`, and the address it printed."""
    folder = tmp_path_factory.mktemp("campaign")
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    with socket.socket() as probe:
        probe.bind((ADDRESS, 0))
        port = probe.getsockname()[1]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("RULEBOOK_TOKEN", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "interpreter.cli", "serve", str(folder), "--host", ADDRESS,
         "--port", str(port), "--no-browser", "--lang", "en"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=ROOT,
    )  # fmt: skip
    printed = None
    lines = []
    for line in process.stdout:
        lines.append(line)
        words = [w for w in line.split() if "?token=" in w]
        if words:
            printed = words[0]
            break
    assert printed is not None, lines
    assert printed.startswith(f"http://{ADDRESS}:{port}/?token=")
    yield printed, folder
    assert "opens the server to the network" in stop_serving(process)


def wait_until_answered(url: str) -> None:
    parts = urlsplit(url)
    for _ in range(300):  # until the server listens: a condition, not a time
        try:
            with socket.create_connection((parts.hostname, parts.port), timeout=5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens at {url}")


def test_the_page_opened_with_the_printed_address_runs_and_saves(served, browser, request):
    printed, folder = served
    base = printed.split("?", 1)[0].rstrip("/")
    token = printed.split("?token=", 1)[1]
    wait_until_answered(base)
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    failures: list[str] = []
    page.on("pageerror", lambda error: failures.append(str(error)))
    try:
        page.goto(f"{printed}&rulebook=brujeria&character=ana")
        # the token is out of the address bar, and in a cookie no script can read
        assert token not in page.url and page.url.startswith(f"{base}/?rulebook=brujeria")
        [cookie] = context.cookies()
        assert cookie["value"] == token and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert token not in page.evaluate("document.cookie")
        assert token not in page.content()
        expect(page.locator("body")).to_have_attribute("data-ready", "yes")
        # a run and its save, from the page
        page.select_option("#action", "recibir_daño")  # 10 points of damage by default
        page.check('input[name="dice"][value="seed"]')
        page.fill("#seed", "5")
        page.click("#run")
        expect(page.locator("#outcome")).to_be_visible()
        expect(page.locator("#changes li").first).to_contain_text("Vida")
        page.click("#save-sheet")
        expect(page.locator("#saved")).to_contain_text("ana.yaml")
        saved = yaml.safe_load((folder / "ana.yaml").read_text(encoding="utf-8"))
        shipped = yaml.safe_load(
            (ROOT / "rulebooks/characters/brujeria_investigadora.yaml").read_text(encoding="utf-8")
        )
        assert saved != shipped  # the changes the page showed, written
        assert (folder / "journal.sqlite").is_file()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    finally:
        context.close()
    assert failures == [], failures
    # another browser without the token: refused, the page and the API alike
    stranger = browser.new_context()
    try:
        answer = stranger.request.get(f"{base}/")
        assert answer.status == 401 and answer.json()["error"]["code"] == "unauthorized"
        assert stranger.request.get(f"{base}/api/rulebooks").status == 401
    finally:
        stranger.close()


def test_a_request_with_a_foreign_host_is_refused(served):
    printed, folder = served
    parts = urlsplit(printed)
    token = printed.split("?token=", 1)[1]
    wait_until_answered(printed)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        body = b'{"rulebook": "brujeria", "action": "asustarse", "character": "ana", "save": true}'
        connection.request(
            "POST",
            "/api/run",
            body=body,
            headers={
                "Host": f"evil.example:{parts.port}",
                "Origin": f"http://evil.example:{parts.port}",
                "Sec-Fetch-Site": "same-origin",
                "Content-Type": "application/json",
                "Authorization": f"Bearer {token}",
            },
        )
        answer = connection.getresponse()
        assert answer.status == 400 and b"evil.example" in answer.read()
    finally:
        connection.close()
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
