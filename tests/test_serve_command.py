"""`rulebook serve`: the command starts a real server, says where, warns when opened."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from interpreter.cli.main import build_parser, main


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(folder: Path, *options: str):
    """A `rulebook serve` process, and the address it printed once it listens."""
    port = _free_port()
    command = [sys.executable, "-m", "interpreter.cli", "serve", str(folder)]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--no-browser", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = process.stdout.readline()  # printed just before the server starts
    return process, port, first


def _get(url: str, timeout: float = 20.0, headers: dict | None = None):
    # The server needs a moment after its first line: retry until it answers (bounded).
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            request = urllib.request.Request(url, headers=headers or {})
            with urllib.request.urlopen(request, timeout=5) as answer:
                return answer.status, answer.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_serve_listens_on_this_machine_and_says_where(tmp_path):
    process, port, first = _serve(tmp_path)
    try:
        assert first.startswith(f"rulebook: serving {tmp_path.resolve()}")
        assert f"http://127.0.0.1:{port}/" in first
        status, body = _get(f"http://127.0.0.1:{port}/api/rulebooks")
        names = [b["name"] for b in json.loads(body)["rulebooks"]]
        assert status == 200 and "brujeria" in names  # the shipped ones are always there
        status, page = _get(f"http://127.0.0.1:{port}/")
        assert b'<script type="module" src="/static/js/main.js">' in page
    finally:
        process.terminate()
        _out, errors = process.communicate(timeout=20)
    assert "warning" not in errors


def test_serve_warns_when_opened_beyond_this_machine(tmp_path):
    process, port, _first = _serve(tmp_path, "--host", "0.0.0.0")
    try:
        process.stdout.readline()  # "open this address (it carries the server's token ...):"
        printed = process.stdout.readline().strip()
        token = printed.split("?token=", 1)[1]
        bearer = {"Authorization": f"Bearer {token}"}
        status, _ = _get(f"http://127.0.0.1:{port}/api/language", headers=bearer)
        assert status == 200
    finally:
        process.terminate()
        _out, errors = process.communicate(timeout=20)
    assert "warning: --host 0.0.0.0 opens the server to the network" in errors


def test_serve_refuses_a_missing_folder(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "nowhere"), "--no-browser"]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_serve_options_and_defaults():
    args = build_parser().parse_args(["serve"])
    assert (args.folder, args.port, args.host, args.no_browser) == (".", 8000, "127.0.0.1", False)
    assert (args.token, args.allow_host) == (None, [])
    more = ["serve", "--allow-host", "a.local", "--allow-host", "b.local", "--token", "t" * 20]
    args = build_parser().parse_args(more)
    assert (args.token, args.allow_host) == ("t" * 20, ["a.local", "b.local"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--port", "x"])


class _FakeServer:
    """Stands in for uvicorn's server: 'listens' at once, returns once the page opened."""

    def __init__(self, config):
        self.config, self.started, self.should_exit = config, False, False

    def handle_exit(self, sig, frame):  # (uvicorn's: `serve` ends the table's streams first)
        self.should_exit = True

    def run(self):
        import time

        self.started = True
        deadline = time.monotonic() + 10
        while not _OPENED and time.monotonic() < deadline:
            time.sleep(0.01)


_OPENED: list[str] = []


def test_serve_opens_the_browser_once_it_listens(tmp_path, monkeypatch, capsys):
    import uvicorn

    import interpreter.cli.serve as serve

    _OPENED.clear()
    monkeypatch.setattr(uvicorn, "Server", _FakeServer)
    monkeypatch.setattr(serve.webbrowser, "open", _OPENED.append)
    assert main(["serve", str(tmp_path), "--port", "8765"]) == 0
    assert _OPENED == ["http://127.0.0.1:8765/"]
    assert "http://127.0.0.1:8765/" in capsys.readouterr().out


def test_serve_with_no_browser_opens_none(tmp_path, monkeypatch):
    import uvicorn

    import interpreter.cli.serve as serve

    _OPENED[:] = ["(the fake server returns at once)"]
    monkeypatch.setattr(uvicorn, "Server", _FakeServer)
    monkeypatch.setattr(serve.webbrowser, "open", lambda url: pytest.fail(f"opened {url}"))
    monkeypatch.setattr(serve.threading, "Thread", lambda *a, **k: pytest.fail("a thread"))
    assert main(["serve", str(tmp_path), "--port", "8765", "--no-browser"]) == 0
