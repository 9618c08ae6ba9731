"""An opposed check's side that branches before its roll, counted path by path into one Dist.

`opposed o { roll test(skill) against test(skill) tie reroll }` with `check test` naming
its die first (`let d = d100`, `roll d <= skill`: a natural die its fields read) cannot
give its records as one distribution of totals: the `let` needs a value. Without this,
the opposed check ran as a real run would, branching on each side's die and again on
each reroll of a tie (sampled after seconds for d100 against d100). Here each side is run
once per value of what it branched on (the roller's pins, followed depth first), each
path giving a record (or a distribution of them), and the paths' weights mix them into
the side's distribution, which interpreter.odds.contest combines as it does any other.
"""

from __future__ import annotations

from interpreter.odds.distribution import Dist, weighed
from interpreter.runtime import Unknown


class Switch:
    """`on`: a side that branches counted path by path (off: the opposed check runs as a
    real run would, branching in the explorer)."""

    on = True


SWITCH = Switch()

#: paths of one side followed at most (a d100 and a d6 before the roll: 600); past it,
#: the opposed check runs as a real run would
PATHS = 4096


def followed(path, ctx, roller, negligible: int) -> Dist | None:
    """The distribution of a side of an opposed check, followed through each value of
    what it branches on: `path()` runs the side once with the roller's pins, giving
    (True, its value, ()) or, where it needs a value past them, (False, that value's
    distribution, where the run stops instead). Paths less likely than 2**-negligible are
    left out (omitted mass, as the explorer prunes them). None when a path stops (a tie
    still tied at its limit), gives what is not a record or a distribution, or there are
    more than PATHS of them. Each path is counted as one unit of the roller's work."""
    saved = roller.pins, roller.cursor
    counted = ctx.steps
    ended: list[tuple[tuple[int, int], Dist]] = []
    paths: list[tuple[tuple, int, int]] = [((), 1, 1)]
    taken = 0
    try:
        while paths:
            pins, weight, total = paths.pop()
            taken += 1
            if taken > PATHS:
                return None
            roller.charge(1)
            roller.pins, roller.cursor = pins, 0
            try:
                done, value, stops = path()
            finally:
                ctx.recount(counted)  # (each path a run of its own, as a run makes one)
            if not done:  # (it needs a value: a path per value)
                if stops or type(value) is not Dist:
                    return None
                for outcome, w in value.weights.items():
                    w, t = weight * w, total * value.total
                    if w << negligible >= t:  # (else less likely than the explorer keeps)
                        paths.append(((*pins, outcome), w, t))
                continue
            if type(value) is not Dist and isinstance(value, Unknown):
                return None
            ended.append(((weight, total), value if type(value) is Dist else Dist.point(value)))
    finally:
        roller.pins, roller.cursor = saved
    return weighed(ended)  # (each path's ending by its weight, over one denominator)
