"""One table served by several server processes (interpreter.web.tabletop on one journal):
a run on one server reaches the event stream of another, on SQLite (the folder's file,
looked at now and then) and on PostgreSQL (LISTEN/NOTIFY: told at once)."""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_web_browser import _free_port, serving

from interpreter.web import create_app
from interpreter.web.tabletop import addresses

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "the-game-masters-token"
CODE = "ABCD-EFGH"
ANA = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": 1}
#: seconds a test waits for what it expects at most: a bound on a hang, not a timing
BOUND = 60

pytestmark = pytest.mark.usefixtures("journal_backend")


@pytest.fixture
def folder(tmp_path):
    inside = tmp_path / "campaign"
    inside.mkdir()
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", inside / "ana.yaml")
    return inside


def _address(base: str) -> tuple[str, int]:
    host, port = base.removeprefix("http://").split(":")
    return host, int(port)


def _listening(base: str, lines: queue.Queue, ready: threading.Event) -> threading.Thread:
    """The game master's event stream of the server at `base`, read line by line into
    `lines` by a thread (`ready`: its first line came: the stream is open)."""

    def read() -> None:
        connection = http.client.HTTPConnection(*_address(base), timeout=BOUND)
        connection.request("GET", "/api/table/events", headers={"authorization": f"Bearer {TOKEN}"})
        answer = connection.getresponse()
        lines.put(("status", answer.status))
        ready.set()
        try:
            while True:
                line = answer.readline()
                if not line:
                    return
                lines.put(("line", line.decode("utf-8").rstrip("\n")))
        except OSError:  # (the server stopped, or the bound passed)
            return
        finally:
            connection.close()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _post(base: str, path: str, body: dict, csrf: str | None = None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection(*_address(base), timeout=BOUND)
    headers = {"authorization": f"Bearer {TOKEN}", "content-type": "application/json"}
    if csrf is not None:
        headers["x-csrf-token"] = csrf
    connection.request("POST", path, body=json.dumps(body), headers=headers)
    answer = connection.getresponse()
    out = answer.status, json.loads(answer.read() or b"{}")
    connection.close()
    return out


def _event(lines: queue.Queue, kind: str) -> dict:
    """The data of the first event of `kind` the stream tells (within BOUND)."""
    deadline = time.monotonic() + BOUND
    current = None
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no {kind} event reached the other server's stream"
        what, line = lines.get(timeout=left)
        if what == "line" and line.startswith("event: "):
            current = line.removeprefix("event: ")
        elif what == "line" and line.startswith("data: ") and current == kind:
            return json.loads(line.removeprefix("data: "))


def test_a_run_on_one_server_reaches_the_stream_of_another(folder, journal_backend, monkeypatch):
    if journal_backend == "postgres":
        # no look at the store now and then: only PostgreSQL's notice can bring the event
        monkeypatch.setattr(addresses, "POLL_SECONDS", 3600.0)
    table = {"name": "martes", "code": CODE}
    first = create_app(folder, token=TOKEN, table=table)
    second = create_app(folder, token=TOKEN, table=table)
    lines: queue.Queue = queue.Queue()
    ready = threading.Event()
    with serving(first) as one, serving(second) as other:
        reader = _listening(other, lines, ready)
        assert ready.wait(BOUND) and lines.get(timeout=BOUND) == ("status", 200)
        assert lines.get(timeout=BOUND) == ("line", "retry: 1000")  # the stream is open
        status, ran = _post(one, "/api/run", ANA, first.access.csrf)
        assert status == 200, ran
        told = _event(lines, "run")
        for app in (first, second):  # (as Ctrl+C: the streams end, then the servers)
            app.table.close()
    reader.join(BOUND)
    assert (told["character"], told["action"]) == ("ana", "asustarse")
    assert told["dice"] == ran["dice"] and told["result"] == ran["result"]


def test_two_serve_processes_share_one_table(folder, journal_backend):
    """`rulebook serve` twice (two processes), one folder and one journal: a player joins
    on one and the game master's stream on the other hears of it."""
    ports = [_free_port(), _free_port()]
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "RULEBOOK_TOKEN": TOKEN}
    servers = [
        subprocess.Popen(
            [
                *(
                    sys.executable,
                    "-c",
                    "import sys; from interpreter.cli import main; sys.exit(main())",
                ),
                *("serve", str(folder)),
                *("--port", str(port), "--code", CODE, "--table", "martes"),
                *("--no-browser", "--workers", "1"),
            ],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for port in ports
    ]
    try:
        for server in servers:  # each prints its address when it serves
            assert server.stdout is not None
            assert "rulebook" in server.stdout.readline()
        one, other = (f"http://127.0.0.1:{port}" for port in ports)
        lines: queue.Queue = queue.Queue()
        ready = threading.Event()
        reader = _ready_stream(other, lines, ready)
        _wait_up(one)
        csrf = _csrf_of_join_page(one)
        status, joined = _post(one, "/api/table/join", {"code": CODE, "player": "Lu"}, csrf)
        assert status == 200, joined
        told = _event(lines, "joined")
        assert told["player"] == "Lu"
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(BOUND)
    reader.join(BOUND)


def _wait_up(base: str) -> None:
    """Until a server just started answers (it prints its address before it listens)."""
    deadline = time.monotonic() + BOUND
    while True:
        try:
            http.client.HTTPConnection(*_address(base), timeout=BOUND).connect()
            return
        except OSError:
            assert time.monotonic() < deadline, f"{base} did not start"
            time.sleep(0.05)


def _ready_stream(base: str, lines: queue.Queue, ready: threading.Event) -> threading.Thread:
    """The game master's stream of a server just started, open."""
    _wait_up(base)
    reader = _listening(base, lines, ready)
    assert ready.wait(BOUND) and lines.get(timeout=BOUND) == ("status", 200)
    assert lines.get(timeout=BOUND) == ("line", "retry: 1000")
    return reader


def _csrf_of_join_page(base: str) -> str:
    connection = http.client.HTTPConnection(*_address(base), timeout=BOUND)
    connection.request("GET", "/join")
    page = connection.getresponse().read().decode("utf-8")
    connection.close()
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert found, page[:300]
    return found.group(1)
