"""The journal database: an embedded SQLite file (WAL) or PostgreSQL, its entries, texts.

`Journal(path)` opens (and on the first write creates) `journal.sqlite`. Writes are
transactions with `synchronous=FULL`, so a committed entry survives a crash; readers
never block the writer (WAL). Entries come back as `Entry` values. With a PostgreSQL URL
(`database=`, else `$RULEBOOK_DATABASE`) the same tables and statements live there
(interpreter.journal.postgres); `path` still names the folder the sheets are in.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from dsl.load import MAX_FILE_SIZE
from dsl.messages import tr
from interpreter import safe_files
from interpreter.errors import ParameterError
from interpreter.journal import entries, postgres, schema
from interpreter.journal.entries import ESCAPE, VALUE_FORM, Entry, SheetState, read_back
from interpreter.journal.errors import JournalError, NoJournal
from interpreter.journal.sqlite_file import journal_file
from interpreter.sheets.character import MAX_SHEET_SIZE, text_digest
from interpreter.values import FRACTION_FORM, FractionText

__all__ = ["ESCAPE", "JOURNAL_NAME", "VALUE_FORM", "Entry", "Journal", "SheetState", "read_back"]

JOURNAL_NAME = "journal.sqlite"
#: how long a writer waits for another process's transaction, in milliseconds
BUSY_TIMEOUT_MS = 30_000
#: bytes of a file read back to check a save or an undo, at most: as any sheet, or as any
#: rulebook file (a rulebook saved over is journaled too)
#: bytes of one value the journal holds (a text, a row's JSON), at most: a rulebook file
#: is at most 2 MB and a sheet 1 MB; a hostile journal's larger value is refused unread
MAX_VALUE_BYTES = 32_000_000
#: SQLite's steps (virtual machine instructions) one statement may take, at most: a
#: hostile journal's views or triggers could loop; the largest journal's check is far less
MAX_STEPS = 2_000_000_000
_STEPS_PER_CALL = 100_000
MAX_FILE_BYTES = max(MAX_SHEET_SIZE, MAX_FILE_SIZE)


def _unreadable(path: Path | str, error: Exception) -> JournalError:
    return JournalError(tr("{path}: not a readable journal ({error})", path=path, error=error))


class Journal:
    """A campaign's journal. Safe to use from several processes at once."""

    def __init__(self, path: str | Path, create: bool = True, database: str | None = None):
        self.path = Path(path)
        self.folder = self.path.parent
        self._root: Path | None = None
        self._steps = [0]  # SQLite's steps of the statement under way (see _bounded)
        url = database if database is not None else postgres.from_environment()
        #: the journal as messages name it: its file, or its database's URL
        self.where = str(self.path) if url is None else postgres.shown(url)
        self.errors: tuple[type[Exception], ...] = (sqlite3.Error, OverflowError)
        if url is not None:
            self._open_postgres(url, create)
            return
        exists = journal_file(self.path)
        if not create and not exists:
            raise NoJournal(
                tr("no journal at {path}", path=self.where),
                hint=tr(
                    "a journal is created by the first `rulebook run "
                    "... --save`; or pass --journal PATH"
                ),
            )
        # Two processes opening a new journal at once (a server's workers saving in one
        # folder) may find it locked while the other sets it up, where SQLite does not
        # wait (switching to WAL): opened again until the busy timeout.
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self.connection = self._opened()
                return
            except sqlite3.OperationalError as error:
                busy = "locked" in str(error) or "busy" in str(error)
                if not busy or time.monotonic() > deadline:
                    raise _unreadable(self.path, error) from None
                time.sleep(0.02)
            except sqlite3.Error as error:
                raise _unreadable(self.path, error) from None

    def _open_postgres(self, url: str, create: bool) -> None:
        if not postgres.is_postgres(url):
            raise JournalError(
                tr("{path}: not a PostgreSQL URL (postgresql://...)", path=self.where),
                hint=tr("leave --database out: the journal is journal.sqlite in the folder"),
            )
        connection = postgres.PostgresConnection(url, self.where)
        self.errors = connection.errors
        try:
            if not create and not connection.exists():
                raise NoJournal(
                    tr("no journal at {path}", path=self.where),
                    hint=tr("a journal is created by the first `rulebook run ... --save`"),
                )
            connection.migrate(schema.VERSION)
        except self.errors as error:
            connection.close()
            raise _unreadable(self.where, error) from None
        except BaseException:
            connection.close()
            raise
        self.connection = connection  # type: ignore[assignment]

    @property
    def on_postgres(self) -> bool:
        return isinstance(self.connection, postgres.PostgresConnection)

    def _opened(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
        )
        try:
            _bounded(connection, self._steps)
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            schema.migrate(connection, str(self.path))
        except BaseException:
            connection.close()
            raise
        return connection

    @classmethod
    def beside(cls, sheet_path: str | Path, create: bool = True) -> Journal:
        """The journal of the folder a sheet is in."""
        return cls(Path(sheet_path).resolve().parent / JOURNAL_NAME, create)

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ─── paths ──────────────────────────────────────────────────────────────

    @property
    def root(self) -> Path:
        """The journal's folder, as it is (its links resolved once): every sheet it names
        is a file below it."""
        if self._root is None:
            self._root = self.folder.resolve()
        return self._root

    def stored_path(self, path: str | Path) -> str:
        """How a sheet file is named in the journal, to look it up: relative to its
        folder (a file outside it gets its absolute path, as journals written before
        saves were confined to the folder named one; no save names one so now)."""
        resolved = Path(path).resolve()
        try:
            return resolved.relative_to(self.root).as_posix()
        except ValueError:
            return str(resolved)

    def place_for(self, path: str | Path) -> safe_files.Inside:
        """Where a save of the sheet file `path` writes, and the name the journal gives
        it (see `place_below`)."""
        return place_below(self.folder, path, self.root)

    def place_of(self, stored: str) -> safe_files.Inside:
        """The file an entry names: a plain relative name below the journal's folder
        (reached without following a link), never a path taken as it is; a JournalError
        for anything else (an absolute path, `..`)."""
        try:
            return safe_files.Inside.named(self.root, stored)
        except ValueError as error:
            raise JournalError(
                tr(
                    "{path}: the journal names the sheet {name}, which is not a file in its "
                    "folder ({reason}): nothing is read or written there",
                    path=self.where,
                    name=repr(stored)[:200],
                    reason=error.args[0],
                ),
                hint=tr("an entry only a hand or another program wrote; see `rulebook log`"),
            ) from None

    def file_of(self, stored: str) -> Path:
        """The path of a file an entry names (checked as `place_of` checks it)."""
        return self.place_of(stored).path

    # ─── writing ────────────────────────────────────────────────────────────

    @contextmanager
    def transaction(self, nothing_saved: bool = False):
        """One transaction; what SQLite refuses (a read-only folder, a full disk, a
        damaged or hostile file) a JournalError (`nothing_saved`: and said so)."""
        self._steps[0] = 0
        try:
            with _Transaction(self.connection) as connection:
                yield connection
        except self.errors as error:
            said = (
                tr(
                    "{path}: cannot be written ({error}); nothing was saved",
                    path=self.where,
                    error=error,
                )
                if nothing_saved
                else tr("{path}: cannot be written ({error})", path=self.where, error=error)
            )
            raise JournalError(said) from None

    def put_text(self, text: str | None) -> str | None:
        if text is None:  # no file (before it was made, or after an undo took it away)
            return None
        digest = text_digest(text)
        self.connection.execute(
            "INSERT INTO texts (hash, body) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (digest, postgres.body_of(text) if self.on_postgres else text),
        )
        return digest

    def put_rulebook(self, bundle) -> str:
        sources = [
            {"file": s.file, "extends": s.extends, "text": self.put_text(s.text)}
            for s in bundle.sources
        ]
        self.connection.execute(
            "INSERT INTO rulebooks (hash, name, title, path, sources) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (bundle.hash, bundle.name, bundle.title, bundle.path, json.dumps(sources)),
        )
        return bundle.hash

    def add_entry(
        self,
        *,
        kind: str,
        sheets: list,  # of (role, file: an Inside or a path, format, text before, after)
        changes: list,  # of (role, path, before, after), JSON values
        rulebook=None,  # a Bundle, or the hash of one already stored
        action: str | None = None,
        params: dict | None = None,
        result=None,
        dice=(),
        origin: str = "none",
        seed: int | None = None,
        choices=(),
        undoes: int | None = None,
    ) -> int:
        """Write a `pending` entry (one transaction); return its number."""
        with self.transaction(nothing_saved=True):
            digest = rulebook  # a hash already stored, or None (a rulebook file's save)
            if rulebook is not None and not isinstance(rulebook, str):
                digest = self.put_rulebook(rulebook)
            # numbered as SQLite numbers a row (the largest number and one: writers take
            # turns), in either database
            cursor = self.connection.execute(
                "INSERT INTO runs (id, at, kind, state, rulebook, action, params, result, "
                "dice, origin, seed, undoes, value_form) "
                "VALUES ((SELECT coalesce(max(id), 0) + 1 FROM runs), "
                "?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    datetime.now(UTC).isoformat(timespec="milliseconds"),
                    kind,
                    digest,
                    action,
                    _json(stored(params or {})),
                    _json(stored(result)),
                    _json(list(dice)),
                    origin,
                    None if seed is None else str(seed),
                    undoes,
                    VALUE_FORM,
                ),
            )
            number = int(cursor.fetchone()[0])
            for role, path, text_format, before, after in sheets:
                self.connection.execute(
                    "INSERT INTO run_sheets (run, role, sheet, format, before, after) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        number,
                        role,
                        (
                            path if isinstance(path, safe_files.Inside) else self.place_for(path)
                        ).name,
                        text_format,
                        self.put_text(before),
                        self.put_text(after),
                    ),
                )
            for seq, (role, path, before, after) in enumerate(changes):
                self.connection.execute(
                    "INSERT INTO changes (run, role, seq, path, before, after) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (number, role, seq, path, _json(stored(before)), _json(stored(after))),
                )
            for seq, choice in enumerate(choices):
                self.connection.execute(
                    "INSERT INTO choices (run, seq, name, value, chooser, how) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        number,
                        seq,
                        choice["name"],
                        _json(stored(choice["value"])),
                        choice.get("chooser"),
                        choice.get("how"),
                    ),
                )
        return number

    def mark_applied(self, number: int) -> None:
        with self.transaction():
            self.connection.execute("UPDATE runs SET state = 'applied' WHERE id = ?", (number,))

    def discard(self, number: int) -> None:
        """Drop a pending entry whose files were all put back as they were (a save the
        file system refused): as if it had never been written."""
        with self.transaction():
            if self.connection.execute(
                "SELECT 1 FROM runs WHERE id = ? AND state = 'pending'", (number,)
            ).fetchone():
                for table in ("changes", "choices", "run_sheets"):
                    self.connection.execute(f"DELETE FROM {table} WHERE run = ?", (number,))
                self.connection.execute("DELETE FROM runs WHERE id = ?", (number,))

    # ─── reading ────────────────────────────────────────────────────────────

    def text(self, digest: str | None) -> str | None:
        """A stored text by its hash; a text that does not match it is refused."""
        if digest is None:
            return None
        row = self._one("SELECT body FROM texts WHERE hash = ?", (digest,))
        if row is None:
            raise JournalError(
                tr("{path}: the text {value} is missing", path=self.where, value=str(digest)[:12])
            )
        body = postgres.text_of(row[0])
        if not isinstance(body, str) or text_digest(body) != digest:
            raise JournalError(
                tr(
                    "{path}: stored text {digest} does not match its hash",
                    path=self.where,
                    digest=str(digest)[:12],
                )
            )
        return body

    def stored_texts(self) -> list[tuple]:
        """Every (hash, text) the journal keeps, as stored: a hash or a body that is not
        a text is given as None (`journal verify` says so)."""
        return [
            (digest if isinstance(digest, str) else None, postgres.text_of(body))
            for digest, body in self._all("SELECT hash, body FROM texts")
        ]

    def rulebook_row(self, digest: str | None) -> dict:
        if not isinstance(digest, str):  # a run's entry that names none (a hand-made row)
            raise JournalError(tr("{path}: the entry names no rulebook", path=self.where))
        row = self._one(
            "SELECT name, title, path, sources FROM rulebooks WHERE hash = ?", (digest,)
        )
        if row is None:
            raise JournalError(
                tr("{path}: the rulebook {value} is missing", path=self.where, value=digest[:12])
            )
        try:
            return entries.rulebook_of(digest, row)
        except entries.Damaged as damaged:
            raise JournalError(
                tr(
                    "{path}: the rulebook {value} is damaged ({column}: {reason})",
                    path=self.where,
                    value=digest[:12],
                    column=damaged.column,
                    reason=damaged.reason,
                )
            ) from None

    def entry(self, number: int) -> Entry:
        found = self.entries(numbers=[number])
        if not found:
            last = self._one("SELECT max(id) FROM runs")[0]
            hint = (
                tr("runs are numbered 1 to {last}", last=last)
                if last
                else tr("the journal is empty")
            )
            raise NoJournal(tr("the journal has no run {number}", number=number), hint=hint)
        return found[0]

    def entries(
        self,
        sheet: str | None = None,
        numbers=None,
        newest_first: bool = False,
        limit: int | None = None,
        state: str | None = None,
    ) -> list[Entry]:
        """Entries in order (by number), optionally those touching one sheet file."""
        where, args = [], []
        if sheet is not None:
            where.append("id IN (SELECT run FROM run_sheets WHERE sheet = ?)")
            args.append(sheet)
        if numbers is not None:
            where.append(f"id IN ({', '.join('?' * len(numbers))})")
            args.extend(numbers)
        if state is not None:
            where.append("state = ?")
            args.append(state)
        query = (
            "SELECT runs.id, at, kind, state, runs.rulebook, rulebooks.name, action, params, "
            "result, dice, origin, seed, undoes, value_form FROM runs "
            "LEFT JOIN rulebooks ON rulebooks.hash = runs.rulebook"
        )
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY runs.id" + (" DESC" if newest_first else "")
        if limit is not None:
            query += f" LIMIT {int(limit)}"
        return [self._entry(row) for row in self._all(query, args)]

    def _entry(self, row) -> Entry:
        number = row[0]
        try:
            return entries.entry_of(
                row,
                self._all(
                    "SELECT role, sheet, format, before, after FROM run_sheets WHERE run = ? "
                    "ORDER BY role != 'self', role",
                    (number,),
                ),
                self._all(
                    "SELECT role, path, before, after FROM changes WHERE run = ? ORDER BY seq",
                    (number,),
                ),
                self._all(
                    "SELECT name, value, chooser, how FROM choices WHERE run = ? ORDER BY seq",
                    (number,),
                ),
            )
        except entries.Damaged as damaged:
            raise JournalError(
                tr(
                    "{path}: entry {number} is damaged ({column}: {reason})",
                    path=self.where,
                    number=str(number)[:40],
                    column=damaged.column,
                    reason=damaged.reason,
                ),
                hint=tr("an entry only a hand or another program wrote; see `rulebook log`"),
            ) from None

    def sheet_paths(self) -> list[str]:
        """Every sheet name the journal's entries give (each checked where it is used)."""
        names = self._all("SELECT DISTINCT sheet FROM run_sheets")
        return [r[0] for r in names if isinstance(r[0], str)]  # (entries() says the rest)

    def integrity(self) -> list[str]:
        """SQLite's own check of the file, and of the references between tables."""
        if self.on_postgres:  # (PostgreSQL keeps its references itself, and its pages)
            return []
        problems = [r[0] for r in self._all("PRAGMA integrity_check") if r[0] != "ok"]
        problems += [
            f"{r[0]} row {r[1]} refers to a missing {r[2]}"
            for r in self._all("PRAGMA foreign_key_check")
        ]
        return problems

    def _all(self, query: str, args=()) -> list:
        """The rows of a query; what SQLite refuses to give (a value past
        MAX_VALUE_BYTES, text that is not UTF-8, a statement past MAX_STEPS, a damaged
        file) a JournalError."""
        self._steps[0] = 0
        try:
            return self.connection.execute(query, args).fetchall()
        except self.errors as error:
            if self._steps[0] > MAX_STEPS:
                raise JournalError(
                    tr(
                        "{path}: reading it took more than {most} steps (a view or a trigger "
                        "that loops?): not a journal rulebook wrote",
                        path=self.where,
                        most=MAX_STEPS,
                    )
                ) from None
            raise JournalError(
                tr("{path}: a damaged entry ({error})", path=self.where, error=str(error)[:200])
            ) from None

    def _one(self, query: str, args=()):
        found = self._all(query, args)
        return found[0] if found else None


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on any failure); on PostgreSQL, BEGIN and
    the journal's writer lock."""

    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection

    def __enter__(self):
        if isinstance(self.connection, postgres.PostgresConnection):
            self.connection.begin()
        else:
            self.connection.execute("BEGIN IMMEDIATE")
        return self.connection

    def __exit__(self, kind, error, traceback) -> None:
        if kind is None:
            self.connection.execute("COMMIT")
        elif self.connection.in_transaction:
            self.connection.execute("ROLLBACK")


def stored(value):
    """A value in the journal's lossless form (interpreter.values.to_json) as a run is
    written: a fraction as its text ("7/2"); a text that reads like one, or begins with
    ESCAPE, after an ESCAPE, so that it reads back as the text it is."""
    if isinstance(value, str):
        if type(value) is FractionText:
            return str(value)
        if value.startswith(ESCAPE) or FRACTION_FORM.fullmatch(value):
            return ESCAPE + value
        return value
    if isinstance(value, list | tuple):
        return [stored(v) for v in value]
    if isinstance(value, dict):
        return {k: stored(v) for k, v in value.items()}
    return value


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def default_journal(folder: str | Path | None = None) -> Path:
    """`journal.sqlite` in `folder` (the current folder by default)."""
    return Path(folder if folder is not None else os.getcwd()) / JOURNAL_NAME


def place_below(folder: Path, path: str | Path, root: Path | None = None) -> safe_files.Inside:
    """The sheet file `path` as the journal of `folder` names it, to be saved: a file
    below the folder that is not a symbolic link (Refused: a save never writes through
    one), else a ParameterError (a journal keeps the sheets of its own folder). The links
    of the folders on the way, which the person or app named, are resolved once."""
    path = Path(path)
    safe_files.Inside.beside(path).refuse_link()
    root = root if root is not None else folder.resolve()
    real = path.parent.resolve() / path.name
    try:
        return safe_files.Inside.named(root, real.relative_to(root).as_posix())
    except ValueError:
        raise ParameterError(
            tr(
                "{path} is not in the journal's folder ({folder}): a journal keeps the "
                "sheets of its own folder and the folders below it",
                path=str(path),
                folder=str(root),
            ),
            hint=tr(
                "keep a campaign's sheets under one folder, or pass --journal with the "
                "journal of a folder that holds them"
            ),
        ) from None


def _bounded(connection: sqlite3.Connection, steps: list) -> None:
    """A connection that reads a hostile file within bounds: no value past
    MAX_VALUE_BYTES, no statement past MAX_STEPS (counted in `steps[0]`, which the
    journal sets back to 0 before each statement or transaction), no function with side
    effects run by the file's own views or triggers."""
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    connection.execute("PRAGMA trusted_schema = OFF")

    def count() -> int:
        steps[0] += _STEPS_PER_CALL
        return 1 if steps[0] > MAX_STEPS else 0  # non-zero: SQLite stops the statement

    connection.set_progress_handler(count, _STEPS_PER_CALL)
