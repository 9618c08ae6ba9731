"""An `if` whose condition nothing reads again: its worlds split by the condition's odds."""

from __future__ import annotations

from interpreter.compiled import Branches
from interpreter.odds.deferred import Deferred
from interpreter.odds.distribution import Dist
from interpreter.odds.weights import times
from interpreter.odds.worlds import Live, World
from interpreter.runtime import as_bool


class Switch:
    """Whether a condition read for the last time splits the worlds by its odds (tests
    switch it off: then a run that meets it is run again once per value)."""

    split = True


SWITCH = Switch()


class Split:
    """A condition's outcome that is a distribution of true and false (see test_run)."""

    __slots__ = ("dist",)

    def __init__(self, dist: Dist) -> None:
        self.dist = dist


def consumed(explorer, compiled: Branches, node, index: int, live_out: Live):
    """The names the condition of branch `index` reads, where none of them is read after
    it is tested (by a later condition, a branch, the block run when none is taken, or
    what follows the `if`) and the conditions change nothing on the sheet: then its
    value, where a distribution of true and false (`if c.success` after `let c =
    check(...)`, or `if d6 >= 4`), is used once as such, the worlds split by its odds
    without running it again per value. None otherwise (and for a `let x = if ...`)."""
    if not SWITCH.split or node is None or not compiled.pure:
        return None
    key = ("consumed", compiled, index, live_out)
    found = explorer.liveness.get(key)
    if found is None:
        reads = tuple(sorted(explorer.names_read(node.branches[index][0]).needs))
        later = [live_out, explorer.block_before(compiled.otherwise, live_out)]
        later += [explorer.block_before(branch.body, live_out) for branch in compiled.branches]
        later += [explorer.names_read(test) for test, _ in node.branches[index + 1 :]]
        dead = not any(name in live.needs for live in later for name in reads)
        found = explorer.liveness[key] = (reads,) if dead else ()
    return found[0] if found else None


def test_run(condition, span, reads: tuple | None, world: World):
    """The run of a condition in `world`: its truth, or (where `reads`, consumed's,
    is given and no value it reads in the world is kept whole for a later statement:
    interpreter.odds.deferred) a Split where it is a distribution of true and false."""
    if reads is None or any(type(world.env.get(name)) is Deferred for name in reads):
        return lambda ctx: as_bool(ctx, condition(ctx), span)

    def run(ctx):
        value = condition(ctx)
        if type(value) is Dist and all(type(outcome) is bool for outcome in value.weights):
            return Split(value)
        return as_bool(ctx, value, span)

    return run


def split(explorer, after: World, decided: Split, yes: list, no: list) -> None:
    """The world a condition's run ended in, split by its odds into the worlds that take
    the branch (`yes`) and those that do not (`no`); the mass it leaves out, and values
    too unlikely to follow, lost (as a branch on it loses them: Explorer.branch)."""
    dist, weight = decided.dist, after.weight
    short = dist.missing()
    if short:
        explorer.lost.add(times(weight, short, dist.total))
    for outcome, share in explorer.weighted(dist, weight):
        (yes if outcome else no).append(World(after.env, after.state, share, after.steps))
