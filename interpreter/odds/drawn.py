"""A die a loop's pass draws as it begins: the worlds a pass starts from, one per face."""

from __future__ import annotations

from collections import Counter

from interpreter.odds.distribution import Dist
from interpreter.odds.worlds import World

#: the faces' distributions kept (by die), at most: a die drawn again in every computation
FACES_KEPT = 256
_FACES: dict = {}


class Drawn:
    """A name a pass binds to a die's face, not drawn yet (interpreter.odds.die_loops:
    `for each d in r.dice`, a pass per die): `starts` makes a world per face. Equal by
    the die, so that passes that draw alike are entered alike."""

    __slots__ = ("die", "faces")

    def __init__(self, die) -> None:
        self.die = die
        found = _FACES.get(die.key)
        if found is None:
            if len(_FACES) >= FACES_KEPT:  # (memory bounded)
                _FACES.clear()
            counted = Counter(die.faces())
            found = _FACES[die.key] = Dist(dict(counted), sum(counted.values()))
        self.faces = found

    def __eq__(self, other) -> bool:
        return type(other) is Drawn and self.die.key == other.die.key

    def __hash__(self) -> int:
        return hash(self.die.key)


def starts(explorer, world: World) -> list:
    """The worlds a pass begins from: `world`, or one per face of each die it draws
    (Drawn), weighted (those too unlikely to follow pruned, as the explorer prunes)."""
    worlds = [world]
    for name, value in world.env.items():
        if type(value) is not Drawn:
            continue
        worlds = [
            World({**w.env, name: face}, w.state, weight, w.steps)
            for w in worlds
            for face, weight in explorer.weighted(value.faces, w.weight)
        ]
    return worlds
