"""Who may use the server (interpreter.web.access, guard): its Host names, its token beyond
loopback, the CSRF token on every request that posts; and what `rulebook serve` prints."""

from __future__ import annotations

import hmac
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from web_client import page_client

from interpreter.errors import ParameterError
from interpreter.version import VERSION
from interpreter.web import create_app
from interpreter.web.access import access_for, host_name, machine_names

ROOT = Path(__file__).resolve().parent.parent
LAN = "http://192.0.2.7:8000"  # an address a server opened to the network answers at
RUN = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": 1}


@pytest.fixture
def folder(tmp_path):
    inside = tmp_path / "campaign"
    inside.mkdir()
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", inside / "ana.yaml")
    return inside


def opened(folder, **options):
    """A server bound to every address (the token it made is `app.access.token`)."""
    return create_app(folder, host="0.0.0.0", allow_hosts=["192.0.2.7"], **options)


def error_of(answer, status: int, code: str) -> dict:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["code"] == code and error["message"] and "Traceback" not in answer.text
    return error


def files_of(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# ─── the token ─────────────────────────────────────────────────────────────


def test_a_server_beyond_loopback_makes_a_token_and_asks_every_request_for_it(folder):
    app = opened(folder)
    token = app.access.token
    assert token is not None and len(token) >= 32
    assert opened(folder).access.token != token  # made anew, never a default
    with TestClient(app, base_url=LAN) as anyone:
        for path in ("/", "/api/rulebooks", "/api/session", "/static/js/main.js", "/nothing"):
            answer = anyone.get(path)
            error = error_of(answer, 401, "unauthorized")
            assert "token" in error["message"] and "?token=" in error["hint"]
            assert answer.headers["www-authenticate"].startswith("Bearer")
        wrong = {"authorization": "Bearer " + token[:-1] + ("A" if token[-1] != "A" else "B")}
        error_of(anyone.get("/api/rulebooks", headers=wrong), 401, "unauthorized")
        error_of(
            anyone.get("/api/rulebooks", headers={"authorization": token}), 401, "unauthorized"
        )
        right = {"authorization": f"Bearer {token}"}
        assert anyone.get("/api/rulebooks", headers=right).status_code == 200


def test_a_write_without_the_token_writes_nothing(folder):
    app = opened(folder)
    before = files_of(folder)
    with TestClient(app, base_url=LAN, headers={"x-csrf-token": app.access.csrf}) as anyone:
        error_of(anyone.post("/api/run", json={**RUN, "save": True}), 401, "unauthorized")
        text = 'rulebook "X" {\n}\n'
        error_of(anyone.put("/api/rulebooks/x", json={"text": text}), 401, "unauthorized")
        error_of(anyone.post("/api/undo", json={"entry": 1}), 401, "unauthorized")
    assert files_of(folder) == before


@settings(max_examples=40, deadline=None)
@given(
    st.text(
        st.characters(min_codepoint=0x20, blacklist_characters="\x7f", blacklist_categories=["Cs"]),
        max_size=60,
    )
)
def test_no_other_token_is_taken(tmp_path_factory, given_token):
    folder = tmp_path_factory.mktemp("campaign")
    app = opened(folder)
    headers = {"authorization": b"Bearer " + given_token.encode("utf-8")}
    with TestClient(app, base_url=LAN) as anyone:
        error_of(anyone.get("/api/rulebooks", headers=headers), 401, "unauthorized")
        error_of(anyone.get("/", params={"token": given_token}), 401, "unauthorized")


def test_the_token_is_compared_in_constant_time(folder, monkeypatch):
    compared = []
    real = hmac.compare_digest

    def spy(a, b):
        compared.append((len(a), len(b)))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    app = opened(folder)
    with TestClient(app, base_url=LAN) as anyone:
        anyone.get("/api/rulebooks", headers={"authorization": "Bearer short"})
        anyone.get("/api/rulebooks", headers={"authorization": f"Bearer {app.access.token}"})
    # every comparison is of two digests of one length, whatever the length given
    assert compared and all(a == b == 32 for a, b in compared)


def test_the_printed_address_sets_the_cookie_and_leaves_the_address(folder):
    app = opened(folder)
    token = app.access.token
    with TestClient(app, base_url=LAN, follow_redirects=False) as browser:
        answer = browser.get(f"/?rulebook=fate&token={token}&lang=en")
        assert answer.status_code == 303
        assert answer.headers["location"] == "/?rulebook=fate&lang=en"  # the token gone
        cookie = answer.headers["set-cookie"]
        assert f"={token}" in cookie
        assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= {p.strip() for p in cookie.split(";")}
        assert answer.headers["cache-control"] == "no-store"
        # from now on the cookie is the token: the page, its scripts, the API
        page = browser.get("/?rulebook=fate&lang=en")
        assert page.status_code == 200 and 'name="csrf-token"' in page.text
        assert app.access.csrf in page.text and token not in page.text  # scripts never see it
        assert browser.get("/static/js/api.js").status_code == 200
        post = browser.post("/api/run", json=RUN, headers={"x-csrf-token": app.access.csrf})
        assert post.status_code == 200
        # a wrong token in an address sets nothing
        browser.cookies.clear()
        wrong = browser.get("/?token=not-the-token-at-all")
        error_of(wrong, 401, "unauthorized")
        assert "set-cookie" not in wrong.headers


@pytest.mark.parametrize("path", ["//evil.example/", "/\\evil.example/", "/%2F%2Fevil.example"])
def test_the_redirect_stays_on_this_server(folder, path):
    app = opened(folder)
    with TestClient(app, base_url=LAN, follow_redirects=False) as browser:
        answer = browser.get(f"{LAN}{path}?token={app.access.token}")
        location = answer.headers["location"]
        assert answer.status_code == 303 and location.startswith("/")
        assert not location.startswith("//") and urlsplit(location).netloc == ""


def test_two_servers_on_one_machine_keep_their_cookies_apart(folder):
    assert opened(folder).access.cookie != opened(folder).access.cookie


def test_a_token_given_is_asked_for_even_on_loopback(folder):
    token = "a-token-of-our-own-1234"
    app = create_app(folder, token=token)
    with TestClient(app, base_url="http://127.0.0.1:8000") as local:
        error_of(local.get("/api/rulebooks"), 401, "unauthorized")
        assert local.get("/api/rulebooks", headers={"authorization": f"Bearer {token}"}).is_success


@pytest.mark.parametrize("token", ["short", "has space in it 12345", "ñandú-ñandú-ñandú-1", ""])
def test_a_weak_or_unfit_token_is_refused(folder, token):
    with pytest.raises(ParameterError, match="16 to 256"):
        create_app(folder, host="0.0.0.0", token=token)


def test_on_loopback_nothing_new_is_asked_of_the_page(folder):
    app = create_app(folder)
    assert app.access.token is None
    with TestClient(app, base_url="http://127.0.0.1:8000") as local:
        page = local.get("/")
        assert page.status_code == 200 and app.access.csrf in page.text
        assert local.get("/api/rulebooks").status_code == 200


# ─── Host names ────────────────────────────────────────────────────────────


def test_the_dns_rebinding_attack_of_issue_23_is_refused(folder):
    # A page at evil.example rebinds its name to this machine: its requests are
    # "same-origin" for the browser, and carry its own Host. Even with the token and the
    # CSRF token (which such a page cannot have), nothing runs and nothing is written.
    app = opened(folder)
    before = files_of(folder)
    same_origin = {
        "host": "evil.example:8000",
        "origin": "http://evil.example:8000",
        "sec-fetch-site": "same-origin",
        "x-csrf-token": app.access.csrf,
        "authorization": f"Bearer {app.access.token}",
    }
    with TestClient(app, base_url=LAN) as c:
        error = error_of(
            c.post("/api/run", json={**RUN, "save": True}, headers=same_origin), 400, "usage_error"
        )
        assert "evil.example" in error["message"] and "--allow-host" in error["hint"]
        text = 'rulebook "X" {\n}\n'
        error_of(
            c.put("/api/rulebooks/x", json={"text": text}, headers=same_origin), 400, "usage_error"
        )
        error_of(c.get("/api/rulebooks", headers=same_origin), 400, "usage_error")
    assert files_of(folder) == before


def test_the_names_of_this_machine_are_answered(folder):
    app = opened(folder)
    names = {"localhost", "127.0.0.1", "::1", "192.0.2.7", *machine_names()}
    assert host_name(socket.gethostname()) in app.access.hosts
    assert names <= app.access.hosts
    with page_client(app, base_url=LAN) as c:
        for name in names:
            shown = f"[{name}]" if ":" in name else name
            assert c.get("/api/language", headers={"host": f"{shown}:8000"}).status_code == 200
        # written otherwise, the same name: case, a final dot, an IPv6 address spelled long
        for host in ("LOCALHOST:8000", "localhost.:8000", "[0:0:0:0:0:0:0:1]:8000"):
            assert c.get("/api/language", headers={"host": host}).status_code == 200


def test_names_given_with_allow_host_and_no_others(folder):
    app = create_app(folder, host="0.0.0.0", allow_hosts=["Table.Example"])
    with page_client(app, base_url=LAN) as c:
        assert c.get("/api/language", headers={"host": "table.example:8000"}).status_code == 200
        for host in ("table.example.evil:8000", "evil.table.example", "", "tableexample"):
            error_of(c.get("/api/language", headers={"host": host}), 400, "usage_error")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-:[]", min_size=0, max_size=30))
def test_any_other_host_is_refused(tmp_path_factory, host):
    app = create_app(tmp_path_factory.mktemp("campaign"), host="0.0.0.0")
    with page_client(app, base_url=LAN) as c:
        answer = c.get("/api/language", headers={"host": host})
        assert (answer.status_code == 200) == (host_name(host) in app.access.hosts)


def test_a_bound_address_and_loopback_answer_their_own_names():
    assert "192.0.2.9" in access_for("192.0.2.9").hosts
    assert {"localhost", "127.0.0.1", "::1"} <= access_for("127.0.0.1").hosts
    assert "evil.example" not in access_for("0.0.0.0").hosts


# ─── requests that post: the CSRF token ────────────────────────────────────


def test_a_request_that_posts_needs_the_csrf_token(folder):
    app = create_app(folder)
    base = "http://127.0.0.1:8000"
    with TestClient(app, base_url=base) as c:
        session = c.get("/api/session").json()
        # the session's answer, as every answer, carries the version (issue 31)
        assert session == {
            "csrf_token": app.access.csrf,
            "token_required": False,
            "rulebook_version": VERSION,
        }
        for headers in ({}, {"x-csrf-token": ""}, {"x-csrf-token": app.access.csrf + "x"}):
            error = error_of(c.post("/api/run", json=RUN, headers=headers), 403, "forbidden")
            assert "X-CSRF-Token" in error["message"] and "/api/session" in error["hint"]
        assert c.post("/api/run", json=RUN, headers={"x-csrf-token": app.access.csrf}).is_success


def test_the_token_does_not_stand_in_for_the_csrf_token(folder):
    app = opened(folder)
    before = files_of(folder)
    with TestClient(app, base_url=LAN) as program:
        bearer = {"authorization": f"Bearer {app.access.token}"}
        error_of(
            program.post("/api/run", json={**RUN, "save": True}, headers=bearer), 403, "forbidden"
        )
        csrf = program.get("/api/session", headers=bearer).json()["csrf_token"]
        both = {**bearer, "x-csrf-token": csrf}
        assert program.post("/api/run", json={**RUN, "save": True}, headers=both).is_success
    assert files_of(folder) != before  # the save went through: ana.yaml and the journal


def test_cross_site_requests_are_refused_before_the_csrf_token_is_looked_at(folder):
    app = create_app(folder)
    with page_client(app) as c:
        evil = {"origin": "http://evil.example", "x-csrf-token": app.access.csrf}
        error_of(c.post("/api/run", json=RUN, headers=evil), 403, "forbidden")
        cross = {"sec-fetch-site": "cross-site"}
        error_of(c.post("/api/run", json=RUN, headers=cross), 403, "forbidden")


def test_a_websocket_is_refused(folder):
    from starlette.websockets import WebSocketDisconnect

    client = TestClient(create_app(folder), base_url="http://127.0.0.1:8000")
    with client as c, pytest.raises(WebSocketDisconnect), c.websocket_connect("/api/run"):
        pass


# ─── `rulebook serve` says what is needed ──────────────────────────────────


def _free_port(address: str) -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def _serve(folder: Path, *options: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "interpreter.cli",
            "serve",
            str(folder),
            "--no-browser",
            "--lang",
            "en",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        cwd=ROOT,
    )


def _lines_until(process: subprocess.Popen, needle: str) -> list[str]:
    lines = []
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if needle in line:
            return lines
    raise AssertionError(f"`serve` ended without printing {needle!r}: {lines}")


def stop_serving(process: subprocess.Popen) -> str:
    """Stop a `rulebook serve` as Ctrl-C does; what it wrote to standard error."""
    process.send_signal(signal.SIGINT)
    try:
        _out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        _out, err = process.communicate()
    return err


def _get(url: str, headers: dict | None = None) -> http.client.HTTPResponse:
    parts = urlsplit(url)
    for _ in range(100):  # until the server listens (a condition, not a time)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            connection.request("GET", path, headers=headers or {})
            return connection.getresponse()
        except ConnectionRefusedError:
            connection.close()
            time.sleep(0.1)
    raise AssertionError(f"nothing answers at {url}")


def test_serve_prints_the_address_with_its_token_and_warns(folder):
    port = _free_port("127.0.0.1")
    process = _serve(folder, "--host", "0.0.0.0", "--port", str(port), env={"RULEBOOK_TOKEN": ""})
    try:
        lines = _lines_until(process, "?token=")
        printed = next(w for line in lines for w in line.split() if "?token=" in w)
        token = printed.split("?token=", 1)[1]
        assert len(token) >= 32 and sum(printed in line for line in lines) == 1  # once
        # the address printed opens the page (on this machine, by its loopback too)
        local = f"http://127.0.0.1:{port}/?token={token}"
        answer = _get(local)
        assert answer.status == 303 and answer.getheader("location") == "/"
        cookie = answer.getheader("set-cookie").split(";")[0]
        assert _get(f"http://127.0.0.1:{port}/", {"cookie": cookie}).status == 200
        assert _get(f"http://127.0.0.1:{port}/api/rulebooks").status == 401
    finally:
        err = stop_serving(process)
    assert "warning: --host 0.0.0.0 opens the server to the network" in err
    assert "not encrypted" in err


def test_serve_with_a_token_given_does_not_print_it(folder):
    port = _free_port("127.0.0.1")
    token = "our-own-token-of-the-table-42"
    process = _serve(
        folder, "--host", "0.0.0.0", "--port", str(port), env={"RULEBOOK_TOKEN": token}
    )
    try:
        lines = _lines_until(process, "?token=")
        assert not any(token in line for line in lines)
        assert any("--token or $RULEBOOK_TOKEN" in line for line in lines)
        bearer = {"authorization": f"Bearer {token}"}
        assert _get(f"http://127.0.0.1:{port}/api/rulebooks", bearer).status == 200
    finally:
        stop_serving(process)


def test_serve_on_loopback_asks_for_no_token(folder):
    port = _free_port("127.0.0.1")
    process = _serve(folder, "--port", str(port), env={"RULEBOOK_TOKEN": ""})
    try:
        lines = _lines_until(process, "Ctrl+C")
        assert not any("token" in line for line in lines)
        assert _get(f"http://127.0.0.1:{port}/api/rulebooks").status == 200
    finally:
        err = stop_serving(process)
    assert "warning" not in err


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--host", "0.0.0.0", "--token", "short"], "16 to 256"),
        (["--allow-host", "http://evil.example/x"], "not a host name"),
    ],
)
def test_serve_refuses_a_weak_token_or_a_bad_name(folder, options, words):
    process = _serve(folder, "--port", str(_free_port("127.0.0.1")), *options)
    _out, err = process.communicate(timeout=120)
    assert process.returncode == 2 and words in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("http://127.0.0.1:8000", 200),
        ("https://127.0.0.1:8000", 200),  # an HTTPS proxy in front, same name and port
        ("http://127.0.0.1:8001", 403),  # another server of this machine
        ("http://127.0.0.1:8000.evil.example", 403),
        ("http://evil.example", 403),
        ("null", 403),
        ("file://127.0.0.1:8000", 403),
    ],
)
def test_only_the_servers_own_origin_posts(folder, origin, status):
    with page_client(create_app(folder)) as c:
        answer = c.post("/api/run", json=RUN, headers={"origin": origin})
        assert answer.status_code == status, answer.text
