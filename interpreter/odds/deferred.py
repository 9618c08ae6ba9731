"""A let's value kept whole for the one statement that reads it, mixed there once.

`let force = d4 + d2` then `let c = against(force)`: the explorer would make a world per
value of `force` in every world it has, and run `against` once in each, though the
worlds differ only in what neither statement reads (an earlier roll, a sheet written
before). When the value is read by the next statement alone (a `let` that changes
nothing on the sheet), it is kept whole (Deferred) and that statement's outcomes are
counted over its values once, relative to a world's probability, for the values of the
other names it reads and of what it read of the sheet (interpreter.odds.reads), then
weighted into every world that holds the same.
"""

from __future__ import annotations

from math import gcd

from dsl import nodes as n
from interpreter.compiled import Binding
from interpreter.odds.narrowing import Narrowing
from interpreter.odds.reads import ReadMemory
from interpreter.odds.roller import hashable
from interpreter.odds.weights import ONE, Mass, below, times
from interpreter.odds.worlds import Failure, World


class Deferred:
    """A `let`'s distribution not branched on yet: equal to another for the same one."""

    __slots__ = ("dist",)

    def __init__(self, dist):
        self.dist = dist

    def __eq__(self, other) -> bool:
        return type(other) is Deferred and other.dist is self.dist

    def __hash__(self) -> int:
        return hash(self.dist.number)


def deferrable(statements: tuple, index: int, live: list, explorer) -> bool:
    """Whether the value `statements[index]` (a `let`) binds is read by the next statement
    alone, a `let` whose value is read later and that changes nothing on the sheet, run
    as a `let` (not a called action's steps)."""
    name = statements[index].node.name
    if index + 1 >= len(statements) or name in live[index + 1].needs:
        return False
    following = statements[index + 1]
    node, shape = following.node, following.shape
    return (
        isinstance(node, n.Let)
        and type(shape) is Binding
        and node.name != name
        and node.name in live[index + 1].needs
        and shape.pure
        and shape.split is None
        and not explorer.calls_in(following)
        and name in explorer.names_read(node.expr).needs
    )


def deferred_in(world: World, reads: dict):
    """The name in `world` holding a Deferred value that a statement reads, or None."""
    for name in reads:
        if type(world.env.get(name)) is Deferred:
            return name
    return None


def others_of(world: World, name: str, reads: dict) -> tuple:
    """The values of the other names a statement reads, in `world`."""
    return tuple(hashable(world.env.get(other)) for other in reads if other != name)


def shared(worlds: list, reads: dict) -> dict:
    """How many worlds hold a deferred value with the same other values read: where that
    is one, counting over the value once serves no other world (it is branched on)."""
    counts: dict = {}
    for world in worlds:
        name = deferred_in(world, reads)
        if name is not None:
            key = (world.env[name], others_of(world, name, reads))
            counts[key] = counts.get(key, 0) + 1
    return counts


def expanded(world: World, name: str, explorer) -> list:
    """The worlds of each value of `world`'s deferred `name`, as a `let` makes them."""
    dist = world.env[name].dist
    return [
        World({**world.env, name: value}, world.state, weight, world.steps)
        for value, weight in explorer.weighted(dist, world.weight)
    ]


class Mixer:
    """The outcomes of a statement over a deferred value's distribution, remembered."""

    def __init__(self, explorer):
        self.explorer = explorer
        self.memory = ReadMemory()
        self.narrowing = Narrowing(explorer.roller)

    def outcomes(
        self, statement, world: World, name: str, reads: dict, values_of, how, narrowed=None
    ) -> tuple:
        """([(value, weight)], [(Failure, weight)], weight lost, steps) of running
        `statement` in `world` for each value of its deferred `name`, each weight relative
        to the world's; `steps`: (fewest, most) the runs took to end, counted from none,
        and the most any run reached (`Explorer.peak`). `values_of(after)` gives the
        (value, weight) pairs of one run's end, as `how` says (what is read after the
        statement, and whether its value is deferred).
        `narrowed` (Narrowing.of): the statement only compares the value, and is run over
        intervals of it (interpreter.odds.narrowing), not once per value."""
        explorer = self.explorer
        ctx = explorer.ctx
        dist = world.env[name].dist
        others = tuple(world.env.get(other) for other in reads if other != name)
        key = (statement.number, dist.number, explorer.depth, how, others_of(world, name, reads))

        def starts(state):
            if narrowed is not None:
                value, run, kept = self.narrowing.start(statement, *narrowed)
                yield World({**world.env, name: value}, state, (kept, dist.total)), run
                return
            for value, weight in explorer.weighted(dist, ONE):
                yield World({**world.env, name: value}, state, weight), statement.run

        def compute(_cut):
            state = ctx.state  # the world's sheet, watched: what the runs read of it
            saved, explorer.lost = explorer.lost, Mass()
            peak, explorer.peak = explorer.peak, 0  # its runs' steps, from none
            values: dict = {}
            failures: list = []
            fewest, most = None, 0
            try:
                for start, run in starts(state):
                    for after, outcome in explorer.explore(start, run):
                        low, high = after.steps
                        fewest = low if fewest is None else min(fewest, low)
                        most = max(most, high)
                        if narrowed is not None:  # m1/kept × m2/m1 …: over the total, once
                            common = gcd(*after.weight)
                            after.weight = (after.weight[0] // common, after.weight[1] // common)
                        if isinstance(outcome, Failure):
                            failures.append((outcome, after.weight))
                            continue
                        for kept, w in values_of(after):
                            found = values.get(kept)
                            if found is None:
                                values[kept] = found = Mass()
                            found.add(w)
                pairs = [(kept, mass.weight()) for kept, mass in values.items()]
                steps = (fewest or 0, most, explorer.peak)
                return pairs, failures, explorer.lost.weight(), steps
            finally:
                explorer.lost = saved
                explorer.peak = peak

        ctx.state = world.state
        return self.memory.get(key, ctx, compute, 0, (dist, others))

    def weighted(self, relative: list, weight: tuple):
        """(value, weight × relative weight) of the outcomes likely enough to follow."""
        explorer = self.explorer
        prune = explorer.prune
        for value, w in relative:
            w = times(weight, *w)
            if below(w, prune):
                explorer.lost.add(w)
            else:
                yield value, w
