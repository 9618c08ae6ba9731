"""Replay: the recorded runs again, with their dice and choices, against another rulebook.

Each recorded run is run twice: with its own rulebook (rebuilt from the journal's texts,
which also tells which die each recorded face was) and with the other one, on the sheet
as it was before the run. The report says, run by run, whether the result and the
changes (of every character of the run) would have been the same, and where the
recorded dice do not fit the new rules (more dice needed than were rolled, fewer used, or
a face the new die does not have) or the recorded choices do not (a choice the run did
not make, an answer that is no longer an open option, a recorded choice not made now).

Only runs of the same game are replayed: runs recorded with the other rulebook, one it
extends, or one of the same name or title (an edited copy); a named sheet's runs all.

With `chain`, each character's sheet is carried from one replayed run to the next (what a
whole session would have become), instead of starting every run from its recorded sheet.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from dsl.errors import RulebookError
from dsl.messages import tr
from interpreter.engine import Engine
from interpreter.errors import DiceError
from interpreter.journal.errors import ChoicesDoNotFit
from interpreter.journal.rerun import (
    changed_path,
    changes_of,
    choices_of,
    inputs_of,
    rulebook_of,
    run_again,
    sheet_for,
)
from interpreter.journal.store import Journal
from interpreter.values import show, to_json

SAME, DIFFERENT, DICE, FAILED = "same", "different", "dice do not fit", "failed"
CHOICES = "choices do not fit"


@attrs.frozen
class ReplayedRun:
    """One recorded run and what it would have been under the other rulebook."""

    entry: int
    at: str
    action: str
    sheet: str
    status: str  # SAME | DIFFERENT | DICE | CHOICES | FAILED
    recorded_result: object
    result: object  # None when the run could not finish
    recorded_changes: tuple  # of dicts: role, path, before, after (every character's)
    changes: tuple
    recorded_choices: tuple = ()  # of dicts: name, value, chooser, how
    choices: tuple = ()  # the choices the replayed run made (the recorded ones, given again)
    dice: str | None = None  # what about the recorded dice does not fit
    choices_note: str | None = None  # what about the recorded choices does not fit
    error: str | None = None  # why the run could not finish under the other rulebook
    differences: tuple = ()  # result fields and sheet paths that came out differently

    def to_json(self) -> dict:
        return attrs.asdict(self)


def replay(
    journal: Journal,
    against,
    start: int | None = None,
    end: int | None = None,
    sheet: str | None = None,
    chain: bool = False,
    progress=None,
) -> list[ReplayedRun]:
    """Replay the runs from `start` to `end` (run numbers or ISO dates; all by default)
    against the Rulebook `against`; `progress(done, total)` is called as it goes."""
    engine = Engine.of(against)
    family = related_names(against)
    runs = [
        e
        for e in journal.entries(sheet=sheet)
        if e.kind == "run"
        and e.state == "applied"
        and _within(e, start, end)
        and (sheet is not None or _of_family(journal, e, family))
    ]
    carried: dict = {}  # stored path → the sheet the chain has reached
    report = []
    for done, entry in enumerate(runs):
        report.append(_replay_one(journal, entry, engine, carried if chain else None))
        if progress is not None:
            progress(done + 1, len(runs))
    return report


def related_names(book) -> set[str]:
    """The names and titles of a rulebook and of those it extends: a journal's runs of
    any of them are what a replay against it is about (not another game's)."""
    names = set()
    while book is not None:
        names |= {Path(book.path).stem, book.title}
        book = book.base
    return names


def _of_family(journal, entry, family: set[str]) -> bool:
    row = journal.rulebook_row(entry.rulebook)
    return row["name"] in family or row["title"] in family


def _within(entry, start, end) -> bool:
    """Whether an entry is in the range: run numbers, or ISO dates and times (a day
    given as `2026-05-14` runs to its end)."""
    if isinstance(start, int) and entry.id < start:
        return False
    if isinstance(end, int) and entry.id > end:
        return False
    if isinstance(start, str) and entry.at < start:
        return False
    return not (isinstance(end, str) and entry.at[: len(end)] > end)


def _replay_one(journal, entry, engine, carried) -> ReplayedRun:
    recorded_changes = tuple(dict(c) for c in entry.changes)
    base = {
        "entry": entry.id,
        "at": entry.at,
        "action": entry.action,
        "sheet": ", ".join(s.path for s in entry.sheets),
        "recorded_result": entry.result,
        "recorded_changes": recorded_changes,
        "recorded_choices": tuple(dict(c) for c in entry.choices),
    }
    inputs = inputs_of(journal, entry)
    try:
        labels = run_again(Engine.of(rulebook_of(inputs)), inputs).dice.dice
    except RulebookError:
        labels = []
    try:
        sheets = {role: sheet_for(engine, *state) for role, state in inputs.sheets.items()}
        if carried is not None:
            sheets = {role: carried.get(inputs.sheets[role][0], s) for role, s in sheets.items()}
        again = run_again(engine, inputs, sheets)
    except RulebookError as error:
        status = FAILED
        if isinstance(error, DiceError):
            status = DICE
        elif isinstance(error, ChoicesDoNotFit):
            status = CHOICES
        note = error.message
        if status == DICE and labels:
            note += f" (the recorded run rolled {_dice_text(labels)})"
        return ReplayedRun(
            **base,
            status=status,
            result=None,
            changes=(),
            dice=note if status == DICE else None,
            choices_note=note if status == CHOICES else None,
            error=note if status == FAILED else None,
        )
    outcome, dice = again.outcome, again.dice
    if carried is not None:  # every character of the run goes on as this run left it
        for role, sheet in outcome.sheets.items():
            carried[inputs.sheets[role][0]] = sheet
    result = to_json(outcome.result)
    changes = tuple(changes_of(outcome))
    differences = _differences(entry.result, result, recorded_changes, changes)
    dice_note = None
    if dice.left:
        dice_note = tr(
            "uses {used} of the {recorded} recorded dice ({left} fewer than the recorded run)",
            used=dice.used,
            recorded=len(inputs.dice),
            left=dice.left,
        )
    choices_note = None
    if again.choices.left:
        unused = ", ".join(f"{c['name']}={show(c['value'])}" for c in again.choices.left)
        choices_note = tr("does not make the recorded choices {unused}", unused=unused)
    status = DIFFERENT if differences else (DICE if dice_note else SAME)
    if status == SAME and choices_note:
        status = CHOICES
    return ReplayedRun(
        **base,
        status=status,
        result=result,
        changes=changes,
        choices=tuple(choices_of(outcome)),
        dice=dice_note,
        choices_note=choices_note,
        differences=tuple(differences),
    )


def _differences(old_result, new_result, old_changes, new_changes) -> list[str]:
    """The result fields and sheet values that differ: `Vida` on the acting character,
    `objetivo.Vida` on another (as the rules name it)."""
    out = []
    old_result = old_result if isinstance(old_result, dict) else {}
    new_result = new_result if isinstance(new_result, dict) else {}
    for key in list(old_result) + [k for k in new_result if k not in old_result]:
        if old_result.get(key) != new_result.get(key):
            out.append(f"result.{key}")
    old_after = {changed_path(c): c["after"] for c in old_changes}
    new_after = {changed_path(c): c["after"] for c in new_changes}
    for path in list(old_after) + [p for p in new_after if p not in old_after]:
        if old_after.get(path, _UNCHANGED) != new_after.get(path, _UNCHANGED):
            out.append(path)
    return out


_UNCHANGED = object()


def _dice_text(labels: list[str]) -> str:
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return ", ".join(f"{n}{label}" for label, n in counts.items())


def summary(report: list[ReplayedRun]) -> dict:
    counts = {SAME: 0, DIFFERENT: 0, DICE: 0, CHOICES: 0, FAILED: 0}
    for run in report:
        counts[run.status] += 1
    return counts
