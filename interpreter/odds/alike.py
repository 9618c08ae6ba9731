"""A let run once for the worlds alike in what it reads, its outcomes made in each of them.

`let s = (skill)d6` after `let b = (base)d6`: the worlds differ in `b`, which the let does
not read, and the explorer would run it once in each (91 worlds of 12 dice). Here it is
run once for the worlds that hold the same values of the names it reads and the same
sheet, from a world of probability 1 and no steps; each world of them takes each of its
outcomes (the value bound, a failure), its probability times the outcome's, its steps
plus the outcome's, and keeps its own values of the names the let does not read. Where a
world may reach the step limit within the let, or holds a value kept whole for it
(interpreter.odds.deferred), or no two worlds are alike, the let runs as any other.

A `set` of a local name to a pure value that does not read the name is run so too
(bound anew, as a let; `set x to x + r` is a counter's, odds.carried's): Arcana
Mundi's `set tributo to t.tributo` over worlds that differ in their sheet. A value that
reads nothing of the sheet makes the worlds alike whatever their sheets hold (each keeps
its own: a pure value changes nothing there).
"""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compiled import Binding, Plain, block_key
from interpreter.odds.compound import compound_run
from interpreter.odds.deferred import Deferred
from interpreter.odds.fused import fused_sets
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.roller import hashable
from interpreter.odds.summed import FEWEST_WORLDS, question_reads, summed_run
from interpreter.odds.weights import ONE, Mass, below, times
from interpreter.odds.worlds import NO_STEPS, Bound, Failure, World, plus
from interpreter.state import MISSING

#: worlds made from the outcomes of one run in one unit of work (interpreter.odds.budget;
#: worlds made one by one elsewhere: worlds.WORLDS_PER_WORK)
ALIKE_WORLDS_PER_WORK = 64
#: the kinds of world let_runs tells apart before giving up where none was made again
TRIED = 16


def at_once(explorer, statements: tuple, index: int, worlds, live: list, live_out):
    """statements[index] (and those after it it takes along) run at once for many worlds:
    a pool and the dice it asks to roll again as compound dice (interpreter.odds.compound),
    a roll read only through sums (interpreter.odds.summed), a let run once per kind of
    world alike, or a row of `set`s run as one (interpreter.odds.fused): (worlds after,
    failures, the index of the next statement), or None."""
    if type(worlds) is list and len(worlds) < min(2, FEWEST_WORLDS):
        # one world: nothing is alike to merge, but its own pools may be compound dice
        return compound_run(explorer, statements, index, worlds, live) or fused_sets(
            explorer, statements, index, worlds, live
        )
    return (
        compound_run(explorer, statements, index, worlds, live)
        or summed_run(explorer, statements, index, worlds, live)
        or alike_let(explorer, statements, index, worlds, live, live_out)
        or fused_sets(explorer, statements, index, worlds, live)
    )


def alike_let(explorer, statements: tuple, index: int, worlds, live: list, live_out):
    """statements[index], a `let`, run once per kind of world alike (see the module's
    docstring): (worlds after, failures, index + 1), or None (run it as any)."""
    statement = statements[index]
    node, shape = statement.node, statement.shape
    if type(worlds) is not list or len(worlds) < 2 or not _alike_kind(explorer, statement):
        return None
    if explorer.idle(statement, live[index]):
        return None
    reads_of = set(explorer.names_read(node.expr).needs)
    if isinstance(node, n.Set) and shape.name in reads_of:
        return None  # (`set x to x + r`: a counter's update, odds.carried's to count)
    if type(shape) is Binding:
        name = shape.name
        # the worlds alike in the sheet only where the value reads it (a pure value
        # changes nothing on it: each world keeps its own)
        reads_sheet = _reads_sheet(explorer, statement)
    else:
        name, reads_sheet = node.name, True
    if type(shape) is Plain:  # (a pool's: the questions later asked of it are asked here)
        if node.name in live_out.needs:
            return None
        found = ("asked", block_key(statements), index)
        asked = explorer.liveness.get(found)
        if asked is None:
            asked = explorer.liveness[found] = question_reads(
                explorer, statements[index + 1 :], node.name
            )
        reads_of |= asked
    reads = tuple(sorted(reads_of))
    limit = explorer.ctx.limits.steps_per_run - explorer.most_steps(node)
    kinds: dict = {}
    for world in worlds:
        if world.steps[1] > limit:
            return None
        values = tuple(world.env.get(name, MISSING) for name in reads)
        if any(type(value) is Deferred for value in values):
            return None
        values = tuple(hashable(value) for value in values)
        key = (values, world.state.snapshot()) if reads_sheet else values
        kinds.setdefault(key, []).append(world)
    if len(kinds) == len(worlds):
        return None
    after = live[index]
    out: list = []
    failures: list = []
    billed = 0  # the worlds' work charged so far: charged as they are made, not after
    for alike in kinds.values():
        ends, failed, lost = _relative(explorer, statements, index, alike[0], live, live_out)
        for world in alike:
            if lost[0]:
                explorer.lost.add(times(world.weight, *lost))
            kept = {k: v for k, v in world.env.items() if k in after.needs and k != name}
            for end in ends:
                weight = times(world.weight, *end.weight)
                if below(weight, explorer.prune):
                    explorer.lost.add(weight)
                    continue
                env = kept if name not in end.env else {**kept, name: end.env[name]}
                steps = plus(world.steps, *end.steps)
                explorer.peak = max(explorer.peak, steps[1])
                out.append(World(env, world.state, weight, steps))
            billed = _billed(explorer, len(out), billed)  # (past the budget: stops here)
            for end, failure in failed:
                weight = times(world.weight, *end.weight)
                steps = plus(world.steps, *end.steps)
                state = end.state if reads_sheet else world.state  # (its own: unchanged)
                failures.append((World(world.env, state, weight, steps), failure))
    explorer.roller.work += len(out) // ALIKE_WORLDS_PER_WORK - billed  # (the worlds made)
    explorer.work()
    merged = explorer.merge(out, after)
    most = explorer.most_worlds  # (a let's worlds are bounded, as LetWorlds; a set's not)
    if most is not None and len(merged) > most and isinstance(statement.node, n.Let):
        raise TooComplex(tr("more than {most} worlds", most=most))
    return merged, failures, index + 1


def _alike_kind(explorer, statement) -> bool:
    """Whether the statement is one this runs: a `let` (a pool's, or a pure value calling
    no action), or a `set` of a local name to such a value (as a let: bound anew)."""
    node, shape = statement.node, statement.shape
    if isinstance(node, n.Set):
        if type(shape) is not Binding or not shape.local:
            return False
    elif not isinstance(node, n.Let):
        return False
    if type(shape) is Binding:
        return shape.pure and shape.split is None and not explorer.calls_in(statement)
    return type(shape) is Plain


def _reads_sheet(explorer, statement) -> bool:
    """Whether the value of a binding may read the sheet (found once per statement)."""
    found = ("sheet read", statement.number)
    reads = explorer.liveness.get(found)
    if reads is None:
        sheet = explorer.sheet
        fields = None if sheet is None else sheet.fields_of(statement.node.expr)
        reads = explorer.liveness[found] = fields is None or bool(fields)
    return reads


def _billed(explorer, made: int, billed: int) -> int:
    """The `made` worlds so far charged (`billed` units of them already), so that a let
    making millions of worlds stops at the budget, not after making them: in all the
    same units as charged at once after them (the same answers)."""
    charged = made // ALIKE_WORLDS_PER_WORK
    if charged > billed:
        roller = explorer.roller
        roller.work += charged - billed
        if roller.work > roller.budget:
            explorer.work()  # (raises: past the budget)
    return charged


def _relative(explorer, statements: tuple, index: int, world: World, live: list, live_out):
    """The let run from `world` as a world of probability 1 and no steps: (worlds it ends
    in, failures, the probability left out), each relative to the world's."""
    saved, explorer.lost = explorer.lost, Mass()
    try:
        start = World(world.env, world.state, ONE, NO_STEPS)
        ends, failed = explorer.step(statements, index, [start], live, live_out)
        return list(ends), failed, explorer.lost.weight()
    finally:
        explorer.lost = saved


def let_runs(explorer, statements: tuple, index: int, worlds: list, live_out):
    """runs(world), the outcomes of statements[index] (a `let`, as Explorer.let runs it)
    in a world, as explorer.explore gives them: run once for the worlds alike in what it
    reads (their sheet too where it may read it, and the world's weight as far as a
    check's or a contest's outcomes left out depend on it: OddsRoller.negligible), and
    made again for each of the others where that run ended in one world, no failure,
    its value bound or known (the same worlds, weights, steps and mass left out as a run
    of its own gives; past TRIED kinds none of which served another world, each world's
    run its own). None where the let is not such (see alike_let: `live_out`, what is
    read after the block) or the worlds few."""
    statement = statements[index]
    if len(worlds) < 2 or not isinstance(statement.node, n.Let):
        return None
    if not _alike_kind(explorer, statement):
        return None
    if type(statement.shape) is Plain and statement.node.name in live_out.needs:
        return None  # (a pool asked questions past the block: what they read not known)
    reads = _let_reads(explorer, statements, index)
    sheet = type(statement.shape) is not Binding or _reads_sheet(explorer, statement)
    roller = explorer.roller
    limit = explorer.ctx.limits.steps_per_run - explorer.most_steps(statement.node)
    seen: dict = {}
    made = [0]  # the worlds made again, charged as alike_let charges its worlds

    def runs(world: World) -> list:
        steps = world.steps
        if steps[0] != steps[1] or steps[1] > limit or (not made[0] and len(seen) >= TRIED):
            return explorer.explore(world, statement.run)  # (nor where none were alike)
        values = tuple(world.env.get(k, MISSING) for k in reads)
        if any(type(value) is Deferred for value in values):
            return explorer.explore(world, statement.run)
        roller.weight = world.weight
        key = (tuple(hashable(value) for value in values), roller.negligible())
        if sheet:
            key = (key, world.state.snapshot())
        again = seen.get(key)
        if again is None:
            outs = explorer.explore(world, statement.run)
            seen[key] = _again(explorer, outs, world, statement.node.name)
            return outs
        if again is False:
            return explorer.explore(world, statement.run)
        made[0] += 1
        if made[0] % ALIKE_WORLDS_PER_WORK == 0:
            explorer.work()
        return again(world)

    return runs


def _let_reads(explorer, statements: tuple, index: int) -> tuple:
    """The names a let reads (a pool's: with those the questions later asked of it read),
    found once per block."""
    statement = statements[index]
    found = ("let reads", block_key(statements), index)
    reads = explorer.liveness.get(found)
    if reads is None:
        names = set(explorer.names_read(statement.node.expr).needs)
        if type(statement.shape) is Plain:
            names |= question_reads(explorer, statements[index + 1 :], statement.node.name)
        reads = explorer.liveness[found] = tuple(sorted(names))
    return reads


def _again(explorer, outs: list, world: World, name: str):
    """made(other), the outcomes of the same run in another world alike (see let_runs),
    or False where the run is not one to make again."""
    if len(outs) != 1:
        return False
    after, outcome = outs[0]
    if isinstance(outcome, Failure) or after.weight != world.weight:
        return False
    taken = after.steps[1] - world.steps[1]
    if after.steps != plus(world.steps, taken):
        return False
    if type(after) is Bound:
        dist = after.dist
        if after.name != name or dist.missing():
            return False

        def bound(other: World) -> list:
            steps = plus(other.steps, taken)
            explorer.peak = max(explorer.peak, steps[1])
            return [(Bound(other.env, other.state, other.weight, name, dist, steps), None)]

        return bound
    env = after.env
    if name not in env or len(env) != len(world.env) + (name not in world.env):
        return False  # (its own name alone written)
    if any(env.get(k, MISSING) is not v for k, v in world.env.items() if k != name):
        return False
    value = env[name]

    def known(other: World) -> list:
        steps = plus(other.steps, taken)
        explorer.peak = max(explorer.peak, steps[1])
        return [(World({**other.env, name: value}, other.state, other.weight, steps), outcome)]

    return known
