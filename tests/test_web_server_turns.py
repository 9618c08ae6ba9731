"""What a cheap run spends in the server, its event loop and its workers, each shown to be
taken (and to fail if it is switched off) and to answer as the longer way does:

- an answer's head goes out with its body in one write (interpreter.web.protocol.Joined),
  every request's cycle writing through one;
- the table's doors read a game master's body only when it may hold `secret`
  (interpreter.web.tabletop.doors._read_here); a player's always;
- a worker's frames are taken as they arrive, in the event loop's own callback
  (interpreter.web.frames.Listener);
- a job answered within WATCH_AFTER seconds costs no watch on its client going away
  (interpreter.web.work.Workers._awaited); one that runs longer is watched, and stopped
  when its client goes; the watches are started by one timer of the event loop, not a
  timer made and cancelled per request (interpreter.web.work.Watches);
- in the worker, a run's answer made with its version in place is copied as it is, not
  rebuilt (interpreter.version.versioned), and a value's plain data takes dicts and lists
  by their exact type (interpreter.values.plain).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState
from web_client import FakeTransport

from interpreter import version as version_module
from interpreter.version import VERSION, VERSION_FIELD, versioned
from interpreter.web import frames
from interpreter.web import work as work_module
from interpreter.web.protocol import Joined, timed_protocol
from interpreter.web.tabletop import doors as doors_module
from interpreter.web.tabletop.doors import TableDoors
from interpreter.web.tabletop.roles import Role, make_table
from interpreter.web.work import WATCH_AFTER, Watches, Workers
from interpreter.web.worker_pool import Job


def test_a_head_goes_out_with_its_body_in_one_write():
    async def main():
        loop = asyncio.get_running_loop()
        transport = FakeTransport()
        joined = Joined(transport, loop)
        joined.write(b"HTTP/1.1 200 OK\r\n\r\n")
        joined.write(b"")
        assert transport.writes == []  # (the head held for its body)
        joined.write(b"{}")
        joined.write(b"more")  # (what follows goes as it comes)
        assert transport.writes == [b"HTTP/1.1 200 OK\r\n\r\n{}", b"more"]
        await asyncio.sleep(0)
        assert len(transport.writes) == 2
        stream = FakeTransport()
        alone = Joined(stream, loop)
        alone.write(b"HTTP/1.1 200 OK\r\n\r\n")  # a stream's head, its body later
        await asyncio.sleep(0)
        assert stream.writes == [b"HTTP/1.1 200 OK\r\n\r\n"]  # at the end of the turn
        closing = FakeTransport()
        closed = Joined(closing, loop)
        closed.write(b"HTTP/1.1 200 OK\r\n\r\n")
        closed.close()  # what is held goes first
        assert closing.writes == [b"HTTP/1.1 200 OK\r\n\r\n"] and closing.closed
        assert closed.is_closing()  # (the transport's own)

    asyncio.run(main())


def test_a_requests_answer_is_written_joined():
    async def app(scope, receive, send):
        await receive()
        headers = [(b"content-length", b"2")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})

    async def main():
        config = Config(app, http=timed_protocol(), access_log=False)
        config.load()
        protocol = timed_protocol()(config=config, server_state=ServerState(), app_state={})
        transport = FakeTransport()
        protocol.connection_made(transport)
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert isinstance(protocol.cycle.transport, Joined)
        for _ in range(5):
            await asyncio.sleep(0)
        [written] = transport.writes  # the head and the body, one write
        assert written.startswith(b"HTTP/1.1 200 OK\r\n") and written.endswith(b"\r\n\r\n{}")
        protocol.connection_lost(None)

    asyncio.run(main())


def _through_doors(tmp_path, role: Role, body: bytes, monkeypatch) -> tuple[list, bytes]:
    """(the bodies the doors read, the body the app was given) of a run through them."""
    read: list = []
    loads = json.loads

    def noted(text, *args, **kwargs):
        read.append(text)
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(doors_module.json, "loads", noted)
    given: list[bytes] = []

    async def app(scope, receive, send):
        given.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    doors = TableDoors(app, make_table(tmp_path, code="ABCD-EFGH"))
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/run",
        "headers": [],
        "state": {"role": role},
    }

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        pass

    asyncio.run(doors(scope, receive, send))
    monkeypatch.setattr(doors_module.json, "loads", loads)
    return read, given[0]


def test_a_game_masters_run_without_secret_is_read_once(tmp_path, monkeypatch):
    body = b'{"rulebook": "brujeria", "action": "asustarse", "seed": 3}'
    read, given = _through_doors(tmp_path, Role(gm=True), body, monkeypatch)
    assert read == [] and given == body


@pytest.mark.parametrize(
    "body",
    [
        b'{"action": "asustarse", "secret": true}',
        b'{"action": "asustarse", "\\u0073ecret": true}',  # the key, escaped
        '{"action": "asustarse", "secret": true}'.encode("utf-16"),
    ],
)
def test_a_game_masters_secret_is_taken_out_however_written(tmp_path, monkeypatch, body):
    read, given = _through_doors(tmp_path, Role(gm=True), body, monkeypatch)
    assert read == [body] and json.loads(given) == {"action": "asustarse"}


def test_a_players_body_is_read(tmp_path, monkeypatch):
    body = b'{"rulebook": "brujeria", "action": "asustarse"}'
    read, _given = _through_doors(tmp_path, Role(gm=False), body, monkeypatch)
    assert read == [body]


def test_a_workers_frames_are_heard_as_they_come_in_one_callback():
    heard: list = []
    gone: list = []
    listener = frames.Listener(lambda *frame: heard.append(frame), lambda: gone.append(1), 100)
    sent = frames.frame(frames.READY) + frames.frame(frames.TOLD, b"run\n{}")
    sent += frames.frame(frames.DONE, b"{}", 200)
    listener.data_received(sent[:5])  # half a header: nothing yet
    assert heard == []
    listener.data_received(sent[5:])  # the rest: every frame, at once
    assert heard == [
        (frames.READY, 0, b""),
        (frames.TOLD, 0, b"run\n{}"),
        (frames.DONE, 200, b"{}"),
    ]
    listener.data_received(frames.frame(frames.DONE, b"x" * 101))  # past its bound: gone
    listener.connection_lost(None)
    assert len(heard) == 3 and gone == [1]  # (told once)


class _Client:
    """What `Workers._awaited` reads of a request: its receive (the client going away
    once `gone` is set), each call noted."""

    def __init__(self):
        self.gone = asyncio.Event()
        self.received = 0

    async def receive(self):
        self.received += 1
        await self.gone.wait()
        return {"type": "http.disconnect"}


class _Pool:
    def __init__(self):
        self.cancelled: list = []

    def cancel(self, job) -> None:
        self.cancelled.append(job)
        job.finish(499, b"")


def _awaited(client: _Client, answer_after: float | None, leave_after: float | None):
    """(what `_awaited` said, the jobs it cancelled) of a job answered after
    `answer_after` seconds (None: never) whose client goes after `leave_after`."""
    workers = Workers(".")
    pool = _Pool()

    async def main():
        workers._pools[asyncio.get_running_loop()] = pool
        job = Job("run", {})
        loop = asyncio.get_running_loop()
        if answer_after is not None:
            loop.call_later(answer_after, job.finish, 200, b"{}")
        if leave_after is not None:
            loop.call_later(leave_after, client.gone.set)
        said = await workers._awaited(client, job, job.done)
        await asyncio.sleep(0.01)  # (a watch cancelled ends meanwhile)
        return said, pool.cancelled

    return asyncio.run(main())


@pytest.fixture(params=[True, False], ids=["one timer", "a timer each"])
def one_timer(request, monkeypatch):
    monkeypatch.setattr(work_module, "ONE_WATCH_TIMER", request.param)
    return request.param


def test_a_quick_answer_costs_no_watch_on_its_client(one_timer):
    client = _Client()
    assert _awaited(client, 0.01, None) == (True, [])  # (answered well within WATCH_AFTER)
    assert client.received == 0


def test_a_client_that_goes_during_a_long_job_stops_it(one_timer):
    client = _Client()
    said, cancelled = _awaited(client, None, WATCH_AFTER * 2)
    assert said is False and len(cancelled) == 1 and client.received == 1


def test_quick_answers_make_one_timer_between_them(monkeypatch):
    """Ten jobs answered at once, one after another, a long one whose client goes, then
    ten more: the quick ones make no timer each (one in all, set again for the long
    one's watch), and the long one is still watched and stopped."""
    made: list = []

    async def main():
        workers, pool = Workers("."), _Pool()
        loop = asyncio.get_running_loop()
        workers._pools[loop] = pool
        real = loop.call_at
        monkeypatch.setattr(loop, "call_at", lambda *a, **k: made.append(a[1]) or real(*a, **k))

        async def quick() -> None:
            for _ in range(10):
                job = Job("run", {})
                job.finish(200, b"{}")
                assert await workers._awaited(_Client(), job, job.done) is True

        await quick()
        client, long = _Client(), Job("run", {})
        waited = asyncio.ensure_future(workers._awaited(client, long, long.done))
        await asyncio.sleep(WATCH_AFTER * 2)
        client.gone.set()
        said = await waited
        await quick()
        await asyncio.sleep(WATCH_AFTER * 2)  # (the last timer rings, finds them let go)
        return said, pool.cancelled

    said, cancelled = asyncio.run(main())
    assert said is False and len(cancelled) == 1
    # (the watches' timers: not asyncio.sleep's)
    made = [c for c in made if getattr(c, "__name__", "") in ("_ring", "watching")]
    assert len(made) <= 3, made  # (a timer per job: 21)


def test_a_watch_let_go_is_never_started():
    async def main():
        loop = asyncio.get_running_loop()
        watches, started = Watches(loop), []
        first = watches.add(0.02, lambda: started.append("first"))
        watches.add(0.01, lambda: started.append("sooner"))  # (its timer set sooner)
        watches.add(0.03, lambda: started.append("third"))
        first[1] = None
        await asyncio.sleep(0.06)
        return started, watches.timer, list(watches.due)

    started, timer, due = asyncio.run(main())
    assert started == ["sooner", "third"] and timer is None and due == []


def test_frames_cut_anywhere_are_taken_whole_in_order():
    sent = b"".join(
        frames.frame(kind, payload, status)
        for kind, payload, status in [
            (frames.PROGRESS, b"p" * 40, 0),
            (frames.TOLD, b"", 0),
            (frames.DONE, b"d" * 70, 201),
        ]
    )
    for cuts in [(3,), (5, 20), (11, 12, 13, 60, 61), tuple(range(1, len(sent)))]:
        parts = [sent[a:b] for a, b in zip((0, *cuts), (*cuts, len(sent)), strict=True)]
        taken = frames.Frames(100)
        out = [frame for part in parts for frame in taken.feed(part)]
        assert out == [
            (frames.PROGRESS, 0, b"p" * 40),
            (frames.TOLD, 0, b""),
            (frames.DONE, 201, b"d" * 70),
        ]
        assert taken.buffer == bytearray()
    assert frames.Frames(100).feed(b"Z" + sent[1:]) is None  # not a frame
    begun = frames.Frames(10)
    assert begun.feed(sent[:5]) == [] and begun.feed(sent[5:20]) is None  # past its bound


@pytest.mark.parametrize(
    "document",
    [
        {"kind": "run", "rulebook_version": VERSION, "a": 1},  # a run's, made in place
        {"kind": "run", "rulebook_version": "0.0.1", "a": 1},  # another version's
        {"rulebook_version": VERSION, "kind": "run"},  # in another order
        {"a": 1, "kind": "run"},
        {"a": 1},
    ],
)
def test_a_document_versioned_in_place_is_copied_as_it_is(document):
    rebuilt = {"kind": document["kind"]} if "kind" in document else {}
    rebuilt[VERSION_FIELD] = VERSION
    rebuilt.update((k, v) for k, v in document.items() if k != VERSION_FIELD)
    out = versioned(document)
    assert out == rebuilt and list(out) == list(rebuilt) and out is not document
    assert version_module._in_place(document) == (
        list(document)[:2] == list(rebuilt)[:2] and document.get(VERSION_FIELD) == VERSION
    )


def test_a_run_answer_is_made_versioned_in_place():
    class _Outcome:  # what run_data reads of a run with nothing in it
        kind, action, params, result, changes, characters = "action", "a", {}, {}, (), ()
        warnings, choices, dice, origin, trace = (), (), (), "generated", ()

        class sheet:  # (a stand-in for the Sheet)
            @staticmethod
            def to_data():
                return {}

    from interpreter.json_data import run_data

    assert version_module._in_place(run_data(_Outcome(), "es"))


def test_a_document_versioned_in_place_is_not_rebuilt():
    class Counted(dict):
        asked = 0

        def items(self):
            Counted.asked += 1
            return super().items()

    document = Counted({"kind": "run", VERSION_FIELD: VERSION, "a": 1})
    assert versioned(document) == dict(document) and Counted.asked == 0
    versioned(Counted({"kind": "run", "a": 1}))  # (not in place: rebuilt)
    assert Counted.asked == 1


def test_plain_data_of_dicts_and_lists_asks_no_abstract_class(monkeypatch):
    from collections.abc import Mapping
    from fractions import Fraction

    from interpreter import values

    asked: list = []

    class Asking(type):
        def __instancecheck__(cls, value):
            asked.append(value)
            return isinstance(value, Mapping)

    class Counted(metaclass=Asking):
        pass

    value = {"a": {"b": [1, {"c": Fraction(1, 2)}], "d": ("x", None)}, 2: True}
    fractions: dict = {}
    expected = {"a": {"b": [1, {"c": 0.5}], "d": ["x", None]}, "2": True}
    monkeypatch.setattr(values, "Mapping", Counted)
    assert values.plain(value, fractions, "/v") == expected
    assert fractions == {"/v/a/b/1/c": "1/2"} and asked == []
