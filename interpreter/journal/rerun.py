"""Running a recorded run again: its rulebook, sheets, parameters, dice and choices.

`show` rebuilds a run's trace this way, `replay` runs it against another rulebook, and
`verify` confirms an exported record. `RecordedDice` hands out the recorded faces and,
unlike forced dice, says how many a run used rather than failing when some are left;
`RecordedChoices` answers each `choose` with the recorded answer of that name and says
which were never asked for. `changes_of` and `choices_of` are a run's changes (of every
character) and choices as the journal stores them; `mismatches` compares a run again
with its record.
"""

from __future__ import annotations

import attrs

from dsl.errors import RulebookError
from dsl.messages import Message, tr
from dsl.rulebook import Rulebook
from interpreter.choosers import Chooser, Question
from interpreter.dice import DiceSource, Die
from interpreter.errors import ChoiceNotOpen, DiceError, ParameterError
from interpreter.journal.bundle import bundle_from_row, rebuild
from interpreter.journal.errors import ChoicesDoNotFit, JournalError
from interpreter.journal.store import Entry, Journal
from interpreter.outcome import Outcome
from interpreter.sheets.character import Sheet
from interpreter.values import show, to_json

#: the dice-source origin a recorded origin is shown as in a rebuilt trace
TRACE_ORIGINS = {"seeded": "generated", "forced": "forced", "typed": "typed"}


class RecordedDice(DiceSource):
    """The faces a run recorded, in draw order; `used` and `dice` say what a run took."""

    def __init__(self, faces, origin: str = "seeded"):
        self.faces = tuple(faces)
        self.origin = TRACE_ORIGINS.get(origin, "forced")
        self.used = 0
        self.dice: list[str] = []  # the label of each die drawn

    def draw(self, die: Die, position: int) -> int:  # noqa: ARG002 (a DiceSource draws with (die, position))
        if self.used >= len(self.faces):
            raise DiceError(
                tr(
                    (
                        "needs more dice than the {len} recorded: die "
                        "{value} ({label}) has no recorded face"
                    ),
                    len=len(self.faces),
                    value=self.used + 1,
                    label=die.label,
                )
            )
        face = self.faces[self.used]
        self.used += 1
        if not die.has(face):
            raise DiceError(
                tr(
                    (
                        "recorded die {used} shows {face}, which is not a face of "
                        "{label} ({low}..{high}) as the rules roll it now"
                    ),
                    used=self.used,
                    face=repr(face),
                    label=die.label,
                    low=die.low,
                    high=die.high,
                )
            )
        self.dice.append(die.label)
        return face

    @property
    def left(self) -> int:
        return len(self.faces) - self.used


class RecordedChoices(Chooser):
    """The choices a run recorded, given again: each question gets the first unused
    recorded answer of its name (a choice made twice, in order). A question the record
    has no answer for takes its only open option, else raises ChoicesDoNotFit, as does a
    recorded answer that is no longer an open option."""

    def __init__(self, recorded):
        super().__init__()
        self.recorded = tuple(recorded)
        self.taken = [False] * len(self.recorded)

    def choose(self, question: Question) -> tuple:
        for i, choice in enumerate(self.recorded):
            if self.taken[i] or choice["name"] != question.name:
                continue
            self.taken[i] = True
            try:
                return question.option(choice["value"]), "recorded"
            except (ParameterError, ChoiceNotOpen) as error:
                raise ChoicesDoNotFit(
                    tr(
                        "the recorded choice {name}={value} does not fit: {message}",
                        name=question.name,
                        value=choice["value"],
                        message=error.message,
                    ),
                    question.span,
                ) from None
        if len(question.options) == 1:
            return question.options[0], "only"
        raise ChoicesDoNotFit(
            tr(
                "{name} is a choice the recorded run did not make ({options})",
                name=question.name,
                options=", ".join(show(o) for o in question.options),
            ),
            question.span,
        )

    @property
    def left(self) -> list[dict]:
        """The recorded choices no question asked for."""
        return [c for c, taken in zip(self.recorded, self.taken, strict=True) if not taken]


@attrs.frozen
class Again:
    """A recorded run run again: its outcome, and the dice and choices it took."""

    outcome: Outcome
    dice: RecordedDice
    choices: RecordedChoices


@attrs.frozen
class Inputs:
    """What a recorded run needs to run again."""

    rulebook: Rulebook | None  # None: read from a record, its rulebook not rebuilt yet
    action: str
    params: dict
    sheets: dict  # role → (stored path, format, text before)
    dice: tuple
    origin: str
    choices: tuple


def rulebook_of(inputs: Inputs) -> Rulebook:
    """The rulebook a recorded run runs in (rebuilt: `inputs_of` gives it)."""
    if inputs.rulebook is None:
        raise AssertionError("a record's run, before its rulebook is rebuilt")
    return inputs.rulebook


def inputs_of(journal: Journal, entry: Entry) -> Inputs:
    if entry.sheet("self") is None:
        raise JournalError(
            tr(
                "{path}: run {number} has no sheet of the acting character (self)",
                path=journal.where,
                number=entry.id,
            )
        )
    if entry.action is None:  # (a run names its action)
        message = tr(
            "{field} is not {expected}", field=f"{entry.id}: action", expected=tr("a text")
        )
        raise JournalError(message)
    row = journal.rulebook_row(entry.rulebook)
    book = rebuild(bundle_from_row(row, journal.text))
    sheets = {s.role: (s.path, s.text_format, journal.text(s.before)) for s in entry.sheets}
    return Inputs(book, entry.action, entry.params, sheets, entry.dice, entry.origin, entry.choices)


def sheet_for(engine, stored_path: str, text_format: str, text: str) -> Sheet:
    """A recorded sheet, read against `engine`'s rulebook (which may not be the one it
    was saved with: a SheetError says where it no longer fits)."""
    return Sheet.from_text(text, engine.rulebook, stored_path, text_format, engine.limits)


def run_again(engine, inputs: Inputs, sheets: dict | None = None) -> Again:
    """Run the recorded action on `engine` with the recorded dice and choices. Raises
    what the run raises (DiceError, ChoicesDoNotFit when the record does not fit)."""
    if sheets is None:
        sheets = {role: sheet_for(engine, *state) for role, state in inputs.sheets.items()}
    dice = RecordedDice(inputs.dice, inputs.origin)
    choices = RecordedChoices(inputs.choices)
    others = {role: sheet for role, sheet in sheets.items() if role != "self"}
    params = {k: v for k, v in inputs.params.items() if k not in others}  # (shown by name)
    outcome = engine.run(
        inputs.action, sheets["self"], params, dice, targets=others, choices=choices
    )
    return Again(outcome, dice, choices)


def changes_of(outcome) -> list[dict]:
    """Every change of a run, the acting character's (role `self`) then each other's."""
    out = [_change("self", c) for c in outcome.changes]
    for other in outcome.characters:
        out += [_change(other.role, c) for c in other.changes]
    return out


def _change(role: str, change) -> dict:
    return {
        "role": role,
        "path": change.path,
        "before": to_json(change.before),
        "after": to_json(change.after),
    }


def changed_path(change: dict) -> str:
    """A change's place as the rules name it: `Vida`, or `objetivo.Vida` on another."""
    role = change.get("role", "self")
    return change["path"] if role == "self" else f"{role}.{change['path']}"


def choices_of(outcome) -> list[dict]:
    """Every choice of a run, in order: what, which option, who chose, how."""
    return [
        {"name": c.name, "value": to_json(c.value), "chooser": c.by or "self", "how": c.how}
        for c in outcome.choices
    ]


def mismatches(record: dict, again: Again, engine, afters: dict | None = None) -> list[str]:
    """How a run again differs from its record (`result`, `changes`, `choices`; `afters`
    each role's sheet after the run, as (stored path, format, text)): empty when it
    reproduces."""
    outcome = again.outcome
    problems: list[str] = []
    problems += result_differences(to_json(outcome.result), record.get("result"))
    changes = [_plain_change(c) for c in changes_of(outcome)]
    recorded = [_plain_change(c) for c in record.get("changes") or ()]
    if changes != recorded:
        problems.append(
            tr(
                "the changes are {changes}, the record says {recorded}",
                changes=_changes_said(changes),
                recorded=_changes_said(recorded),
            )
        )
    made = [_plain_choice(c) for c in choices_of(outcome)]
    recorded_choices = [_plain_choice(c) for c in record.get("choices") or ()]
    if made != recorded_choices:
        problems.append(
            tr(
                "the choices are {made}, the record says {recorded}",
                made=_choices_said(made),
                recorded=_choices_said(recorded_choices),
            )
        )
    if again.dice.left:
        problems.append(tr("{left} recorded dice were not used", left=again.dice.left))
    if again.choices.left:
        unused = _choices_said([(c["name"], c["value"], None) for c in again.choices.left])
        problems.append(tr("recorded choices were not asked for ({unused})", unused=unused))
    new_sheets = outcome.sheets
    for role, (path, text_format, text) in (afters or {}).items():
        try:
            recorded_after = sheet_for(engine, path, text_format, text)
        except RulebookError as error:
            problems.append(
                tr(
                    "the sheet of {role} after the run does not read: {message}",
                    role=role,
                    message=error.message,
                )
            )
            continue
        if role not in new_sheets or recorded_after.to_data() != new_sheets[role].to_data():
            problems.append(
                tr("the sheet of {role} after the run differs from the record's", role=role)
            )
    return problems


def result_differences(result, recorded) -> list:
    """How a result differs from the recorded one, field by field, in words (the values
    as a run shows them, never Python's reprs): empty when they are the same."""
    if result == recorded:
        return []
    if not isinstance(result, dict) or not isinstance(recorded, dict):
        return [
            tr(
                "the result is {result}, the record says {recorded}",
                result=result,
                recorded=recorded,
            )
        ]
    out = []
    for key in [*result, *(k for k in recorded if k not in result)]:
        if key not in recorded:
            out.append(
                tr(
                    "the result has {field} {value}, the record has no {field}",
                    field=key,
                    value=result[key],
                )
            )
        elif key not in result:
            out.append(
                tr(
                    "the result has no {field}, the record says {value}",
                    field=key,
                    value=recorded[key],
                )
            )
        elif result[key] != recorded[key]:
            out.append(
                tr(
                    "{field} is {value}, the record says {recorded}",
                    field=key,
                    value=result[key],
                    recorded=recorded[key],
                )
            )
    return out


def _changes_said(changes: list) -> Message:
    """Changes as a run prints them: `Vida 30 → 20, objetivo.Vida 7 → 1`, or none."""
    if not changes:
        return tr("no changes")
    parts = [
        tr(
            "{place} {before} → {after}",
            place=path if role == "self" else f"{role}.{path}",
            before=before,
            after=after,
        )
        for role, path, before, after in changes
    ]
    return Message.joined(parts, ", ")


def _choices_said(choices: list) -> Message:
    """Choices as `show` prints them: `invocar=sí`, or none."""
    if not choices:
        return tr("none")
    parts = [tr("{name}={value}", name=name, value=value) for name, value, _ in choices]
    return Message.joined(parts, ", ")


def _plain_change(change: dict) -> tuple:
    return (change.get("role", "self"), change["path"], change["before"], change["after"])


def _plain_choice(choice: dict) -> tuple:
    return (choice["name"], choice["value"], choice.get("chooser") or "self")
