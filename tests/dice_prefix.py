"""What the oracles of the tests share: a dice source that gives a prefix of faces and
then says which die it was asked for, so that an oracle can try every face of it."""

from __future__ import annotations

from interpreter.dice import DiceSource


class NeedDie(Exception):
    """The run needs a die past the prefix: `die` is the one (its faces, its size)."""

    def __init__(self, die):
        super().__init__()
        self.die = die


class PrefixDice(DiceSource):
    origin = "forced"

    def __init__(self, faces):
        self.faces, self.next = faces, 0

    def draw(self, die, position):
        if self.next >= len(self.faces):
            raise NeedDie(die)
        self.next += 1
        return self.faces[self.next - 1]
