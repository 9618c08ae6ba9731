"""A die a loop's pass draws as it begins: the worlds a pass starts from, one per face."""

from __future__ import annotations

from collections import Counter

from interpreter.dice import roll_pool
from interpreter.errors import EvaluationError
from interpreter.odds.distribution import Dist
from interpreter.odds.worlds import World

#: the faces' distributions kept (by die), at most: a die drawn again in every computation
FACES_KEPT = 256
_FACES: dict = {}

#: the ways one die's draws may go that `chains_of` walks, at most (an explosion once of
#: a d20: 39; an explosion again and again: past it, however small the chance left)
MOST_CHAINS = 4096


class OneDie:
    """What one die of a term shows once its modifiers have acted on it alone (a reroll,
    `!!`, `min`/`max`: interpreter.odds.die_loops.one_die): its faces' weights. Keyed by
    them, so that dice that fall alike are alike, however they were written."""

    __slots__ = ("key", "weights")

    def __init__(self, weights: Dist) -> None:
        self.weights = weights
        self.key = ("one die", tuple(sorted(weights.weights.items())), weights.total)


class Chains:
    """What one die of a term shows in the list of its dice where it may become several
    (an explosion: the die and the dice it adds, in the order rolled; `chains_of`): the
    weights of each list. Keyed by them, as OneDie is."""

    __slots__ = ("key", "weights")

    def __init__(self, weights: Dist) -> None:
        self.weights = weights
        self.key = ("chains", tuple(sorted(weights.weights.items())), weights.total)


class _Walked(Exception):
    """A draw past the faces given: the walk tries each face of the die there."""


class _Tray:
    """The faces given, in order, to one die's roll (interpreter.dice.roll_pool); past
    them, _Walked."""

    def __init__(self, faces: tuple, limits) -> None:
        self.faces, self.limits, self.drawn = faces, limits, 0

    def draw(self, die, span, why=None):  # noqa: ARG002 (as a Tray draws)
        if self.drawn == len(self.faces):
            raise _Walked
        self.drawn += 1
        return self.faces[self.drawn - 1]


def chains_of(die, steps: tuple, limits) -> Chains | None:
    """How one die rolled with `steps` (modifiers acting on each die alone) stands in
    the list of a pool's dice: every way its draws may go, walked through the real
    roller's own roll_pool (each list, the faces that stand, weighted by its draws);
    None past MOST_CHAINS ways, or where a way fails (a chain past the roller's limit)."""
    faces = tuple(die.faces())
    size = len(faces)
    found: list = []  # (the faces standing, how many draws)
    waiting: list = [()]
    while waiting:
        given = waiting.pop()
        tray = _Tray(given, limits)
        try:
            roll = roll_pool(tray, die, 1, steps, None, "")  # type: ignore[arg-type]
        except _Walked:
            if len(waiting) + len(found) + size > MOST_CHAINS:
                return None
            waiting.extend((*given, face) for face in reversed(faces))
            continue
        except EvaluationError:  # (a chain past the limit: the pool's odds say how often)
            return None
        found.append((roll.standing(), len(given)))
    longest = max(draws for _, draws in found)
    weights: dict = {}
    for standing, draws in found:
        weights[standing] = weights.get(standing, 0) + size ** (longest - draws)
    return Chains(Dist(weights, size**longest))


def face_weights(die) -> Dist:
    """A die's faces and their weights: a plain die's each once (kept by die: a die is
    drawn again in every computation), a OneDie's as it falls."""
    if type(die) is OneDie:
        return die.weights
    found = _FACES.get(die.key)
    if found is None:
        if len(_FACES) >= FACES_KEPT:  # (memory bounded)
            _FACES.clear()
        counted = Counter(die.faces())
        found = _FACES[die.key] = Dist(dict(counted), sum(counted.values()))
    return found


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
