"""A connection's timer (interpreter.web.protocol: a request's headers, then its body, due
in time; uvicorn's keep-alive after an answer) is made once and moved on by each request,
and still rings when one is late."""

from __future__ import annotations

import pytest

from interpreter.web import protocol
from interpreter.web.protocol import timed_protocol


class Timer:
    def __init__(self, when: float, callback):
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class Clock:
    """The event loop as a connection's timer uses it: its time, set by hand."""

    def __init__(self):
        self.now = 0.0
        self.timers: list[Timer] = []

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback) -> Timer:
        timer = Timer(when, callback)
        self.timers.append(timer)
        return timer

    def call_later(self, delay: float, callback) -> Timer:  # (uvicorn's keep-alive's)
        return self.call_at(self.now + delay, callback)

    def run_until(self, now: float) -> None:
        """Ring every timer due by `now`, in order (those set meanwhile too)."""
        while due := [t for t in self.timers if not t.cancelled and t.when <= now]:
            timer = min(due, key=lambda t: t.when)
            self.timers.remove(timer)
            self.now = max(self.now, timer.when)
            timer.callback()
        self.now = now


def connection(clock: Clock, late: list):
    """A connection with a 5-second bound, its `_late` noted instead of answered."""
    made = object.__new__(timed_protocol(request_seconds=5.0))
    made.loop = clock
    made._waiting, made._awaited, made._deadline = None, None, 0.0
    made._late = late.append
    return made


def requests(conn, clock: Clock, count: int) -> None:
    """`count` requests, one every tenth of a second: each one's headers awaited, and
    arrived (as `_expect` and `_follow` say)."""
    for _ in range(count):
        conn._wait("headers")
        clock.run_until(clock.now + 0.1)
        conn._cancel()


def made_timers(clock: Clock) -> list:
    """The times of the timers `clock` is asked for, from now on."""
    made: list = []
    call_at = clock.call_at
    clock.call_at = lambda when, callback: made.append(when) or call_at(when, callback)
    return made


def test_one_timer_serves_every_request_of_a_connection():
    clock, late = Clock(), []
    made = made_timers(clock)
    requests(connection(clock, late), clock, 200)  # 20 s, a request a tenth of a second
    assert late == []
    assert len(made) <= 20 / 5 + 1  # set again once per bound (5 s) at most


def test_with_the_switch_off_each_request_makes_its_timer(monkeypatch):
    monkeypatch.setattr(protocol, "LAZY_TIMER", False)
    clock, late = Clock(), []
    made = made_timers(clock)
    requests(connection(clock, late), clock, 200)
    assert late == [] and len(made) == 200


@pytest.mark.parametrize("lazy", [True, False])
def test_a_request_late_is_late_at_its_own_bound(monkeypatch, lazy):
    monkeypatch.setattr(protocol, "LAZY_TIMER", lazy)
    clock, late = Clock(), []
    conn = connection(clock, late)
    conn._wait("headers")
    clock.run_until(3.0)
    conn._cancel()  # the headers came at 3 s: the body is due by 8 s
    conn._wait("body")
    clock.run_until(7.99)
    assert late == []  # (the timer set for 5 s rang, and was set again for 8 s)
    clock.run_until(8.0)
    assert late == ["body"]
    conn._wait("headers")  # the next request's headers, due by 13 s
    clock.run_until(12.99)
    assert late == ["body"]
    clock.run_until(13.0)
    assert late == ["body", "headers"]


def test_nothing_awaited_rings_for_nothing():
    clock, late = Clock(), []
    conn = connection(clock, late)
    conn._wait("headers")
    conn._cancel()
    clock.run_until(60.0)
    assert late == [] and conn._waiting is None and clock.timers == []


class Transport:
    def __init__(self, clock: Clock):
        self.clock, self.closed_at = clock, None

    def is_closing(self) -> bool:
        return self.closed_at is not None

    def close(self) -> None:
        self.closed_at = self.clock.now


class Flow:
    def resume_reading(self) -> None:
        pass


class H11:
    our_state = their_state = None  # (no request sent meanwhile: nothing read after)

    def send(self, event) -> None:
        pass


def kept_alive(clock: Clock, late: list, keep_alive: float):
    """A connection with a 60-second bound on a request and uvicorn's keep-alive."""
    made = connection(clock, late)
    made.request_seconds = 60.0
    made.timeout_keep_alive, made.timeout_keep_alive_task = keep_alive, None
    made.transport, made.flow, made.conn = Transport(clock), Flow(), H11()
    made.server_state = type("State", (), {"total_requests": 0})()
    made.cycle = None
    return made


def answered(conn, clock: Clock, count: int) -> None:
    """`count` requests, one every tenth of a second, each answered at once: data came (as
    uvicorn's data_received says), then the answer was complete."""
    conn._wait("headers")
    for _ in range(count):
        clock.run_until(clock.now + 0.1)
        conn._unset_keepalive_if_required()
        conn._cancel()
        conn.on_response_complete()


@pytest.mark.parametrize("lazy", [True, False])
def test_an_idle_connection_is_closed_at_its_keep_alive(monkeypatch, lazy):
    monkeypatch.setattr(protocol, "LAZY_KEEP_ALIVE", lazy)
    clock, late = Clock(), []
    conn = kept_alive(clock, late, keep_alive=5.0)
    answered(conn, clock, 30)  # the last answer at 3 s
    clock.run_until(7.99)
    assert conn.transport.closed_at is None
    clock.run_until(60.0)
    assert late == [] and conn.transport.closed_at == pytest.approx(8.0, abs=0.002)
    assert conn.server_state.total_requests == 30


def test_one_timer_keeps_a_connections_keep_alive_and_its_bound():
    """Fails with protocol.LAZY_KEEP_ALIVE off: uvicorn makes a timer at each answer."""
    clock, late = Clock(), []
    made = made_timers(clock)
    conn = kept_alive(clock, late, keep_alive=5.0)
    answered(conn, clock, 200)  # 20 s
    assert late == [] and conn.transport.closed_at is None
    assert len(made) <= 20 / 5 + 2  # set again once per keep-alive (5 s) at most
