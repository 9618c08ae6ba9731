"""The table's doors inside the guard: a player's refusals, and what went through told.

What a player may not do is refused, and every run, save, undo, choice and character
made or edited that went through is told to the table (its running log).

The guard (interpreter.web.guard) has said who the request is (`scope["state"]["role"]`);
here its body is read (whole already: the guard read it within its bound), checked
against the role's rights (interpreter.web.tabletop.roles), `secret` taken out of a game master's
run, and the answer, once sent, told as an event.
"""

from __future__ import annotations

import json
import logging
import sqlite3

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from dsl.errors import RulebookError
from interpreter.web.errors import error_json
from interpreter.web.tabletop.roles import Table

log = logging.getLogger("rulebook.web")
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
#: bytes of an answer kept to tell the table (a larger one is told without its details)
MAX_TOLD = 2_000_000
#: changes an event lists, at most
MAX_CHANGES = 40


class TableDoors:
    """ASGI middleware: the role's refusals, then the app, then the event told."""

    def __init__(self, app, table: Table):
        self.app = app
        self.table = table

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        role = scope.get("state", {}).get("role")
        method, path = scope["method"], scope["path"]
        body, parsed = b"", None
        if method not in SAFE_METHODS:
            body = await _whole(receive)
            try:
                parsed = json.loads(body)
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
        kind = _told(method, path)
        if method in SAFE_METHODS or kind is None:
            return await self.app(scope, _replay(body, receive), send)
        answered = {"status": 0, "size": 0}
        chunks: list[bytes] = []

        async def send_kept(message):
            if message["type"] == "http.response.start":
                answered["status"] = message["status"]
            elif message["type"] == "http.response.body":
                chunk = message.get("body", b"")
                answered["size"] += len(chunk)
                if answered["size"] <= MAX_TOLD:
                    chunks.append(chunk)
            await send(message)

        await self.app(scope, _replay(body, receive), send_kept)
        if answered["status"] != 200 or answered["size"] > MAX_TOLD:
            return
        try:
            out = json.loads(b"".join(chunks))
        except (ValueError, UnicodeDecodeError):
            return
        event = _event(kind, parsed if isinstance(parsed, dict) else {}, out, path)
        if event is not None:
            event[1]["page"] = _page(scope)
            try:
                # (a thread of its own: the journal's commit must not hold the event loop)
                await run_in_threadpool(
                    self.table.tell, event[0], role.who if role else "", event[1], secret=secret
                )
            except (RulebookError, OSError, sqlite3.Error):
                # the answer went out already; a folder that cannot keep the log (read
                # only, a full disk) says so on the server's terminal, as app.py does
                log.exception("the table's log could not keep an event")


def _page(scope) -> str | None:
    """The page that sent the request (its own mark, `X-Rulebook-Page`), if it is one."""
    for key, value in scope["headers"]:
        if key.lower() == b"x-rulebook-page":
            mark = value.decode("latin-1")
            return mark if mark.isalnum() and len(mark) <= 32 else None
    return None


def _told(method: str, path: str) -> str | None:
    """Which requests the table is told of: runs (and choices asked), undos, rulebooks
    saved, characters made or edited."""
    if method == "POST" and path == "/api/run":
        return "run"
    if method == "POST" and path == "/api/undo":
        return "undo"
    if method == "PUT" and path.startswith("/api/rulebooks/"):
        return "rulebook"
    if method == "POST" and path == "/api/characters":
        return "character"
    if method == "PATCH" and path.startswith("/api/characters/"):
        return "edited"
    return None


def _event(kind: str, body: dict, out, path: str) -> tuple[str, dict] | None:
    if not isinstance(out, dict):
        return None
    if kind == "undo":
        return "undo", {"entry": body.get("entry"), "characters": _files(out.get("sheets"))}
    if kind == "rulebook":
        return "rulebook", {"rulebook": path.rsplit("/", 1)[-1], "entry": out.get("entry")}
    if kind in ("character", "edited"):  # a character made, or values set by hand
        changes = out.get("changes")
        return kind, {
            "rulebook": body.get("rulebook"),
            "character": out.get("created" if kind == "character" else "edited"),
            "entry": out.get("entry"),
            "changes": changes[:MAX_CHANGES] if isinstance(changes, list) else [],
        }
    need = out.get("need")
    subject: dict = {
        "rulebook": body.get("rulebook"),
        "character": body.get("character"),
        "action": body.get("action"),
        "targets": body.get("targets") if isinstance(body.get("targets"), dict) else {},
    }
    if isinstance(need, dict):
        if need.get("kind") != "choice":
            return None  # a typed die asked for: the run goes on in that page
        question = {k: need.get(k) for k in ("name", "label", "who", "by")}
        return "choice", {**subject, "question": question}
    saved = out.get("saved") if isinstance(out.get("saved"), dict) else None
    changes = out.get("changes")
    changes = changes if isinstance(changes, list) else []
    data = {
        **subject,
        "params": out.get("params"),
        "dice": out.get("dice"),
        "origin": out.get("origin"),
        "result": out.get("result"),
        "changes": changes[:MAX_CHANGES],
        "choices": [
            {"name": c.get("name"), "value": c.get("value")}
            for c in (out.get("choices") or [])[:MAX_CHANGES]
            if isinstance(c, dict)
        ],
    }
    if saved is not None:
        data["entry"] = saved.get("entry")
        data["others"] = _files(saved.get("others"))
        return "saved", data
    return "run", data


def _files(value) -> list:
    """Names of the characters an answer names by file (never a path of the server)."""
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return []
    names = []
    for item in value:
        if isinstance(item, str):
            names.append(item.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return names


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
