"""The journal on PostgreSQL (`--database postgresql://...`): its connection, tables, notices.

SQLite (`journal.sqlite` in the folder) stays the default and needs nothing; with a
PostgreSQL URL (`--database`, or `$RULEBOOK_DATABASE`) the same tables, at the same schema
version, live in that database, and several server processes, on one machine or several,
share one journal and one table. `PostgresConnection` answers the journal's statements as
a sqlite3 connection does (`?` parameters, the same SQL): the journal's code is one for
both. Writers take one lock per journal (an advisory lock), as SQLite's `BEGIN IMMEDIATE`
does, so numbers are given as SQLite gives them. A table's event is announced with NOTIFY
on `CHANNEL`; `Listener` wakes the pages of every other server process at once.

One database (or one schema: `?options=-csearch_path%3Dcampaign`) is one campaign's
journal; the sheets it names are files below the served folder, as with SQLite.
"""

from __future__ import annotations

import os
import threading
import urllib.parse
from collections.abc import Callable

from dsl.messages import tr
from interpreter.journal.errors import JournalError

#: the environment variable naming the database (`--database` sets it for the process)
DATABASE_ENV = "RULEBOOK_DATABASE"
SCHEMES = ("postgresql://", "postgres://")
#: milliseconds one statement may take at most (no read or write holds a server for ever)
STATEMENT_TIMEOUT_MS = 60_000
#: seconds to reach the database at most
CONNECT_SECONDS = 10
#: the channel the table's events are announced on (payload: schema and table name)
CHANNEL = "rulebook_table"
#: seconds a listener waits for a notice before it looks whether it should stop
LISTEN_SECONDS = 1.0

_SCHEMA_5 = """
CREATE TABLE texts (hash TEXT PRIMARY KEY, body BYTEA NOT NULL);
CREATE TABLE rulebooks (
    hash TEXT PRIMARY KEY, name TEXT NOT NULL, title TEXT NOT NULL, path TEXT NOT NULL,
    sources TEXT NOT NULL
);
CREATE TABLE runs (
    id BIGINT PRIMARY KEY,
    at TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('run', 'undo', 'rulebook')),
    state TEXT NOT NULL CHECK (state IN ('pending', 'applied')),
    rulebook TEXT REFERENCES rulebooks (hash),
    action TEXT,
    params TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    dice TEXT NOT NULL DEFAULT '[]',
    origin TEXT NOT NULL DEFAULT 'none',
    seed TEXT,
    undoes BIGINT REFERENCES runs (id),
    value_form INTEGER
);
CREATE TABLE run_sheets (
    run BIGINT NOT NULL REFERENCES runs (id),
    role TEXT NOT NULL,
    sheet TEXT NOT NULL,
    format TEXT NOT NULL CHECK (format IN ('yaml', 'json', 'rules')),
    before TEXT REFERENCES texts (hash),
    after TEXT REFERENCES texts (hash),
    PRIMARY KEY (run, role)
);
CREATE INDEX run_sheets_by_sheet ON run_sheets (sheet, run);
CREATE TABLE changes (
    run BIGINT NOT NULL REFERENCES runs (id),
    role TEXT NOT NULL,
    seq INTEGER NOT NULL,
    path TEXT NOT NULL,
    before TEXT,
    after TEXT,
    PRIMARY KEY (run, role, seq)
);
CREATE TABLE choices (
    run BIGINT NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    chooser TEXT,
    how TEXT,
    PRIMARY KEY (run, seq)
);
CREATE TABLE table_events (
    id BIGINT PRIMARY KEY,
    table_name TEXT NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    audience TEXT NOT NULL CHECK (audience IN ('all', 'gm')),
    who TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX table_events_by_table ON table_events (table_name, id);
CREATE TABLE table_seats (
    secret TEXT PRIMARY KEY,
    table_name TEXT NOT NULL,
    code TEXT NOT NULL,
    player TEXT NOT NULL,
    rulebook TEXT,
    character TEXT,
    at TEXT NOT NULL
);
"""

# Version 6 (as SQLite's): a character's sheet made or edited in the page, by hand (kind
# `sheet`); PostgreSQL changes a CHECK in place (its name is the one PostgreSQL gave it).
_VERSION_6 = """
ALTER TABLE runs DROP CONSTRAINT runs_kind_check;
ALTER TABLE runs ADD CONSTRAINT runs_kind_check
    CHECK (kind IN ('run', 'undo', 'rulebook', 'sheet'));
"""

#: the tables of each schema version a PostgreSQL journal can be made at (the first is 5:
#: the version SQLite's journal had when PostgreSQL came), and the steps after it:
#: MIGRATIONS[v] brings a journal at version v to v + 1
MIGRATIONS: dict[int, str] = {5: _VERSION_6}
FIRST_VERSION = 5


def body_of(text: str) -> bytes:
    """A text as `texts.body` keeps it on PostgreSQL: its UTF-8 bytes (a PostgreSQL text
    holds no NUL character; a sheet or a rulebook file may)."""
    return text.encode("utf-8")


def text_of(body) -> str | None:
    """A stored body as the text it is (SQLite's, or PostgreSQL's bytes); None for what is
    not a text."""
    if isinstance(body, memoryview | bytes):
        try:
            return bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return body if isinstance(body, str) else None


def is_postgres(url: str | None) -> bool:
    return bool(url) and str(url).startswith(SCHEMES)


def from_environment() -> str | None:
    """The database `$RULEBOOK_DATABASE` names (None: SQLite, the folder's file)."""
    return os.environ.get(DATABASE_ENV) or None


def shown(url: str) -> str:
    """The URL as messages name it: without its password."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(":" + parts.password + "@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise JournalError(
            tr("a PostgreSQL database needs the package psycopg"),
            hint=tr("pip install 'rulebook[postgres]'"),
        ) from None
    return psycopg


def connect(url: str, where: str):
    """A psycopg connection in autocommit mode, its statements bounded in time."""
    psycopg = _psycopg()
    try:
        connection = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS)
        connection.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
    except psycopg.Error as error:
        raise JournalError(
            tr("{path}: cannot be reached ({error})", path=where, error=str(error)[:200])
        ) from None
    return connection


class PostgresConnection:
    """A journal's connection to PostgreSQL, asked as a sqlite3 connection is."""

    def __init__(self, url: str, where: str):
        self.where = where
        self.errors: tuple[type[Exception], ...] = (_psycopg().Error, OverflowError)
        self._connection = connect(url, where)

    def execute(self, query: str, args=()):
        # the journal's statements are its own text (no `%`, no `?` but its parameters)
        return self._connection.execute(query.replace("?", "%s"), tuple(args))

    @property
    def in_transaction(self) -> bool:
        idle = _psycopg().pq.TransactionStatus.IDLE
        return self._connection.info.transaction_status != idle

    def begin(self) -> None:
        """A transaction that writes: one writer of this journal at a time (as SQLite)."""
        self.execute("BEGIN")
        self.execute("SELECT pg_advisory_xact_lock(hashtext('rulebook ' || current_schema()))")

    def close(self) -> None:
        self._connection.close()

    def exists(self) -> bool:
        row = self.execute("SELECT to_regclass('journal_schema')").fetchone()
        return row is not None and row[0] is not None

    def migrate(self, version: int) -> None:
        """Create the journal's tables, or bring them up to `version`; a journal newer than
        this code is refused rather than misread."""
        self.begin()
        try:
            if not self.exists():
                for statement in _statements(_SCHEMA_5):
                    self.execute(statement)
                self.execute("CREATE TABLE journal_schema (version INTEGER NOT NULL)")
                self.execute("INSERT INTO journal_schema (version) VALUES (?)", (FIRST_VERSION,))
            found = self.execute("SELECT max(version) FROM journal_schema").fetchone()[0]
            if found > version:
                raise JournalError(
                    tr(
                        (
                            "{path}: journal schema version {version} is newer than "
                            "this rulebook understands ({version2})"
                        ),
                        path=self.where,
                        version=found,
                        version2=version,
                    ),
                    hint=tr("upgrade rulebook to read it"),
                )
            while found < version:
                for statement in _statements(MIGRATIONS[found]):
                    self.execute(statement)
                found += 1
                self.execute("UPDATE journal_schema SET version = ?", (found,))
            self.execute("COMMIT")
        except BaseException:
            if self.in_transaction:
                self.execute("ROLLBACK")
            raise

    def version(self) -> int:
        return int(self.execute("SELECT max(version) FROM journal_schema").fetchone()[0])

    def notify(self, table: str) -> None:
        """Announce a table's new event (sent when the transaction commits)."""
        self.execute("SELECT pg_notify(?, current_schema() || ?)", (CHANNEL, "\n" + table))


class Listener:
    """A thread that LISTENs on `CHANNEL` and calls `wake()` for every notice about one
    table of one journal (its schema): another server process told that table something."""

    def __init__(self, url: str, table: str, wake: Callable[[], None]):
        self.url = url
        self.table = table
        self.wake = wake
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rulebook-listen", daemon=True)
        self._thread.start()
        self._listening.wait(CONNECT_SECONDS)

    def _run(self) -> None:
        psycopg = _psycopg()
        while not self._stop.is_set():
            try:
                with connect(self.url, shown(self.url)) as connection:
                    schema = connection.execute("SELECT current_schema()").fetchone()[0]
                    connection.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    wanted = f"{schema}\n{self.table}"
                    while not self._stop.is_set():
                        for notice in connection.notifies(timeout=LISTEN_SECONDS):
                            if notice.payload == wanted:
                                self.wake()
            except (psycopg.Error, JournalError):
                # the database went away: the pages still look at the store now and then
                # (interpreter.web.tabletop.addresses.POLL_SECONDS); listen again soon
                self._listening.set()
                self._stop.wait(LISTEN_SECONDS)

    def stop(self) -> None:
        self._stop.set()


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
