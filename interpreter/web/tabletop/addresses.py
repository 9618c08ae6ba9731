"""The table's addresses: joining, who I am, a player's pick, the log, its live stream, the QR.

The join page and the join, who the request is at the table, the character a player
picks, the running log, its live stream (server-sent events), and the join link's QR.

- `GET /join`: the page a player opens from the link or the QR (the code filled in).
- `POST /api/table/join` `{code, player}`: a seat (its cookie), for the table's code only.
- `GET /api/table`: the table's name, the request's role, the party; the game master also
  gets the join link and code.
- `POST /api/table/character` `{rulebook, character}`: a player's pick, once (the game
  master's pages follow it); a character another player holds is refused.
- `GET /api/table/log?after=N`: the events after N that the role may see (without
  `after`: the latest).
- `GET /api/table/events`: the same, as they happen (`text/event-stream`; `Last-Event-ID`
  resumes); each stream ends after STREAM_SECONDS and the browser opens it again.
- `GET /api/table/qr.svg`: the join link as a QR code (segno), drawn here as SVG.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import json
import secrets
import time
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from dsl.messages import language_for, tr
from interpreter.version import versioned
from interpreter.web.body import field, json_body, unknown_fields
from interpreter.web.errors import RequestError
from interpreter.web.tabletop.roles import MAX_PLAYER, Role, Table, shown_code

STATIC = Path(__file__).parent.parent / "static"
#: seconds one event stream lasts before the browser opens it again (no stream is forever)
STREAM_SECONDS = 300.0
#: seconds between two looks at the store for events another server process kept
POLL_SECONDS = 0.5
#: seconds between two comments keeping an idle stream open through proxies
KEEPALIVE_SECONDS = 15.0


def table_routes(table: Table, access, library, language: str | None = None) -> list[Route]:
    """The routes of `table`, over the server's access (its CSRF token) and library;
    `language` the server's (`serve --lang`), for the join page."""

    async def join_page(request):
        # in `?lang=`, else the server's language, else the browser's first
        browser = request.headers.get("accept-language", "").split(",")[0].split(";")[0]
        lang = language_for(request.query_params.get("lang"), language, browser.strip())
        text = (STATIC / "join.html").read_text(encoding="utf-8")
        words = {
            "csrf_token": access.csrf,
            "lang": lang,
            "title": tr("Join the table {table}", table=table.name).render(lang),
            "code_label": tr("The table's code").render(lang),
            "player_label": tr("Your name").render(lang),
            "join_button": tr("Join").render(lang),
        }
        for key, value in words.items():
            text = text.replace("{{" + key + "}}", html.escape(value))
        return HTMLResponse(text, headers={"cache-control": "no-store"})

    async def join(request):
        body = await json_body(request)
        unknown_fields(body, {"code", "player"})
        code = field(body, "code", str, required=True)
        player = _player(field(body, "player", str, required=True))
        client = request.client.host if request.client else ""
        wait = table.tries.wait(client)
        if wait:
            raise RequestError(
                tr("too many wrong codes from here: try again in {seconds} s", seconds=wait),
                tr("ask the game master for the code, or scan the QR code on their page"),
                status=429,
                retry_after=wait,
            )
        if not table.is_code(code):
            table.tries.wrong(client)
            raise RequestError(
                tr("this is not the table's code"),
                tr("ask the game master for the code, or scan the QR code on their page"),
                status=403,
            )
        secret = secrets.token_urlsafe(32)
        table.store.add_seat(table.name, secret, table.code, player)
        table.tell("joined", player, {"player": player})
        response = JSONResponse(versioned({"table": table.name, "player": player}))
        response.set_cookie(table.cookie, secret, httponly=True, samesite="strict", path="/")
        response.headers["cache-control"] = "no-store"
        return response

    async def about(request):
        role = _role(request)
        out = {
            "table": table.name,
            "role": "gm" if role.gm else "player",
            "player": role.seat.player if role.seat else None,
            "rulebook": role.seat.rulebook if role.seat else None,
            "character": role.seat.character if role.seat else None,
            "party": table.party(),
            "last_event": table.last_event(),
        }
        if role.gm:
            out["code"] = shown_code(table.code)
            out["join"] = table.join_link(_base(table, request))
        return JSONResponse(versioned(out), headers={"cache-control": "no-store"})

    async def pick(request):
        role = _role(request)
        body = await json_body(request)
        unknown_fields(body, {"rulebook", "character"})
        rulebook = field(body, "rulebook", str, required=True)
        character = field(body, "character", str, required=True)
        if role.gm or role.seat is None or role.secret is None:
            raise RequestError(tr("the game master plays every character: nothing to pick"))
        if role.seat.character is not None:
            raise RequestError(
                tr("you play {character} already", character=role.seat.character),
                tr("ask the game master to seat you again with a new code"),
                status=409,
            )
        library.rulebook_path(rulebook)  # an unknown name: 404
        library.character_path(character)
        held = {s["character"] for s in table.party() if s["rulebook"] == rulebook}
        if character in held:
            raise RequestError(
                tr("another player plays {character}", character=character), status=409
            )
        table.store.claim(table.name, role.secret, rulebook, character)
        table.tell("seat", role.who, {"rulebook": rulebook, "character": character})
        return JSONResponse(versioned({"rulebook": rulebook, "character": character}))

    async def log(request):
        role = _role(request)
        given = request.query_params.get("after")
        after = _number(given) if given is not None else None  # None: the latest
        events = table.events_after(after, role.gm)
        return JSONResponse(
            versioned({"events": [e.to_json() for e in events]}),
            headers={"cache-control": "no-store"},
        )

    async def events(request):
        role = _role(request)
        given = request.headers.get("last-event-id") or request.query_params.get("after")
        after = _number(given) if given else table.last_event()
        return StreamingResponse(
            _stream(table, role, after),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    async def qr(request):
        import segno  # only when a page shows the code

        picture = io.BytesIO()
        link = table.join_link(_base(table, request))
        title = tr("join the table {table}", table=table.name)
        segno.make(link, error="m").save(
            picture, kind="svg", scale=6, border=2, xmldecl=False, title=str(title)
        )
        return Response(
            picture.getvalue(), media_type="image/svg+xml", headers={"cache-control": "no-store"}
        )

    return [
        Route("/join", join_page),
        Route("/api/table", about),
        Route("/api/table/join", join, methods=["POST"]),
        Route("/api/table/character", pick, methods=["POST"]),
        Route("/api/table/log", log),
        Route("/api/table/events", events),
        Route("/api/table/qr.svg", qr),
    ]


async def _stream(table: Table, role: Role, after: int):
    """The events after `after` the role may see, as they come, for STREAM_SECONDS."""
    yield "retry: 1000\n\n"
    woken = table.waiter()
    started = last_said = time.monotonic()
    try:
        while time.monotonic() - started < STREAM_SECONDS and not table.closing:
            woken.clear()
            # (what is kept: woken once a batch is, it never waits for one being gathered)
            for event in table.store.events_after(table.name, after, role.gm):
                after = event.id
                text = json.dumps(event.to_json(), ensure_ascii=False)
                yield f"id: {event.id}\nevent: {event.kind}\ndata: {text}\n\n"
                last_said = time.monotonic()
            if time.monotonic() - last_said > KEEPALIVE_SECONDS:
                yield ": still here\n\n"
                last_said = time.monotonic()
            # told here (this process), or a look at the store (another one's)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), POLL_SECONDS)
    finally:
        table.forget(woken)


def _role(request: Request) -> Role:
    role = request.scope.get("state", {}).get("role")
    if role is None:  # the guard lets only the join through without a role
        raise RequestError(tr("join the table first"), status=401)
    return role


def _player(name: str) -> str:
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_PLAYER or not name.isprintable():
        raise RequestError(
            tr("a player's name is 1 to {most} printable characters", most=MAX_PLAYER)
        )
    return name


def _number(text: str) -> int:
    if not text.isdigit() or len(text) > 18:
        raise RequestError(tr("after is the number of an event (0: from the start)"))
    return int(text)


def _base(table: Table, request: Request) -> str:
    """The address players open: as `rulebook serve` printed it, else as this page's."""
    if table.address:
        return table.address
    return f"{request.url.scheme}://{request.headers.get('host', 'localhost')}/"
