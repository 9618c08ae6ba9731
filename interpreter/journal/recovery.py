"""Completing saves a crash interrupted: the journal is the truth.

An entry still `pending` was written before its sheet files were replaced. For each of
its sheets, the file is the text after the run (the rename happened), the text before
(it did not: the journal's text is written now), or missing (likewise). Anything else
means the file was changed by hand since the crash: that is a conflict, reported and
left alone (`force` writes the journal's text over it). When every sheet is settled the
entry is marked `applied`. Call with the folders' locks held.

A sheet an entry names is a file below the journal's folder, reached without following
a link (`Journal.place_of`); an entry naming anything else (an absolute path, `..`, a
link) is `refused`: nothing is read or written there, and the entry stays pending.
"""

from __future__ import annotations

import attrs

from dsl.errors import RulebookError
from dsl.messages import tr
from interpreter import safe_files
from interpreter.journal.store import MAX_FILE_BYTES, Journal


@attrs.frozen
class Repair:
    entry: int
    sheet: str
    what: str  # "completed" | "already written" | "conflict" | "forced" | "refused"
    why: str = ""  # what was refused

    def describe(self) -> str:
        texts = {
            "completed": tr("the save was interrupted: the sheet written as the journal has it"),
            "already written": tr(
                "the save was interrupted after the file was written: entry marked as applied"
            ),
            "conflict": tr(
                "the save was interrupted and the file was changed since; "
                "left as it is (--force writes the journal's version)"
            ),
            "forced": tr(
                "the save was interrupted and the file was changed since; "
                "the journal's version written over it"
            ),
            "removed temporary": tr("a temporary file a killed save left behind was removed"),
            "refused": tr("the save was interrupted; not completed: {why}", why=self.why),
        }
        if self.entry:
            return tr(
                "{sheet}: run {entry}, {what}",
                sheet=self.sheet,
                entry=self.entry,
                what=texts[self.what],
            )
        return tr("{sheet}: {what}", sheet=self.sheet, what=texts[self.what])


def complete_pending(
    journal: Journal, sheets: list[str] | None = None, force: bool = False, dry_run: bool = False
) -> list[Repair]:
    """Settle the pending entries (those touching `sheets`, or all); return what was done."""
    repairs: list[Repair] = []
    for entry in journal.entries(state="pending"):
        if sheets is not None and not any(s.path in sheets for s in entry.sheets):
            continue
        settled = True
        for state in entry.sheets:
            try:
                repairs.append(_settle(journal, entry, state, force, dry_run))
            except RulebookError as error:  # a name out of the folder, a link, unreadable
                repairs.append(Repair(entry.id, state.path, "refused", error.message))
            settled = settled and repairs[-1].what not in ("conflict", "refused")
        if settled and not dry_run:
            journal.mark_applied(entry.id)
    return repairs


def _settle(journal: Journal, entry, state, force: bool, dry_run: bool) -> Repair:
    target = journal.place_of(state.path)
    current = target.read(MAX_FILE_BYTES)
    after = journal.text(state.after)
    if current == after:
        return Repair(entry.id, state.path, "already written")
    if not (current is None or current == journal.text(state.before) or force):
        return Repair(entry.id, state.path, "conflict")
    what = "completed" if current is None or current == journal.text(state.before) else "forced"
    if not dry_run:
        with safe_files.FolderLock(target.folder):  # (re-entrant: the caller may hold it)
            target.remove_strays()
            if after is None:  # the entry took the file away (an undo of its making)
                target.remove()
            else:
                safe_files.write_atomic(target, after)
    return Repair(entry.id, state.path, what)
