"""The table's doors inside the guard: a player's refusals, and what went through told.

What a player may not do is refused, and every run, save, undo, choice and character
made or edited that went through is told to the table (its running log).

The guard (interpreter.web.guard) has said who the request is (`scope["state"]["role"]`);
here its body is read (whole already: the guard read it within its bound), checked
against the role's rights (interpreter.web.tabletop.roles), `secret` taken out of a game master's
run, and the answer, once sent, told as an event (made by the worker that answered).
"""

from __future__ import annotations

import json

from starlette.responses import JSONResponse

from interpreter.web.errors import error_json
from interpreter.web.tabletop.roles import Table
from interpreter.web.tabletop.told import told_kind

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


class TableDoors:
    """ASGI middleware: the role's refusals, then the app, then the event told."""

    def __init__(self, app, table: Table, public=None):
        self.app = app
        self.table = table
        #: an event's JSON as the answer went out (interpreter.web.paths: no server path)
        self.public = public or (lambda text: text)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        role = scope.get("state", {}).get("role")
        method, path = scope["method"], scope["path"]
        body, parsed = b"", None
        if method not in SAFE_METHODS:
            body = await _whole(receive)
            try:
                # (a game master's body is read here only for its `secret`: one that
                # cannot hold the key is read once, by the app)
                parsed = json.loads(body) if _read_here(role, body) else None
            except (ValueError, UnicodeDecodeError, RecursionError):
                parsed = None  # the app says what is wrong with it (a player's: refused)
        refusal = self.table.refusal(role, method, path, parsed)
        if refusal is not None:
            answer = JSONResponse(error_json(refusal), refusal.status)
            return await answer(scope, receive, send)
        secret = False
        if isinstance(parsed, dict) and path == "/api/run" and "secret" in parsed:
            secret = parsed.pop("secret") is True  # the game master's (a player's: refused)
            body = json.dumps(parsed).encode()
        kind = told_kind(method, path)
        if method in SAFE_METHODS or kind is None:
            return await self.app(scope, _replay(body, receive), send)
        # The worker that answers makes the event from its answer (interpreter.web.work:
        # `scope["state"]["told"]`, only of a 200): its JSON is not read back here.
        state = scope.setdefault("state", {})
        state["tell"] = {"kind": kind, "path": path, "page": _page(scope)}
        await self.app(scope, _replay(body, receive), send)
        made = state.pop("told", None)
        if made is not None:
            told, _, text = made.partition(b"\n")
            text = self.public(text)
            # kept by the table's own thread, with the events told meanwhile: the answer
            # went out already, and the event loop waits for no commit
            self.table.tell_later(told.decode(), role.who if role else "", text, secret=secret)


def _read_here(role, body: bytes) -> bool:
    """Whether the doors must read the body: a player's (what they may do depends on
    it), or one that may hold the key `secret` (the game master's to take out). A UTF-8
    text with no backslash that does not hold the word holds no such key (JSON writes a
    key's letters as they are, or escaped with a backslash)."""
    if role is None or not role.gm:
        return True
    return b"secret" in body or b"\\" in body or json.detect_encoding(body) != "utf-8"


def _page(scope) -> str | None:
    """The page that sent the request (its own mark, `X-Rulebook-Page`), if it is one."""
    for key, value in scope["headers"]:
        if key.lower() == b"x-rulebook-page":
            mark = value.decode("latin-1")
            return mark if mark.isalnum() and len(mark) <= 32 else None
    return None


async def _whole(receive) -> bytes:
    """The request's body (the guard read it whole, within its bound, and replays it)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive):
    delivered = False

    async def replay():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
