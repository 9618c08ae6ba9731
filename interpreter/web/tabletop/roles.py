"""The shared table: its code, who a request is, what a player may do, the events told.

Its name and join code, who a request is (game master or player), what a player may do,
and the evening's events told to every open page.

Roles: the game master (the server's token, or anyone on a server that asks none) sees
and does everything; a player joined with the table's code (a seat: a cookie of its own)
runs only their own character's actions, in the rulebook they chose it in, and sees the
sheets, the party and the shared log, but never the game master's secret rolls. Nothing
a player sends acts as the game master: their seat is all they hold.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import secrets
import threading

import attrs

from dsl.messages import tr
from interpreter.errors import ParameterError
from interpreter.web.access import Access, cookie_value
from interpreter.web.errors import RequestError
from interpreter.web.guard import Forbidden
from interpreter.web.tabletop.events import Seat, TableStore
from interpreter.web.tabletop.teller import Teller
from interpreter.web.tabletop.tries import JoinTries

#: the letters a join code is made of (none that reads like another: no 0/O, 1/I/L)
CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: letters of a join code made here (31^8: about 8.5e11 codes)
CODE_LENGTH = 8
#: characters of a player's name, at most
MAX_PLAYER = 40
#: requests a player may never make: (method, path prefix)
GAME_MASTERS_ONLY = (
    ("PUT", "/api/rulebooks/"),
    ("POST", "/api/undo"),
    ("POST", "/api/sweep"),  # (long computations: the game master's to start)
    ("POST", "/api/encounter"),
)
#: the address of a character (`PATCH` sets its values: a player's own only)
CHARACTERS = "/api/characters/"
#: what anyone who reaches the server may ask without the token: the join page and its
#: two files, and the join itself (which asks for the code)
OPEN = frozenset(
    {
        ("GET", "/join"),
        ("GET", "/static/app.css"),
        ("GET", "/static/js/join.js"),
        ("POST", "/api/table/join"),
    }
)


def make_table(
    folder, name: str | None = None, code: str | None = None, address: str | None = None
) -> Table:
    """The table of a server of `folder`: named (by default the folder's name), its code
    (one made when none is given), its events and seats in the folder's journal."""
    from pathlib import Path

    from interpreter.web.tabletop.events import JournalTableStore

    folder = Path(folder)
    name = name or folder.resolve().name or "rulebook"
    return Table(name, code or new_code(), JournalTableStore(folder), address)


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def plain_code(text: str) -> str:
    """A code as typed (`abcd-efgh`, `ABCD EFGH`) as it is compared: `ABCDEFGH`."""
    return "".join(c for c in text.upper() if c.isalnum())


def shown_code(code: str) -> str:
    """A code as printed and shown: in groups of four (`ABCD-EFGH`)."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def check_code(code: str) -> str:
    plain = plain_code(code)
    if not 6 <= len(plain) <= 32 or len(plain) != len(code.replace("-", "").replace(" ", "")):
        raise ParameterError(
            tr("a table's code is 6 to 32 letters and digits (dashes and spaces are ignored)"),
            None,
            tr("leave --code out and `rulebook serve` makes one"),
        )
    return plain


@attrs.frozen
class Role:
    """Who a request is: the game master, or a player at their seat (`secret`: its cookie)."""

    gm: bool
    seat: Seat | None = None
    secret: str | None = None

    @property
    def who(self) -> str:
        """The name the log gives: the player's, or empty for the game master."""
        return self.seat.player if self.seat is not None else ""


class Table:
    """One table: its name, its code, its store, and the pages waiting for news."""

    def __init__(self, name: str, code: str, store: TableStore, address: str | None = None):
        self.name = name
        self.code = check_code(code)
        self.store = store
        self.address = address  # the join link's base, as `rulebook serve` printed it
        self._waiting: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._lock = threading.Lock()
        self.closing = False  # the server stops: every page's stream ends
        self.tries = JoinTries()  # wrong codes per client: guessing the code waits
        # the events of answers, kept after they went out, in batches (a thread's)
        self.teller = Teller(self._keep, self._wake, store.let_go)

    @property
    def cookie(self) -> str:
        """The seat's cookie: named after the table and its code (two servers on one
        machine, or tonight's code and last week's, do not mix)."""
        return _cookie_name(self.name, self.code)

    def join_link(self, base: str) -> str:
        return f"{base.rstrip('/')}/join?code={shown_code(self.code)}"

    def is_code(self, given: str) -> bool:
        given_digest = hashlib.sha256(plain_code(given).encode()).digest()
        return hmac.compare_digest(given_digest, hashlib.sha256(self.code.encode()).digest())

    # ─── who asks ──────────────────────────────────────────────────────────

    def secret_of(self, headers: dict) -> str | None:
        return cookie_value(headers.get("cookie", ""), self.cookie)

    def seat_of(self, headers: dict) -> tuple[Seat, str] | None:
        secret = self.secret_of(headers)
        if not secret:
            return None
        seat = self.store.seat(self.name, secret, self.code)
        return (seat, secret) if seat is not None else None

    def role_of(self, headers: dict, access: Access, holds_token: bool) -> Role | None:
        """The game master (the token, or no token asked), a player (a seat), or None."""
        if access.token is not None and holds_token:
            return Role(gm=True)
        seated = self.seat_of(headers)
        if seated is not None:
            return Role(gm=False, seat=seated[0], secret=seated[1])
        if access.token is None:
            return Role(gm=True)
        return None

    @staticmethod
    def is_open(method: str, path: str) -> bool:
        """What anyone reaching the server may ask (the join page and the join)."""
        return (method, path) in OPEN

    def refusal(self, role: Role | None, method: str, path: str, body) -> RequestError | None:
        """Why `role` may not make this request (None: it may)."""
        if role is None:
            return None if self.is_open(method, path) else _forbidden(tr("join the table first"))
        body = body if isinstance(body, dict) else {}
        if "secret" in body and path == "/api/run" and not role.gm:
            return _forbidden(tr("only the game master rolls in secret"))
        if role.gm:
            return None
        if any(method == m and path.startswith(p) for m, p in GAME_MASTERS_ONLY):
            return _forbidden(tr("only the game master may do this at the table"))
        if method == "POST" and path == "/api/run" and role.seat is not None:
            return self._run_refusal(role.seat, body)
        if method == "PATCH" and path.startswith(CHARACTERS) and role.seat is not None:
            return self._edit_refusal(role.seat, path[len(CHARACTERS) :], body)
        return None

    @staticmethod
    def _edit_refusal(seat: Seat, name: str, body: dict) -> RequestError | None:
        """A player sets values of their own character only, in their rulebook."""
        if seat.character is not None and (
            name == seat.character and body.get("rulebook") == seat.rulebook
        ):
            return None
        return _forbidden(
            tr(
                "a player edits only their own character: {character}",
                character=seat.character or "—",
            )
        )

    def _run_refusal(self, seat: Seat, body: dict) -> RequestError | None:
        if seat.character is None:
            return _forbidden(
                tr("choose your character first: a player runs their own character's actions")
            )
        if (
            body.get("character") != seat.character
            or body.get("rulebook") != seat.rulebook
            or "sheet" in body
            or "text" in body
        ):
            return _forbidden(
                tr(
                    "a player runs only their own character's actions: {character} in {rulebook}",
                    character=seat.character,
                    rulebook=seat.rulebook,
                )
            )
        return None

    # ─── the evening's events ──────────────────────────────────────────────

    def close(self) -> None:
        """The server stops: the pages' streams end now (not when the server gives up
        waiting for them), and the browsers open them again on the next server."""
        self.closing = True
        self._wake()

    def listen(self) -> None:
        """While served: hear what other server processes tell this table at once (a
        PostgreSQL journal's notices; with SQLite the pages look at the file now and then)."""
        self.store.listen(self.name, self._wake)

    def stop_listening(self) -> None:
        self.teller.settle()
        self.store.close()

    def _wake(self) -> None:
        with self._lock:
            waiting = list(self._waiting)
        for loop, event in waiting:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    def tell(self, kind: str, who: str, data: dict, secret: bool = False) -> int:
        """An event kept in the store and told to every page waiting here (`who`: the
        player's name, empty for the game master); after those handed over before it."""
        self.teller.settle()
        number = self.store.add_event(self.name, kind, "gm" if secret else "all", who, data)
        self._wake()
        return number

    def tell_later(self, kind: str, who: str, text: bytes, secret: bool = False) -> None:
        """An event (`text`: its data's JSON, told.event_text) handed to the table's thread,
        which keeps it with the others handed over meanwhile, then wakes the pages."""
        self.teller.put((kind, "gm" if secret else "all", who, text.decode("utf-8")))

    def _keep(self, rows: list) -> None:
        self.store.add_events(self.name, rows)

    def events_after(self, after: int | None, gm: bool) -> list:
        """The events after number `after` the role may see (those handed over included)."""
        self.teller.settle()
        return self.store.events_after(self.name, after, gm)

    def last_event(self) -> int:
        self.teller.settle()
        return self.store.last_event(self.name)

    def waiter(self) -> asyncio.Event:
        """An event set when something is told here (a page's stream waits on it)."""
        event = asyncio.Event()
        with self._lock:
            self._waiting.add((asyncio.get_running_loop(), event))
        return event

    def forget(self, event: asyncio.Event) -> None:
        with self._lock:
            self._waiting = {(loop, e) for loop, e in self._waiting if e is not event}

    def party(self) -> list[dict]:
        return [
            {"player": s.player, "rulebook": s.rulebook, "character": s.character}
            for s in self.store.seats(self.name, self.code)
        ]


@functools.lru_cache(maxsize=16)
def _cookie_name(name: str, code: str) -> str:
    """(every request's: made once per table)"""
    key = f"{name}\0{code}".encode()
    return "rulebook_seat_" + hashlib.sha256(key).hexdigest()[:12]


def _forbidden(message) -> RequestError:
    return Forbidden(message, status=403)
