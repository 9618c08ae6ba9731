"""Statements the explorer runs a step at a time: loops pass by pass, called actions.

Worlds are merged between the steps, so that independent draws add up instead of
multiplying the worlds: a loop pass by pass, a called action statement by statement.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from interpreter.compiled import ActionCall, Binding, Called, Loop, Repeat, Statement, block_key
from interpreter.odds.carried import (
    Held,
    carried_loop,
    carried_pass,
    counters_of,
    grouped,
    regrouped,
    worlds_of,
)
from interpreter.odds.distribution import Dist
from interpreter.odds.linear import sums_read
from interpreter.odds.records import direct_call
from interpreter.odds.riders import rider_of
from interpreter.odds.roller import hashable
from interpreter.odds.sheet_ends import Ends
from interpreter.odds.sheet_live import SWITCH, SheetReads, live_of, sheet_read, wider
from interpreter.odds.straight import straight_call
from interpreter.odds.weights import ONE, Mass, below, times
from interpreter.odds.worlds import NO_STEPS, Failure, Live, World, block_steps, plus, spread
from interpreter.runtime import known
from interpreter.state import MISSING
from interpreter.values import Record

if TYPE_CHECKING:
    from interpreter.runtime import Context


#: rounds of a loop's liveness before it is taken to be every name it mentions
LOOP_ROUNDS = 8


class Passes:
    """The explorer's loops and calls: a part of interpreter.odds.explore.Explorer, whose
    state and methods it uses are declared below (its host), so that the type checker
    holds every use to the explorer's own definition."""

    if TYPE_CHECKING:  # the Explorer's (interpreter.odds.explore), declared for its part
        ctx: Context
        sums: dict[str, Any]
        depth: int
        lost: Mass
        prune: Fraction
        peak: int
        calls: dict[Any, Any]
        liveness: dict[Any, Any]
        names_read: Callable[[object], Live]
        within_steps: Callable[[object], bool]
        cost: Callable[[object], int]
        roller: Any
        sheet: SheetReads | None
        drops: Ends | None
        outer: Live | None
        sums_fail: bool
        carrying: set[int]
        safe: Callable[[object], bool]

        def work(self) -> None: ...
        def deferring(self, statements: tuple[Any, ...], index: int, live: list[Any]) -> bool: ...
        def live_before_now(self, statement: Statement, after: Live) -> Live: ...

        def explore(self, world: World, run: Callable[[Context], Any]) -> list[Any]: ...
        def block(
            self,
            statements: tuple[Any, ...],
            worlds: list[Any],
            live_out: Live,
            split: bool = False,
        ) -> tuple[Any, ...]: ...
        def block_before(self, statements: tuple[Any, ...], after: Live) -> Live: ...
        def live_after(self, statements: tuple[Any, ...], live_out: Live) -> list[Live]: ...
        def idle_now(self, statement: Statement, after: Live) -> bool: ...
        def merge(self, worlds: list[Any], live: Live) -> list[Any]: ...
        def counting(
            self, worlds: list[Any], fewest: int, most: int | None = None
        ) -> list[Any]: ...

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

    def outer_of(self, live_out: Live) -> Live | None:
        """What the callers read of the sheet after a call (`live_out`: after it, in its
        caller's block), for the merges inside it: None (all of it) where that is not
        known (a call inside one made where the question asks for writes)."""
        if self.drops is None or not SWITCH.calls or (self.depth and self.outer is None):
            return None
        key = ("outer of", live_out, self.outer)
        found = self.liveness.get(key)
        if found is None:
            read = sheet_read(live_out)
            found = read if self.outer is None else read.union(self.outer)
            self.liveness[key] = found
        return found

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
            header: tuple = (compiled.times, lambda passes: [({}, per_pass)] * passes)
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
            header = (compiled.items, lambda items: [({name: item}, 1) for item in items])
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

    def called(self, call: ActionCall, worlds: list, live_out: Live, name, rider=None) -> tuple:
        """`let name = action(...)`, `set name to action(...)` or `do action(...)` (name
        None): the called action's statements run one by one, as the caller's are, then
        its result (the fields of it read later; the `rider` field, read once later, left
        a distribution where it is one: interpreter.odds.riders). What a call gives
        depends only on its arguments and the sheet: it is explored once for each of
        those, then weighted into every world that makes that call."""
        action, arguments = call.action, call.arguments
        wanted: Any = MISSING if name is None else live_out.needs.get(name, MISSING)
        fields = () if wanted is MISSING else tuple(sorted(wanted)) if wanted is not None else None
        out, failures = [], []
        outer = self.outer_of(live_out)
        for world in worlds:
            for after, args in self.explore(world, lambda ctx: _known_all(ctx, arguments(ctx))):
                if isinstance(args, Failure):
                    failures.append((after, args))
                    continue
                key = (action.node.name, hashable(args), after.state.snapshot())
                saved, self.outer = self.outer, outer
                try:
                    found = self.summary(action, key, args, after.state, fields, rider)
                    steps = after.steps
                    if steps[1] + found[3] > self.ctx.limits.steps_per_run:
                        # counted from no steps, the call is not known to stay within the
                        # limit from this world's: explored again, counting on from them
                        found = self.call(action, args, after.state, fields, rider, steps)
                        steps = NO_STEPS  # (its ends' steps counted from the world's)
                finally:
                    self.outer = saved
                ends, failed, lost, peak = found
                self.peak = max(self.peak, steps[1] + peak)
                weight = after.weight
                if lost[0]:
                    self.lost.add(times(weight, *lost))
                for state, record, w, taken in ends:
                    w = times(weight, *w)
                    if below(w, self.prune):  # too unlikely to follow
                        self.lost.add(w)
                        continue
                    env = after.env if wanted is MISSING else {**after.env, name: record}
                    out.append(World(env, state, w, plus(steps, *taken)))
                for failure, w in failed:
                    failures.append((World(after.env, after.state, times(weight, *w)), failure))
        return out, failures

    def summary(self, action, key: tuple, args: tuple, state, fields, rider) -> tuple:
        """What `call` gives (as `call` below) for these arguments and this sheet (`key`:
        the action's name, its arguments, the sheet), the `fields` of its result read
        (None: all of them), the `rider` field left a distribution: one memory for every
        exploration of the action that shares the explorer's calls (a whole result's fork
        groups, each field's). A summary of more fields serves fewer: its results cut to
        those (the same outcomes, merged; a joint's try that explored the call serves the
        fields' exploration after it); one keeping more of the sheet (`outer`: what its
        callers read after it) serves callers reading less (its worlds merge after)."""
        outer = self.outer
        known_ones = self.calls.setdefault(key, [])
        for have, have_rider, have_outer, found in known_ones:
            if have == fields and have_rider == rider and have_outer == outer:
                return found
        for have, have_rider, have_outer, found in known_ones:
            if wider(have_outer, outer) and self.covers(action, have, have_rider, fields, rider):
                if have != fields or have_rider != rider:
                    found = projected(found, fields)
                known_ones.append((fields, rider, outer, found))  # (cut once)
                return found
        found = self.call(action, args, state, fields, rider)
        known_ones.append((fields, rider, outer, found))
        return found

    def covers(self, action, have, have_rider, fields, rider) -> bool:
        """Whether a called action's summary of the result fields `have` (None: all; the
        field `have_rider` left a distribution) serves a caller reading `fields` with the
        `rider` field left one: every field it reads there, and no other field a
        distribution (each summary has the failures of every field: `call`)."""
        if fields is None or action.result is None:
            return have is None and have_rider in (None, rider)
        if have is not None and not set(fields) <= set(have):
            return False
        return have_rider is None or have_rider == rider or have_rider not in fields

    def call(self, action, args: tuple, state, fields, rider=None, steps=NO_STEPS) -> tuple:
        """An action's outcomes for these arguments and this sheet, each with its
        probability and the steps counted to it from `steps`: ([(sheet after, result,
        weight, (fewest, most))], [(Failure, weight)], weight lost, the most steps a run
        reached)."""
        found = straight_call(self, action, args, state, fields, steps)  # (run whole)
        if found is not None:
            return found
        live = Live({})
        watched: set = set()  # the fields not read that may stop a run: computed too
        if action.result is not None:
            for field, expression in action.node.body[-1].fields:
                read = fields is None or field in fields
                if not read and not self.safe(expression):
                    watched.add(field)
                if read or field in watched:
                    live = live.union(self.names_read(expression))
                    if self.sheet is not None:  # (and of the sheet, for its merges: kept)
                        live = live.union(live_of(self.sheet.fields_of(expression)))
        result = _result_of(action, fields, rider, watched)
        saved, self.lost = self.lost, Mass()
        peak, self.peak = self.peak, 0
        sums, self.sums = self.sums, self.sums_of(action.node)
        self.depth += 1
        try:
            # on entry, the action counts its statements' steps and its result's own
            entry = action.cost - block_steps(action.body)
            inside = World(dict(zip(action.names, args)), state, ONE, plus(steps, entry))
            ends, failed = self.block(action.body, [inside], live)
            outcomes: dict = {}  # the same result on the same sheet: one outcome
            sheet = self.kept(Live({}))  # (what its callers read of it after the call)
            for end in ends:
                for done, record in self.explore(end, result):
                    if isinstance(record, Failure):
                        failed.append((done, record))
                        continue
                    state = done.state
                    key = (hashable(record), state.snapshot() if sheet is None else sheet(state))
                    found = outcomes.get(key)
                    if found is None:
                        outcomes[key] = [done.state, record, Mass(done.weight), done.steps]
                    else:
                        found[2].add(done.weight)
                        found[3] = spread(found[3], done.steps)
            ends = [
                (state, record, mass.weight(), taken)
                for state, record, mass, taken in outcomes.values()
            ]
            failures = [(f, w.weight) for w, f in failed]
            return ends, failures, self.lost.weight(), self.peak
        finally:
            self.depth -= 1
            self.lost = saved
            self.peak = peak
            self.sums = sums

    def sums_of(self, action) -> dict:
        """The sums an action (`action`: its node) reads its counters in
        (interpreter.odds.linear), remembered with the blocks' liveness."""
        key = ("sums", action.name)
        found = self.liveness.get(key)
        if found is None:
            found = self.liveness[key] = sums_read(action)
        return found

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
        and nothing after the loop, is read by none (those statements are idle)."""
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
        for _ in range(LOOP_ROUNDS):
            body = self.block_before(compiled.body, live)
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
        return tuple(name for name in found if name in loop.needs)

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


def projected(found: tuple, fields) -> tuple:
    """A called action's summary (Passes.call) with its results cut to `fields`: the
    results then the same on the same sheet, one outcome."""
    ends, failures, lost, peak = found
    outcomes: dict = {}
    for state, record, weight, taken in ends:
        cut = record if record is None else Record({f: record[f] for f in fields}, kind="result")
        key = (hashable(cut), state.snapshot())
        same = outcomes.get(key)
        if same is None:
            outcomes[key] = [state, cut, Mass(weight), taken]
        else:
            same[2].add(weight)
            same[3] = spread(same[3], taken)
    ends = [(state, cut, mass.weight(), taken) for state, cut, mass, taken in outcomes.values()]
    return ends, failures, lost, peak


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


def _known_all(ctx, values: tuple) -> tuple:
    return tuple(known(ctx, v) for v in values)


def _result_of(action, fields, rider=None, watched=frozenset()):
    """A run(ctx) giving the called action's result: the `fields` of it read later (all
    of them when None), as `rulebook odds --field` computes only the field asked for;
    the `rider` field's value kept a distribution where it is one (read once later).
    The `watched` fields, not read, are computed too, in the result's order (one may
    stop the run, as it does in a real one), their values left out."""

    def result(ctx):
        if action.result is None:
            return None
        out = {}
        for field, value in action.result:
            if fields is None or field in fields:
                found = value(ctx)
                out[field] = found if field == rider and type(found) is Dist else known(ctx, found)
            elif field in watched:
                known(ctx, value(ctx))  # (a failure stops the run; the value unread)
        return Record(out, kind="result")

    return result
