"""A worker's notice that a job's work started (interpreter.web.worker.Notice): a quick
job's goes out with its answer, in one write; a longer job's goes out while it runs,
saying how long ago its work started, so the server's bound counts from then."""

from __future__ import annotations

import signal
import socket
import time

import pytest

from interpreter.web import frames, worker
from interpreter.web.worker_pool import _seconds_ago

SETTINGS = {"run_seconds": 10.0, "odds_seconds": 60.0, "language": None}


def quick(work, args) -> dict:
    work.ready()
    return {"ok": True}


def slow(work, args) -> dict:
    """Its inputs checked, then work (Python, so the notice's signal is heard) for a while."""
    work.ready()
    until = time.monotonic() + args["seconds"]
    while time.monotonic() < until:
        pass
    return {"ok": True}


def streamed(work, args) -> dict:
    work.stream = True  # (a stream's status line waits for the notice: never held)
    work.ready()
    return {"ok": True}


JOBS = {"quick": quick, "slow": slow, "streamed": streamed}


@pytest.fixture
def pair():
    before = signal.getsignal(signal.SIGALRM)
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    try:
        yield ours, theirs, worker.Notice(ours)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        ours.close()
        theirs.close()


def sent(sock: socket.socket) -> list[tuple[bytes, bytes]]:
    """The frames sent so far: (kind, payload)."""
    try:
        data = sock.recv(1 << 16)
    except BlockingIOError:
        return []
    out = []
    while data:
        kind, _status, length = frames._HEADER.unpack(data[: frames._HEADER.size])
        start = frames._HEADER.size
        out.append((kind, data[start : start + length]))
        data = data[start + length :]
    return out


def run(ours, notice, name: str, args=None) -> list[bytes]:
    before: list[bytes] = []
    job = {"job": name, "args": args or {}, "seconds": 30}
    status, _body = worker.one(ours, JOBS, None, SETTINGS, job, before, notice)
    assert status == 200
    return before


def test_a_quick_job_sends_its_notice_with_its_answer(pair):
    ours, theirs, notice = pair
    before = run(ours, notice, "quick")
    assert sent(theirs) == []  # nothing meanwhile: one write with the answer
    assert len(before) == 1 and before[0][:1] == frames.READY
    time.sleep(2 * worker.READY_AFTER)  # no notice left to go off later
    assert sent(theirs) == []


def test_a_longer_job_sends_its_notice_while_it_runs_saying_since_when(pair):
    ours, theirs, notice = pair
    before = run(ours, notice, "slow", {"seconds": 4 * worker.READY_AFTER})
    told = sent(theirs)
    assert [kind for kind, _ in told] == [frames.READY]
    assert _seconds_ago(told[0][1]) >= worker.READY_AFTER  # (its work started then)
    assert before == []


def test_a_streamed_job_sends_its_notice_at_once(pair):
    ours, theirs, notice = pair
    before = run(ours, notice, "streamed")
    assert [kind for kind, _ in sent(theirs)] == [frames.READY]
    assert before == []


def test_the_server_reads_how_long_ago():
    assert _seconds_ago(b"") == 0.0
    assert _seconds_ago(b"0.250000") == 0.25
    assert _seconds_ago(b"nan") == _seconds_ago(b"-3") == _seconds_ago(b"x") == 0.0
    assert _seconds_ago(b"1e9") == 60.0
