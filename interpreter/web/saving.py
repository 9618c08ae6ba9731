"""Saves from the page, journaled: history and undo of the folder's characters.

A save runs the action again, with the very dice the page showed (a seed, or the faces
typed in), under the folder's lock, and writes the sheet and its journal entry together
(interpreter.journal; the journal is FOLDER/journal.sqlite). If the run no longer comes
out as the page showed it (the sheet was changed since), nothing is written. A shipped
character is never written: its first save makes a copy in the folder.
"""

from __future__ import annotations

from dsl.messages import tr
from interpreter.errors import SheetChanged
from interpreter.journal import JOURNAL_NAME, Journal, NoJournal, holding, save_run, undo
from interpreter.journal import undone_by as undone_by_of
from interpreter.json_data import log_data


def save(library, engine, character: str, action: str, params: dict, dice, expect):
    """Run and save as one step; (the outcome, what was saved: as `rulebook run --save
    --json` says it, the file's path, the journal's and the entry's number)."""
    source = library.character_path(character)
    target = library.save_target(character)
    save_as = {"self": target} if target != source else None
    journal_path = library.folder / JOURNAL_NAME
    with Journal(journal_path) as journal, holding(journal, [target]):
        sheet = engine.load_sheet(source)
        outcome = engine.run(action, sheet, params, dice)
        if expect is not None and _shown(outcome) != _shown_of(expect):
            raise SheetChanged(
                tr(
                    "{character} is not as it was when this run was shown (saved elsewhere, "
                    "or edited): the run now comes out differently, so nothing was written",
                    character=character,
                ),
                hint=tr("run the action again on the sheet as it is now"),
                path=str(source),
            )
        number = save_run(journal, outcome, sheet, engine.rulebook, dice, save_as)
    return outcome, {"path": str(target), "journal": str(journal_path), "entry": number}


def history(library, character: str, limit: int = 50) -> list[dict]:
    """The journal's entries for one character's file, newest first (`rulebook log --json`)."""
    path = library.character_path(character)
    try:
        journal = Journal(library.folder / JOURNAL_NAME, create=False)
    except NoJournal:
        return []
    with journal:
        stored = journal.stored_path(path)
        by = undone_by_of(journal.entries())
        entries = journal.entries(sheet=stored, newest_first=True, limit=limit)
        return log_data(entries, by)["entries"]  # as `rulebook log --json` gives them


def undo_entry(library, number: int) -> dict:
    """Undo one run of the folder's journal; the undo's own entry."""
    with Journal(library.folder / JOURNAL_NAME, create=False) as journal:
        done = undo(journal, number)
        return journal.entry(done).to_json()


def _shown(outcome) -> tuple:
    data = outcome.to_json()
    return data["result"], data["changes"]


def _shown_of(expect: dict) -> tuple:
    return expect.get("result"), expect.get("changes")
