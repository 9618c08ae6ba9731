"""Dice typed in one by one over HTTP: the run replayed with the faces typed so far.

A run is deterministic given its dice, so the server keeps nothing between requests:
the page sends the faces typed so far; the run goes as far as they take it, and either
finishes (its outcome, its dice marked "typed in") or stops at the first die still
missing, which the answer describes (which die, its faces, the rulebook line that rolls
it) so that the person at the table rolls it and the page asks again with one more face.
Nothing is changed by a run that stopped for a die.
"""

from __future__ import annotations

from dsl.messages import tr, tr_n
from interpreter.dice import DiceSource, Die
from interpreter.errors import DiceError


class DieNeeded(DiceError):
    """The next die of a run whose faces are being typed in; not an error to show."""

    code = "dice_error"

    def __init__(self, die: Die, position: int):
        super().__init__(tr("die {position} ({die}) is needed", position=position, die=die.label))
        self.die = die
        self.position = position

    def to_json(self) -> dict:
        """What the page asks for: `{"need": {"kind": "die", ...}}`."""
        need = {
            "kind": "die",
            "position": self.position,
            "die": self.die.label,
            "low": self.die.low,
            "high": self.die.high,
            "file": None,
            "line": None,
            "roll": None,
        }
        if self.span is not None:  # the dice tray tells where the die is rolled
            need.update(file=self.span.source.name, line=self.span.line, roll=self.span.text)
        return {"need": need}


class TypedSoFar(DiceSource):
    """The faces typed so far, in draw order; past the last one, `DieNeeded`."""

    origin = "typed"

    def __init__(self, faces: list[int]):
        self.faces = list(faces)
        self.used = 0

    def draw(self, die: Die, position: int) -> int:
        if self.used >= len(self.faces):
            raise DieNeeded(die, position)
        face = self.faces[self.used]
        self.used += 1
        if not (die.low <= face <= die.high):
            raise DiceError(
                tr(
                    "die {position}: {face} is not a face of {die} ({low}..{high})",
                    position=position,
                    face=face,
                    die=die.label,
                    low=die.low,
                    high=die.high,
                ),
                None,
                tr("type the face the die shows, or take back the last faces typed"),
            )
        return face

    def finish(self) -> None:
        left = len(self.faces) - self.used
        if left:
            raise DiceError(
                tr_n(
                    "{n} face typed beyond what the run needed: it used {used}",
                    "{n} faces typed beyond what the run needed: it used {used}",
                    left,
                    used=self.used,
                ),
                None,
                tr("take back the last faces typed"),
            )
