"""An answer's head: each header checked by h11 once (interpreter.web.protocol.response_head),
the bytes written the same as uvicorn's own, a header h11 refuses refused every time."""

from __future__ import annotations

import asyncio

import h11
import h11._headers
import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState
from web_client import FakeTransport

from interpreter.web import protocol
from interpreter.web.protocol import response_head, timed_protocol

HEADERS = [
    (b"content-type", b"application/json"),
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-length", b"2"),
]


@pytest.fixture
def checks(monkeypatch) -> list:
    """The values h11 checks, as it checks them."""
    seen: list = []
    validate = h11._headers.validate

    def counted(regex, data, *args, **kwargs):
        seen.append(data)
        return validate(regex, data, *args, **kwargs)

    monkeypatch.setattr(h11._headers, "validate", counted)
    monkeypatch.setattr(protocol, "_CHECKED", set())
    return seen


def test_an_answers_headers_are_checked_once(checks):
    first = response_head(200, HEADERS, b"OK")
    checked = len(checks)
    checks.clear()
    again = response_head(200, HEADERS, b"OK")
    assert checked > len(HEADERS)
    assert checks == [b"2"]  # only the length, which h11 reads in every answer
    assert again.headers.raw_items() == first.headers.raw_items()
    assert (again.status_code, again.reason, again.http_version) == (200, b"OK", b"1.1")


def test_every_answers_headers_are_checked_with_the_switch_off(checks, monkeypatch):
    monkeypatch.setattr(protocol, "CHECKED_ONCE", False)
    response_head(200, HEADERS, b"OK")
    checked = len(checks)
    checks.clear()
    response_head(200, HEADERS, b"OK")
    assert len(checks) == checked


def test_a_header_refused_is_refused_every_time(checks):
    bad = [*HEADERS, (b"x-name", b"a\r\nset-cookie: b")]
    for _ in range(2):
        with pytest.raises(h11.LocalProtocolError):
            response_head(200, bad, b"OK")
    response_head(200, HEADERS, b"OK")  # the good ones remembered
    with pytest.raises(h11.LocalProtocolError):  # not taken as checked: one is not
        response_head(200, bad, b"OK")
    with pytest.raises(h11.LocalProtocolError):  # a length h11 refuses, checked
        response_head(200, [*HEADERS[:3], (b"content-length", b"x")], b"OK")


def test_the_memory_is_bounded(checks, monkeypatch):
    monkeypatch.setattr(protocol, "CHECKED_HEADERS", 10)
    for size in range(30):
        response_head(200, [*HEADERS[:3], (b"content-length", b"%d" % size)], b"OK")
        assert len(protocol._CHECKED) <= 10


def _served(headers: list, requests: int = 3, close: bool = False) -> list[bytes]:
    """What a connection is written, answering `requests` requests with `headers`."""

    async def app(scope, receive, send):
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})

    async def main():
        config = Config(app, http=timed_protocol(), log_level="warning")
        config.load()
        protocol_class = timed_protocol()
        made = protocol_class(config=config, server_state=ServerState(), app_state={})
        transport = FakeTransport()
        made.connection_made(transport)
        for _ in range(requests):
            last = b"Connection: close\r\n" if close else b""
            made.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n" + last + b"\r\n")
            for _ in range(5):
                await asyncio.sleep(0)
            if transport.closed:
                break
        made.connection_lost(None)
        return transport.writes

    return asyncio.run(main())


@pytest.mark.parametrize("close", [False, True])
def test_the_answers_bytes_are_uvicorns(checks, monkeypatch, close):
    ours = _served(HEADERS, close=close)
    monkeypatch.setattr(protocol, "CHECKED_ONCE", False)
    monkeypatch.setattr(protocol.CheckedCycle, "send", protocol.RequestResponseCycle.send)
    assert _served(HEADERS, close=close) == ours
    assert ours[0].startswith(b"HTTP/1.1 200 OK\r\n") and ours[0].endswith(b"\r\n\r\n{}")
    assert (b"connection: close\r\n" in ours[0].lower()) == close


def test_an_app_sending_a_header_refused_writes_nothing(checks, monkeypatch):
    # (as uvicorn's own: the head was begun, the connection is closed without an answer)
    _served(HEADERS)  # (its headers remembered as checked)
    bad = [*HEADERS[:3], (b"x-name", b"a\nb"), HEADERS[3]]
    assert _served(bad, requests=1) == []
    monkeypatch.setattr(protocol.CheckedCycle, "send", protocol.RequestResponseCycle.send)
    assert _served(bad, requests=1) == []
