"""Completing saves a crash interrupted: the journal is the truth.

An entry still `pending` was written before its sheet files were replaced. For each of
its sheets, the file is the text after the run (the rename happened), the text before
(it did not: the journal's text is written now), or missing (likewise). Anything else
means the file was changed by hand since the crash: that is a conflict, reported and
left alone (`force` writes the journal's text over it). When every sheet is settled the
entry is marked `applied`. Call with the folders' locks held.
"""

from __future__ import annotations

import attrs

from dsl.messages import tr
from interpreter import files
from interpreter.journal.store import Journal
from interpreter.sheet import read_current


@attrs.frozen
class Repair:
    entry: int
    sheet: str
    what: str  # "completed" | "already written" | "conflict" | "removed temporary"

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
            target = journal.file_of(state.path)
            current = read_current(target)
            after = journal.text(state.after)
            if current == after:
                repairs.append(Repair(entry.id, state.path, "already written"))
                continue
            not_written = current is None or current == journal.text(state.before)
            if not_written or force:
                what = "completed" if not_written else "forced"
                if not dry_run:
                    files.remove_strays(target.parent, target.name)
                    files.write_or_remove(target, after)
                repairs.append(Repair(entry.id, state.path, what))
            else:
                repairs.append(Repair(entry.id, state.path, "conflict"))
                settled = False
        if settled and not dry_run:
            journal.mark_applied(entry.id)
    return repairs
