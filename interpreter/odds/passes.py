"""Statements the explorer runs a step at a time: loops pass by pass (called actions: `called`).

Worlds are merged between the steps, so that independent draws add up instead of
multiplying the worlds: a loop pass by pass, a called action statement by statement.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dsl import nodes as n
from interpreter.compiled import Binding, Called, Loop, Repeat, Statement, block_key
from interpreter.odds.called import Calls
from interpreter.odds.carried import (
    Held,
    carried_loop,
    carried_pass,
    counters_of,
    grouped,
    regrouped,
    worlds_of,
)
from interpreter.odds.direct import direct_block
from interpreter.odds.one_roll import face_outcomes, one_roll_ends, still_ends
from interpreter.odds.records import direct_call
from interpreter.odds.riders import rider_of
from interpreter.odds.roller import hashable
from interpreter.odds.worlds import Failure, Live, World, plus
from interpreter.state import MISSING

#: rounds of a loop's liveness before it is taken to be every name it mentions
LOOP_ROUNDS = 8
#: whether a `for each`'s name is taken to be read by no pass before it binds it (so not
#: before the loop: worlds that differ in the last pass's item merge after it)
PASS_BOUND = True
#: whether a loop carries, beside its counters, the names read in one sum with them
#: that it never mentions (summed_with)
SUMMED_WITH = True


class Passes(Calls):
    """The explorer's loops (and, from Calls, its called actions): a part of
    interpreter.odds.explore.Explorer, whose state and methods it uses are declared in
    odds.called.Calls (its host), so that the type checker holds every use to the
    explorer's own definition."""

    def idle(self, statement, after: Live) -> bool:
        """Whether running a statement can change nothing the odds look at (`idle_now`),
        remembered with the blocks' liveness."""
        key = ("idle", statement.number, after, self.ctx.limits.steps_per_run)
        found = self.liveness.get(key)
        if found is None:
            found = self.liveness[key] = self.idle_now(statement, after)
        return found

    def live_before(self, statement, after: Live) -> Live:
        """What may be read before a statement, from what may be read after it
        (`live_before_now`), remembered with the blocks' liveness."""
        key = ("before", statement.number, after, self.ctx.limits.steps_per_run)
        found = self.liveness.get(key)
        if found is None:
            found = self.live_before_now(statement, after)
            if self.sheet is not None and not self.idle(statement, after):
                node, number, kept = statement.node, statement.number, self.liveness
                found = found.union(self.sheet.before(node, number, after, self.safe, kept))
            self.liveness[key] = found
        return found

    def kept(self, live: Live) -> Callable[[Any], Any] | None:
        """What a merge keeps of a world's sheet (odds.sheet_live.Ends): the changes still
        read, when the question asks for no writes (`drops`): at the action's own level,
        and inside a call made there, those its callers read after it too (`outer`);
        else None, all of them."""
        if self.drops is None:
            return None
        if self.depth:
            if self.outer is None:
                return None
            key = ("outer", live, self.outer)
            found = self.liveness.get(key)
            if found is None:
                found = self.liveness[key] = live.union(self.outer)
            live = found
        return self.drops.key_for(live)

    def direct(self, statement, live: Live):
        """records.direct_call of a `let` statement, found once (remembered with the
        blocks' liveness) for this depth of calls."""
        key = ("direct", statement.number, live)
        found = self.liveness.get(key, MISSING)
        if found is MISSING:
            found = self.liveness[key] = direct_call(statement.node, live, 0)
        return found if found is None else (found[0], found[1], self.depth)

    def constant(self, name: str, value, worlds: list) -> list:
        """`let name = 1` (a literal: no step of its own, no dice, no failure) in every
        world, without running it."""
        for world in worlds:  # (the steps a run of it would reach: its world's)
            self.peak = max(self.peak, world.steps[1])
        return [World({**w.env, name: value}, w.state, w.weight, w.steps) for w in worlds]

    def repeat(self, node, compiled: Repeat, worlds, live_out: Live, keep=False) -> tuple:
        """`repeat n times until c` (`node`): pass by pass, worlds merged after each
        statement, so that independent draws add up instead of multiplying the worlds;
        the counters it only adds to carried (interpreter.odds.carried; `keep`: left
        held for the next loop)."""
        loop = self.loop_live(node, compiled, live_out)  # what a later pass may read
        # what a pass's body may read before its statements: worlds that differ only in
        # values the body gives anew (`set loc to localizar()`) are one before it runs
        entering = self.block_before(compiled.body, loop)
        # a pass counts its own step and its `until` (the statements', as a block's)
        per_pass = 1 + self.cost(node.until)
        lives = (compiled.body, loop, entering)

        def rest(passes, worlds: list, done: int = 0) -> tuple:
            return self.passes(node, compiled, worlds, passes - done, lives)

        counters = self.loop_counters(node, compiled, live_out)
        held = self.held(worlds, counters, loop)
        if held is not None:
            header: tuple = (
                lambda world: self.explore(world, compiled.times),
                lambda passes: [({}, per_pass)] * passes,
            )
            return carried_loop(self, held, header, lives, rest, keep)
        worlds = worlds_of(self, worlds)  # (held for other counters: worlds again)
        failures: list = []
        by_times: dict = {}
        for world in worlds:
            for after, passes in self.explore(world, compiled.times):
                if isinstance(passes, Failure):
                    failures.append((after, passes))
                else:
                    by_times.setdefault(passes, []).append(after)
        finished: list = []
        for passes, group in sorted(by_times.items()):
            group, failed = rest(passes, self.merge(group, loop))
            failures.extend(failed)
            finished.extend(group)
        return finished, failures

    def passes(self, node, compiled: Repeat, group: list, passes: int, lives) -> tuple:
        """`passes` passes of a `repeat` over worlds, one by one: (worlds, failures)."""
        body, loop, entering = lives
        per_pass = 1 + self.cost(node.until)
        failures: list = []
        finished: list = []
        for _ in range(passes):
            going: list = []
            for world in self.counting(group, per_pass):
                for after, done in self.explore(world, compiled.done):
                    if isinstance(done, Failure):
                        failures.append((after, done))
                    else:
                        (finished if done else going).append(after)
            if not going:
                group = []
                break
            group, failed = self.block(body, self.merge(going, entering), loop)
            failures.extend(failed)
        finished.extend(group)
        return finished, failures

    def for_each(self, node, compiled: Loop, worlds, live_out: Live, keep=False) -> tuple:
        """`for each x in list` (`node`): item by item, worlds merged as in `repeat`."""
        loop = self.loop_live(node, compiled, live_out)
        name = compiled.var
        entering = self.block_before(compiled.body, loop).without(name)
        lives = (compiled.body, loop, entering)

        def rest(items, group: list, done: int = 0) -> tuple:
            failures: list = []
            for item in items[done:]:
                group = [
                    World({**w.env, name: item}, w.state, w.weight, plus(w.steps, 1)) for w in group
                ]
                group, failed = self.block(compiled.body, group, loop)
                failures.extend(failed)
            return group, failures

        counters = self.loop_counters(node, compiled, live_out)
        held = self.held(worlds, counters, loop)
        if held is not None:
            header = (
                lambda world: self.explore(world, compiled.items),
                lambda items: [({name: item}, 1) for item in items],
            )
            return carried_loop(self, held, header, lives, rest, keep)
        worlds = worlds_of(self, worlds)  # (held for other counters: worlds again)
        failures: list = []
        by_items: dict = {}
        for world in worlds:
            for after, items in self.explore(world, compiled.items):
                if isinstance(items, Failure):
                    failures.append((after, items))
                else:
                    by_items.setdefault(hashable(items), (items, []))[1].append(after)
        finished: list = []
        for items, group in by_items.values():
            group, failed = rest(items, self.merge(group, loop))
            failures.extend(failed)
            finished.extend(group)
        return finished, failures

    def ends(self, statements: tuple, worlds: list, live_out: Live) -> tuple:
        """A block over worlds, as `block` runs it: (worlds after, failures), not merged
        where it is run whole (odds.direct) or ends in a row of `set`s (odds.fused): a
        caller that keys them itself."""
        whole = direct_block(self, statements, worlds, live_out, False, merged=False)
        if whole is not None:
            return whole
        return self.block(statements, worlds, live_out, merged=False)

    def pass_ends(self, body: tuple, worlds: list, live_out: Live) -> tuple:
        """`ends` of a pass's body from its first worlds: a pass that rolls one value,
        then nothing, run once per value (odds.one_roll)."""
        if len(worlds) == 1:
            ends = one_roll_ends(self, body, worlds[0], live_out)
        else:  # (a world per face of the die the pass draws)
            ends = still_ends(self, body, worlds, live_out)
        if ends is not None:
            return ends, []
        return self.ends(body, worlds, live_out)

    def face_outcomes(self, body: tuple, start: World, live: Live, sums: tuple):
        """A pass drawing a face, run once per face, its outcomes as odds.carried keys
        them (odds.one_roll.face_outcomes)."""
        return face_outcomes(self, body, start, live, sums)

    def held(self, worlds, counters: tuple, loop: Live) -> Held | None:
        """The worlds as groups for a loop carrying `counters` (None where it carries
        none, or a counter is not a whole number in a world)."""
        if not counters:
            return None
        if type(worlds) is Held:
            if worlds.counters == counters:
                return worlds
            worlds = worlds_of(self, worlds)
        groups = grouped(worlds, counters, loop, self.sums)
        return None if groups is None else Held(groups, counters)

    def rider(self, statements: tuple, index: int, live_out: Live) -> str | None:
        """The field of the record the `let` statements[index] binds that rides
        (interpreter.odds.riders), the same in every computation: remembered with the
        blocks' liveness."""
        key = ("rider", block_key(statements), index, live_out)
        found = self.liveness.get(key, MISSING)
        if found is MISSING:
            live = self.live_after(statements, live_out)

            def idle(j: int) -> bool:
                return self.idle(statements[j], live[j])

            found = rider_of(statements, index, live_out, self.names_read, idle)
            self.liveness[key] = found
        return found

    def loop_live(self, node, compiled: Loop | Repeat, live_out: Live) -> Live:
        """What a loop may read before a pass (and so before the loop): what follows it,
        what its header reads, and what a pass reads before its statements (read many
        times), to a fixed point: a name that only a pass's own `set x to x + e` reads,
        and nothing after the loop, is read by none (those statements are idle); nor is
        a `for each`'s own name, each pass binding it (PASS_BOUND)."""
        key = ("loop", block_key(compiled.body), live_out)
        found = self.liveness.get(key)
        if found is not None:
            return found
        header = (node.count, node.until) if isinstance(node, n.Repeat) else (node.items,)
        outside = live_out
        for part in header:
            if part is not None:
                outside = outside.union(self.names_read(part))
        live = outside
        var = node.var if isinstance(node, n.ForEach) and PASS_BOUND else None
        for _ in range(LOOP_ROUNDS):
            body = self.block_before(compiled.body, live)
            if var is not None:  # (bound by each pass: not read before one)
                body = body.without(var)
            wider = outside.union(body).union(body)  # (twice: read many times)
            if wider == live:
                break
            live = wider
        else:  # (not settled: every name the loop mentions, read many times)
            live = live_out.union(self.names_read(node))
        self.liveness[key] = live
        return live

    def loop_counters(self, node, compiled: Loop | Repeat, live_out: Live) -> tuple:
        """The names a loop's passes only add to (interpreter.odds.carried) that are
        still read, where sums cannot fail (else none: nor for a `repeat ... until`);
        remembered with the blocks' liveness."""
        if self.sums_fail or (isinstance(node, n.Repeat) and node.until is not None):
            return ()
        key = ("carried", block_key(compiled.body), live_out)
        carried = self.liveness.get(key)
        if carried is None:
            carried = self.liveness[key] = self.counters_read(node, compiled, live_out)
        return carried

    def counters_read(self, node, compiled: Loop | Repeat, live_out: Live) -> tuple:
        """loop_counters, found."""
        header: tuple
        bound: tuple
        if isinstance(node, n.Repeat):
            header, bound = (node.count,), ()
        else:
            header, bound = (node.items,), (node.var,)
        key = ("counters", block_key(compiled.body))
        found = self.liveness.get(key)
        if found is None:
            found = self.liveness[key] = counters_of(compiled.body, header, self.names_read, bound)
        loop = self.loop_live(node, compiled, live_out)
        counters = tuple(name for name in found if name in loop.needs)
        return self.summed_with(node, counters, loop) if counters else counters

    def summed_with(self, node, counters: tuple, loop: Live) -> tuple:
        """`counters` and the names read in one sum with one of them (interpreter.odds.
        linear) that the loop never mentions, still read: carried too (each pass adds 0
        to them), so that the sum's value alone is kept, not each of its names (the
        Genesys symbols counted a kind of die at a time, a loop for each kind)."""
        sums = self.sums
        keys = {sums[name] for name in counters if name in sums}
        if not keys or not SUMMED_WITH:
            return counters
        mentioned = self.names_read(node).needs.keys() | self.names_given(node)
        more = [
            name
            for name, key in sums.items()
            if key in keys and name in loop.needs and name not in mentioned
        ]
        return tuple(sorted({*counters, *more})) if more else counters

    def held_run(self, statements: tuple, index: int, live: list, worlds) -> tuple | None:
        """statements[index] (not a loop) over worlds held as groups, where the rest of
        the block only adds to some names (interpreter.odds.carried: the statement's
        outcomes found once per state of the rest, the counters mixed): (worlds after,
        failures), or None (run it as any)."""
        statement = statements[index]
        if statement.number in self.carrying or self.sums_fail:
            return None
        if type(worlds) is not Held and len(worlds) < 2:
            return None  # (one world: no two to run once for both)
        if self.deferring(statements, index, live):
            return None
        key = ("block counters", block_key(statements), index)
        found = self.liveness.get(key)
        if found is None:
            found = self.liveness[key] = counters_of(statements[index:], (), self.names_read)
        after = live[index]
        counters = tuple(name for name in found if name in after.needs)
        if not counters:
            return None
        held = worlds if type(worlds) is Held and worlds.counters == counters else None
        if held is not None and all(len(group.joint) < 2 for group in held.groups):
            return None  # (a world per group: held, they would be run as many times)
        if held is None:
            if type(worlds) is Held or len(worlds) < 2:
                return None
            if index and _same_counts(worlds, counters):
                # (merged after the statement before, on what this one reads: worlds
                # that hold the same counters differ in the rest, each a group alone)
                return None
            before = self.live_before(statement, after)
            groups = grouped(worlds, counters, before, self.sums)
            if groups is None or len(groups) == len(worlds):
                return None  # (no two worlds share the rest: nothing to run once for both)
            held = Held(groups, counters)
        # (its own steps counted as the block was entered: not again)
        entry: tuple = ({}, -statement.cost)
        self.carrying.add(statement.number)  # (its own run: statement by statement)
        try:
            step = carried_pass(self, (statement,), held.groups, counters, after, entry)
        finally:
            self.carrying.discard(statement.number)
        if step is None:
            return None
        groups, failed = step
        return Held(regrouped(self, groups, counters, after), counters), failed

    def carries(self, statement: Statement, live_out: Live) -> tuple:
        """The counters a loop statement carries (none for any other statement)."""
        shape = statement.shape
        if not isinstance(shape, Repeat | Loop):
            return ()
        return self.loop_counters(statement.node, shape, live_out)

    def calls_in(self, statement: Statement) -> bool:
        """Whether a statement is a call of an action the explorer can run step by step
        (within the limit of calls inside one another)."""
        shape = statement.shape
        if type(shape) is not Binding and type(shape) is not Called:
            return False
        return shape.call is not None and self.depth + 2 < self.ctx.limits.call_depth


def _same_counts(worlds: list, counters: tuple) -> bool:
    """Whether the worlds hold the same counters' values."""
    first = worlds[0].env
    values = [first.get(name, MISSING) for name in counters]
    for world in worlds:
        env = world.env
        for name, value in zip(counters, values):
            if env.get(name, MISSING) != value:
                return False
    return True
