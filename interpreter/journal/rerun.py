"""Running a recorded run again: its rulebook, its sheets, its parameters, its dice.

`show` rebuilds a run's trace this way, `replay` runs it against another rulebook, and
`verify` confirms an exported record. `RecordedDice` hands out the recorded faces and,
unlike forced dice, says how many a run used rather than failing when some are left.
"""

from __future__ import annotations

import attrs

from dsl.messages import tr
from interpreter.dice import DiceSource, Die
from interpreter.errors import DiceError
from interpreter.journal.bundle import bundle_from_row, rebuild
from interpreter.journal.store import Entry, Journal
from interpreter.sheet import Sheet

#: the dice-source origin a recorded origin is shown as in a rebuilt trace
TRACE_ORIGINS = {"seeded": "generated", "forced": "forced", "typed": "typed"}


class RecordedDice(DiceSource):
    """The faces a run recorded, in draw order; `used` and `dice` say what a run took."""

    def __init__(self, faces, origin: str = "seeded"):
        self.faces = tuple(faces)
        self.origin = TRACE_ORIGINS.get(origin, "forced")
        self.used = 0
        self.dice: list[str] = []  # the label of each die drawn

    def draw(self, die: Die, position: int) -> int:
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


@attrs.frozen
class Inputs:
    """What a recorded run needs to run again."""

    rulebook: object  # a checked Rulebook
    action: str
    params: dict
    sheets: dict  # role → (stored path, format, text before)
    dice: tuple
    origin: str
    choices: tuple


def inputs_of(journal: Journal, entry: Entry) -> Inputs:
    row = journal.rulebook_row(entry.rulebook)
    book = rebuild(bundle_from_row(row, journal.text))
    sheets = {s.role: (s.path, s.text_format, journal.text(s.before)) for s in entry.sheets}
    return Inputs(book, entry.action, entry.params, sheets, entry.dice, entry.origin, entry.choices)


def sheet_for(engine, stored_path: str, text_format: str, text: str) -> Sheet:
    """A recorded sheet, read against `engine`'s rulebook (which may not be the one it
    was saved with: a SheetError says where it no longer fits)."""
    return Sheet.from_text(text, engine.rulebook, stored_path, text_format, engine.limits)


def run_again(engine, inputs: Inputs, sheets: dict | None = None):
    """Run the recorded action on `engine`; (outcome, the dice source it drew from).
    Raises what the run raises (a DiceError when the recorded dice do not fit)."""
    if sheets is None:
        sheets = {role: sheet_for(engine, *state) for role, state in inputs.sheets.items()}
    dice = RecordedDice(inputs.dice, inputs.origin)
    others = {role: sheet for role, sheet in sheets.items() if role != "self"}
    params = {k: v for k, v in inputs.params.items() if k not in others}  # (shown by name)
    outcome = engine.run(
        inputs.action, sheets["self"], params, dice, targets=others, choices=inputs.choices
    )
    return outcome, dice
