"""The journal's rows read back as values, every column checked: a journal may be hostile.

A journal is a file in a folder that others may share: anyone who can write the folder
can edit its rows (SQLite types nothing strictly). So every column is checked for what
the journal itself writes there: a text where a text goes, one of the states it knows,
JSON within the bounds of `bounded_json` (nesting, digits, no lone surrogate). A row that
is not so raises `Damaged` naming its column, which the store turns into a JournalError
naming the entry: never a Python error further on. A sheet's name is checked where it
is used, against the journal's folder (`Journal.place_of`).
"""

from __future__ import annotations

import attrs

from dsl.messages import Message, tr
from interpreter.journal import bounded_json
from interpreter.values import FRACTION_FORM, FractionText

#: the form of the values a run is written with (schema.py, version 3): texts that read
#: like a fraction, or begin with ESCAPE, are written after an ESCAPE
VALUE_FORM = 1
ESCAPE = "\x00"
#: characters of a short text column (a date, a state, a role, a name), at most
MAX_SHORT_TEXT = 4096
#: texts of a rulebook's bundle (its own file and those it extends), at most
MAX_SOURCES = 16
#: digits of a seed, at most (Python reads no longer number)
MAX_SEED_DIGITS = bounded_json.MAX_DIGITS


class Damaged(ValueError):
    """A column that does not hold what the journal writes there."""

    def __init__(self, column: str, reason: Message):
        super().__init__(reason)
        self.column = column
        self.reason = reason


@attrs.frozen
class SheetState:
    """One character's sheet in one entry (or a rulebook file: role "rulebook", format
    "rules"): its file, and its text before and after."""

    role: str  # "self" for the acting character; another's parameter name
    path: str  # as stored: relative to the journal's folder
    text_format: str
    before: str | None  # hash of the text the run started from (None: no file yet)
    after: str | None  # hash of the text written (None: the file taken away)


@attrs.frozen
class Entry:
    """One saved run (or undo, or rulebook file saved over) as the journal holds it."""

    id: int
    at: str
    kind: str  # "run" | "undo" | "rulebook" | "sheet"
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


def entry_of(row, sheets, changes, choices) -> Entry:
    """An Entry from its row of `runs` (id, at, kind, state, rulebook, rulebook name,
    action, params, result, dice, origin, seed, undoes, value form) and its rows of
    `run_sheets`, `changes` and `choices`; Damaged if any column is not as written."""
    escaped = _optional_whole(row[13], "value_form") == VALUE_FORM

    def value(text, column):
        return read_back(_json(text, column), escaped)

    params = value(row[7], "params")
    if not isinstance(params, dict):
        raise Damaged("params", tr("not an object"))
    dice = _json(row[9], "dice")
    if not isinstance(dice, list) or not all(_is_whole(face) for face in dice):
        raise Damaged("dice", tr("not a list of whole numbers"))
    roles = [_text(r[0], "run_sheets.role") for r in sheets]
    if len(set(roles)) != len(roles):
        raise Damaged("run_sheets.role", tr("a role given twice"))
    return Entry(
        id=_whole(row[0], "id"),
        at=_text(row[1], "at"),
        kind=_text(row[2], "kind", ("run", "undo", "rulebook", "sheet")),
        state=_text(row[3], "state", ("pending", "applied")),
        rulebook=_optional_text(row[4], "rulebook"),
        rulebook_name=_optional_text(row[5], "rulebooks.name"),
        action=_optional_text(row[6], "action"),
        params=params,
        result=value(row[8], "result") if row[8] is not None else None,
        dice=tuple(dice),
        origin=_text(row[10], "origin"),
        seed=_seed(row[11]),
        undoes=_optional_whole(row[12], "undoes"),
        sheets=tuple(
            SheetState(
                role,
                _text(r[1], "run_sheets.sheet"),
                _text(r[2], "run_sheets.format", ("yaml", "json", "rules")),
                _optional_text(r[3], "run_sheets.before"),
                _optional_text(r[4], "run_sheets.after"),
            )
            for role, r in zip(roles, sheets, strict=True)
        ),
        changes=tuple(
            {
                "role": _text(r[0], "changes.role"),
                "path": _text(r[1], "changes.path"),
                "before": value(r[2], "changes.before"),
                "after": value(r[3], "changes.after"),
            }
            for r in changes
        ),
        choices=tuple(
            {
                "name": _text(r[0], "choices.name"),
                "value": value(r[1], "choices.value"),
                "chooser": _optional_text(r[2], "choices.chooser"),
                "how": _optional_text(r[3], "choices.how"),
            }
            for r in choices
        ),
    )


def rulebook_of(digest: str, row) -> dict:
    """A rulebook's row (name, title, path, sources) as data; Damaged if it is not as
    written: its sources a list of {file, extends, text (a hash)}, the house rule first."""
    name, title, path, sources_text = row
    sources = _json(sources_text, "rulebooks.sources")
    if not isinstance(sources, list) or not 1 <= len(sources) <= MAX_SOURCES:
        raise Damaged("rulebooks.sources", tr("not a list of the rulebook's texts"))
    checked = []
    for source in sources:
        if not isinstance(source, dict) or set(source) != {"file", "extends", "text"}:
            raise Damaged("rulebooks.sources", tr("not a list of the rulebook's texts"))
        checked.append(
            {
                "file": _text(source["file"], "rulebooks.sources.file"),
                "extends": _optional_text(source["extends"], "rulebooks.sources.extends"),
                "text": _text(source["text"], "rulebooks.sources.text"),
            }
        )
    return {
        "hash": digest,
        "name": _text(name, "rulebooks.name"),
        "title": _text(title, "rulebooks.title"),
        "path": _text(path, "rulebooks.path"),
        "sources": checked,
    }


def read_back(value, escaped: bool):
    """A stored value as `stored` was given it: texts of the form "7/2" are fractions
    (FractionText), an escaped text the text. `escaped` False: a run written before
    version 3, where a text "7/2" and the fraction were written alike (read as the
    fraction, the likelier). Iterative: a value may be as deep as bounded_json allows."""
    if isinstance(value, str):
        if escaped and value.startswith(ESCAPE):
            return value[1:]
        return FractionText(value) if FRACTION_FORM.fullmatch(value) else value
    if isinstance(value, list):
        return [read_back(v, escaped) for v in value]
    if isinstance(value, dict):
        return {k: read_back(v, escaped) for k, v in value.items()}
    return value


def _json(text, column: str):
    try:
        return bounded_json.loads(text)
    except bounded_json.JsonRefused as refused:
        raise Damaged(column, refused.message) from None


def _optional_text(value, column: str) -> str | None:
    return None if value is None else _text(value, column)


def _text(value, column: str, allowed=None) -> str:
    if not isinstance(value, str):
        raise Damaged(column, tr("not a text"))
    if allowed is not None and value not in allowed:
        raise Damaged(column, tr("{value} is none of {allowed}", value=value[:40], allowed=allowed))
    if len(value) > MAX_SHORT_TEXT:  # (SQLite gives only valid UTF-8: no lone surrogate)
        raise Damaged(column, tr("longer than {most} characters", most=MAX_SHORT_TEXT))
    return value


def _optional_whole(value, column: str) -> int | None:
    return None if value is None else _whole(value, column)


def _whole(value, column: str) -> int:
    if not _is_whole(value):
        raise Damaged(column, tr("not a whole number"))
    return value


def _is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seed(value) -> int | None:
    if value is None:
        return None
    text = _text(value, "seed")
    digits = text[1:] if text.startswith("-") else text
    if not digits.isascii() or not digits.isdigit() or len(digits) > MAX_SEED_DIGITS:
        raise Damaged("seed", tr("not a whole number"))
    return int(text)
