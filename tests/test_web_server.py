"""A real `rulebook serve` process, spoken to with raw sockets: half-sent requests time out
(408) and never hold the server, one address cannot take all its connections, a client
that goes away stops its work, heavy work does not hold cheap requests, and saves from
several worker processes at once follow one another in the journal.

Clients are told apart by their address: each test's hostile client connects from an
address of its own in 127.0.0.0/8. Nothing here measures time: what must happen is
waited for (at most WAIT seconds, then the test fails)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from interpreter.journal import Journal
from interpreter.sheets.character import text_digest

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120.0
# `rulebook serve` itself, with one change: the odds of "spin forever" are work that never
# ends (tests/pool_jobs.py), so that only a kill can stop it.
LAUNCH = """
import sys
from interpreter.cli import serve
from interpreter.cli.main import main
made = serve.create_app
def create_app(*args, **kwargs):
    kwargs["workers"] = {**kwargs.get("workers", {}), "jobs": "pool_jobs:SERVE_JOBS"}
    return made(*args, **kwargs)
serve.create_app = create_app
sys.exit(main(["serve", *sys.argv[1:]]))
"""
SPIN = {"expression": "spin forever"}
CSRF: dict = {}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("campaign")
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-c", LAUNCH, str(folder)]
    options = ["--port", str(port), "--no-browser", "--request-timeout", "1"]
    options += ["--odds-timeout", "600"]  # a spin is stopped by its client going, or not
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    process = subprocess.Popen(
        [*command, *options], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    process.stdout.readline()
    deadline = time.monotonic() + WAIT
    while True:
        try:
            status, session = request(port, "GET", "/api/session")
            if status == 200:
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    CSRF["x-csrf-token"] = session["csrf_token"]  # as the page sends it
    yield port, folder, process
    process.terminate()
    process.wait(WAIT)


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.settimeout(WAIT)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def raw_request(port: int, method: str, path: str, body=None) -> bytes:
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in CSRF.items())
    return head.encode() + b"\r\n" + data


def request(port: int, method: str, path: str, body=None, source="127.0.0.1"):
    """(status, JSON body) of one request on a connection of its own."""
    with connect(port, source) as sock:
        sock.sendall(raw_request(port, method, path, body))
        return answer_of(sock)


def answer_of(sock: socket.socket) -> tuple[int, dict | None]:
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    if not received:
        return 0, None
    head, _, body = received.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body) if body.strip().startswith(b"{") else None


def descendants(pid: int) -> dict[int, int]:
    """pid → nice value, above `pid`'s own, of every process below it (fork server, workers).

    Relative, so that a test run that is itself niced (`nice pytest`) still tells a heavy
    job's process (reniced by 10) from the others.
    """
    found: dict[int, int] = {}
    base = os.getpriority(os.PRIO_PROCESS, pid)
    parents = {pid}
    changed = True
    while changed:
        changed = False
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            child, parent, nice = int(stat.parent.name), int(fields[1]), int(fields[16])
            if parent in parents and child not in parents:
                parents.add(child)
                found[child] = nice - base
                changed = True
    return found


def until(condition, what: str):
    deadline = time.monotonic() + WAIT
    while not (found := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"never happened: {what}")
        time.sleep(0.05)
    return found


# ─── slow clients ──────────────────────────────────────────────────────────


def test_half_sent_requests_time_out_and_never_hold_the_server(server):
    port, _folder, _process = server
    half = []
    for i in range(64):  # from four addresses: no one address passes its own bound
        sock = connect(port, f"127.0.0.{2 + i % 4}")
        if i % 2:  # the headers, never finished
            sock.sendall(f"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        else:  # the headers, and a tenth of the body
            body = raw_request(port, "POST", "/api/check", {"text": "#" * 100})
            sock.sendall(body[: len(body) - 90])
        half.append(sock)
    for _ in range(5):  # everyone else is answered meanwhile, never a 503
        assert request(port, "GET", "/api/language")[0] == 200
    for sock in half:  # each was answered 408 with the project's error, and closed
        status, body = answer_of(sock)
        assert status == 408 and body["error"]["code"] == "usage_error"
        assert "did not arrive within 1 seconds" in body["error"]["message"]
        sock.close()
    idle = connect(port, "127.0.0.6")  # a connection that never sends: closed, quietly
    assert idle.recv(100) == b""
    idle.close()


def test_a_kept_alive_connection_serves_requests_then_closes_once_idle(server):
    port, _folder, _process = server
    with connect(port, "127.0.0.5") as sock:
        reader = sock.makefile("rb")
        for _ in range(3):  # (each request moves the connection's timer on)
            sock.sendall(f"GET /api/language HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert b" 200 " in reader.readline()
            length = 0
            while (line := reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            assert json.loads(reader.read(length))["comment"] == "#"
            time.sleep(0.6)  # (the bound is 1 s: each request came within it)
        began = time.monotonic()
        assert reader.read() == b""  # idle after its answer: closed, quietly
        assert 0.3 < time.monotonic() - began < WAIT


def test_one_address_cannot_take_every_connection(server):
    port, _folder, _process = server
    held = [connect(port, "127.0.0.7") for _ in range(40)]
    refused = []
    for sock in held[32:]:
        status, body = answer_of(sock)
        refused.append(status)
        assert "too many connections from 127.0.0.7" in body["error"]["message"]
    assert refused == [503] * 8
    assert request(port, "GET", "/api/language")[0] == 200  # another address is answered
    for sock in held:
        sock.close()


# ─── work ──────────────────────────────────────────────────────────────────


def test_a_client_that_goes_away_stops_its_work(server):
    port, _folder, process = server
    sock = connect(port, "127.0.0.8")
    sock.sendall(raw_request(port, "POST", "/api/odds", SPIN))
    # Past its slice the job is heavy: its process runs at a lower priority (nice 10).
    [worker] = until(
        lambda: [p for p, nice in descendants(process.pid).items() if nice > 0],
        "the endless job's process became heavy",
    )
    sock.close()  # it never ends by itself: only the client going away ends it
    until(lambda: worker not in descendants(process.pid), "the endless job's process ended")
    assert request(port, "GET", "/api/language")[0] == 200


def test_heavy_work_does_not_hold_cheap_requests(server):
    port, _folder, process = server
    slow = []
    for i in range(6):  # more than the quick lane, from two clients
        sock = connect(port, f"127.0.0.{9 + i % 2}")
        sock.sendall(raw_request(port, "POST", "/api/odds", SPIN))
        slow.append(sock)
    until(
        lambda: len([n for n in descendants(process.pid).values() if n > 0]) >= 2,
        "the endless jobs became heavy",
    )
    odds = {"expression": "3d6"}
    for _ in range(5):
        status, body = request(port, "POST", "/api/odds", odds, source="127.0.0.11")
        assert status == 200 and body["outcomes"][0]["outcome"] == 3
    for sock in slow:  # none of the endless jobs had finished: going away stops them
        sock.setblocking(False)
        with pytest.raises(BlockingIOError):
            sock.recv(1)
        sock.close()
    until(
        lambda: not [n for n in descendants(process.pid).values() if n > 0],
        "the endless jobs ended",
    )


def test_saves_from_several_worker_processes_follow_one_another(server):
    port, folder, _process = server
    body = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "save": True}
    answers: list = []

    def save(i: int) -> None:
        seeded = {**body, "seed": i}
        answers.append(request(port, "POST", "/api/run", seeded, source=f"127.0.1.{i}"))

    threads = [threading.Thread(target=save, args=(i,)) for i in range(1, 9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert [status for status, _ in answers] == [200] * 8
    assert sorted(a["saved"]["entry"] for _, a in answers) == list(range(1, 9))
    with Journal(folder / "journal.sqlite", create=False) as journal:
        states = [entry.sheets[0] for entry in journal.entries()]
    assert len(states) == 8
    for before, after in itertools.pairwise(states):
        assert after.before == before.after  # each save started from the one before it
    assert text_digest((folder / "ana.yaml").read_text(encoding="utf-8")) == states[-1].after


@pytest.fixture(autouse=True)
def _linux_only():
    if not Path("/proc/self/stat").exists():
        pytest.skip("reads /proc")
