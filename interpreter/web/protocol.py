"""Connections that cannot hold the server: a request arrives in time, an answer is read.

uvicorn's HTTP/1.1 protocol (h11), with what it lacks against a slow or hostile client:

- a request's headers must arrive within `request_seconds` of the connection (or of
  the previous answer on it), and its body within `request_seconds` of its headers;
  else the client gets a 408 (the project's error document) and the connection is
  closed. A connection kept open without a request is closed as quietly;
- an answer the client stops reading for `send_seconds` is abandoned (its connection
  closed): a client cannot make the server hold answers it never takes;
- one address holds at most `per_address` connections: more are answered 503 and
  closed, so that one client's connections cannot fill the server's (`limit_concurrency`).

And what it spends: an answer's head and body, written one after the other in the same
turn of the event loop, go out in one write (one system call, one segment), not two; and
an answer's headers are each checked by h11 once (the same ones head every answer), not
in every answer (`response_head`); and a connection's bound on its requests is one timer
moved on by each request (`_wait`), not a timer made and cancelled at each request; so is
uvicorn's keep-alive (a connection idle `timeout_keep_alive` seconds after an answer is
closed), which uvicorn keeps with a timer made at each answer and cancelled at the next
request (`on_response_complete`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, cast

import h11
from uvicorn.protocols.http.flow_control import CLOSE_HEADER
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol, RequestResponseCycle
from uvicorn.protocols.utils import get_client_addr, get_path_with_query_string

from dsl.messages import Number, tr
from interpreter.web.errors import RequestError, error_json

#: seconds a request's headers, then its body, may take to arrive
REQUEST_SECONDS = 5.0
#: seconds an answer may wait for its client to read on
SEND_SECONDS = 30.0
#: connections one address may hold at once
PER_ADDRESS = 32
#: whether a header h11 found well-formed in an answer is not checked again (off: every
#: answer's every header checked, as uvicorn does)
CHECKED_ONCE = True
#: headers (name, value) remembered as checked, at most (then forgotten, checked again)
CHECKED_HEADERS = 4096
#: whether a connection's timer is moved on as its requests come (off: made anew and
#: cancelled at each request, as it was)
LAZY_TIMER = True
#: whether uvicorn's keep-alive is kept by the connection's timer (off: a timer of uvicorn's
#: own made at each answer and cancelled at the next request, as it was)
LAZY_KEEP_ALIVE = True
#: seconds a timer may ring before its time (the event loop's clock resolution, and more)
EARLY = 0.001


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the bounds above."""

    request_seconds = REQUEST_SECONDS
    send_seconds = SEND_SECONDS
    per_address = PER_ADDRESS
    _armed = 0.0  # when the connection's timer (`_waiting`) rings, while it is set
    _idle_at: float | None = None  # when an idle connection is closed (keep-alive), if it is

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._waiting = None  # the connection's timer (`_wait`), while one is set
        self._awaited = None  # what it waits for: "headers", "body" or None (nothing)
        self._deadline = 0.0  # when what is awaited is late (the event loop's time)
        self._stalled = None  # the timer of an answer the client does not read
        self._seen = None  # the request whose headers arrived last

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        held = sum(
            1
            for c in self.connections
            if getattr(c, "client", None) and cast(Any, c).client[0] == address  # (checked)
        )
        if address is not None and held > self.per_address:
            refusal = RequestError(
                tr(
                    "too many connections from {address} (at most {most})",
                    address=address,
                    most=self.per_address,
                ),
                tr("close the connections you no longer use"),
                status=503,
            )
            self._refuse(refusal)
            return
        self._expect()

    def connection_lost(self, exc) -> None:
        self._cancel()
        if self._waiting is not None:  # (its timer holds this connection until it rings)
            self._waiting.cancel()
            self._waiting = None
        if self._stalled is not None:
            self._stalled.cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle and self.cycle is not None:  # a request's: it writes joined
            joined = Joined(self.transport, self.loop)  # (before its task runs)
            self.cycle.transport = cast(asyncio.Transport, joined)  # (as one: `__getattr__`)
            if type(self.cycle) is RequestResponseCycle:  # (its head made by `response_head`)
                self.cycle.__class__ = CheckedCycle

    def on_response_complete(self) -> None:
        if LAZY_KEEP_ALIVE:
            self._completed()
        else:
            super().on_response_complete()
        if not self.transport.is_closing():
            self._expect()
            self._follow()

    def _completed(self) -> None:
        """uvicorn's `on_response_complete`, its keep-alive kept by the connection's timer."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        self._idle_at = self.loop.time() + self.timeout_keep_alive
        self._arm(self._idle_at)
        self.flow.resume_reading()  # (and a request sent meanwhile read now)
        if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
            self.conn.start_next_cycle()
            self.handle_events()

    def _unset_keepalive_if_required(self) -> None:
        self._idle_at = None  # (data came: the connection is not idle)
        super()._unset_keepalive_if_required()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.send_seconds, self._abandon)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    # ─── the timers ─────────────────────────────────────────────────────────

    def _expect(self) -> None:
        """The next request's headers are awaited from now."""
        self._wait("headers")

    def _follow(self) -> None:
        """A request's headers came: its body is awaited; the body came: nothing is."""
        cycle = self.cycle
        if cycle is None:
            return
        if cycle is not self._seen:
            self._seen = cycle
            self._cancel()
            if cycle.more_body:
                self._wait("body")
        elif not cycle.more_body and self._awaited == "body":
            self._cancel()

    def _wait(self, what: str) -> None:
        """`what` awaited for `request_seconds` from now. One timer per connection, moved
        on, not made anew, by each request (a timer made and cancelled at each request,
        its cancelled handle kept in the event loop's heap for seconds, cost the loop
        more than this): one set earlier rings first, and is set again for what is left."""
        self._deadline = self.loop.time() + self.request_seconds
        self._awaited = what
        self._arm(self._deadline)

    def _arm(self, when: float) -> None:
        """The timer set to ring by `when` (or by the keep-alive's end, if sooner): kept
        when it rings by then already (it is set again for what is left when it rings),
        else set anew."""
        idle = self._idle_at
        if idle is not None and idle < when:
            when = idle
        if self._waiting is not None:
            if LAZY_TIMER and self._armed <= when + EARLY:
                return
            self._waiting.cancel()
        self._armed = when
        self._waiting = self.loop.call_at(when, self._ring)

    def _cancel(self) -> None:
        """Nothing awaited (the timer, if set, finds nothing to do when it rings)."""
        self._awaited = None
        if not LAZY_TIMER:
            self._cancel_timer()
            if self._idle_at is not None:  # (the keep-alive still rings)
                self._arm(self._idle_at)

    def _cancel_timer(self) -> None:
        if self._waiting is not None:
            self._waiting.cancel()
            self._waiting = None

    def _ring(self) -> None:
        self._waiting = None
        now = self.loop.time()
        idle = self._idle_at
        if idle is not None and idle - now <= EARLY:  # no request since the last answer
            self._idle_at = idle = None
            self.timeout_keep_alive_handler()  # (uvicorn's: the connection closed)
            if self.transport.is_closing():
                return
        what = self._awaited
        if what is not None and self._deadline - now <= EARLY:
            self._late(what)
            return
        # (awaited anew since it was set: set again for the first of what is left)
        if what is not None:
            self._arm(self._deadline)
        elif idle is not None:
            self._arm(idle)

    def _late(self, what: str) -> None:
        self._awaited = None
        if self.transport.is_closing():
            return
        idle = self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]
        if what == "headers" and idle:  # nothing of a request at all: just close
            self.transport.close()
            return
        cycle = self.cycle if what == "body" else None
        if cycle is not None:  # the handler waiting for the body hears the client went
            cycle.disconnected = True
            cycle.message_event.set()
            if cycle.response_started:
                self.transport.close()
                return
        late = RequestError(
            tr(
                "the request did not arrive within {seconds} seconds: the connection is closed",
                seconds=Number(self.request_seconds, "g"),
            ),
            tr("send the whole request at once"),
            status=408,
        )
        self._refuse(late)

    def _abandon(self) -> None:
        self._stalled = None
        if not self.transport.is_closing():
            self.transport.abort()

    def _refuse(self, error: RequestError) -> None:
        """Answer `error` (as the project's error document) and close the connection."""
        self._cancel()
        body = json.dumps(error_json(error), ensure_ascii=False).encode("utf-8")
        reason = {408: b"Request Timeout", 503: b"Service Unavailable"}.get(error.status, b"")
        head = b"HTTP/1.1 %d %s\r\n" % (error.status, reason)
        head += b"content-type: application/json\r\ncache-control: no-store\r\n"
        head += b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body)
        self.transport.write(head + body)
        self.transport.close()


class CheckedCycle(RequestResponseCycle):
    """uvicorn's request cycle, its answer's head made by `response_head` (the rest of its
    sending, and every other case, uvicorn's own)."""

    async def send(self, message) -> None:
        if (
            self.response_started
            or self.disconnected
            or self.flow.write_paused
            or message["type"] != "http.response.start"
        ):
            await super().send(message)
            return
        # (as uvicorn's RequestResponseCycle.send writes a head: its checks made above)
        self.response_started = True
        self.waiting_for_100_continue = False
        status = message["status"]
        headers = self.default_headers + list(message.get("headers", []))
        if CLOSE_HEADER in self.scope["headers"] and CLOSE_HEADER not in headers:
            headers = [*headers, CLOSE_HEADER]
        if self.access_log and self.access_logger.isEnabledFor(logging.INFO):
            self.access_logger.info(
                '%s - "%s %s HTTP/%s" %d',
                get_client_addr(self.scope),
                self.scope["method"],
                get_path_with_query_string(self.scope),
                self.scope["http_version"],
                status,
            )
        head = response_head(status, headers, STATUS_PHRASES[status])
        self.transport.write(self.conn.send(event=head))


#: the headers h11 found well-formed in an answer: (name, value), bytes
_CHECKED: set[tuple[bytes, bytes]] = set()


def response_head(status: int, headers: list, reason: bytes) -> h11.Response:
    """h11's response head: its headers checked by h11 (a name or value it refuses raises
    h11.LocalProtocolError), each only the first time it is seen. h11 still reads the
    length and transfer coding of every answer (`_parsed` skips only the checks of each
    name's and value's characters)."""
    checked = _CHECKED
    if CHECKED_ONCE and type(status) is int and all(pair in checked for pair in headers):
        return h11.Response(status_code=status, headers=headers, reason=reason, _parsed=True)
    head = h11.Response(status_code=status, headers=headers, reason=reason)
    if CHECKED_ONCE:
        if len(checked) + len(headers) > CHECKED_HEADERS:
            checked.clear()
        checked.update(
            (name, value) for name, value in headers if type(name) is bytes and type(value) is bytes
        )
    return head


class Joined:
    """A request's transport as its response writes to it: its first write (the head) is
    held, and goes out with the next (the body) as one write (one system call, one
    segment), or alone at the end of this turn of the event loop (a stream's head whose
    body comes later), or before the transport closes. The rest is the transport's own."""

    __slots__ = ("held", "loop", "soon", "transport")

    def __init__(self, transport, loop):
        self.transport = transport
        self.loop = loop
        self.held: bytes | None = None  # the head, not yet sent
        self.soon: Any = None  # the end of this turn's flush of it (made at the head)

    def write(self, data: bytes) -> None:
        if not data:
            return
        held = self.held
        if held is not None:  # the body after its head: both at once
            self.held = None
            self.soon.cancel()
            self.transport.write(held + data)
        elif self.soon is None:  # the head: held for its body
            self.held = bytes(data)
            self.soon = self.loop.call_soon(self.flush)
        else:
            self.transport.write(data)

    def flush(self) -> None:
        held, self.held = self.held, None
        if held is not None:
            self.soon.cancel()
            self.transport.write(held)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def abort(self) -> None:
        if self.held is not None:
            self.held = None
            self.soon.cancel()
        self.transport.abort()

    def __getattr__(self, name: str):
        return getattr(self.transport, name)


def timed_protocol(
    request_seconds: float = REQUEST_SECONDS,
    send_seconds: float = SEND_SECONDS,
    per_address: int = PER_ADDRESS,
) -> type:
    """The protocol class for uvicorn (`Config(http=...)`), with these bounds."""
    return type(
        "TimedH11Protocol",
        (TimedH11Protocol,),
        {
            "request_seconds": request_seconds,
            "send_seconds": send_seconds,
            "per_address": per_address,
        },
    )
