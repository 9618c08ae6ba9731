"""How the table is told of a request (interpreter.web.tabletop: told, teller, doors): the
worker makes the event from its answer, the doors pass it on without reading the answer
back, and the table's own thread keeps the events handed over meanwhile in one batch."""

from __future__ import annotations

import asyncio
import json
import threading

from interpreter.web.tabletop.doors import TableDoors
from interpreter.web.tabletop.roles import Role, make_table
from interpreter.web.tabletop.teller import Teller
from interpreter.web.tabletop.told import MAX_TOLD, told_frame

#: seconds a test waits for what must happen (a bound on a hang, not a measure)
BOUND = 30.0
TELL = {"kind": "run", "path": "/api/run", "page": "p1"}


def test_a_worker_makes_the_event_of_its_answer():
    body = {"rulebook": "brujeria", "character": "ana", "action": "asustarse", "seed": 3}
    answer = {"dice": [4, 2], "result": {"éxito": True}, "changes": ({"a": 1},) * 50}
    kind, _, text = told_frame(TELL, body, answer, 100).partition(b"\n")
    data = json.loads(text)
    assert kind == b"run" and data["character"] == "ana" and data["page"] == "p1"
    assert data["dice"] == [4, 2] and data["result"] == {"éxito": True}
    assert len(data["changes"]) == 40  # (a tuple before JSON, cut as a list is)
    assert told_frame(TELL, body, answer, MAX_TOLD + 1) is None  # too large to tell
    assert told_frame(TELL, body, {"need": {"kind": "die"}}, 100) is None  # a typed die
    choice = told_frame(TELL, body, {"need": {"kind": "choice", "name": "q"}}, 100)
    assert choice.startswith(b"choice\n")


def test_the_doors_tell_what_the_worker_made_and_never_read_the_answer(tmp_path):
    table = make_table(tmp_path, code="ABCD-EFGH")
    seen = {}

    async def inner(scope, receive, send):  # the app: a worker's event, an answer not JSON
        seen["tell"] = dict(scope["state"]["tell"])
        scope["state"]["told"] = b'run\n{"action": "asustarse", "file": "/server/ana.yaml"}'
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"not JSON at all"})

    doors = TableDoors(inner, table, lambda text: text.replace(b"/server/", b""))
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/run",
        "headers": [(b"x-rulebook-page", b"p7")],
        "state": {"role": Role(gm=True)},
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": b'{"action": "asustarse"}', "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(doors(scope, receive, send))
    assert seen["tell"] == {"kind": "run", "path": "/api/run", "page": "p7"}
    assert sent[1]["body"] == b"not JSON at all"  # the answer as the app sent it
    [event] = table.events_after(None, gm=True)  # (kept by the table's thread: settled)
    assert (event.kind, event.who, event.audience) == ("run", "", "all")
    assert event.data == {"action": "asustarse", "file": "ana.yaml"}  # no server path


def test_events_handed_over_while_a_batch_is_kept_go_in_one_batch():
    batches: list[list] = []
    keeping, go_on = threading.Event(), threading.Event()
    woken = []

    def keep(rows):
        batches.append(rows)
        keeping.set()
        assert go_on.wait(BOUND)

    teller = Teller(keep, lambda: woken.append(True))
    teller.put("first")
    assert keeping.wait(BOUND)  # the first batch is being kept: the next ones wait
    for row in ("second", "third", "fourth"):
        teller.put(row)
    go_on.set()
    teller.settle()
    assert batches == [["first"], ["second", "third", "fourth"]]
    assert woken == [True, True]  # the pages woken once per batch


def test_a_batch_that_cannot_be_kept_is_said_and_the_table_goes_on(caplog):
    kept = []

    def keep(rows):
        if rows == ["bad"]:
            raise OSError("disk full")
        kept.extend(rows)

    teller = Teller(keep, lambda: None)
    teller.put("bad")
    teller.settle()
    teller.put("good")
    teller.settle()
    assert kept == ["good"]
    assert "could not keep 1 event" in caplog.text


def test_a_batch_gathers_the_events_told_after_its_first_until_a_reader_asks():
    batches: list[list] = []
    teller = Teller(batches.append, lambda: None, gather=3600.0)  # gathers "forever"
    for row in ("a", "b", "c"):
        teller.put(row)
    teller.settle()  # a read of the log: kept now, not an hour from now
    assert batches == [["a", "b", "c"]]


def test_pages_that_cannot_be_woken_stop_nothing(caplog):
    kept: list = []

    def wake():
        raise RuntimeError("a loop closed meanwhile")

    teller = Teller(kept.extend, wake)
    teller.put("a")
    teller.settle()
    teller.put("b")
    teller.settle()
    assert kept == ["a", "b"] and "could not be woken" in caplog.text
