"""Worlds: a statement run once per value it needs; worlds merged where they agree."""

from __future__ import annotations

from fractions import Fraction

from dsl import nodes as n
from interpreter.compiled import Binding, Branches, Loop, Repeat, block_key
from interpreter.odds.alike import at_once, condition_tests, let_runs
from interpreter.odds.budget import watch
from interpreter.odds.carried import Held, regrouped, worlds_of
from interpreter.odds.consumed import Split, consumed, test_run
from interpreter.odds.consumed import split as split_worlds
from interpreter.odds.deferred import (
    Deferred,
    Mixer,
    deferrable,
    deferred_in,
    expanded,
    others_of,
    shared,
)
from interpreter.odds.direct import direct_block
from interpreter.odds.keys import ordered
from interpreter.odds.mixing import mixed_by_keys, mixed_let, names_still_read
from interpreter.odds.passes import Passes
from interpreter.odds.polynomials import TooComplex, too_many_ways
from interpreter.odds.roller import Branch, Letting, OddsRoller
from interpreter.odds.sheet_live import SheetReads
from interpreter.odds.shortcuts import once_set, unread, unresolved_set
from interpreter.odds.weights import (
    TIDY_BITS,
    Mass,
    at_most,
    below,
    pruned_up_to,
    times,
    times_fraction,
)
from interpreter.odds.worlds import (
    EACH,
    EXPLORED,
    STEPS_PER_WORK,
    STOPS,
    WORLDS_PER_WORK,
    Bound,
    Failure,
    LetWorlds,
    Live,
    Liveness,
    World,
    block_steps,
    cuts_of,
    key_of,
    live_before,
    names_read,
    plus,
    spread,
    stopped,
    unclear,
)
from interpreter.runtime import Context, count_past_bound
from interpreter.state import MISSING
from interpreter.values import Record

__all__ = ["Explorer", "Failure", "Live", "World", "names_read"]


class Explorer(Passes):
    """Runs compiled statements over weighted worlds, branching where values are needed."""

    def __init__(self, ctx: Context, roller: OddsRoller, liveness: Liveness | None = None):
        self.ctx = ctx
        self.roller = roller
        # the safety stop read within a run too (every STEPS_BETWEEN_CLOCKS steps of it)
        watch(ctx, lambda: roller.deadline.check())
        self.prune = roller.prune  # the roller's epsilon / 10**6: the one mass cut
        self.lost = Mass()  # the probability left out: pruned, or cut short
        liveness = liveness or Liveness()
        self.liveness = liveness.blocks
        self.names_read = liveness.names_read
        self.names_given = liveness.names_given  # (a statement's bindings: odds.forks)
        self.number = liveness.numbers.of  # (a node's number: what is found of it, by it)
        self.safe = liveness.cannot_fail  # whether an expression can never stop a run
        self.sums_fail = liveness.sums_fail  # whether a sum may fail (odds.carried)
        self.sheet, self.drops = SheetReads.of(liveness.compiler), None  # (Passes.kept)
        self.carrying: set[int] = set()  # statements run once per group (odds.carried)
        self.sums: dict = {}  # the sums the action reads its counters in (odds.linear)
        self.most_steps = liveness.most_steps  # the most steps a node may count
        self.cost = liveness.cost  # the steps a node counts itself, known when compiled
        self.peak, self.ran = 0, 0  # the most steps a run reached (Calls.called), runs
        self.depth = 0  # calls the explorer is inside (actions it runs step by step)
        #: inside a call made at the action's own level, what its callers read of the
        #: sheet after it (Passes.kept), or None
        self.outer: Live | None = None
        self.calls: dict = {}  # what a called action gives, by its arguments and sheet
        self.widest = None  # a call where a whole result's fields part (Calls.widened)
        #: statements counted over a deferred value (once one is)
        self.mixer: Mixer | None = None
        #: the most worlds one `let` may make (a whole result's first try: a sign that its
        #: joint is large, before the worlds are made), or None
        self.most_worlds: int | None = None

    @property
    def omitted(self) -> Fraction:
        return at_most(*self.lost.weight())

    def explore(self, world: World, run) -> list:
        """Run `run(ctx)` in `world` once per combination of the values it needs.

        Returns (world after, outcome) pairs: the outcome is what `run` returned, or a
        Failure if the action stopped there. Each run counts on from the world's steps
        (the most of the runs it stands for; where that passes the limit, again from the
        fewest: past it there too, every one of them stops; else `unclear`).
        """
        ctx, roller = self.ctx, self.roller
        out: list = []
        fewest, most = world.steps
        limit = ctx.limits.steps_per_run
        stack = [((), world.weight, most)]
        while stack:
            pins, weight, start = stack.pop()
            self.work()
            ctx.env = dict(world.env)
            ctx.state = world.state.copy()
            ctx.depth = self.depth
            ctx.calls = self.depth  # the calls the explorer is inside (a called action)
            roller.pins, roller.cursor = pins, 0
            roller.weight = weight
            ctx.recount(start)
            try:
                if start > limit:  # (past it as the block was entered: a run stops there)
                    count_past_bound(ctx, None)
                result = run(ctx)
            except Branch as branch:
                self.counted(start)
                if start != most:
                    unclear(ctx)
                self.branch(branch, weight, pins, world, stack, out)
                continue
            except STOPS as error:
                self.counted(start)
                if ctx.steps > limit and start > fewest:
                    stack.append((pins, weight, fewest))  # from the fewest: past it too?
                    continue
                if start != most and ctx.steps <= limit:
                    unclear(ctx)
                out.append((World(ctx.env, ctx.state, weight, world.steps), stopped(error)))
                continue
            steps = ctx.steps  # (`counted` and `after`, written out: the commonest end)
            roller.work += (steps - start) // STEPS_PER_WORK
            if steps > self.peak:
                self.peak = steps
            if start != most:
                unclear(ctx)
            taken = (fewest + steps - start, most + steps - start)
            out.append((World(ctx.env, ctx.state, weight, taken), result))
        return out

    def work(self) -> None:
        """One unit of work more (a run), against the budget; progress reported."""
        roller = self.roller
        roller.work += 1
        if roller.work > roller.budget:
            roller.report(done=True)
            raise TooComplex(too_many_ways(roller.budget))
        roller.deadline.check()
        if roller.progress is not None and roller.work >= roller.next_report:
            roller.report()

    def counted(self, start: int) -> None:
        """A run from `start` steps ended: the steps it took, in the work (so that the
        budget follows the time taken, whatever the rules look like), and the most steps
        any run reached (`peak`)."""
        steps = self.ctx.steps
        self.roller.work += (steps - start) // STEPS_PER_WORK
        if steps > self.peak:
            self.peak = steps

    def each(self, worlds: list, run):
        """(weight, outcome) of run(ctx) in each world: run once, directly, where it needs
        no value that is not known yet (the usual end of an action: its result), else
        explored as `explore` does; a world of runs that took steps apart (merged) from
        the most, charged as explore charges a run, explored where it stops (EACH)."""
        ctx, roller = self.ctx, self.roller
        for world in worlds:
            fewest, start = world.steps
            apart = fewest != start  # (where it may pass the limit: explored, but EACH)
            if not apart or EACH.apart:
                ctx.env = world.env  # read, not written: a call enters a frame of its own
                ctx.state = world.state.copy()
                ctx.depth = ctx.calls = self.depth
                roller.pins, roller.cursor = (), 0
                roller.weight, work = world.weight, roller.work
                ctx.recount(start)
                try:
                    if start > ctx.limits.steps_per_run:  # (past it already: explore's)
                        count_past_bound(ctx, None)
                    result = run(ctx)
                except Branch:
                    result = EXPLORED
                except STOPS as error:
                    result = EXPLORED if apart else stopped(error)
                if result is not EXPLORED:
                    self.counted(start)
                    self.ran += not apart  # a world run directly: its copy and answer, counted
                    if apart or not self.ran % WORLDS_PER_WORK:  # (apart: a run's unit)
                        self.work()
                    yield world.weight, result
                    continue
                if apart:  # (the try left uncharged: explored as ever)
                    roller.work = work
                else:
                    self.counted(start)
            for after, outcome in self.explore(world, run):
                yield after.weight, outcome

    def branch(self, branch: Branch, weight: tuple, pins: tuple, world, stack, out) -> None:
        """A run that needs a value: one more run per value (or, for the value a `let`
        binds, a world per value at once), each with its probability."""
        dist = branch.dist
        prune = self.prune
        if branch.stops:  # of the distribution's mass: where the run stops, and lost
            missing = dist.omitted
            for error, probability in branch.stops:
                missing -= probability
                p = times_fraction(weight, probability)
                if below(p, prune):
                    self.lost.add(p)
                else:
                    out.append((World(world.env, world.state, p, world.steps), stopped(error)))
            if missing:
                self.lost.add(times_fraction(weight, missing))
        else:  # lost: as whole numbers (dist.omitted would reduce a Fraction of them)
            short = dist.missing()
            if short:
                self.lost.add(times(weight, short, dist.total))
        if not dist.weights or not weight[0]:
            return
        if branch.bound is not None:  # the value of a `let`, the last thing it needed
            ctx = self.ctx
            steps = plus(world.steps, ctx.steps - world.steps[1])  # (the steps it took)
            state = ctx.state
            assert state is not None  # (explore gave the run a copy of the world's)
            out.append((Bound(ctx.env, state, weight, branch.bound, dist, steps), None))
            return
        start = world.steps[1]
        for outcome, p in self.weighted(dist, weight):
            stack.append(((*pins, outcome), p, start))

    def weighted(self, dist, weight: tuple):
        """(outcome, weight × its probability) for the outcomes not too unlikely to follow
        (the others are pruned: their probability goes to the omitted mass)."""
        total = dist.total
        prune = self.prune
        n, d = weight
        cut = pruned_up_to(prune, weight, total)
        denominator = d * total
        tidy = denominator.bit_length() > TIDY_BITS
        pruned = 0
        for outcome, w in dist.weights.items():
            if w <= cut:
                pruned += w
                continue
            yield outcome, (times(weight, w, total) if tidy else (n * w, denominator))
        if pruned:
            self.lost.add(times(weight, pruned, total))

    def block(self, statements: tuple, worlds, live_out: Live, split=False, merged=True) -> tuple:
        """Run a block over worlds: (worlds that went on, failures). A `split` branch (see
        if_) counts its steps at most; not `merged`, the caller keys the worlds (odds.fused)."""
        if not statements or (type(worlds) is list and not worlds):  # (nothing to run)
            return worlds_of(self, worlds), []
        if (whole := direct_block(self, statements, worlds, live_out, split)) is not None:
            return whole  # (a block that rolls nothing, run whole in each world: odds.direct)
        failures: list = []
        live = self.live_after(statements, live_out)
        # the statements' own steps, counted as a run enters the block (run_block)
        entry = block_steps(statements)
        worlds = self.counting(worlds, 0 if split else entry, entry)
        index = 0
        while index < len(statements):  # (statements run at once: odds.alike, odds.summed)
            done = at_once(self, statements, index, worlds, live, live_out, merged)
            worlds, failed, index = done or (
                *self.step(statements, index, worlds, live, live_out),
                index + 1,
            )
            failures.extend(failed)
        return (worlds_of(self, worlds) if type(worlds) is Held else worlds), failures

    def deferring(self, statements: tuple, index: int, live: list) -> bool:
        """Whether statements[index] is a `let` whose value the next statement alone reads
        (kept whole for it: interpreter.odds.deferred)."""
        return isinstance(statements[index].node, n.Let) and deferrable(
            statements, index, live, self
        )

    def step(self, statements: tuple, index: int, worlds: list, live: list, live_out: Live):
        """Run `statements[index]` of a block over worlds (`live`: what is read after each
        of the block's statements; `live_out`: after the block): (worlds that went on,
        failed outcomes), the worlds merged on what is read after it (the worlds may be
        held as groups, `odds.carried.Held`: `worlds_of` gives them as a list)."""
        statement = statements[index]
        node, shape = statement.node, statement.shape
        roller = self.roller
        if self.idle(statement, live[index]):
            # a line in the trace, a value nobody reads: nothing odds can see (its
            # steps, within the limit, not counted: see docs/architecture.md)
            return worlds, []
        kind = type(shape)
        if kind is Repeat or kind is Loop:
            # counters held as groups into the next loop that adds to them
            carries = self.carries(statement, live[index])
            keep = bool(carries) and index + 1 < len(statements)
            keep = keep and self.carries(statements[index + 1], live[index + 1]) == carries
            loop = self.repeat if kind is Repeat else self.for_each
            worlds, failed = loop(statement.node, shape, worlds, live[index], keep)
            return self.merge(worlds, live[index]), failed
        if type(worlds) is Held or len(worlds) > 1:  # (one world: no two to run once for)
            held = self.held_run(statements, index, live, worlds)
            if held is not None:  # (counters carried through the statement: odds.carried)
                return held
            worlds = worlds_of(self, worlds)
        if kind is Branches:
            worlds, failed = self.if_(shape, worlds, live[index], node)
        elif kind is Binding and shape.split is not None:
            # `let x = if c then action(...) else ...` (or `set`): as `if c { let x = ... }`
            worlds, failed = self.if_(shape.split, worlds, live[index])
        elif self.calls_in(statement):
            # an action called (`let x = a(...)`, `set x to a(...)`, `do a(...)`)
            name = shape.name if kind is Binding else None
            let = kind is Binding and not shape.local
            rider = self.rider(statements, index, live_out) if let else None
            return self.called(shape.call, worlds, live[index], name, rider)  # (merged)
        elif isinstance(node, n.Let) and type(node.expr) is n.Literal:
            worlds, failed = self.constant(node.name, node.expr.value, worlds), []
        elif isinstance(node, n.Let):
            # the roller branches only on what is read of the value later, and the
            # worlds it makes are merged as they come (no merge after)
            defer = deferrable(statements, index, live, self)
            roller.binding = Letting(
                node.name,
                live[index],
                self.depth,
                live[index].once(node.name),
                self.rider(statements, index, live_out),
                defer,
            )
            roller.direct = self.direct(statement, live[index])
            if defer and self.mixer is None:
                self.mixer = Mixer(self)
            try:
                runs = let_runs(self, statements, index, worlds, live_out)  # (alike: once)
                worlds, failed = self.let(statement, worlds, live[index], defer, runs)
            finally:
                roller.binding = roller.direct = None
            return worlds, failed
        elif once_set(statement, live[index]):
            worlds, failed = self.atomic(unresolved_set(shape), worlds)
        else:
            worlds, failed = self.atomic(statement.run, worlds)
        return self.merge(worlds, live[index]), failed

    def counting(self, worlds: list, fewest: int, most: int | None = None) -> list:
        """The worlds, each having counted `fewest` to `most` (or `fewest`) steps more."""
        if not fewest and not most:
            return worlds
        return [World(w.env, w.state, w.weight, plus(w.steps, fewest, most)) for w in worlds]

    def atomic(self, run, worlds: list) -> tuple:
        """run(ctx) in every world: (worlds it went on in, failed outcomes)."""
        done: list = []
        failed: list = []
        for world in worlds:
            for after, outcome in self.explore(world, run):
                (failed if isinstance(outcome, Failure) else done).append(
                    (after, outcome) if isinstance(outcome, Failure) else after
                )
        return done, failed

    def let(self, statement, worlds: list, live: Live, defer: bool = False, runs=None) -> tuple:
        """`let name = ...` over worlds, merged as they come: worlds that agree on what is
        still read, the new value included, become one. The worlds of one value that is
        not known yet (a Bound) are added without being made one by one, or (`defer`:
        the next statement alone reads it) kept whole (interpreter.odds.deferred).
        `runs(world)`: its outcomes in a world, run once for worlds alike (odds.alike)."""
        name = statement.node.name
        needs = live.needs
        present = {name}
        for world in worlds:
            present.update(world.env)
        names = ordered(k for k in present if k in needs and k != name)
        cuts = cuts_of(names, needs)
        wanted = needs.get(name, MISSING)
        keep = tuple(sorted(wanted)) if wanted is not MISSING and wanted is not None else None
        made = LetWorlds(names, cuts, self.most_worlds, self.kept(live), self.work)
        add = made.add
        values_of = _values_of(self, name, keep, wanted, defer)
        failed: list = []
        mixer = self.mixer
        reads: dict = self.names_read(statement.node.expr).needs if mixer is not None else {}
        counts: dict = shared(worlds, reads) if reads else {}
        pending = list(worlds)
        for world in pending:  # (a world per value added where a deferred one shares nothing)
            held = deferred_in(world, reads) if reads else None
            if held is not None and mixer is not None:  # counted over the deferred value
                narrowed = mixer.narrowing.of(statement, held, world)
                key = (world.env[held], others_of(world, held, reads))
                if counts.get(key, 0) < 2 and narrowed is None:
                    pending.extend(expanded(world, held, self))  # (expanded: not counted)
                    continue
                # counted over the deferred value once, then weighted
                relative, failures, lost, (fewest, most, peak) = mixer.outcomes(
                    statement, world, held, reads, values_of, (live, defer), narrowed
                )
                if world.steps[1] + peak > self.ctx.limits.steps_per_run:
                    # counted from no steps, its runs are not known to stay within the
                    # limit from this world's: one world per value, each counted on
                    pending.extend(expanded(world, held, self))
                    continue
                self.peak = max(self.peak, world.steps[1] + peak)
                if lost[0]:
                    self.lost.add(times(world.weight, *lost))
                for failure, w in failures:
                    weight = times(world.weight, *w)
                    failed.append((World(world.env, world.state, weight, world.steps), failure))
                steps = plus(world.steps, fewest, most)
                add(world.env, world.state, mixer.weighted(relative, world.weight), steps)
                continue
            outs = self.explore(world, statement.run) if runs is None else runs(world)
            for after, outcome in outs:
                if isinstance(outcome, Failure):
                    failed.append((after, outcome))
                    continue
                add(after.env, after.state, values_of(after), after.steps)
        return mixed_let(made.worlds(name), live, made.sheet, made), failed

    def if_(self, compiled: Branches, worlds: list, live_out: Live, node=None) -> tuple:
        """An `if` over worlds: each branch's block over the worlds that take it, each
        condition's steps counted as it is tested (`node`: the `if`). With no node, a
        `let x = if c then A else B` split (its own steps counted already) counts the
        branch it takes at most (where its own count of it is, the let's run knows)."""
        results, failures = [], []
        split = node is None
        remaining = worlds
        tested = [(None, None)] * len(compiled.branches) if split else node.branches
        for index, (branch, (test, _)) in enumerate(zip(compiled.branches, tested)):
            yes: list = []
            no: list = []
            condition, span, body = branch.condition, branch.span, branch.body
            reads = consumed(self, compiled, node, index, live_out)  # (read here, last)
            counted = self.counting(remaining, self.cost(test))

            def run_of(world, condition=condition, span=span, reads=reads):
                return test_run(condition, span, reads, world)

            # (tested once for the worlds alike in what the condition reads: odds.alike)
            pure = compiled.pure
            for after, decided in condition_tests(self, counted, node, index, run_of, pure):
                if isinstance(decided, Failure):
                    failures.append((after, decided))
                elif type(decided) is Split:  # (split by its odds: odds.consumed)
                    split_worlds(self, after, decided, yes, no)
                else:
                    (yes if decided else no).append(after)
            went, failed = self.block(body, yes, live_out, split)
            results.extend(went)
            failures.extend(failed)
            remaining = no
        went, failed = self.block(compiled.otherwise, remaining, live_out, split)
        results.extend(went)
        failures.extend(failed)
        return results, failures

    def merge(self, worlds: list, live: Live) -> list:
        """Worlds that agree on everything still to be read become one."""
        if type(worlds) is Held:  # (groups: their counters mixed)
            return Held(regrouped(self, worlds.groups, worlds.counters, live), worlds.counters)
        if len(worlds) < 2:
            return worlds
        names = names_still_read(worlds, live)
        cuts, sheet = cuts_of(names, live.needs), self.kept(live)
        merged: dict = {}
        for world in worlds:
            key = key_of(world.env, names, cuts, world.state, sheet)
            found = merged.get(key)
            if found is None:
                kept = {k: v for k, v in zip(names, key[0]) if v is not MISSING}
                merged[key] = [World(kept, world.state, world.weight, world.steps), None]
                continue
            first = found[0]
            first.steps = spread(first.steps, world.steps)  # (a World made here: its own)
            if found[1] is None:
                found[1] = Mass(first.weight)
            found[1].add(world.weight)
        out = []
        for world, mass in merged.values():
            if mass is not None:
                world.weight = mass.weight()
            out.append(world)
        return mixed_by_keys(out, merged, names, cuts, sheet)

    def live_after(self, statements: tuple, live_out: Live) -> list:
        """For each statement, what later statements may still read."""
        key = (block_key(statements), live_out)
        found = self.liveness.get(key)
        if found is None:
            found = []
            live = live_out
            for statement in reversed(statements):
                found.append(live)
                live = self.live_before(statement, live)
            found.reverse()
            self.liveness[key] = found
        return found

    def idle_now(self, statement, after: Live) -> bool:
        """Whether running a statement can change nothing the odds look at: a note; a
        value nobody reads later, computed without calling an action; an `if` whose
        branches hold nothing else (and whose conditions call no action either); a
        `for each` over a list computed so, whose passes hold nothing else. (A pass's
        statements are idle when what follows the loop needs none of their values: then
        nothing a pass writes is read by the next pass either, but by idle statements.)"""
        node, shape = statement.node, statement.shape
        if self.unseen(statement) > self.ctx.limits.steps_per_run:
            return False  # (one that may pass the limit alone: run, as issue 23 wants)
        if isinstance(node, n.Note):
            return True
        if type(shape) is Branches or type(shape) is Loop:
            if not shape.pure:
                return False
            if isinstance(shape, Loop):
                blocks = [shape.body]
                tested = [node.items]
            else:
                blocks = [branch.body for branch in shape.branches] + [shape.otherwise]
                tested = [condition for condition, _ in node.branches]
            if not all(self.safe(expr) for expr in tested):
                return False
            return all(
                self.idle(inner, live)
                for block in blocks
                for inner, live in zip(block, self.live_after(block, after))
            )
        return unread(statement, after, self.safe)

    def unseen(self, statement) -> int:
        """The most steps a statement may count beyond its own (counted on entering its
        block): what a run counts that the explorer does not, where it is skipped."""
        return max(self.most_steps(statement.node) - statement.cost, 0)

    def live_before_now(self, statement, after: Live) -> Live:
        """What may be read before a statement, from what may be read after it: for an
        `if`, what its branches read before their statements (each as its block would)."""
        if self.idle(statement, after):
            return after
        node, shape = statement.node, statement.shape
        if type(shape) is Repeat or type(shape) is Loop:
            return self.loop_live(node, shape, after)
        if type(shape) is not Branches:
            # a `set` compiled as a local's (`local`) gives the name a new value; any
            # other may write the field the name's value names (a pool's, kept live
            # too, merges a little less)
            local = type(shape) is Binding and shape.local
            return live_before(node, after, self.names_read, local)
        live = self.block_before(shape.otherwise, after)
        for branch, (condition, _body) in zip(shape.branches, node.branches):
            live = live.either(self.block_before(branch.body, after))
            live = live.union(self.names_read(condition))
        return live

    def block_before(self, statements: tuple, after: Live) -> Live:
        """What a block may read before its first statement."""
        if not statements:
            return after
        return self.live_before(statements[0], self.live_after(statements, after)[0])


def _values_of(explorer, name: str, keep, wanted, defer: bool):
    """values_of(after): the (value, weight) pairs of the worlds one run of a `let` ends
    in (a Bound's values weighted, or kept whole when deferred; a record cut to the
    fields read later; MISSING when nothing reads the name)."""

    def values_of(after) -> tuple:
        if type(after) is Bound:
            if defer:
                return ((Deferred(after.dist), after.weight),)
            pairs = explorer.weighted(after.dist, after.weight)
        else:
            value = after.env.get(name, MISSING)
            if keep is not None and type(value) is Record and len(value) > len(keep):
                value = Record({k: value.get(k) for k in keep}, value.kind)
            pairs = ((value, after.weight),)
        if wanted is MISSING:
            return tuple((MISSING, weight) for _, weight in pairs)
        return pairs

    return values_of
