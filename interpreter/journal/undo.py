"""Undo: the sheets as they were before a run, written back and journaled as an entry.

A rulebook file saved over from the server's editor (an entry of kind `rulebook`) is
undone the same way: its text before is put back (a file that did not exist is taken
away again).

An undo is itself an entry (kind `undo`, naming the entry it undoes), so undoing an undo
brings the run's effect back, and the history never loses anything. Only the sheets the
run changed are put back (another character it only read is left alone). An undo is
refused when a later entry that still stands changed one of those sheets, or when the
file is no longer what the run wrote (edited since): undoing then would throw that away
(`force` does it anyway; the journal still holds every text). A later run that only
read the sheet is no reason to refuse: writing the sheet back loses nothing of it.
"""

from __future__ import annotations

from dsl.errors import RulebookError
from dsl.messages import tr
from interpreter.errors import SheetError
from interpreter.journal.bundle import bundle_from_row, rebuild
from interpreter.journal.errors import UndoRefused
from interpreter.journal.saving import holding, write_all
from interpreter.journal.store import MAX_FILE_BYTES, Entry, Journal
from interpreter.sheets.character import Sheet, parse_text
from interpreter.values import to_json


def undone(entries: list[Entry]) -> set[int]:
    """The entries whose effect an undo took back (an undo that was itself undone takes
    nothing back)."""
    out: set[int] = set()
    for entry in sorted(entries, key=lambda e: e.id, reverse=True):
        taken = entry.undoes  # (an undo names what it took back)
        undone = entry.kind == "undo" and entry.state == "applied" and entry.id not in out
        if undone and taken is not None:
            out.add(taken)
    return out


def undone_by(entries: list[Entry]) -> dict[int, int]:
    """For each entry an undo took back, the number of that undo."""
    gone = undone(entries)
    out: dict[int, int] = {}
    for entry in entries:
        if entry.kind == "undo" and entry.undoes in gone:
            out.setdefault(entry.undoes, entry.id)
    return out


def default_target(journal: Journal) -> Entry:
    """The last run (or rulebook saved over) whose effect still stands."""
    entries = journal.entries()
    gone = undone(entries)
    for entry in reversed(entries):
        standing = entry.state == "applied" and entry.id not in gone
        if entry.kind in ("run", "rulebook", "sheet") and standing:
            return entry
    raise UndoRefused(tr("there is no run to undo"), hint=tr("`rulebook log` lists the runs"))


def undo(journal: Journal, number: int | None = None, force: bool = False) -> int:
    """Put every sheet of entry `number` (by default the last standing run) back as it
    was before it; return the new undo entry's number."""
    target = journal.entry(number) if number is not None else default_target(journal)
    # every file the entry names, checked before anything is read or written: a name
    # below the journal's folder, reached without a link (a JournalError otherwise)
    places = {s.path: journal.place_of(s.path) for s in target.sheets}
    with holding(journal, list(places.values())):
        target = journal.entry(target.id)  # as it is now that nothing else can write
        if target.state != "applied":
            raise UndoRefused(tr("run {id} was never completed; nothing to undo", id=target.id))
        entries = journal.entries()
        gone = undone(entries)
        if target.id in gone and not force:
            raise UndoRefused(
                tr("run {id} is already undone", id=target.id),
                hint=tr("undo the undo entry to bring it back, or pass --force"),
            )
        plan = []
        # only the sheets the run changed: another character it read but left alone is
        # not put back (nor does a later change to that one stand in the way)
        for state in [s for s in target.sheets if s.before != s.after]:
            path = places.get(state.path) or journal.place_of(state.path)
            later = [
                e
                for e in entries
                if e.id > target.id
                and e.state == "applied"
                and e.id not in gone
                and not (e.kind == "undo" and e.undoes in gone)  # a run and its undo cancel
                and any(s.path == state.path and s.before != s.after for s in e.sheets)
            ]
            current = path.read(MAX_FILE_BYTES)
            if not force:
                if later:
                    numbers = ", ".join(str(e.id) for e in later)
                    raise UndoRefused(
                        tr(
                            (
                                "{path}: a later run changed it too ({numbers}); "
                                "undoing run {id} would throw that away"
                            ),
                            path=state.path,
                            numbers=numbers,
                            id=target.id,
                        ),
                        hint=tr("undo {numbers} first, or pass --force", numbers=numbers),
                    )
                if current != journal.text(state.after):  # a hand edit since the run
                    raise UndoRefused(
                        tr(
                            "{path}: the file was edited since the journal last wrote it",
                            path=state.path,
                        ),
                        hint=tr("pass --force to undo anyway (the edit stays in the journal)"),
                    )
            restored = journal.text(state.before)
            plan.append((state, path, current, restored))
        changes = []
        for state, _, current, restored in plan:
            changes += [
                (state.role, *change)
                for change in _changes(journal, target, state, current, restored)
            ]
        number = journal.add_entry(
            kind="undo",
            sheets=[
                (s.role, path, s.text_format, restored if now is None else now, restored)
                for s, path, now, restored in plan
            ],
            changes=changes,
            rulebook=target.rulebook,
            undoes=target.id,
            action=target.action,
        )
        # every sheet back, or none (a refused file puts the others back)
        write_all(journal, number, [(path, restored, now) for _, path, now, restored in plan])
    return number


def _changes(journal: Journal, target: Entry, state, current, restored) -> list[tuple]:
    """What the undo changes on one sheet, read with the rulebook of the run (so that a
    field the file leaves out shows its value, not its absence); a rulebook file has no
    fields: its text is put back whole."""
    if state.text_format == "rules":
        return []
    try:
        book = rebuild(bundle_from_row(journal.rulebook_row(target.rulebook), journal.text))
        now = Sheet.from_text(current, book, state.path, state.text_format).to_data()
        then = Sheet.from_text(restored, book, state.path, state.text_format).to_data()
    except (RulebookError, TypeError):  # no rulebook, or a sheet that no longer reads
        now, then = _data(current, state.text_format), _data(restored, state.text_format)
    return [(p, to_json(a), to_json(b)) for p, a, b in diff_data(now, then)]


def _data(text: str | None, text_format: str):
    if text is None:
        return {}
    try:
        data = parse_text(text, text_format)
    except SheetError:  # a file edited into something unreadable: no changes listed
        return {}
    return data if isinstance(data, dict) else {}


def diff_data(old, new, prefix: str = "") -> list[tuple]:
    """(path, before, after) for every value that differs between two sheets' data."""
    out = []
    for key in list(old) + [k for k in new if k not in old]:
        path = f"{prefix}{key}"
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            inner_prefix = "" if path == "skills" else f"{path}."
            out += diff_data(a, b, inner_prefix)
        else:
            out.append((path, a, b))
    return out
