"""The journal's tables, its schema version, and the migrations from older versions.

The version is SQLite's `user_version`. `migrate` brings a journal written by an older
rulebook up to `VERSION`, each step in one transaction; a journal newer than this code
is refused rather than misread.

Texts (rulebook files, sheet files) are stored once per content hash in `texts`. A run
has one row in `runs`, one row per character in `run_sheets` (the acting character is
role `self`; others are named by the parameter that took them), one row per change in
`changes` (every character's, in order) and per decision in `choices` (who chose, and
how). `state` is `pending` from the moment the entry is written until every sheet file
has been replaced, then `applied`. A rulebook file saved over (`rulebook serve`'s editor)
is an entry of kind `rulebook`: its one file, role `rulebook`, format `rules`, its text
before (none: the file was made) and after (none: an undo took it away again). A
character's sheet made or edited in the page (not by a run) is an entry of kind `sheet`:
its one file, role `self`, its text before (none: made) and after, its changes, and the
rulebook that read it (`action`: `create` or `edit`).
"""

from __future__ import annotations

import sqlite3

from dsl.messages import tr
from interpreter.journal.errors import JournalError

VERSION = 6

_VERSION_1 = """
CREATE TABLE texts (
    hash TEXT PRIMARY KEY,          -- sha256 of the UTF-8 text
    body TEXT NOT NULL
);
CREATE TABLE rulebooks (
    hash TEXT PRIMARY KEY,          -- over every file of the rulebook, see bundle.py
    name TEXT NOT NULL,             -- `brujeria`, or the file's stem
    title TEXT NOT NULL,
    path TEXT NOT NULL,             -- where it was loaded from
    sources TEXT NOT NULL           -- JSON: [{file, extends, text}], the house rule first
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,               -- UTC, ISO 8601
    kind TEXT NOT NULL CHECK (kind IN ('run', 'undo')),
    state TEXT NOT NULL CHECK (state IN ('pending', 'applied')),
    rulebook TEXT REFERENCES rulebooks (hash),
    action TEXT,
    params TEXT NOT NULL DEFAULT '{}',    -- JSON, as the run showed them
    result TEXT,                          -- JSON
    dice TEXT NOT NULL DEFAULT '[]',      -- JSON: every face, in draw order
    origin TEXT NOT NULL DEFAULT 'none',  -- seeded | forced | typed | none
    seed TEXT,                            -- the seed of seeded dice (any size of integer)
    undoes INTEGER REFERENCES runs (id)
);
CREATE TABLE run_sheets (
    run INTEGER NOT NULL REFERENCES runs (id),
    role TEXT NOT NULL,
    sheet TEXT NOT NULL,            -- the file, relative to the journal's folder if inside it
    format TEXT NOT NULL CHECK (format IN ('yaml', 'json')),
    before TEXT NOT NULL REFERENCES texts (hash),  -- the sheet the run started from
    after TEXT NOT NULL REFERENCES texts (hash),
    PRIMARY KEY (run, role)
);
CREATE INDEX run_sheets_by_sheet ON run_sheets (sheet, run);
CREATE TABLE changes (
    run INTEGER NOT NULL REFERENCES runs (id),
    role TEXT NOT NULL,
    seq INTEGER NOT NULL,
    path TEXT NOT NULL,
    before TEXT,                    -- JSON
    after TEXT,                     -- JSON
    PRIMARY KEY (run, role, seq)
);
CREATE TABLE choices (
    run INTEGER NOT NULL REFERENCES runs (id),
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,            -- JSON
    chooser TEXT,                   -- who chose: a person at the table, a policy, ...
    PRIMARY KEY (run, seq)
);
"""

# Version 2: how each choice was made (given in advance, asked at the table, the only
# option open...), as interpreter.choosers.Choice.how says; NULL in runs of version 1.
_VERSION_2 = """
ALTER TABLE choices ADD COLUMN how TEXT;
"""

# Version 3: how a run's values are written (interpreter.journal.store.stored). NULL in
# runs of versions 1 and 2: a fraction and a text that reads like one ("7/2") alike as
# that text; 1: a text that reads like a fraction is escaped, so the two stay apart.
_VERSION_3 = """
ALTER TABLE runs ADD COLUMN value_form INTEGER;
"""

# Version 4: a rulebook file saved over is journaled too (kind `rulebook`, a file of format
# `rules`), and a file's text before or after may be none (made, or taken away by an
# undo). SQLite changes no CHECK in place: both tables are made anew and filled.
_VERSION_4 = """
CREATE TABLE runs_4 (
    id INTEGER PRIMARY KEY,
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
    undoes INTEGER REFERENCES runs (id),
    value_form INTEGER
);
INSERT INTO runs_4 (id, at, kind, state, rulebook, action, params, result, dice, origin,
    seed, undoes, value_form)
    SELECT id, at, kind, state, rulebook, action, params, result, dice, origin, seed, undoes,
    value_form FROM runs;
DROP TABLE runs;
ALTER TABLE runs_4 RENAME TO runs;
CREATE TABLE run_sheets_4 (
    run INTEGER NOT NULL REFERENCES runs (id),
    role TEXT NOT NULL,
    sheet TEXT NOT NULL,
    format TEXT NOT NULL CHECK (format IN ('yaml', 'json', 'rules')),
    before TEXT REFERENCES texts (hash),
    after TEXT REFERENCES texts (hash),
    PRIMARY KEY (run, role)
);
INSERT INTO run_sheets_4 (run, role, sheet, format, before, after)
    SELECT run, role, sheet, format, before, after FROM run_sheets;
DROP TABLE run_sheets;
ALTER TABLE run_sheets_4 RENAME TO run_sheets;
CREATE INDEX run_sheets_by_sheet ON run_sheets (sheet, run);
"""

# Version 5: a shared table's running log of the evening and its players' seats
# (interpreter.web.tabletop.events): kept beside the runs, so that several server processes
# serving one folder share one table.
_VERSION_5 = """
CREATE TABLE table_events (
    id INTEGER PRIMARY KEY,
    table_name TEXT NOT NULL,
    at TEXT NOT NULL,               -- UTC, ISO 8601
    kind TEXT NOT NULL,             -- run | saved | undo | rulebook | choice | joined
    audience TEXT NOT NULL CHECK (audience IN ('all', 'gm')),
    who TEXT NOT NULL,              -- the player's name, or empty: the game master
    data TEXT NOT NULL              -- JSON: character, action, dice, result, ...
);
CREATE INDEX table_events_by_table ON table_events (table_name, id);
CREATE TABLE table_seats (
    secret TEXT PRIMARY KEY,        -- sha256 of the seat's cookie (never the cookie)
    table_name TEXT NOT NULL,
    code TEXT NOT NULL,             -- sha256 of the table's code it joined with
    player TEXT NOT NULL,
    rulebook TEXT,
    character TEXT,
    at TEXT NOT NULL
);
"""

# Version 6: a character's sheet made or edited in the page, by hand (kind `sheet`); the
# runs table made anew for its CHECK, as in version 4.
_VERSION_6 = """
CREATE TABLE runs_6 (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('run', 'undo', 'rulebook', 'sheet')),
    state TEXT NOT NULL CHECK (state IN ('pending', 'applied')),
    rulebook TEXT REFERENCES rulebooks (hash),
    action TEXT,
    params TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    dice TEXT NOT NULL DEFAULT '[]',
    origin TEXT NOT NULL DEFAULT 'none',
    seed TEXT,
    undoes INTEGER REFERENCES runs (id),
    value_form INTEGER
);
INSERT INTO runs_6 (id, at, kind, state, rulebook, action, params, result, dice, origin,
    seed, undoes, value_form)
    SELECT id, at, kind, state, rulebook, action, params, result, dice, origin, seed, undoes,
    value_form FROM runs;
DROP TABLE runs;
ALTER TABLE runs_6 RENAME TO runs;
"""

#: migrations[v] brings a journal at version v to v + 1
MIGRATIONS: dict[int, str] = {
    0: _VERSION_1,
    1: _VERSION_2,
    2: _VERSION_3,
    3: _VERSION_4,
    4: _VERSION_5,
    5: _VERSION_6,
}


def migrate(connection: sqlite3.Connection, path: str) -> None:
    """Create or upgrade the journal's tables to `VERSION`."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > VERSION:
        raise JournalError(
            tr(
                (
                    "{path}: journal schema version {version} is newer than "
                    "this rulebook understands ({version2})"
                ),
                path=path,
                version=version,
                version2=VERSION,
            ),
            hint=tr("upgrade rulebook to read it"),
        )
    if version == VERSION:
        return
    # A step may make a table anew (version 4): the foreign keys are off while it is
    # dropped and made again (SQLite's way; a pragma that only works outside a
    # transaction). Rows are copied as they are: nothing a reference named is lost.
    keys = connection.execute("PRAGMA foreign_keys").fetchone()[0]
    connection.execute("PRAGMA foreign_keys = OFF")
    try:
        _steps(connection, version)
    finally:
        connection.execute(f"PRAGMA foreign_keys = {'ON' if keys else 'OFF'}")


def _steps(connection: sqlite3.Connection, version: int) -> None:
    while version < VERSION:
        script = MIGRATIONS[version]
        # One transaction per step (the connection is in autocommit mode, so this is the
        # only transaction): a failed step leaves the journal at the old version.
        connection.execute("BEGIN IMMEDIATE")
        try:
            if connection.execute("PRAGMA user_version").fetchone()[0] != version:
                connection.execute("ROLLBACK")  # another process migrated it meanwhile
                version = connection.execute("PRAGMA user_version").fetchone()[0]
                continue
            for statement in _statements(script):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {version + 1}")
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        version += 1


def _statements(script: str) -> list[str]:
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
