"""Hostile records and journals: a campaign in a watched tree, mutations, and the check.

`Campaign.made()` plays a short campaign once (Brujería's fright on Lucía, its house rule
`brujeria_miedo_duro`, which extends it, a duel with a target, an undo) and exports run 1
as a record. `campaign.copy(root)` gives a fresh copy to attack: ROOT/campaign (the
folder, with `link`, a symbolic link to ROOT/outside, and `leaf.yaml`, one to
ROOT/outside/victim.yaml), ROOT/outside (what the attacks aim at) and ROOT/tmp (the
temporary folder while an attack runs). `outside_as_it_was` says whether anything but
the campaign folder changed.

`try_record(copy, text)` runs `verify` on a record text, `try_journal(copy, edit)` runs
every command that reads entries (log, show, export, undo, replay, journal verify
--rerun, and the server's history and undo) on a journal one SQL edit changed. Each
returns how it ended ("ok" or the project's error class, by exit code); anything else
raises, and so does a file written outside the campaign's folder. The strategies draw
the mutations: every field of a record or column of a journal row given a hostile value
(a path out of the folder, an absolute one, a link; a 5,000-digit number, nesting
100,000 deep, a lone surrogate, a key twice, a wrong type).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from dsl.errors import RulebookError

DATA = Path(__file__).resolve().parent / "data"
PLACEHOLDER = "\x01HOLE\x01"

#: names a hostile record or journal may give a file ({outside}: the absolute path of
#: the tree's outside folder)
HOSTILE_NAMES = [
    "../outside/pwned.yaml",
    "../../pwned.yaml",
    "{outside}/absolute.yaml",
    "sub/../../outside/pwned.yaml",
    "link/victim.yaml",
    "link/new.yaml",
    "leaf.yaml",
    "./lucia.yaml",
    "lucia.yaml/",
    "",
    ".",
    "..",
    "/",
    "lucia\x00.yaml",
    "x" * 5000,
    "a/" * 100 + "b.yaml",
]

#: JSON texts a hostile record may hold anywhere a value goes, by a short name (a case
#: names them, so that a failing one prints short)
HOSTILE_JSON = {
    **{f"name {name[:30]!r}": json.dumps(name) for name in HOSTILE_NAMES},
    "5000 digits": "9" * 5000,
    "-5000 digits": "-" + "9" * 5000,
    "4300 digits": "9" * 4300,
    "1e999": "1e999",
    "-1e400": "-1e400",
    "NaN": "NaN",
    "Infinity": "Infinity",
    "1.5": "1.5",
    "true": "true",
    "false": "false",
    "null": "null",
    "0": "0",
    "-1": "-1",
    "[]": "[]",
    "{}": "{}",
    "nested 100000": "[" * 100_000 + "]" * 100_000,
    "objects nested 3000": '{"a": ' * 3000 + "1" + "}" * 3000,
    "nested 129": "[" * 129 + "]" * 129,
    "lone high surrogate": '"\\ud800"',
    "lone low surrogate": '"x\\udfff"',
    "a surrogate pair": '"\\ud83d\\ude00"',
    "a key twice": '{"a": 1, "a": 2}',
    "a text of 200000": '"' + "x" * 200_000 + '"',
    "a list of 50000": "[" + ",".join(["1"] * 50_000) + "]",
    "a change out of the folder": (
        '{"role": "self", "path": "../outside/x.yaml", "before": 1, "after": 2}'
    ),
    "a list of a name out": '["../outside/x.yaml"]',
}

#: values a hostile journal's column may hold (SQLite keeps any type in any column),
#: by a short name
HOSTILE_SQL = {
    **{f"text {name[:30]!r}": name for name in HOSTILE_NAMES},
    **{f"json {label}": text for label, text in HOSTILE_JSON.items()},
    "NULL": None,
    "0": 0,
    "-1": -1,
    "2**63-1": 2**63 - 1,
    "1.5": 1.5,
    "a blob": b"\xff\xfe binary",
    "a surrogate, encoded (not UTF-8)": b"\xed\xa0\x80",
    "a text of 100000": "x" * 100_000,
}


#: the journal's columns a mutation may change: (table, column)
COLUMNS = [
    (table, column)
    for table, columns in {
        "runs": "at kind state rulebook action params result dice origin seed undoes value_form",
        "run_sheets": "run role sheet format before after",
        "changes": "run role seq path before after",
        "choices": "run seq name value chooser how",
        "rulebooks": "hash name title path sources",
        "texts": "hash body",
    }.items()
    for column in columns.split(" ")
]


class Campaign:
    """A campaign's tree: ROOT/campaign (journal, sheets, links), ROOT/outside, ROOT/tmp."""

    _made: Campaign | None = None

    def __init__(self, root: Path):
        self.root = Path(root)
        self.folder = self.root / "campaign"
        self.outside = self.root / "outside"
        self.temp = self.root / "tmp"
        self.journal = self.folder / "journal.sqlite"
        self.record_file = self.root / "record.json"

    @property
    def record(self) -> str:
        return self.record_file.read_text(encoding="utf-8")

    @classmethod
    def made(cls) -> Campaign:
        """The campaign, played once per process (in a folder removed at exit)."""
        if cls._made is None:
            root = Path(tempfile.mkdtemp(prefix="rulebook-hostile-"))
            atexit.register(shutil.rmtree, root, True)
            cls._made = cls(root / "made")
            cls._made._play()
        return cls._made

    def _play(self) -> None:
        for folder in (self.folder, self.outside, self.temp):
            folder.mkdir(parents=True)
        shipped = Path(__file__).resolve().parent.parent / "rulebooks" / "characters"
        lucia = (shipped / "brujeria_investigadora.yaml").read_text(encoding="utf-8")
        (self.folder / "lucia.yaml").write_text(lucia, encoding="utf-8")
        for name in ("hero", "orc"):
            text = (DATA / "characters" / f"{name}.yaml").read_text(encoding="utf-8")
            (self.folder / f"{name}.yaml").write_text(text, encoding="utf-8")
        (self.outside / "victim.yaml").write_text(lucia, encoding="utf-8")
        (self.folder / "link").symlink_to("../outside")
        (self.folder / "leaf.yaml").symlink_to("../outside/victim.yaml")
        j = f"--journal {self.journal}".split(" ", 1)
        fright = ["run", "brujeria", "asustarse", "--char", "lucia.yaml", "--save", "--seed"]
        duel = f"run {DATA / 'duel.rules'} atacar --char hero.yaml --save".split()
        with self.inside():
            for argv in (
                [*fright, "1"],
                ["run", "brujeria_miedo_duro", *fright[2:], "2"],  # a house rule, extending
                [*duel, *j, "--target", "objetivo=orc.yaml", "--dice", "15,3"],
                ["undo", "2", *j],
                ["export", "1", "-o", str(self.record_file), *j],
            ):
                code, out = cli(argv)
                assert code == 0, (argv, out)

    def copy(self, root: Path) -> Campaign:
        """A fresh copy of the tree under `root` (links kept as links)."""
        copy = Campaign(root)
        shutil.copytree(self.root, copy.root, symlinks=True)
        return copy

    @contextlib.contextmanager
    def inside(self):
        """The campaign's folder as the current folder, and ROOT/tmp as the temporary
        folder (where anything written in passing would show)."""
        before = tempfile.tempdir
        tempfile.tempdir = str(self.temp)
        try:
            with contextlib.chdir(self.folder):
                yield
        finally:
            tempfile.tempdir = before

    def snapshot(self) -> dict:
        """Everything in the tree but the campaign's folder: each file's bytes, each
        link's target, each folder."""
        seen = {}
        for folder, names, file_names in os.walk(self.root):
            here = Path(folder)
            if here == self.folder or self.folder in here.parents:
                names[:] = []
                continue
            for name in names + file_names:
                path = here / name
                relative = str(path.relative_to(self.root))
                if path.is_symlink():
                    seen[relative] = ("link", os.readlink(path))
                elif path.is_dir():
                    seen[relative] = ("folder",)
                else:
                    seen[relative] = ("file", path.read_bytes())
        return seen

    def outside_names(self, text: str) -> str:
        return text.replace("{outside}", str(self.outside))


def cli(argv: list[str]) -> tuple[int, str]:
    """`rulebook argv` in this process: its exit code and what it printed (out and err)."""
    from interpreter.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main([str(a) for a in argv])
    return code, out.getvalue()


# ─── records ─────────────────────────────────────────────────────────────────


def record_fields(data, prefix=()) -> list[tuple]:
    """The path of every value in a record (a key or an index at each step)."""
    out = []
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        here = (*prefix, key)
        out.append(here)
        if isinstance(value, dict | list):
            out += record_fields(value, here)
    return out


def with_value(record: str, field: tuple, raw_json: str) -> str:
    """The record's text with one field's value replaced by a raw JSON text (which may
    be anything: JSON cannot hold it as a value when it is hostile enough)."""
    data = json.loads(record)
    place = data
    for key in field[:-1]:
        place = place[key]
    place[field[-1]] = PLACEHOLDER
    return json.dumps(data, ensure_ascii=False).replace(json.dumps(PLACEHOLDER), raw_json)


def without_field(record: str, field: tuple) -> str:
    data = json.loads(record)
    place = data
    for key in field[:-1]:
        place = place[key]
    del place[field[-1]]
    return json.dumps(data, ensure_ascii=False)


def with_rehashed_sources(record: str, file_name: str) -> str:
    """The record with its rulebook's first file named `file_name`, and its hash made
    to match again (an attacker's record passes the hash check)."""
    data = json.loads(record)
    data["rulebook"]["sources"][0]["file"] = file_name
    data["rulebook"]["name"] = "pwned"
    return json.dumps(rehashed(data), ensure_ascii=False)


def rehashed(data: dict) -> dict:
    """A record's data with its rulebook's hash made to match its texts again."""
    from interpreter.journal.bundle import Source, bundle_hash

    sources = data["rulebook"]["sources"]
    data["rulebook"]["hash"] = bundle_hash(
        [Source(s["file"], s["extends"], s["text"]) for s in sources]
    )
    return data


def record_text(record: str, mutation: tuple) -> str:
    """The text of a record after one mutation: ("value", field, JSON text or the name
    of one of HOSTILE_JSON), ("remove", field), ("rename", a file name for its rulebook)."""
    kind, *args = mutation
    if kind == "value":
        field, raw = args
        return with_value(record, field, HOSTILE_JSON.get(raw, raw))
    if kind == "remove":
        return without_field(record, args[0])
    return with_rehashed_sources(record, args[0])


def try_record(campaign: Campaign, text: str) -> str:
    """`verify` a record text; "ok" or the class of the project's error it gave. Raises
    on any other exception, and if anything outside the campaign's folder changed."""
    from interpreter.journal import read_record, verify_record

    if "{outside}" in text:  # an absolute name, here; the hash made to match it again
        text = campaign.outside_names(text)
        with contextlib.suppress(ValueError, TypeError, KeyError, RecursionError):
            text = json.dumps(rehashed(json.loads(text)), ensure_ascii=False)
    before = campaign.snapshot()
    try:
        with campaign.inside():
            verify_record(read_record(text))
        outcome = "ok"
    except RulebookError as error:
        assert error.exit_code in (2, 3, 4), error
        outcome = type(error).__name__
    assert campaign.snapshot() == before, "verify wrote outside the campaign's folder"
    return outcome


def record_mutations(record: str) -> st.SearchStrategy:
    """One mutation of a record (see record_text): a field given a hostile value (or a
    generated one), or removed, or the rulebook's file renamed with its hash made to
    match."""
    fields = record_fields(json.loads(record))
    return st.one_of(
        st.tuples(
            st.just("value"),
            st.sampled_from(fields),
            st.sampled_from(sorted(HOSTILE_JSON)) | json_values().map(json.dumps),
        ),
        st.tuples(st.just("remove"), st.sampled_from(fields)),
        st.tuples(st.just("rename"), st.sampled_from(HOSTILE_NAMES)),
    )


def json_values() -> st.SearchStrategy:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=20)
        | st.sampled_from(HOSTILE_NAMES)
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=12,
    )


# ─── journals ────────────────────────────────────────────────────────────────


def edit_journal(path: Path, table: str, column: str, row: int, value) -> bool:
    """Set one column of one row as a hand (or another program) could; whether any row
    was changed (SQLite's own NOT NULL and uniqueness still hold: a file that breaks them
    is not one SQLite writes)."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        connection.execute("PRAGMA foreign_keys = OFF")
        cursor = connection.execute(
            f"UPDATE {table} SET {column} = ? WHERE rowid = "  # (the names are ours)
            f"(SELECT rowid FROM {table} ORDER BY rowid LIMIT 1 OFFSET ?)",
            (value, row),
        )
        return cursor.rowcount > 0
    except sqlite3.IntegrityError:
        return False
    finally:
        connection.close()


def try_journal(campaign: Campaign, edit: tuple) -> list[str]:
    """Every command that reads the journal's entries, on the journal after one edit
    (table, column, row, value); how each ended. Raises on an exception that is not the
    project's, and if anything outside the campaign's folder changed."""
    from interpreter.web import saving
    from interpreter.web.library import Library

    table, column, row, value = edit
    value = HOSTILE_SQL.get(value, value) if isinstance(value, str) else value
    if isinstance(value, str):
        value = campaign.outside_names(value)
    edit_journal(campaign.journal, table, column, row, value)
    before = campaign.snapshot()
    j = ["--journal", str(campaign.journal)]
    outcomes = []
    with campaign.inside():
        for argv in (
            ["log", *j],
            ["log", "--json", *j],
            ["log", "lucia", *j],
            *(["show", str(n), *j] for n in (1, 2, 3, 4)),
            ["show", "3", "--json", *j],
            ["export", "1", *j],
            ["export", "3", *j],
            ["replay", "--against", "brujeria", *j],
            ["replay", "--against", "brujeria_miedo_duro", "--chain", *j],
            ["journal", "verify", "--rerun", "--dry-run", *j],
            ["journal", "verify", "--rerun", *j],
            ["undo", "3", *j],
            ["undo", "4", "--force", *j],
            ["undo", *j],
        ):
            code, _ = cli(argv)
            outcomes.append(str(code))
        library = Library(campaign.folder)
        for call in (
            lambda: saving.history(library, "lucia"),
            lambda: saving.history(library, "hero"),
            lambda: saving.undo_entry(library, 1),
        ):
            try:
                call()
                outcomes.append("ok")
            except RulebookError as error:
                outcomes.append(type(error).__name__)
    assert campaign.snapshot() == before, "a command wrote outside the campaign's folder"
    return outcomes


def journal_edits() -> st.SearchStrategy:
    """One column of one row given a hostile value: (table, column, row, the name of a
    value of HOSTILE_SQL or a generated JSON text)."""
    return st.tuples(
        st.sampled_from(COLUMNS),
        st.integers(0, 5),
        st.sampled_from(sorted(HOSTILE_SQL)) | json_values().map(json.dumps),
    ).map(lambda t: (*t[0], t[1], t[2]))


# ─── the fuzzers' cases: several mutations at once, and the text itself cut up ──

#: pieces of text a fuzzed record gets spliced in
SPLICES = ['"', "\\", "\\u", "d800", "[", "]", "{", "}", ",", ":", "9" * 50, "../", "/", "null"]


def record_fuzz(record: str) -> st.SearchStrategy:
    """A record mutated several times: fields (record_text's mutations), then its text
    cut and spliced at a few places (("splice", where in 0..1, how much to cut, what))."""
    splice = st.tuples(
        st.just("splice"),
        st.floats(0, 1),
        st.integers(0, 3),
        st.sampled_from(SPLICES) | st.text(max_size=4),
    )
    return st.lists(record_mutations(record) | splice, min_size=1, max_size=4)


def fuzzed_record(record: str, mutations: list) -> str:
    """The record's text after each mutation in turn (one that no longer applies, such
    as a field the text no longer has, is skipped)."""
    text = record
    for mutation in mutations:
        if mutation[0] == "splice":
            _, where, cut, piece = mutation
            at = int(where * len(text))
            text = text[:at] + piece + text[at + cut :]
            continue
        with contextlib.suppress(ValueError, KeyError, IndexError, TypeError, RecursionError):
            text = record_text(text, mutation)
    return text


def journal_fuzz() -> st.SearchStrategy:
    """A journal edited a few times: columns given hostile values, rows deleted or
    copied (("delete" | "copy", table, row))."""
    rows = st.tuples(
        st.sampled_from(["delete", "copy"]),
        st.sampled_from(sorted({table for table, _ in COLUMNS})),
        st.integers(0, 5),
    )
    return st.lists(journal_edits() | rows, min_size=1, max_size=3)


def fuzz_journal(campaign: Campaign, edits: list) -> list[str]:
    """try_journal after every edit but the last is made (the last is try_journal's)."""
    for edit in edits[:-1]:
        if edit[0] in ("delete", "copy"):
            _rows(campaign.journal, *edit)
        else:
            table, column, row, value = edit
            value = HOSTILE_SQL.get(value, value) if isinstance(value, str) else value
            if isinstance(value, str):
                value = campaign.outside_names(value)
            edit_journal(campaign.journal, table, column, row, value)
    last = edits[-1]
    if last[0] in ("delete", "copy"):
        _rows(campaign.journal, *last)
        last = ("runs", "at", 99, "2026")  # (a row that is not there: no change)
    return try_journal(campaign, last)


def _rows(path: Path, how: str, table: str, row: int) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA foreign_keys = OFF")
        which = f"(SELECT rowid FROM {table} ORDER BY rowid LIMIT 1 OFFSET {int(row)})"
        if how == "delete":
            connection.execute(f"DELETE FROM {table} WHERE rowid = {which}")
        else:
            columns = [r[1] for r in connection.execute(f"PRAGMA table_info({table})")]
            names = ", ".join(columns)
            connection.execute(
                f"INSERT OR IGNORE INTO {table} ({names}) "
                f"SELECT {names} FROM {table} WHERE rowid = {which}"
            )
    finally:
        connection.close()
