"""A die a loop's pass draws as it begins: the worlds a pass starts from, one per face."""

from __future__ import annotations

from collections import Counter

from interpreter.odds.distribution import Dist
from interpreter.odds.worlds import World


class OneDie:
    """What one die of a term shows once its modifiers have acted on it alone (a reroll,
    `!!`, `min`/`max`: interpreter.odds.die_loops.one_die): its faces' weights. Keyed by
    them, so that dice that fall alike are alike, however they were written."""

    __slots__ = ("key", "weights")

    def __init__(self, weights: Dist) -> None:
        self.weights = weights
        self.key = ("one die", tuple(sorted(weights.weights.items())), weights.total)


def face_weights(die) -> Dist:
    """A die's faces and their weights: a plain die's each once, a OneDie's as it falls."""
    if type(die) is OneDie:
        return die.weights
    counted = Counter(die.faces())
    return Dist(dict(counted), sum(counted.values()))


class Drawn:
    """A name a pass binds to a die's face, not drawn yet (interpreter.odds.die_loops:
    `for each d in r.dice`, a pass per die): `starts` makes a world per face. Equal by
    the die, so that passes that draw alike are entered alike."""

    __slots__ = ("die", "faces")

    def __init__(self, die) -> None:
        self.die = die
        self.faces = face_weights(die)

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
