"""The journal database: an embedded SQLite file (WAL), its entries, and their texts.

`Journal(path)` opens (and on the first write creates) `journal.sqlite`. Writes are
transactions with `synchronous=FULL`, so a committed entry survives a crash; readers
never block the writer (WAL). Entries come back as `Entry` values.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import attrs

from dsl.messages import tr
from interpreter.journal import schema
from interpreter.journal.errors import JournalError, NoJournal
from interpreter.sheet import text_digest
from interpreter.values import FRACTION_FORM, FractionText

JOURNAL_NAME = "journal.sqlite"
#: how long a writer waits for another process's transaction, in milliseconds
BUSY_TIMEOUT_MS = 30_000
#: the form of the values a run is written with (schema.py, version 3): texts that read
#: like a fraction, or begin with ESCAPE, are written after an ESCAPE
VALUE_FORM = 1
ESCAPE = "\x00"


@attrs.frozen
class SheetState:
    """One character's sheet in one entry (or a rulebook file: role "rulebook", format
    "rules"): its file, and its text before and after."""

    role: str  # "self" for the acting character; another's parameter name
    path: str  # as stored: relative to the journal's folder when inside it
    text_format: str
    before: str | None  # hash of the text the run started from (None: no file yet)
    after: str | None  # hash of the text written (None: the file taken away)


@attrs.frozen
class Entry:
    """One saved run (or undo, or rulebook file saved over) as the journal holds it."""

    id: int
    at: str
    kind: str  # "run" | "undo" | "rulebook"
    state: str  # "pending" | "applied"
    rulebook: str | None  # hash
    rulebook_name: str | None
    action: str | None
    params: dict
    result: object
    dice: tuple
    origin: str
    seed: int | None
    undoes: int | None
    sheets: tuple  # of SheetState
    changes: tuple  # of dicts: role, path, before, after (every character's, in order)
    choices: tuple  # of dicts: name, value, chooser (a role), how (None before version 2)

    def sheet(self, role: str = "self") -> SheetState | None:
        return next((s for s in self.sheets if s.role == role), None)

    def sheet_of(self, stored_path: str) -> SheetState | None:
        """This entry's state of one sheet file, if it touched it."""
        return next((s for s in self.sheets if s.path == stored_path), None)

    def to_json(self, undone_by: int | None = None) -> dict:
        """The entry as `rulebook log --json` prints it (`undone_by`: the undo that took
        it back, if one did)."""
        return {
            "entry": self.id,
            "at": self.at,
            "kind": self.kind,
            "state": self.state,
            "sheets": [s.path for s in self.sheets],
            "action": self.action,
            "params": self.params,
            "result": self.result,
            "changes": list(self.changes),
            "choices": list(self.choices),
            "undoes": self.undoes,
            "undone_by": undone_by,
        }


class Journal:
    """A campaign's journal. Safe to use from several processes at once."""

    def __init__(self, path: str | Path, create: bool = True):
        self.path = Path(path)
        self.folder = self.path.parent
        if not create and not self.path.exists():
            raise NoJournal(
                tr("no journal at {path}", path=self.path),
                hint=tr(
                    "a journal is created by the first `rulebook run "
                    "... --save`; or pass --journal PATH"
                ),
            )
        try:
            self.connection = sqlite3.connect(
                self.path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
            )
            self.connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self.connection.execute("PRAGMA journal_mode = WAL")
            self.connection.execute("PRAGMA synchronous = FULL")
            self.connection.execute("PRAGMA foreign_keys = ON")
            schema.migrate(self.connection, str(self.path))
        except sqlite3.DatabaseError as error:
            raise JournalError(
                tr("{path}: not a readable journal ({error})", path=self.path, error=error)
            ) from None

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

    def stored_path(self, path: str | Path) -> str:
        """How a sheet file is named in the journal: relative to its folder if inside."""
        resolved = Path(path).resolve()
        try:
            return resolved.relative_to(self.folder.resolve()).as_posix()
        except ValueError:
            return str(resolved)

    def file_of(self, stored: str) -> Path:
        path = Path(stored)
        return path if path.is_absolute() else self.folder / path

    # ─── writing ────────────────────────────────────────────────────────────

    def transaction(self):
        return _Transaction(self.connection)

    def put_text(self, text: str | None) -> str | None:
        if text is None:  # no file (before it was made, or after an undo took it away)
            return None
        digest = text_digest(text)
        self.connection.execute(
            "INSERT OR IGNORE INTO texts (hash, body) VALUES (?, ?)", (digest, text)
        )
        return digest

    def put_rulebook(self, bundle) -> str:
        sources = [
            {"file": s.file, "extends": s.extends, "text": self.put_text(s.text)}
            for s in bundle.sources
        ]
        self.connection.execute(
            "INSERT OR IGNORE INTO rulebooks (hash, name, title, path, sources) "
            "VALUES (?, ?, ?, ?, ?)",
            (bundle.hash, bundle.name, bundle.title, bundle.path, json.dumps(sources)),
        )
        return bundle.hash

    def add_entry(
        self,
        *,
        kind: str,
        sheets: list,  # of (role, path, format, before text, after text)
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
        with self.transaction():
            digest = rulebook  # a hash already stored, or None (a rulebook file's save)
            if rulebook is not None and not isinstance(rulebook, str):
                digest = self.put_rulebook(rulebook)
            cursor = self.connection.execute(
                "INSERT INTO runs (at, kind, state, rulebook, action, params, result, dice, "
                "origin, seed, undoes, value_form) "
                "VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            number = cursor.lastrowid
            for role, path, text_format, before, after in sheets:
                self.connection.execute(
                    "INSERT INTO run_sheets (run, role, sheet, format, before, after) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        number,
                        role,
                        self.stored_path(path),
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
        if digest is None:
            return None
        row = self.connection.execute("SELECT body FROM texts WHERE hash = ?", (digest,)).fetchone()
        if row is None:
            raise JournalError(
                tr("{path}: the text {value} is missing", path=self.path, value=digest[:12])
            )
        return row[0]

    def rulebook_row(self, digest: str) -> dict:
        row = self.connection.execute(
            "SELECT name, title, path, sources FROM rulebooks WHERE hash = ?", (digest,)
        ).fetchone()
        if row is None:
            raise JournalError(
                tr("{path}: the rulebook {value} is missing", path=self.path, value=digest[:12])
            )
        name, title, path, sources = row
        return {
            "hash": digest,
            "name": name,
            "title": title,
            "path": path,
            "sources": json.loads(sources),
        }

    def entry(self, number: int) -> Entry:
        found = self.entries(numbers=[number])
        if not found:
            last = self.connection.execute("SELECT max(id) FROM runs").fetchone()[0]
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
        try:
            rows = self.connection.execute(query, args).fetchall()
            return [self._entry(row) for row in rows]
        except (sqlite3.DatabaseError, ValueError, TypeError) as error:
            raise JournalError(
                tr("{path}: a damaged entry ({error})", path=self.path, error=error)
            ) from None

    def _entry(self, row) -> Entry:
        number = row[0]
        escaped = row[13] == VALUE_FORM

        def value(text: str):
            return read_back(json.loads(text), escaped)

        sheets = tuple(
            SheetState(*r)
            for r in self.connection.execute(
                "SELECT role, sheet, format, before, after FROM run_sheets WHERE run = ? "
                "ORDER BY role != 'self', role",
                (number,),
            )
        )
        changes = tuple(
            {"role": r[0], "path": r[1], "before": value(r[2]), "after": value(r[3])}
            for r in self.connection.execute(
                "SELECT role, path, before, after FROM changes WHERE run = ? ORDER BY seq",
                (number,),
            )
        )
        choices = tuple(
            {"name": r[0], "value": value(r[1]), "chooser": r[2], "how": r[3]}
            for r in self.connection.execute(
                "SELECT name, value, chooser, how FROM choices WHERE run = ? ORDER BY seq",
                (number,),
            )
        )
        return Entry(
            id=number,
            at=row[1],
            kind=row[2],
            state=row[3],
            rulebook=row[4],
            rulebook_name=row[5],
            action=row[6],
            params=value(row[7]),
            result=value(row[8]) if row[8] is not None else None,
            dice=tuple(json.loads(row[9])),
            origin=row[10],
            seed=None if row[11] is None else int(row[11]),
            undoes=row[12],
            sheets=sheets,
            changes=changes,
            choices=choices,
        )

    def sheet_paths(self) -> list[str]:
        return [r[0] for r in self.connection.execute("SELECT DISTINCT sheet FROM run_sheets")]

    def integrity(self) -> list[str]:
        """SQLite's own check of the file, and of the references between tables."""
        problems = [r[0] for r in self.connection.execute("PRAGMA integrity_check") if r[0] != "ok"]
        problems += [
            f"{r[0]} row {r[1]} refers to a missing {r[2]}"
            for r in self.connection.execute("PRAGMA foreign_key_check")
        ]
        return problems


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on any failure)."""

    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection

    def __enter__(self):
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


def read_back(value, escaped: bool):
    """A stored value as `stored` was given it: texts of the form "7/2" are fractions
    (FractionText), an escaped text the text. `escaped` False: a run written before
    version 3, where a text "7/2" and the fraction were written alike (read as the
    fraction, the likelier)."""
    if isinstance(value, str):
        if escaped and value.startswith(ESCAPE):
            return value[1:]
        return FractionText(value) if FRACTION_FORM.fullmatch(value) else value
    if isinstance(value, list):
        return [read_back(v, escaped) for v in value]
    if isinstance(value, dict):
        return {k: read_back(v, escaped) for k, v in value.items()}
    return value


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def default_journal(folder: str | Path | None = None) -> Path:
    """`journal.sqlite` in `folder` (the current folder by default)."""
    return Path(folder if folder is not None else os.getcwd()) / JOURNAL_NAME
