"""Saves from the page, journaled: history and undo of the folder's characters and rulebooks.

A save runs the action again, with the very dice the page showed (a seed, or the faces
typed in), under the folder's lock, and writes the sheet and its journal entry together
(interpreter.journal; the journal is FOLDER/journal.sqlite). If the run no longer comes
out as the page showed it (the sheet was changed since), nothing is written. A shipped
character is never written: its first save makes a copy in the folder. A rulebook saved
over names the version it replaces (If-Match), and its old text goes into the journal:
undone like a run.
"""

from __future__ import annotations

from typing import NamedTuple

from dsl.messages import tr
from interpreter.errors import ParameterError, SheetChanged
from interpreter.journal import (
    JOURNAL_NAME,
    Journal,
    NoJournal,
    lines_as_read,
    run_and_save,
    save_file,
    undo,
)
from interpreter.journal import undone_by as undone_by_of
from interpreter.json_data import log_data, run_data
from interpreter.web.errors import RequestError
from interpreter.web.library import VersionMismatch, VersionRequired, version_of


class Subject(NamedTuple):
    """What a save runs: the acting character, the action and its parameters, and the
    other characters of the run (role → character name)."""

    character: str
    action: str
    params: dict
    targets: dict


def save(library, engine, subject: Subject, dice, chooser, expect, answered=None):
    """Run and save as one step: every changed sheet (the acting character's and the
    other characters') written, or none; (the outcome, what was saved: as `rulebook run
    --save --json` says it, the file's path, the journal's and the entry's number)."""
    roles = {"self": subject.character, **subject.targets}
    sources = {role: library.character_path(name) for role, name in roles.items()}
    saves_to = {role: library.save_target(name) for role, name in roles.items()}
    files = list(saves_to.values())
    if len({path.resolve() for path in files}) != len(files):  # two roles, one file
        raise ParameterError(tr("two characters of the run are the same file: nothing saved"))

    def run(sheet, targets):
        outcome = engine.run(
            subject.action,
            sheet,
            subject.params,
            dice,
            targets=targets,
            choices=chooser,
            trace=True,  # (the answer shows it)
        )
        if answered is not None:
            answered.finish()
        if expect is not None and _shown(outcome, expect) != _shown_of(expect):
            raise SheetChanged(
                tr(
                    "{character} is not as it was when this run was shown (saved elsewhere, "
                    "or edited): the run now comes out differently, so nothing was written",
                    character=subject.character,
                ),
                hint=tr("run the action again on the sheet as it is now"),
                path=str(sources["self"]),
            )
        return outcome

    try:
        return run_and_save(
            library.folder / JOURNAL_NAME,
            sources,
            saves_to,
            run,
            engine.rulebook,
            dice,
            load=lambda role, path: engine.load_sheet(path),  # (as it is now, under the lock)
        )
    finally:  # what this process kept of them is read again (the others see new stamps)
        library.forget_sheets([*sources.values(), *saves_to.values()])


def refuse_unsaved(body: dict) -> None:
    """A run is saved only with rules and sheets the folder holds: never a rulebook's text
    given in the request (an edit not saved: the journal would name rules nobody can
    open) nor a sheet given as data (it is not the character's file)."""
    if body.get("text") is not None:
        raise RequestError(
            tr(
                "a run of rules given as text (an edit not saved) is not saved into a "
                "character: save the rulebook first, then run it by its name"
            ),
            tr(
                "the editor's Save writes the rulebook into the folder (PUT "
                "/api/rulebooks/NAME); then run with rulebook: NAME and save"
            ),
        )
    if body.get("sheet") is not None:
        raise RequestError(
            tr("a sheet given as data (sheet) is not saved: name the character instead"),
            tr("character: NAME, a character of the folder (GET /api/characters)"),
        )


def save_rulebook(library, name: str, text: str, if_match: str | None) -> dict:
    """Write a rulebook into the folder as NAME.rules, journaled and undoable. Over a file
    that exists, `if_match` must name the version it replaces (the ETag its source's GET
    gave): none is a VersionRequired (428), another a VersionMismatch (412); nothing is
    written then. What was saved: the name, the file, the journal's entry and the new
    version (entry None: the file held that text already)."""
    text = lines_as_read(text)  # as the file reads back: its version is the one given
    target = library.rulebook_target(name, text)  # checked before the lock is taken
    wanted = _versions(if_match)

    def check(current: str | None) -> None:
        if current is None:
            if wanted is not None:
                raise VersionMismatch(
                    tr(
                        "{file} is not in the folder any more (removed since it was read): "
                        "nothing was written",
                        file=target.name,
                    ),
                    None,
                    tr("save it again without If-Match to make it anew"),
                )
            return
        if wanted is None:
            raise VersionRequired(
                tr(
                    "{file} is in the folder already: saving over it needs the version it "
                    "replaces (If-Match), so that no one's edit is lost unseen",
                    file=target.name,
                ),
                None,
                tr(
                    "send If-Match with the ETag of GET /api/rulebooks/{name}/source (the "
                    "page: open the rulebook, then save your edit)",
                    name=name,
                ),
            )
        if version_of(current) not in wanted:
            raise VersionMismatch(
                tr(
                    "{file} was changed since that version was read (saved by someone "
                    "else, or edited): nothing was written",
                    file=target.name,
                ),
                None,
                tr(
                    "read it again (GET /api/rulebooks/{name}/source) and make the edit on it",
                    name=name,
                ),
            )

    with Journal(library.folder / JOURNAL_NAME) as journal:
        number = save_file(journal, target, text, name, check)
    return {"saved": name, "file": target.name, "entry": number, "version": version_of(text)}


def _versions(if_match: str | None) -> set[str] | None:
    """The versions an If-Match header names (strong ETags only: a weak one never
    matches); None without one. `*` names no version: refused as if none were given."""
    if if_match is None or not if_match.strip() or if_match.strip() == "*":
        return None
    return {tag.strip() for tag in if_match.split(",") if tag.strip().startswith('"')}


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
        try:
            done = undo(journal, number)
        finally:  # the files it wrote back are read again when asked for
            library.forget_sheets()
        return journal.entry(done).to_json()


def entry_language(library, number: int) -> str | None:
    """The language of the rulebook a journal entry of the folder was run with."""
    from interpreter.journal.bundle import entry_language as language_of

    with Journal(library.folder / JOURNAL_NAME, create=False) as journal:
        return language_of(journal, journal.entry(number))


def _shown(outcome, expect: dict) -> tuple:
    data = run_data(outcome, trace=False)
    others = [(c["role"], c["changes"]) for c in data["characters"]]
    return data["result"], data["changes"], others if "characters" in expect else None


def _shown_of(expect: dict) -> tuple:
    others = expect.get("characters")
    if isinstance(others, list):
        others = [(c.get("role"), c.get("changes")) for c in others if isinstance(c, dict)]
    return expect.get("result"), expect.get("changes"), others
