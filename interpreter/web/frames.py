"""Messages between the server and its worker processes: a kind, a status and bytes.

Each frame is a header (a kind letter, an HTTP status, the payload's length) and its
payload, over one socket per worker. The server sends jobs; a worker sends back what the
server needs to answer: progress, that the job's inputs are checked (the time bound of
its work starts then), and the answer's bytes, already rendered. JSON both ways, never
pickles: the server reads nothing from a worker but data.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
from collections.abc import Callable
from typing import Any

_HEADER = struct.Struct(">cHQ")

#: the server → a worker: a job to run (JSON: its id, name, arguments and bounds)
JOB = b"J"
#: a worker → the server: progress, as the line a stream sends
PROGRESS = b"P"
#: a worker → the server: the inputs are checked, the work proper starts (its payload,
#: when not sent at once: how many seconds ago, interpreter.web.worker.Notice)
READY = b"Y"
#: a worker → the server: headers of the answer to come (JSON: name → value)
HEADERS = b"H"
#: a worker → the server: the table's event of the answer to come (its kind, a newline,
#: its data's JSON: interpreter.web.tabletop.told)
TOLD = b"T"
#: a worker → the server: the job's answer (its status, the body's bytes)
DONE = b"D"
#: a worker → the server: it stops after this job (its memory grew past its bound)
RETIRING = b"Q"

KINDS = {JOB, PROGRESS, READY, HEADERS, TOLD, DONE, RETIRING}


def frame(kind: bytes, payload: bytes = b"", status: int = 0) -> bytes:
    return _HEADER.pack(kind, status, len(payload)) + payload


def send(sock: socket.socket, kind: bytes, payload: bytes = b"", status: int = 0) -> None:
    """Send one frame on a blocking socket (a worker's side)."""
    sock.sendall(frame(kind, payload, status))


def receive(sock: socket.socket) -> tuple[bytes, int, bytes] | None:
    """One frame from a blocking socket (a worker's side); None once the server is gone."""
    header = _exactly(sock, _HEADER.size)
    if header is None:
        return None
    kind, status, length = _HEADER.unpack(header)
    payload = _exactly(sock, length) if length else b""
    if payload is None:
        return None
    return kind, status, payload


class Frames:
    """Frames taken out of bytes as they come (the server's side)."""

    def __init__(self, most: int):
        self.most = most
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, int, bytes]] | None:
        """The frames made whole by `data`, in order; None when what came is not a frame
        of at most `most` bytes (the worker is then taken as gone)."""
        buffer, size = self.buffer, _HEADER.size
        if buffer:  # (a frame begun: taken out only once whole, not copied at each part)
            buffer += data
            if len(buffer) < size:
                return []
            kind, _status, length = _HEADER.unpack_from(buffer)
            if kind not in KINDS or length > self.most:
                return None
            if len(buffer) < size + length:
                return []
            data = bytes(buffer)
            buffer.clear()
        out = []
        start, end = 0, len(data)
        while end - start >= size:  # (each frame's payload cut once out of what came)
            kind, status, length = _HEADER.unpack_from(data, start)
            if kind not in KINDS or length > self.most:
                return None
            if end - start < size + length:
                break
            out.append((kind, status, data[start + size : start + size + length]))
            start += size + length
        if start < end:  # a frame not yet whole waits for the rest of it
            buffer += data[start:]
        return out


class Listener(asyncio.Protocol):
    """The server's end of a worker's socket: each frame given to `heard(kind, status,
    payload)` as it arrives (in the event loop's own callback: a worker's answer is
    handled as it comes, no task woken for it), then, once, `gone()`: the socket closed,
    or what came is not a frame of at most `most` bytes."""

    def __init__(self, heard, gone, most: int):
        self.heard, self.gone = heard, gone
        self.frames: Frames | None = Frames(most)

    def data_received(self, data: bytes) -> None:
        if self.frames is None:
            return
        received = self.frames.feed(data)
        if received is None:
            self._end()
            return
        for kind, status, payload in received:
            self.heard(kind, status, payload)

    def eof_received(self) -> bool:
        self._end()
        return False  # (the transport closes itself)

    def connection_lost(self, exc) -> None:  # noqa: ARG002 (gone, whatever the cause)
        self._end()

    def _end(self) -> None:
        if self.frames is not None:
            self.frames = None
            self.gone()


def job_frame(message: dict) -> bytes:
    """A job's frame, its JSON written by orjson (`FAST_JSON`: a twentieth of the standard
    encoder's time, on the event loop), else by the standard encoder: what orjson refuses
    (a whole number past 64 bits, a key that is not a text) goes there, as it all did. The
    worker reads either (`job_of`) to the same values (a job holds no NaN nor
    infinity, which orjson would write as null: a request's body refuses them, so do the
    command line's bounds)."""
    if FAST_JSON is not None:
        try:
            return frame(JOB, FAST_JSON(message), BY_ORJSON)
        except TypeError:  # (orjson.JSONEncodeError)
            pass
    return frame(JOB, _ENCODE(message).encode("utf-8"))


def job_of(payload: bytes, status: int) -> Any:
    """A job's message as the worker reads it: by orjson when orjson wrote it (its status
    BY_ORJSON: every whole number in it within 64 bits, read back the same; orjson would
    read a larger one as a float) and `FAST_LOADS` is on, in a fifth of the time; else
    by json.loads, as every job was."""
    if status == BY_ORJSON and FAST_LOADS is not None:
        return FAST_LOADS(payload)
    return json.loads(payload)


#: a job frame's status when orjson wrote its JSON (the standard encoder's: 0)
BY_ORJSON = 1


#: orjson's writer, where it is installed; None: the standard encoder writes every job
#: (tests switch it off to compare)
FAST_JSON: Callable[[Any], bytes] | None = None
#: orjson's reader, for a job orjson wrote (None: json.loads reads every job; tests switch
#: it off to compare)
FAST_LOADS: Callable[[bytes], Any] | None = None
with contextlib.suppress(ImportError):  # (an install without it: the standard encoder alone)
    from orjson import dumps as FAST_JSON
    from orjson import loads as FAST_LOADS

#: `json.dumps(message, ensure_ascii=False)`, its encoder made once
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        try:
            chunk = sock.recv(min(left, 1 << 20))
        except (ConnectionError, OSError):
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
