"""Worlds: a statement run once per value it needs; worlds merged where they agree."""

from __future__ import annotations

from fractions import Fraction

import attrs

from dsl import nodes as n
from interpreter.errors import InsufficientResource, LimitExceeded, RequirementFailed
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.roller import Branch, hashable
from interpreter.odds.weights import TIDY_BITS, Mass, below, times, times_fraction
from interpreter.runtime import MISSING, Context, State, as_bool
from interpreter.values import Record


@attrs.frozen
class Failure:
    """An outcome in which the action stopped: a failed `require`, a short resource, a
    limit reached (an opposed check still tied after `tie_rerolls`). `error` is what a
    real run would raise there."""

    message: str
    error: object = attrs.field(default=None, eq=False, repr=False)

    def __str__(self) -> str:
        return f"fails: {self.message}"


class World:
    """Names, the working sheet, and the probability (interpreter.odds.weights) of being
    here."""

    __slots__ = ("env", "state", "weight")

    def __init__(self, env: dict, state: State, weight: tuple):
        self.env, self.state, self.weight = env, state, weight


class Explorer:
    """Runs compiled statements over weighted worlds, branching where values are needed."""

    def __init__(self, ctx: Context, roller, epsilon: Fraction):
        self.ctx = ctx
        self.roller = roller
        self.prune = epsilon / 10**6
        self.lost = Mass()  # the probability left out: pruned, or cut short
        self.liveness: dict = {}

    @property
    def omitted(self) -> Fraction:
        return self.lost.value()

    def explore(self, world: World, run) -> list:
        """Run `run(ctx)` in `world` once per combination of the values it needs.

        Returns (world after, outcome) pairs: the outcome is what `run` returned, or a
        Failure if the action stopped there.
        """
        ctx, roller = self.ctx, self.roller
        out = []
        stack = [((), world.weight)]
        while stack:
            pins, weight = stack.pop()
            # Work: one per run, plus every statement it executed (ctx.steps), so that
            # the budget follows the time taken, whatever the rules look like.
            roller.work += 1 + ctx.steps
            ctx.steps = 0
            if roller.work > roller.budget:
                roller.report(done=True)
                raise TooComplex(f"more than {roller.budget} units of work")
            roller.deadline.check()
            if roller.progress is not None and roller.work >= roller.next_report:
                roller.report()
            ctx.env = dict(world.env)
            ctx.state = world.state.copy()
            ctx.depth = ctx.calls = 0
            roller.pins, roller.cursor = pins, 0
            try:
                result = run(ctx)
            except Branch as branch:
                self.branch(branch, weight, pins, world, stack, out)
                continue
            except STOPS as error:
                out.append((World(ctx.env, ctx.state, weight), stopped(error)))
                continue
            out.append((World(ctx.env, ctx.state, weight), result))
        return out

    def branch(self, branch: Branch, weight: tuple, pins: tuple, world, stack, out) -> None:
        """A run that needs a value: one more run per value (or, for the value a `let`
        binds, a world per value at once), each with its probability."""
        dist = branch.dist
        total = dist.total
        prune = self.prune
        for error, probability in branch.stops:
            p = times_fraction(weight, probability)
            if below(p, prune):
                self.lost.add(p)
            else:
                out.append((World(world.env, world.state, p), stopped(error)))
        if dist.omitted:
            self.lost.add(times_fraction(weight, dist.omitted))
        if not dist.weights or not weight[0]:
            return
        bound = branch.bound
        ctx = self.ctx
        n, d = weight
        # weight × w / total <= prune for w up to this: too unlikely to follow (pruned)
        cut = (prune.numerator * d * total) // (prune.denominator * n)
        denominator = d * total
        tidy = denominator.bit_length() > TIDY_BITS
        pruned = 0
        for outcome, w in dist.weights.items():
            if w <= cut:
                pruned += w
                continue
            p = times(weight, w, total) if tidy else (n * w, denominator)
            if bound is None:
                stack.append(((*pins, outcome), p))
            else:  # the value of a `let`, the last thing its statement needed
                out.append((World({**ctx.env, bound: outcome}, ctx.state, p), None))
        if pruned:
            self.lost.add(times(weight, pruned, total))

    def block(self, statements: tuple, worlds: list, live_out: Live) -> tuple:
        """Run a block over worlds; returns (worlds that went on, failed outcomes)."""
        failures: list = []
        live = self.live_after(statements, live_out)
        roller = self.roller
        for index, statement in enumerate(statements):
            node = statement.node
            if isinstance(node, n.If):
                worlds, failed = self.if_(statement, worlds, live[index])
            elif isinstance(node, n.Repeat):
                worlds, failed = self.repeat(statement, worlds, live[index])
            elif isinstance(node, n.ForEach):
                worlds, failed = self.for_each(statement, worlds, live[index])
            else:
                # a top-level `let`: the roller branches only on what is read of it later
                roller.binding = (node.name, live[index]) if isinstance(node, n.Let) else None
                try:
                    worlds, failed = self.atomic(statement, worlds)
                finally:
                    roller.binding = None
            failures.extend(failed)
            worlds = self.merge(worlds, live[index])
        return worlds, failures

    def atomic(self, statement, worlds: list) -> tuple:
        done, failed = [], []
        for world in worlds:
            for after, outcome in self.explore(world, statement):
                (failed if isinstance(outcome, Failure) else done).append(
                    (after, outcome) if isinstance(outcome, Failure) else after
                )
        return done, failed

    def if_(self, compiled, worlds: list, live_out: Live) -> tuple:

        results, failures = [], []
        remaining = worlds
        for condition, body, span in compiled.branches:
            yes, no = [], []
            for world in remaining:
                runs = self.explore(world, lambda ctx, c=condition, s=span: as_bool(ctx, c(ctx), s))
                for after, decided in runs:
                    if isinstance(decided, Failure):
                        failures.append((after, decided))
                    else:
                        (yes if decided else no).append(after)
            went, failed = self.block(body, yes, live_out)
            results.extend(went)
            failures.extend(failed)
            remaining = no
        went, failed = self.block(compiled.otherwise, remaining, live_out)
        results.extend(went)
        failures.extend(failed)
        return results, failures

    def repeat(self, compiled, worlds: list, live_out: Live) -> tuple:
        """`repeat n times until c`: pass by pass, worlds merged after each statement, so
        that independent draws add up instead of multiplying the worlds."""
        loop = live_out.union(names_read(compiled.node))  # what a later pass may read
        failures: list = []
        by_times: dict = {}
        for world in worlds:
            for after, passes in self.explore(world, compiled.times):
                if isinstance(passes, Failure):
                    failures.append((after, passes))
                else:
                    by_times.setdefault(passes, []).append(after)
        finished = []
        for passes, group in sorted(by_times.items()):
            group = self.merge(group, loop)
            for _ in range(passes):
                going = []
                for world in group:
                    for after, done in self.explore(world, compiled.done):
                        if isinstance(done, Failure):
                            failures.append((after, done))
                        else:
                            (finished if done else going).append(after)
                if not going:
                    group = []
                    break
                group, failed = self.block(compiled.body, going, loop)
                failures.extend(failed)
            finished.extend(group)
        return finished, failures

    def for_each(self, compiled, worlds: list, live_out: Live) -> tuple:
        """`for each x in list`: item by item, worlds merged as in `repeat`."""
        loop = live_out.union(names_read(compiled.node))
        failures: list = []
        by_items: dict = {}
        for world in worlds:
            for after, items in self.explore(world, compiled.items):
                if isinstance(items, Failure):
                    failures.append((after, items))
                else:
                    by_items.setdefault(hashable(items), (items, []))[1].append(after)
        finished = []
        name = compiled.var
        for items, group in by_items.values():
            group = self.merge(group, loop)
            for item in items:
                group = [World({**w.env, name: item}, w.state, w.weight) for w in group]
                group, failed = self.block(compiled.body, group, loop)
                failures.extend(failed)
            finished.extend(group)
        return finished, failures

    def merge(self, worlds: list, live: Live) -> list:
        """Worlds that agree on everything still to be read become one."""
        if len(worlds) < 2:
            return worlds
        merged: dict = {}
        needs = live.needs
        for world in worlds:
            env = {}
            for name, value in world.env.items():
                fields = needs.get(name, MISSING)
                if fields is MISSING:
                    continue
                if fields is not None and type(value) is Record and len(value) > len(fields):
                    # only some of a record's fields are read later: keep just those
                    value = Record({k: value.get(k) for k in sorted(fields)}, value.kind)
                env[name] = value
            try:
                key = (frozenset(env.items()), world.state.snapshot())
            except TypeError:  # an unhashable value: compared by identity
                key = (frozenset((k, hashable(v)) for k, v in env.items()), world.state.snapshot())
            found = merged.get(key)
            if found is None:
                merged[key] = [World(env, world.state, world.weight), None]
            elif found[1] is None:
                found[1] = Mass(found[0].weight)
                found[1].add(world.weight)
            else:
                found[1].add(world.weight)
        out = []
        for world, mass in merged.values():
            if mass is not None:
                world.weight = mass.weight()
            out.append(world)
        return out

    def live_after(self, statements: tuple, live_out: Live) -> list:
        """For each statement, what later statements may still read."""
        key = (id(statements), live_out)
        found = self.liveness.get(key)
        if found is None:
            found = []
            live = live_out
            for statement in reversed(statements):
                found.append(live)
                live = live.union(names_read(statement.node))
            found.reverse()
            self.liveness[key] = found
        return found


#: what stops a run partway (every other error stops the whole computation)
STOPS = (RequirementFailed, InsufficientResource, LimitExceeded)


def stopped(error) -> Failure:
    return Failure(error.message, error)


class Live:
    """What may still be read: each name, with the fields of it that are read (None when
    the whole value is). Hashable, so that liveness can be remembered per block."""

    __slots__ = ("_key", "needs")

    def __init__(self, needs: dict):
        self.needs = needs
        self._key = frozenset((k, None if v is None else frozenset(v)) for k, v in needs.items())

    def union(self, other: Live) -> Live:
        needs = dict(self.needs)
        for name, fields in other.needs.items():
            if name not in needs:
                needs[name] = fields
            elif needs[name] is None or fields is None:
                needs[name] = None
            else:
                needs[name] = needs[name] | fields
        return Live(needs)

    def __eq__(self, other) -> bool:
        return isinstance(other, Live) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)


def names_read(node) -> Live:
    """Every name an AST node mentions, and which of its fields it reads."""
    return Live(n.field_reads(node))
