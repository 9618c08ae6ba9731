"""Worlds: a statement run once per value it needs; worlds merged where they agree."""

from __future__ import annotations

from fractions import Fraction

import attrs

from dsl import nodes as n
from interpreter.errors import ChainTooLong, InsufficientResource, RequirementFailed
from interpreter.odds.polynomials import (
    TooComplex,
)
from interpreter.odds.roller import Branch, hashable
from interpreter.runtime import Context, State, as_bool
from interpreter.values import Record


@attrs.frozen
class Failure:
    """An outcome in which the action stopped: a failed `require`, a short resource."""

    message: str

    def __str__(self) -> str:
        return f"fails: {self.message}"


class World:
    __slots__ = ("env", "state", "weight")

    def __init__(self, env: dict, state: State, weight: Fraction):
        self.env, self.state, self.weight = env, state, weight


class Explorer:
    """Runs compiled statements over weighted worlds, branching where values are needed."""

    def __init__(self, ctx: Context, roller, epsilon: Fraction):
        self.ctx = ctx
        self.roller = roller
        self.prune = epsilon / 10**6
        self.omitted = Fraction(0)
        self.liveness: dict = {}

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
            if roller.progress is not None and roller.work >= roller.next_report:
                roller.report()
            ctx.env = dict(world.env)
            ctx.state = world.state.copy()
            ctx.depth = 0
            roller.pins, roller.cursor = pins, 0
            try:
                result = run(ctx)
            except Branch as branch:
                dist = branch.dist
                total = dist.total
                if len(dist.weights) == 0:
                    self.omitted += weight
                    continue
                lost = weight * dist.omitted
                self.omitted += lost
                for outcome, w in dist.weights.items():
                    p = weight * Fraction(w, total)
                    if p < self.prune:
                        self.omitted += p
                        continue
                    stack.append(((*pins, outcome), p))
                continue
            except (RequirementFailed, InsufficientResource, ChainTooLong) as error:
                out.append((World(ctx.env, ctx.state, weight), Failure(error.message)))
                continue
            out.append((World(ctx.env, ctx.state, weight), result))
        return out

    def block(self, statements: tuple, worlds: list, live_out: Live) -> tuple:
        """Run a block over worlds; returns (worlds that went on, failed outcomes)."""
        failures: list = []
        live = self.live_after(statements, live_out)
        for index, statement in enumerate(statements):
            node = statement.node
            if isinstance(node, n.If):
                worlds, failed = self.if_(statement, worlds, live[index])
            else:
                worlds, failed = self.atomic(statement, worlds)
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

    def merge(self, worlds: list, live: Live) -> list:
        """Worlds that agree on everything still to be read become one."""
        merged: dict = {}
        needs = live.needs
        for world in worlds:
            env = {}
            for name, value in world.env.items():
                if name not in needs:
                    continue
                fields = needs[name]
                if fields is not None and type(value) is Record:
                    # only some of a record's fields are read later: keep just those
                    value = Record({k: value.get(k) for k in sorted(fields)}, value.kind)
                env[name] = value
            key = (tuple(sorted((k, hashable(v)) for k, v in env.items())), world.state.snapshot())
            found = merged.get(key)
            if found is None:
                merged[key] = World(env, world.state, world.weight)
            else:
                found.weight += world.weight
        return list(merged.values())

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
