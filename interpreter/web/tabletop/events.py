"""The table's events and seats, kept behind a small interface (SQLite: the journal's).

`TableStore` is what the table needs of a store: append an event, read the events after
one, make a seat, find it by its secret, give it a character. `JournalTableStore` keeps
them in the folder's journal database (tables `table_events`, `table_seats`: schema
version 5), so that several server processes serving one folder share one table. With a
PostgreSQL journal (`--database`) the same tables are in that database, and each event is
announced with NOTIFY: `listen` wakes this process's pages when another process tells
the table something (with SQLite they look at the store every POLL_SECONDS).
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import attrs

from interpreter.journal import postgres
from interpreter.journal.errors import NoJournal
from interpreter.journal.store import JOURNAL_NAME, Journal
from interpreter.web.tabletop.told import event_text

#: events one read gives at most (a page that was away catches up in several reads)
MAX_EVENTS_READ = 200


@attrs.frozen
class Event:
    """One line of the evening's log: who did what, for whom (`audience`: all, gm)."""

    id: int
    at: str
    kind: str
    audience: str
    who: str
    data: dict

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "at": self.at,
            "kind": self.kind,
            "audience": self.audience,
            "who": self.who,
            **self.data,
        }


@attrs.frozen
class Seat:
    """A player at the table: their name and the character they play (None: not chosen)."""

    player: str
    rulebook: str | None
    character: str | None


class TableStore(Protocol):
    """What a table keeps: its events and its seats."""

    def add_event(self, table: str, kind: str, audience: str, who: str, data: dict) -> int: ...

    def add_events(self, table: str, rows: list) -> int: ...

    def let_go(self) -> None: ...

    def events_after(self, table: str, after: int | None, gm: bool) -> list[Event]: ...

    def last_event(self, table: str) -> int: ...

    def add_seat(self, table: str, secret: str, code: str, player: str) -> None: ...

    def seat(self, table: str, secret: str, code: str) -> Seat | None: ...

    def claim(self, table: str, secret: str, rulebook: str, character: str) -> None: ...

    def seats(self, table: str, code: str) -> list[Seat]: ...

    def listen(self, table: str, wake) -> None: ...

    def close(self) -> None: ...


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _one_at_a_time(method):
    """A store's method run by one thread at a time (its PostgreSQL connection is shared)."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return locked


class JournalTableStore:
    """The table's events and seats in the folder's `journal.sqlite` (made on first use)."""

    def __init__(self, folder: str | Path, database: str | None = None):
        self.path = Path(folder) / JOURNAL_NAME
        #: the PostgreSQL database (None: the folder's SQLite file)
        self.database = database if database is not None else postgres.from_environment()
        # one connection per thread (SQLite's connections stay in the thread that made
        # them: an app served by two event loops at once, as two test clients do); on
        # PostgreSQL one for the whole server, used by one thread at a time (the server's
        # threads would otherwise each hold one of the database's few connections)
        self._journals: dict[int, Journal] = {}
        self._lock = threading.RLock()
        self._listeners: list[postgres.Listener] = []

    def _opened(self, create: bool) -> Journal | None:
        journal = self._journals.get(self._key())
        if journal is None:
            if not create and self.database is None and not self.path.exists():
                return None
            try:
                journal = Journal(self.path, create, database=self.database)
            except NoJournal:  # (a database with no journal yet: nothing told)
                return None
            self._journals[self._key()] = journal
        return journal

    def _key(self) -> int:
        return 0 if self.database is not None else threading.get_ident()

    def listen(self, table: str, wake) -> None:
        """Call `wake()` when another process tells `table` something (PostgreSQL's
        NOTIFY; with SQLite nothing: the pages look at the file now and then)."""
        if self.database is not None:
            self._listeners.append(postgres.Listener(self.database, table, wake))

    def _writing(self) -> Journal:
        journal = self._opened(create=True)
        assert journal is not None  # (made when it was not there)
        return journal

    @_one_at_a_time
    def close(self) -> None:
        journal = self._journals.pop(self._key(), None)
        if journal is not None:
            journal.close()
        for listener in self._listeners:
            listener.stop()
        self._listeners.clear()

    def add_event(self, table: str, kind: str, audience: str, who: str, data: dict) -> int:
        return self.add_events(table, [(kind, audience, who, event_text(data))])

    @_one_at_a_time
    def add_events(self, table: str, rows: list) -> int:
        """Events kept in one transaction, each `(kind, audience, who, text)` (`text`: its
        data's JSON, told.event_text); the number of the last."""
        journal = self._writing()
        number = 0
        with journal.transaction() as connection:
            for kind, audience, who, text in rows:
                cursor = connection.execute(
                    "INSERT INTO table_events (id, table_name, at, kind, audience, who, data) "
                    "VALUES ((SELECT coalesce(max(id), 0) + 1 FROM table_events), "
                    "?, ?, ?, ?, ?, ?) RETURNING id",
                    (table, _now(), kind, audience, who, text),
                )
                number = int(cursor.fetchone()[0])
            if isinstance(connection, postgres.PostgresConnection):
                connection.notify(table)
        return number

    @_one_at_a_time
    def let_go(self) -> None:
        """The calling thread's SQLite connection closed (the thread ends; on PostgreSQL
        the one connection stays, the server's)."""
        if self.database is None:
            journal = self._journals.pop(self._key(), None)
            if journal is not None:
                journal.close()

    @_one_at_a_time
    def events_after(self, table: str, after: int | None, gm: bool) -> list[Event]:
        """The events after number `after` (None: the latest MAX_EVENTS_READ), oldest first."""
        journal = self._opened(create=False)
        if journal is None:
            return []
        audiences = ("all", "gm") if gm else ("all",)
        rows = journal._all(
            "SELECT id, at, kind, audience, who, data FROM table_events WHERE table_name = ? "
            f"AND id > ? AND audience IN ({', '.join('?' * len(audiences))}) "
            f"ORDER BY id {'DESC' if after is None else ''} LIMIT ?",
            (table, after or 0, *audiences, MAX_EVENTS_READ),
        )
        if after is None:
            rows.reverse()
        out = []
        for id_, at, kind, audience, who, data in rows:
            try:
                parsed = json.loads(data)
            except (TypeError, ValueError):
                parsed = {}
            data = parsed if isinstance(parsed, dict) else {}
            out.append(Event(id_, at, kind, audience, who, data))
        return out

    @_one_at_a_time
    def last_event(self, table: str) -> int:
        journal = self._opened(create=False)
        if journal is None:
            return 0
        row = journal._one("SELECT MAX(id) FROM table_events WHERE table_name = ?", (table,))
        return int(row[0] or 0) if row else 0

    @_one_at_a_time
    def add_seat(self, table: str, secret: str, code: str, player: str) -> None:
        journal = self._writing()
        with journal.transaction() as connection:
            connection.execute(
                "INSERT INTO table_seats (secret, table_name, code, player, at) "
                "VALUES (?, ?, ?, ?, ?)",
                (digest(secret), table, digest(code), player, _now()),
            )

    @_one_at_a_time
    def seat(self, table: str, secret: str, code: str) -> Seat | None:
        journal = self._opened(create=False)
        if journal is None:
            return None
        row = journal._one(
            "SELECT player, rulebook, character FROM table_seats "
            "WHERE secret = ? AND table_name = ? AND code = ?",
            (digest(secret), table, digest(code)),
        )
        return Seat(*row) if row else None

    @_one_at_a_time
    def claim(self, table: str, secret: str, rulebook: str, character: str) -> None:
        journal = self._writing()
        with journal.transaction() as connection:
            connection.execute(
                "UPDATE table_seats SET rulebook = ?, character = ? "
                "WHERE secret = ? AND table_name = ?",
                (rulebook, character, digest(secret), table),
            )

    @_one_at_a_time
    def seats(self, table: str, code: str) -> list[Seat]:
        journal = self._opened(create=False)
        if journal is None:
            return []
        rows = journal._all(
            "SELECT player, rulebook, character FROM table_seats "
            "WHERE table_name = ? AND code = ? ORDER BY at LIMIT ?",
            (table, digest(code), MAX_EVENTS_READ),
        )
        return [Seat(*row) for row in rows]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
