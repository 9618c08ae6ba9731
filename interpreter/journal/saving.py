"""Saving a run: its sheet files and its journal entry written together.

Under the lock of every folder involved (the journal's and each sheet's):
1. entries a crash left `pending` for these files are completed (the journal is the
   truth: `recovery.complete_pending`);
2. each sheet file is checked to be what the run read (else `SheetChanged`, nothing
   written), and its new text is made (only the changed values, checked by reading back);
3. the entry is written `pending`, with every sheet's text before and after (one
   transaction, fsynced);
4. each file is replaced atomically (temporary, fsync, rename, folder fsync);
5. the entry is marked `applied`.
A kill between 3 and 5 leaves a pending entry that the next save of the same file, or
`rulebook journal verify`, completes; before 3, nothing happened at all. A file the file
system refuses in 4 (read-only, full) puts back the files already replaced and drops the
pending entry: every sheet of a run is saved, or none (`write_all`; undo uses it too).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path

from dsl.errors import RulebookError
from dsl.messages import tr
from interpreter import safe_files
from interpreter.dice import SeededDice
from interpreter.errors import ParameterError
from interpreter.journal.bundle import bundle_of
from interpreter.journal.errors import JournalError
from interpreter.journal.recovery import complete_pending
from interpreter.journal.rerun import changes_of, choices_of
from interpreter.journal.store import MAX_FILE_BYTES, Journal
from interpreter.sheets.character import Sheet, changed_since_read, format_of, refuse_shipped
from interpreter.values import to_json

#: a dice source's `origin` as the journal names it
ORIGINS = {"generated": "seeded", "forced": "forced", "typed": "typed"}


@contextmanager
def holding(journal: Journal, paths=()):
    """Hold the locks a save of `paths` needs, with their pending entries completed, so
    that reading a sheet, running and saving is one step no other save can come between.
    Each file must be one the journal may name (below its folder, not a link): checked
    here, before anything is read or run.
    """
    places = [_place(journal, p) for p in paths]
    for place in places:  # (a folder out of reach through a link is never even locked)
        place.refuse_link(leaf=False)
    folders = [journal.folder] + [place.folder for place in places]
    with ExitStack() as stack:
        for lock in safe_files.lock_folders(folders):
            stack.enter_context(lock)
        names = [place.name for place in places]
        repairs = complete_pending(journal, names)
        # (a refused sheet the save does not write, such as an entry's hostile name, is
        # left for `rulebook journal verify` to report)
        conflicts = [
            r for r in repairs if r.what == "conflict" or (r.what == "refused" and r.sheet in names)
        ]
        if conflicts:
            raise JournalError(
                conflicts[0].describe(),
                hint=tr(
                    "run `rulebook journal verify` (with --force to take the journal's version)"
                ),
            )
        yield


def _place(journal: Journal, path) -> safe_files.Inside:
    return path if isinstance(path, safe_files.Inside) else journal.place_for(path)


def save_run(
    journal: Journal,
    outcome,
    before: Sheet | Mapping[str, Sheet],
    rulebook,
    dice=None,
    save_as: Mapping[str, str | Path] | None = None,
) -> int:
    """Save an outcome's sheets and journal the run; return the entry's number.

    `before` is the sheet the run was given (or one per role: `self`, and the other
    characters of a run); `rulebook` the Rulebook it ran; `dice` the dice source (for a
    seed); `save_as` a new file per role instead of the file the sheet was read from.
    """
    before = {"self": before} if isinstance(before, Sheet) else dict(before)
    after = sheets_of(outcome)
    save_as = dict(save_as or {})
    targets = {}
    for role in after:
        if role not in before:
            raise ParameterError(
                tr("no sheet was given for {role}, which the run changed", role=repr(role))
            )
        target = save_as.get(role) or before[role].path
        if target is None:
            raise ParameterError(
                tr("{role}: the sheet has no file to save to (give a file)", role=role)
            )
        refuse_shipped(Path(target))
        targets[role] = journal.place_for(target)
    with holding(journal, list(targets.values())):
        plan = [
            _planned(role, before[role], after[role], targets[role], role in save_as)
            for role in after
        ]
        origin = ORIGINS.get(outcome.origin, outcome.origin)
        number = journal.add_entry(
            kind="run",
            sheets=[(role, target, fmt, start, text) for role, target, fmt, start, text, _ in plan],
            changes=[(c["role"], c["path"], c["before"], c["after"]) for c in changes_of(outcome)],
            rulebook=bundle_of(rulebook),
            action=outcome.action,
            params=to_json(dict(outcome.params)),
            result=to_json(outcome.result),
            dice=outcome.dice,
            origin=origin,
            seed=dice.seed if isinstance(dice, SeededDice) else None,
            choices=choices_of(outcome),
        )
        write_all(journal, number, [(target, text, now) for _, target, _, _, text, now in plan])
    return number


def run_and_save(
    journal_path: str | Path,
    sources: Mapping[str, Path],
    save_to: Mapping[str, Path],
    run,
    rulebook,
    dice,
    *,
    load,
    hold: bool = True,
) -> tuple:
    """Read every character's sheet, run and save as one step: the command line's
    `rulebook run --save` and the page's save both go through here.

    `sources` and `save_to` name, by role (`self`: the acting character), the file each
    sheet is read from and the one it is written to (another: a new file). `load(role,
    path)` reads a sheet; `run(sheet, targets)` runs the action and may refuse its outcome
    (an error) before anything is written. With `hold`, no other save comes between the
    reading and the writing (off while dice are typed in at the table: a save in between
    makes this one refuse). Returns the outcome and what was saved: the acting
    character's file, the journal, the entry's number, and the other characters' files
    that changed (`others`)."""
    save_as = {role: path for role, path in save_to.items() if path != sources[role]}
    with Journal(journal_path) as journal:
        held = holding(journal, list(save_to.values())) if hold else nullcontext()
        with held:
            sheets = {role: load(role, path) for role, path in sources.items()}
            sheet = sheets.pop("self")
            outcome = run(sheet, sheets)
            # every changed sheet is written, or none: the journal entry holds them all
            before = {"self": sheet, **sheets}
            number = save_run(journal, outcome, before, rulebook, dice, save_as or None)
    saved = {"path": str(save_to["self"]), "journal": journal.where, "entry": number}
    changed = [c.role for c in outcome.characters if c.changes]
    if changed:
        saved["others"] = {role: str(save_to[role]) for role in changed}
    return outcome, saved


def save_by_hand(journal_path: str | Path, target: Path, make, rulebook, action: str) -> int:
    """A character's sheet made or edited by hand (the page's form), journaled as an
    entry of kind `sheet` and undone like a run. Under the locks, `make(current)` (the
    file's text now, None if there is none) gives the new text and its changes, each
    (path, before, after) as JSON values, or refuses (an error: nothing written).
    Returns the entry's number."""
    refuse_shipped(Path(target))
    with Journal(journal_path) as journal:
        place = journal.place_for(target)
        with holding(journal, [place]):
            place.remove_strays()
            current = place.read(MAX_FILE_BYTES)
            text, changes = make(current)
            number = journal.add_entry(
                kind="sheet",
                sheets=[("self", place, format_of(target), current, text)],
                changes=[("self", path, before, after) for path, before, after in changes],
                rulebook=bundle_of(rulebook),
                action=action,
            )
            write_all(journal, number, [(place, text, current)])
    return number


def save_file(journal: Journal, target: str | Path, text: str, name: str, check=None) -> int | None:
    """Save a rulebook file's new text, journaled (an entry of kind `rulebook`: its text
    before, none if the file is new, and after), so that `undo` puts it back; under the
    folder's lock. `check(current)` (the file's text now, or None) may refuse the save,
    seeing the file as nothing else can change it. Returns the entry's number, or None
    when the file already holds `text`. Line ends are written as the file reads back
    (`\n`: a text file is read with universal newlines), so that the journal's text after
    is the file's text."""
    place = journal.place_for(target)
    text = lines_as_read(text)
    with holding(journal, [place]):
        place.remove_strays()
        current = place.read(MAX_FILE_BYTES)
        if check is not None:
            check(current)
        if current == text:
            return None
        number = journal.add_entry(
            kind="rulebook",
            sheets=[("rulebook", place, "rules", current, text)],
            changes=[],
            action=name,
        )
        write_all(journal, number, [(place, text, current)])
    return number


def lines_as_read(text: str) -> str:
    """`text` as a file holding it reads back (`\r\n` and `\r` are `\n`)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def write_all(journal: Journal, number: int, writes: list) -> None:
    """Replace each file (an Inside, its new text, its text now: None if there is none)
    and mark entry `number` applied. A file that was not there is created only if it is
    still not there. If the file system refuses one, the files already replaced get
    their old text back and the pending entry is dropped: all of them, or none."""
    for done, (target, text, current) in enumerate(writes):
        if text == current:
            continue
        try:
            if text is None:  # an undo of the save that made the file
                _remove(target)
            elif current is None:
                _create(target, text)
            else:
                safe_files.write_atomic(target, text)
        except RulebookError as error:  # refused: read-only, full, a link, a new file there
            if _put_back(writes[: done + 1]):
                journal.discard(number)
                error.hint = tr("nothing was saved: every sheet is as it was")
            else:
                error.hint = tr(
                    "the run is in the journal ({journal}, run {number}): the next save of "
                    "this sheet, or `rulebook journal verify`, writes it",
                    journal=journal.where,
                    number=number,
                )
            raise
    journal.mark_applied(number)


def _create(target: safe_files.Inside, text: str) -> None:
    """A new file, never one that appeared since it was found missing (nor a link)."""
    try:
        target.write(text, new=True)
    except FileExistsError:
        raise changed_since_read(target.path) from None
    except OSError as error:
        raise safe_files.SaveError(
            tr("cannot be written ({value}); the file is as it was", value=error.strerror or error),
            path=str(target),
        ) from None


def _remove(target: safe_files.Inside) -> None:
    try:
        target.remove()
    except OSError as error:
        raise safe_files.SaveError(
            tr("cannot be removed ({value}); the file is as it was", value=error.strerror or error),
            path=str(target),
        ) from None


def _put_back(writes: list) -> bool:
    """Each file as it was before (a file that did not exist removed again); whether
    every one could be."""
    for target, _, previous in reversed(writes):
        try:
            if target.read(MAX_FILE_BYTES) == previous:
                continue
            if previous is None:
                target.remove()
            else:
                safe_files.write_atomic(target, previous)
        except (OSError, RulebookError):
            return False
    return True


def sheets_of(outcome) -> dict:
    """Every sheet a run produced, by role (a run with other characters names each)."""
    others = getattr(outcome, "sheets", None)
    if isinstance(others, Mapping):
        return dict(others)
    return {"self": outcome.sheet}


def _planned(role: str, before: Sheet, after: Sheet, target: safe_files.Inside, new_file: bool):
    """(role, target, format, text the run started from, text to write, file now)."""
    target.remove_strays()
    current = target.read(MAX_FILE_BYTES)
    if new_file:
        if current is not None:
            raise ParameterError(
                tr("--save-as {target}: the file exists", target=str(target)),
                None,
                tr(
                    "save into it with --char {target} --save, or name a new file",
                    target=str(target),
                ),
            )
    elif before.text is not None and current != before.text:
        raise changed_since_read(target.path)
    start = before.text if before.text is not None else current
    if start is None:
        start = before.dumps(format_of(target.path))
    if format_of(target.path) != before.text_format:
        text = after.dumps(format_of(target.path))
    else:
        text = after.file_text(before, start)
    return role, target, format_of(target.path), start, text, current
