"""A run as a self-contained JSON record, and the check that re-runs one.

`export_record(journal, n)` gives everything needed to run entry `n` again anywhere: the
rulebook's texts and hash, the action, its parameters, each sheet's text before (and
after), the dice with their origin and seed, the choices, the result and the changes.
`verify_record(data)` checks the texts against their hashes, rebuilds the rulebook, runs
the action with the recorded dice and choices, and confirms the result, the changes and
the choices, and every character's sheet after the run.
"""

from __future__ import annotations

import attrs

import dsl
from dsl.errors import RulebookError
from dsl.messages import Message, tr
from interpreter.engine import Engine
from interpreter.journal import bounded_json
from interpreter.journal.bundle import Bundle, Source, bundle_from_row, bundle_hash, rebuild
from interpreter.journal.errors import JournalError, RecordMismatch
from interpreter.journal.rerun import Inputs, changes_of, mismatches, run_again
from interpreter.journal.store import Journal
from interpreter.sheets.character import text_digest
from interpreter.values import to_json
from interpreter.version import VERSION, VERSION_FIELD

FORMAT = "rulebook-run"
FORMAT_VERSION = 1
#: largest record `verify` reads, in bytes
MAX_RECORD_SIZE = 20_000_000
#: texts of a record's rulebook (its own file and those it extends), and its sheets, at most
MAX_SOURCES = 16


def export_record(journal: Journal, number: int) -> dict:
    entry = journal.entry(number)
    if entry.kind == "rulebook":
        raise JournalError(
            tr(
                "entry {number} saved the rulebook {name}, not a run: only a run is exported",
                number=number,
                name=entry.action,
            )
        )
    if entry.kind == "sheet":
        raise JournalError(
            tr(
                "entry {number} wrote a sheet by hand, not a run: only a run is exported",
                number=number,
            )
        )
    if entry.kind != "run":
        raise JournalError(
            tr(
                "entry {number} is an undo (of run {undoes}); export the run itself",
                number=number,
                undoes=entry.undoes,
            )
        )
    bundle = bundle_from_row(journal.rulebook_row(entry.rulebook), journal.text)
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        VERSION_FIELD: VERSION,
        "entry": entry.id,
        "at": entry.at,
        "rulebook": {
            "name": bundle.name,
            "title": bundle.title,
            "hash": bundle.hash,
            "sources": [attrs.asdict(s) for s in bundle.sources],
        },
        "action": entry.action,
        "params": entry.params,
        "sheets": [
            {
                "role": s.role,
                "path": s.path,
                "format": s.text_format,
                "before": journal.text(s.before),
                "after": journal.text(s.after),
                "after_hash": s.after,
            }
            for s in entry.sheets
        ],
        "dice": list(entry.dice),
        "origin": entry.origin,
        "seed": None if entry.seed is None else str(entry.seed),
        "choices": list(entry.choices),
        "result": entry.result,
        "changes": [dict(c) for c in entry.changes],  # role, path, before, after
    }


@attrs.frozen
class Verified:
    action: str
    result: object
    changes: tuple
    rulebook: str


def read_record(text: str) -> dict:
    """A record's data, read within bounds (size, nesting, digits: `bounded_json`); a
    JournalError (exit 3) for anything that is not a record of this version."""
    if not isinstance(text, str) or len(text) > MAX_RECORD_SIZE:
        raise JournalError(
            tr("the record is larger than {max_record_size} bytes", max_record_size=MAX_RECORD_SIZE)
        )
    try:
        data = bounded_json.loads(text)
    except bounded_json.JsonRefused as refused:
        raise JournalError(tr("not a JSON record: {reason}", reason=refused.message)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise JournalError(tr('not a run record (its "format" is not "{format}")', format=FORMAT))
    version = data.get("version")
    if type(version) is not int or version != FORMAT_VERSION:
        raise JournalError(
            tr(
                "record version {get} is not {format_version}",
                get=repr(version)[:40],
                format_version=FORMAT_VERSION,
            )
        )
    return data


def verify_record(data: dict) -> Verified:
    """Re-run a record; raise RecordMismatch unless it comes out exactly as recorded.

    Nothing is read or written at a name the record gives: its rulebook is rebuilt from
    its own texts in memory, its sheets read from its own texts (their names are only
    names). A record that is not well formed, or whose texts do not match their hashes,
    is a JournalError (exit 3) before anything runs."""
    record = checked_record(data)
    bundle, inputs, afters = record.bundle, record.inputs, record.afters
    if bundle_hash(bundle.sources) != bundle.hash:
        raise JournalError(tr("the record's rulebook texts do not match its hash: it was altered"))
    for role, (_, _, text, expected) in afters.items():
        if expected is not None and text_digest(text) != expected:
            raise JournalError(
                tr("the record's sheet after the run ({role}) was altered", role=role)
            )
    book = rebuild(bundle)
    engine = Engine.of(book)
    inputs = attrs.evolve(inputs, rulebook=book)
    try:
        again = run_again(engine, inputs)
    except RulebookError as error:
        raise RecordMismatch(
            tr("the run does not go through again: {message}", message=error.message)
        ) from None
    recorded = {"result": data.get("result"), "changes": data["changes"], "choices": inputs.choices}
    sheets_after = {role: (path, fmt, text) for role, (path, fmt, text, _) in afters.items()}
    problems = mismatches(recorded, again, engine, sheets_after)
    if problems:
        raise RecordMismatch(
            tr("the record does not reproduce: {problems}", problems=Message.joined(problems, "; "))
        )
    changes = changes_of(again.outcome)
    result = to_json(again.outcome.result)
    return Verified(inputs.action, result, tuple(changes), bundle.hash)


@attrs.frozen
class Checked:
    """A record's parts, each of the type a record holds."""

    bundle: Bundle
    inputs: Inputs
    afters: dict  # role → (name, format, text after, its hash or None)


def checked_record(data) -> Checked:
    """The parts of a record, every field checked for its type (a record comes from
    anyone): a JournalError naming the first field that is not as `export_record`
    writes it."""
    record = _Fields(data, "")
    book = record.object("rulebook")
    sources = tuple(
        Source(s.text("file"), s.optional_text("extends"), s.text("text"))
        for s in book.objects("sources", most=MAX_SOURCES)
    )
    name = book.text("name")
    # A record names no file to read: a shipped rulebook's name is a name like any other
    where = name if name in dsl.shipped_rulebooks() else "<record>"
    bundle = Bundle(name, book.text("title"), where, sources, book.text("hash"))
    sheets, afters = {}, {}
    for sheet in record.objects("sheets", most=MAX_SOURCES):
        role = sheet.text("role")
        if role in sheets:
            raise _malformed(tr("sheets: the role {role} is given twice", role=role))
        state = (sheet.text("path"), sheet.text("format", allowed=("yaml", "json")))
        sheets[role] = (*state, sheet.text("before"))
        afters[role] = (*state, sheet.text("after"), sheet.optional_text("after_hash"))
    if "self" not in sheets:
        raise JournalError(tr("the record has no sheet for the acting character (role self)"))
    dice = record.value("dice")
    if not isinstance(dice, list) or not all(_whole(face) for face in dice):
        raise _malformed(tr("dice: not a list of whole numbers"))
    choices = tuple(record.objects("choices", optional=True))
    for choice in choices:
        choice.text("name")
        choice.value("value")
        choice.optional_text("chooser")
    for change in record.objects("changes"):
        change.text("path")
        change.optional_text("role")
        change.value("before")
        change.value("after")
    params = record.value("params")
    if not isinstance(params, dict):
        raise _malformed(tr("params: not an object"))
    inputs = Inputs(
        None,
        record.text("action"),
        params,
        sheets,
        tuple(dice),
        record.text("origin"),
        tuple(c.data for c in choices),
    )
    return Checked(bundle, inputs, afters)


class _Fields:
    """One object of a record, read field by field, each checked for its type."""

    def __init__(self, data, where: str):
        if not isinstance(data, dict):
            raise _malformed(tr("{where}: not an object", where=where or "the record"))
        self.data = data
        self.where = where

    def _name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def value(self, key: str):
        if key not in self.data:
            raise _malformed(tr("{field} is missing", field=self._name(key)))
        return self.data[key]

    def optional_text(self, key: str) -> str | None:
        """The text at `key`, or None where it is left out (or null)."""
        return None if self.data.get(key) is None else self.text(key)

    def text(self, key: str, allowed=None) -> str:
        value = self.value(key)
        if not isinstance(value, str) or (allowed is not None and value not in allowed):
            expected = tr("a text") if allowed is None else " | ".join(allowed)
            raise _malformed(
                tr("{field} is not {expected}", field=self._name(key), expected=expected)
            )
        return value

    def object(self, key: str) -> _Fields:
        return _Fields(self.value(key), self._name(key))

    def objects(self, key: str, optional: bool = False, most: int | None = None) -> list:
        items = self.data.get(key) if optional else self.value(key)
        if items is None and optional:
            return []
        if not isinstance(items, list) or (most is not None and len(items) > most):
            raise _malformed(tr("{field} is not a list", field=self._name(key)))
        return [_Fields(item, f"{self._name(key)}[{i}]") for i, item in enumerate(items)]


def _malformed(what) -> JournalError:
    return JournalError(tr("the record is incomplete or malformed: {what}", what=what))


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
