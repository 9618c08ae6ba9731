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

Any other statement but a loop's, a choice's or a binding's (an `if`, a `match`, a call
made with `do`, a change of the sheet, a `require`) is run so too, for the worlds that
hold the same values of the names it reads (of each, the fields it reads) and gives a
value to, and the same sheet: Arcana Mundi's `if tributo > 0 { do acumular_tributo(...) }`
over worlds that differ in the basic roll's points, read by the result alone. Each world
takes the sheet each outcome leaves and the values it gives, and keeps its own of the rest.
"""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compiled import Binding, Plain, block_key
from interpreter.odds.carried import counters_of
from interpreter.odds.compound import compound_run
from interpreter.odds.convolved import convolved_run
from interpreter.odds.deferred import Deferred
from interpreter.odds.die_loops import pool_loop_run
from interpreter.odds.fused import fused_sets
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.roller import hashable
from interpreter.odds.spreading import ALIKE_WORLDS_PER_WORK, spread_merged
from interpreter.odds.summed import FEWEST_WORLDS, question_reads, summed_run
from interpreter.odds.weights import ONE, Mass, times
from interpreter.odds.worlds import NO_STEPS, Bound, Failure, World, plus
from interpreter.state import MISSING
from interpreter.values import Record

#: the kinds of world let_runs tells apart before giving up where none was made again
TRIED = 16


class Switch:
    """Whether a statement other than a binding runs once per kind of world alike too
    (alike_statement), and an `if`'s condition is tested once per kind of world alike in
    what it reads (`tests`: condition_tests); tests switch them off: then in each world."""

    statements = True
    tests = True


SWITCH = Switch()

#: the statements alike_statement runs (a loop is odds.carried's, a binding alike_let's,
#: a choice is made in each world, a note is idle)
STATEMENTS = (n.If, n.Match, n.Do, n.Change, n.Effect, n.EndEffect, n.Require, n.PassTime)


def at_once(explorer, statements: tuple, index: int, worlds, live: list, live_out, merged=True):
    """statements[index] (and those after it it takes along) run at once for many worlds:
    a pool and the dice it asks to roll again as compound dice (interpreter.odds.compound),
    a roll read only through sums (interpreter.odds.summed), a let run once per kind of
    world alike, or a row of `set`s run as one (interpreter.odds.fused): (worlds after,
    failures, the index of the next statement), or None. Not `merged`: the block's
    caller keys its worlds itself (Explorer.block)."""
    if type(worlds) is list and len(worlds) < min(2, FEWEST_WORLDS):
        # one world: nothing is alike to merge, but its own pools may be compound dice
        return (
            pool_loop_run(explorer, statements, index, worlds, live, live_out)
            or compound_run(explorer, statements, index, worlds, live)
            or convolved_run(explorer, statements, index, worlds, live)
            or fused_sets(explorer, statements, index, worlds, live, merged)
        )
    return (
        pool_loop_run(explorer, statements, index, worlds, live, live_out)
        or compound_run(explorer, statements, index, worlds, live)
        or convolved_run(explorer, statements, index, worlds, live)
        or summed_run(explorer, statements, index, worlds, live)
        or alike_let(explorer, statements, index, worlds, live, live_out)
        or fused_sets(explorer, statements, index, worlds, live, merged)
        or alike_statement(explorer, statements, index, worlds, live, live_out)
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
    # (the value changes nothing on the sheet: each world keeps its own, and a failure
    # its own too where the value does not read it)
    merged, failures = _spread(
        explorer,
        kinds,
        (statements, index, live, live_out),
        {name},
        True,
        not reads_sheet,
    )
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


def _spread(explorer, kinds: dict, at: tuple, given, own_sheet: bool, failed_own_sheet: bool):
    """(worlds, failures) of a statement run once for the first world of each kind
    (`at`: statements, index, live, live_out) and its ends taken by every world of that
    kind: its weight times theirs, its steps after the world's, the values of the names
    in `given` from the end and the rest the world's own still needed; the sheet the
    world's own where `own_sheet` (`failed_own_sheet`, for a failure), else the end's;
    the worlds merged on what is read after it (interpreter.odds.spreading)."""
    statements, index, live, live_out = at
    ends_of: list = []
    failures: list = []
    for alike in kinds.values():
        ends, failed, lost = _relative(explorer, statements, index, alike[0], live, live_out)
        ends_of.append((alike, ends, failed, lost))
        for world in alike:
            for end, failure in failed:
                weight = times(world.weight, *end.weight)
                steps = plus(world.steps, *end.steps)
                state = world.state if failed_own_sheet else end.state
                failures.append((World(world.env, state, weight, steps), failure))
    return spread_merged(explorer, ends_of, given, own_sheet, live[index]), failures


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


def alike_statement(explorer, statements: tuple, index: int, worlds, live: list, live_out):
    """statements[index], a statement of STATEMENTS, run once per kind of world alike
    (see the module's docstring): (worlds after, failures, index + 1), or None (run it as
    any: one world, no two alike, a value kept whole for it, counters carried through it)."""
    statement = statements[index]
    if not SWITCH.statements or type(worlds) is not list or len(worlds) < 2:
        return None
    if not isinstance(statement.node, STATEMENTS) or explorer.idle(statement, live[index]):
        return None
    found = _statement_reads(explorer, statements, index, live)
    if found is None:
        return None
    reads, given = found
    limit = explorer.ctx.limits.steps_per_run - explorer.most_steps(statement.node)
    # of the sheet, what it or a later statement reads (the rest, as a merge leaves it:
    # each world takes the sheet of its kind's outcome, alike in all that is read)
    sheet = explorer.kept(explorer.live_before(statement, live[index]))
    kinds: dict = {}
    for world in worlds:
        if world.steps[1] > limit:
            return None
        values = _read_values(world.env, reads)
        if values is None:  # (a value kept whole for it: interpreter.odds.deferred)
            return None
        state = world.state
        key = (values, tuple(world.env), state.snapshot() if sheet is None else sheet(state))
        kinds.setdefault(key, []).append(world)
    if len(kinds) == len(worlds):
        return None
    out, failures = _spread(
        explorer, kinds, (statements, index, live, live_out), given, False, False
    )
    return out, failures, index + 1


def _statement_reads(explorer, statements: tuple, index: int, live: list):
    """(reads, given) of statements[index] for alike_statement, found once per block:
    `reads`, (name, the fields of it read, or None for all of it) for each name it reads
    and does not give a value to; `given`, the names it gives a value to (read whole);
    None where it makes a choice, or counters are carried through it (odds.carried)."""
    statement = statements[index]
    found_at = ("statement reads", block_key(statements), index)
    found = explorer.liveness.get(found_at, MISSING)
    if found is MISSING:
        node = statement.node
        found = None
        if not any(isinstance(item, n.Choose) for item in n.walk(node)):
            given = explorer.names_given(node)
            needs = explorer.names_read(node).needs
            reads = tuple(
                (name, None if needs[name] is None else tuple(sorted(needs[name])))
                for name in sorted(needs)
                if name not in given
            )
            reads += tuple((name, None) for name in sorted(given))
            found = (reads, given)
        explorer.liveness[found_at] = found
    if found is not None and _counters_after(explorer, statements, index, live):
        return None
    return found


def _counters_after(explorer, statements: tuple, index: int, live: list) -> tuple:
    """The counters the rest of the block only adds to, read after statements[index]
    (Passes.held_run's: carried through it, its groups run once each)."""
    key = ("block counters", block_key(statements), index)
    found = explorer.liveness.get(key)
    if found is None:
        found = explorer.liveness[key] = counters_of(statements[index:], (), explorer.names_read)
    return tuple(name for name in found if name in live[index].needs)


def condition_tests(explorer, worlds: list, node, index: int, run_of, pure: bool):
    """(world after, outcome) of the condition of branch `index` of the `if` `node` in
    each world (`run_of(world)`: its run there, Explorer.if_'s), tested once for the
    worlds alike in what it reads (the fields of each name, the sheet where it reads it,
    how unlikely an outcome it may leave out: OddsRoller.negligible) and taken again by
    each of the others where that test ended in one world, its weight and sheet the
    same: `if b.success` over worlds that differ in the points of `b`, and `if tributo >
    0` over worlds that differ in all it does not read."""
    found = None
    if SWITCH.tests and pure and node is not None and len(worlds) > 1:
        found = _condition_reads(explorer, node, index)
    if found is None:
        for world in worlds:
            yield from explorer.explore(world, run_of(world))
        return
    reads, sheet = found
    roller = explorer.roller
    kinds: dict = {}
    for world in worlds:
        values = _read_values(world.env, reads)
        if values is None:  # (kept whole for it: each such world tested alone)
            yield from explorer.explore(world, run_of(world))
            continue
        roller.weight = world.weight
        key = (values, roller.negligible(), world.state.snapshot() if sheet else None)
        kinds.setdefault(key, []).append(world)
    for alike in kinds.values():
        first = alike[0]
        outs = explorer.explore(first, run_of(first))
        yield from outs
        again = _tested_again(outs, first) if len(alike) > 1 else None
        for made, other in enumerate(alike[1:], 1):
            if again is None:
                yield from explorer.explore(other, run_of(other))
                continue
            if made % ALIKE_WORLDS_PER_WORK == 0:
                explorer.work()
            steps = plus(other.steps, again[1])
            explorer.peak = max(explorer.peak, steps[1])
            yield World(other.env, other.state, other.weight, steps), again[0]


def _tested_again(outs: list, world: World):
    """(outcome, steps taken) of a condition's test that others alike take again, or
    None where it is not one (it branched, or stopped the run)."""
    if len(outs) != 1:
        return None
    after, outcome = outs[0]
    if isinstance(outcome, Failure) or type(after) is not World or after.weight != world.weight:
        return None
    taken = after.steps[1] - world.steps[1]
    return None if after.steps != plus(world.steps, taken) else (outcome, taken)


def _condition_reads(explorer, node, index: int):
    """(reads, whether it reads the sheet) of the condition of branch `index` of an `if`
    (as _statement_reads), found once per condition."""
    condition = node.branches[index][0]
    found_at = ("condition reads", explorer.number(condition))
    found = explorer.liveness.get(found_at)
    if found is None:
        needs = explorer.names_read(condition).needs
        reads = tuple(
            (name, None if needs[name] is None else tuple(sorted(needs[name])))
            for name in sorted(needs)
        )
        fields = None if explorer.sheet is None else explorer.sheet.fields_of(condition)
        found = explorer.liveness[found_at] = (reads, fields is None or bool(fields))
    return found


def _read_values(env: dict, reads: tuple) -> tuple | None:
    """The values a world holds of `reads` ((name, its fields read or None)), records cut
    to the fields read, hashable; None where one is kept whole (a Deferred)."""
    values = []
    for name, fields in reads:
        value = env.get(name, MISSING)
        if type(value) is Deferred:
            return None
        if fields is not None and type(value) is Record:
            value = tuple(value.get(field) for field in fields)
        values.append(hashable(value))
    return tuple(values)
