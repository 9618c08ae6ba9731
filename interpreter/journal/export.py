"""A run as a self-contained JSON record, and the check that re-runs one.

`export_record(journal, n)` gives everything needed to run entry `n` again anywhere: the
rulebook's texts and hash, the action, its parameters, each sheet's text before (and
after), the dice with their origin and seed, the choices, the result and the changes.
`verify_record(data)` checks the texts against their hashes, rebuilds the rulebook, runs
the action with the recorded dice and choices, and confirms the result, the changes and
the choices, and every character's sheet after the run.
"""

from __future__ import annotations

import json

import attrs

import dsl
from dsl.errors import RulebookError
from dsl.messages import Message, tr
from interpreter.engine import Engine
from interpreter.journal.bundle import Bundle, Source, bundle_from_row, bundle_hash, rebuild
from interpreter.journal.errors import JournalError, RecordMismatch
from interpreter.journal.rerun import Inputs, changes_of, mismatches, run_again
from interpreter.journal.store import Journal
from interpreter.sheet import text_digest
from interpreter.values import to_json

FORMAT = "rulebook-run"
FORMAT_VERSION = 1
#: largest record `verify` reads, in bytes
MAX_RECORD_SIZE = 20_000_000


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
    if len(text) > MAX_RECORD_SIZE:
        raise JournalError(
            tr("the record is larger than {max_record_size} bytes", max_record_size=MAX_RECORD_SIZE)
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise JournalError(
            tr("not a JSON record: {msg} at line {lineno}", msg=error.msg, lineno=error.lineno)
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise JournalError(tr('not a run record (its "format" is not "{format}")', format=FORMAT))
    if data.get("version") != FORMAT_VERSION:
        raise JournalError(
            tr(
                "record version {get} is not {format_version}",
                get=repr(data.get("version")),
                format_version=FORMAT_VERSION,
            )
        )
    return data


def verify_record(data: dict) -> Verified:
    """Re-run a record; raise RecordMismatch unless it comes out exactly as recorded."""
    try:
        book_data = data["rulebook"]
        sources = tuple(
            Source(str(s["file"]), s["extends"], str(s["text"])) for s in book_data["sources"]
        )
        name = str(book_data["name"])
        # A record names no file to read: only a shipped rulebook may stand in for its texts
        # (and only with the same hash); anything else is rebuilt from the texts it carries.
        where = name if name in dsl.shipped_rulebooks() else "<record>"
        bundle = Bundle(name, str(book_data["title"]), where, sources, str(book_data["hash"]))
        sheets = {
            str(s["role"]): (str(s["path"]), str(s["format"]), str(s["before"]))
            for s in data["sheets"]
        }
        afters = {str(s["role"]): str(s["after"]) for s in data["sheets"]}
        inputs = Inputs(
            None,
            str(data["action"]),
            dict(data["params"]),
            sheets,
            tuple(data["dice"]),
            str(data["origin"]),
            tuple(data.get("choices") or ()),
        )
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise JournalError(
            tr("the record is incomplete or malformed ({error})", error=error)
        ) from None
    if "self" not in sheets:
        raise JournalError(tr("the record has no sheet for the acting character (role self)"))
    if not _well_formed(data.get("changes"), {"path", "before", "after"}) or not _well_formed(
        inputs.choices, {"name", "value"}
    ):
        raise JournalError(tr("the record's changes or choices are malformed"))
    if not sources or bundle_hash(sources) != bundle.hash:
        raise JournalError(tr("the record's rulebook texts do not match its hash: it was altered"))
    for role, text in afters.items():
        expected = next(s.get("after_hash") for s in data["sheets"] if s["role"] == role)
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
    record = {"result": data.get("result"), "changes": data["changes"], "choices": inputs.choices}
    afters = {role: (*sheets[role][:2], text) for role, text in afters.items()}
    problems = mismatches(record, again, engine, afters)
    if problems:
        raise RecordMismatch(
            tr("the record does not reproduce: {problems}", problems=Message.joined(problems, "; "))
        )
    changes = changes_of(again.outcome)
    result = to_json(again.outcome.result)
    return Verified(inputs.action, result, tuple(changes), bundle.hash)


def _well_formed(items, keys: set) -> bool:
    """A list of objects that have at least these keys (a record's changes, choices)."""
    return isinstance(items, list | tuple) and all(
        isinstance(item, dict) and keys <= item.keys() for item in items
    )
