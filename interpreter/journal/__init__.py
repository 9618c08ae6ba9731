"""The campaign journal: every saved run kept, undone, replayed against a changed rule.

from interpreter.journal import Journal, holding, save_run, undo, replay
journal = Journal.beside("lucia.yaml")               # journal.sqlite in its folder
with holding(journal, ["lucia.yaml"]):                # no other save comes between
    sheet = engine.load_sheet("lucia.yaml")
    outcome = engine.run("asustarse", sheet, {}, dice)
    number = save_run(journal, outcome, sheet, engine.rulebook, dice)
# the same in one call, each character by role (what `run --save` and the page do):
outcome, saved = run_and_save(journal.path, {"self": path}, {"self": path},
                              run, engine.rulebook, dice, load=read_sheet)
journal.entries(newest_first=True)                   # the history, as Entry values
undo(journal)                                         # the sheet as before the last run
save_file(journal, "casa.rules", text, "casa")       # a rulebook saved over, undone alike
replay(journal, dsl.load("brujeria_miedo_duro"))     # what a house rule would change
export_record(journal, number); verify_record(data)  # a run as self-contained JSON
verify_journal(journal)                               # check, and repair after a crash
"""

from interpreter.journal.errors import JournalError, NoJournal, RecordMismatch, UndoRefused
from interpreter.journal.export import export_record, read_record, verify_record
from interpreter.journal.replay import ReplayedRun, replay
from interpreter.journal.saving import (
    holding,
    lines_as_read,
    run_and_save,
    save_by_hand,
    save_file,
    save_run,
)
from interpreter.journal.store import JOURNAL_NAME, Entry, Journal, SheetState
from interpreter.journal.undo import undo, undone, undone_by
from interpreter.journal.verify import verify_journal

__all__ = [
    "JOURNAL_NAME",
    "Entry",
    "Journal",
    "JournalError",
    "NoJournal",
    "RecordMismatch",
    "ReplayedRun",
    "SheetState",
    "UndoRefused",
    "export_record",
    "holding",
    "lines_as_read",
    "read_record",
    "replay",
    "run_and_save",
    "save_by_hand",
    "save_file",
    "save_run",
    "undo",
    "undone",
    "undone_by",
    "verify_journal",
    "verify_record",
]
