"""Worlds: what the explorer keeps of each way an action can go, and what is still read."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import attrs

from dsl import nodes as n
from dsl.messages import tr
from dsl.types import value_of
from interpreter.compiled import REPEATED, NodeNumbers
from interpreter.errors import EvaluationError, InsufficientResource, RequirementFailed
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.odds.failing import cannot_fail, sums_may_fail
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.roller import hashable
from interpreter.odds.steps import StepBounds
from interpreter.odds.weights import Mass
from interpreter.state import MISSING, State
from interpreter.values import Record, cut_record

if TYPE_CHECKING:
    from interpreter.compiled import Statement
    from interpreter.odds.distribution import Dist
    from interpreter.runtime import Context

#: worlds made or run directly (a state copied, a value merged) in one unit of work
WORLDS_PER_WORK = 16

#: a world's names and their values
Env = dict[str, Any]
#: a probability as whole numbers (numerator, denominator): interpreter.odds.weights
Weight = tuple[int, int]
#: the steps counted by the runs a world stands for: (fewest, most)
Steps = tuple[int, int]


@attrs.frozen
class Failure:
    """An outcome in which the action stopped: a failed `require`, a short resource, a
    limit reached (an opposed check still tied after `tie_rerolls`). `error` is what a
    real run would raise there."""

    message: str
    error: EvaluationError | None = attrs.field(default=None, eq=False, repr=False)

    def __str__(self) -> str:
        return f"fails: {self.message}"


#: the steps a run has counted to reach a world: (fewest, most) of the runs merged in it
NO_STEPS = (0, 0)
#: Explorer.each's answer where its world is to be explored
EXPLORED = object()


class Each:
    """Whether Explorer.each runs a world of runs that took steps apart directly from the
    most (`apart`; off: explored)."""

    apart = True


EACH = Each()


class World:
    """Names, the working sheet, the probability (interpreter.odds.weights) of being
    here, and the steps counted to get here (`steps`: the fewest and the most of the runs
    it stands for, a run's count going on from the most: see spread)."""

    __slots__ = ("env", "state", "steps", "weight")

    def __init__(
        self, env: Env, state: State, weight: Weight, steps: tuple[int, int] = NO_STEPS
    ) -> None:
        self.env, self.state, self.weight, self.steps = env, state, weight, steps


class Bound(World):
    """The worlds a `let` makes from a value not known yet: one per value of `dist`, with
    the world's weight times that value's probability (made as they are merged)."""

    __slots__ = ("dist", "name")

    def __init__(
        self,
        env: Env,
        state: State,
        weight: Weight,
        name: str,
        dist: Dist,
        steps: tuple[int, int] = NO_STEPS,
    ) -> None:
        super().__init__(env, state, weight, steps)
        self.name, self.dist = name, dist


def spread(a: Steps, b: Steps) -> Steps:
    """The steps of a world standing for runs that counted `a` and `b` (merged)."""
    return (min(a[0], b[0]), max(a[1], b[1]))


def unclear(ctx: Context) -> None:
    """Runs that took different steps to get here were merged, and some of them pass the
    step limit from here and others may not: past what the worlds tell apart."""
    raise TooComplex(
        tr(
            "some of the runs merged here may pass the step limit ({limit}) and others not",
            limit=ctx.limits.steps_per_run,
        )
    )


def block_steps(statements: tuple[Statement, ...]) -> int:
    """The steps a run counts entering a block: its compiled statements' own (`cost`)."""
    return sum(map(_COST, statements))  # (in C: asked on entering every block)


_COST = attrgetter("cost")


def plus(steps: Steps, fewest: int, most: int | None = None) -> Steps:
    """`steps` and then between `fewest` and `most` (`fewest` when None) more."""
    return (steps[0] + fewest, steps[1] + (fewest if most is None else most))


#: steps of evaluation (runtime.Context.steps: nodes, not statements) in one unit of work
STEPS_PER_WORK = 64

#: what stops a run partway: every error a real run may meet there (a failed `require`,
#: a short resource, a limit, a division by zero on some rolls), an outcome of its own
#: with its probability, in every field's answer as in the whole result's (an error met
#: in every run is that error: certain_limit)
STOPS = (EvaluationError,)


def stopped(error: EvaluationError) -> Failure:
    return Failure(error.message, error)


def certain_limit(probabilities: Mapping[object, object]) -> None:
    """An error every run meets (a die of more faces than faces_per_die, a division by
    zero whatever falls) is not a distribution but the error a real roll gives: raise
    it. (An error some runs meet is an outcome of its own, with its probability; a
    refusal at the table, a `require` or a short resource, is an outcome even when
    certain: Odds.refused.)"""
    if len(probabilities) == 1:
        (outcome,) = probabilities
        error = outcome.error if isinstance(outcome, Failure) else None
        if isinstance(error, EvaluationError) and not isinstance(error, REFUSED):
            raise error


#: the errors a run stops with that are refusals at the table (Odds.refused)
REFUSED = (RequirementFailed, InsufficientResource)


def key_of(
    env: Env,
    names: tuple[str, ...],
    cuts: tuple[tuple[int, tuple[str, ...]], ...],
    state: State,
    sheet: Callable[[State], Any] | None = None,
) -> tuple[tuple[Any, ...], Any]:
    """What a world holds of what is still read: the values of `names` (records cut down
    to the fields still read: `cuts`, from cuts_of), and what changed on its sheet (or
    `sheet(state)`, what is still read of it: odds.sheet_live)."""
    values = [env.get(name, MISSING) for name in names]
    for i, fields in cuts:
        value = values[i]
        if type(value) is Record and len(value) > len(fields):
            values[i] = cut_record(value, fields)
    changed = state.snapshot() if sheet is None else sheet(state)
    key: tuple[tuple[Any, ...], Any] = (tuple(values), changed)
    try:
        hash(key)
    except TypeError:  # an unhashable value: compared by identity
        key = (tuple(hashable(v) for v in values), key[1])
    return key


#: dsl.nodes.merged_paths (two names' field paths read, as one)
_merged_paths: Callable[[Any, Any], Any] = n.merged_paths


def cuts_of(
    names: tuple[str, ...], needs: dict[str, Any]
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Of the names still read, those of which only some fields are: (index, fields)."""
    return tuple(
        (i, tuple(sorted(needs[name]))) for i, name in enumerate(names) if needs[name] is not None
    )


class Live:
    """What may still be read: each name, with the fields of it that are read, each with
    its own fields read (dsl.nodes.field_paths; None where a value is read whole), and
    how often (`counts`: 1, or MANY: more than once, or where it may be read many times:
    in a loop, a call's arguments, a text, a list, a choice); `paths`: as often, each
    field of a name (name, field) read as `name.field` (none there: not read so).
    Hashable, so that liveness can be remembered per block."""

    __slots__ = ("_hash", "_key", "_less", "counts", "fields", "needs", "paths")

    def __init__(self, needs: dict[str, Any], counts: dict[Any, int] | None = None) -> None:
        self._less: dict[str, Live] | None = None  # `without(name)`, each made once
        #: the sheet fields it reads, found once (odds.sheet_live.fields_live), or MISSING
        self.fields: Any = MISSING
        self.needs = needs
        counts = counts or {}
        self.counts = {name: counts.get(name, MANY) for name in needs}
        self.paths = {k: v for k, v in counts.items() if type(k) is tuple and k[0] in needs}
        self._key = (
            frozenset((k, None if v is None else n.path_cut(v)) for k, v in needs.items()),
            frozenset(self.counts.items()),
            frozenset(self.paths.items()),
        )
        self._hash = hash(self._key)  # (a key of the liveness kept: hashed at every look-up)

    def once(self, name: str) -> bool:
        """Whether `name` is read exactly once from here on (and not where a read may
        happen many times): its value may then stay a distribution until that read, as
        a dice term written there would."""
        return self.counts.get(name) == 1

    def once_field(self, name: str, field: str) -> bool:
        """Whether `name.field` is read exactly once from here on (as `once`), and that
        field of `name` nowhere else, however often its other fields are read (read
        whole, or through its own fields: `r.theirs.total`, once)."""
        fields = self.needs.get(name)
        return isinstance(fields, dict) and field in fields and self.paths.get((name, field)) == 1

    def union(self, other: Live) -> Live:
        """What is read here and then there (the reads of both counted)."""
        return self.joined(other, lambda a, b: min(a + b, MANY))

    def either(self, other: Live) -> Live:
        """What is read here or there (branches of an `if`: the more often of the two)."""
        return self.joined(other, max)

    def joined(self, other: Live, count: Callable[[int, int], int]) -> Live:
        needs = dict(self.needs)
        counts: dict[Any, int] = dict(self.counts)
        for name, fields in other.needs.items():
            if name not in needs:
                needs[name] = fields
                counts[name] = other.counts[name]
                continue
            needs[name] = _merged_paths(needs[name], fields)
            counts[name] = count(counts[name], other.counts[name])
        counts.update(self.paths)
        for path, times in other.paths.items():  # (a field not read on one side: 0 there)
            counts[path] = count(counts[path], times) if path in counts else times
        return Live(needs, counts)

    def without(self, name: str) -> Live:
        if name not in self.needs:
            return self
        less = self._less
        if less is None:
            less = self._less = {}
        found = less.get(name)
        if found is None:
            found = less[name] = Live(
                {k: v for k, v in self.needs.items() if k != name},
                {**{k: v for k, v in self.counts.items() if k != name}, **self.paths},
            )
        return found

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Live) and self._key == other._key)

    def __hash__(self) -> int:
        return self._hash


class Liveness:
    """What the explorer works out about a rulebook's statements that is the same in every
    computation: what each node reads, what each block still reads after each statement.
    One per compiled rulebook (liveness_of), so that a computation does not walk the rules
    again."""

    def __init__(
        self, compiler: Any = None, sums_fail: bool = True, limits: Limits | None = None
    ) -> None:
        # what is remembered of a node, by its number (interpreter.compiled.NodeNumbers)
        self.numbers = NodeNumbers()
        self.reads: dict[int, Live] = {}  # node's number → Live
        self.given: dict[int, frozenset[str]] = {}  # node's number → the names it binds
        #: (block_key(statements), Live after) → [Live after each] (and riders, by index)
        self.blocks: dict[Any, Any] = {}
        self.safe: dict[Any, bool] = {}  # node's number → whether it cannot fail
        self.counts: dict[tuple[str, int], int] = {}  # (what, node's number) → steps
        self.compiler = compiler  # its types and bindings (cannot_fail)
        self.sums_fail = sums_fail  # whether a sum may pass number_digits (sums_may_fail)
        limits = limits if limits is not None else DEFAULT_LIMITS
        self.step_limit = limits.steps_per_run
        # the most steps a node may count: one that may pass the limit may fail
        self.steps = StepBounds(compiler, limits) if compiler is not None else None

    @classmethod
    def of(cls, owner: Any, limits: Limits | None = None) -> Liveness:
        """The Liveness kept for `owner` (a compiler) while it lives, for computations
        under `limits` (whether a sum may fail: sums_may_fail)."""
        found = _KEPT.get(owner)
        if found is None:
            found = _KEPT[owner] = {}
        limits = limits if limits is not None else DEFAULT_LIMITS
        kept = found.get(limits)
        if kept is None:
            kept = found[limits] = cls(owner, sums_may_fail(limits), limits)
        return kept

    def cannot_fail(self, node: object) -> bool:
        """cannot_fail(node), by the compiler's types and what its calls call, found once."""
        key = self.numbers.of(node)
        found = self.safe.get(key)
        if found is None:
            compiler = self.compiler
            kind_of: Callable[[object], str] | None = None
            callee: Callable[[object], tuple[object, ...] | None] | None = None
            if compiler is not None:
                kind_of = self.kind_of
                callee = self.callee
            self.safe[key] = False  # (a definition calling itself: may fail)
            found = cannot_fail(node, kind_of, callee, self.sums_fail)
            found = found and self.within_steps(node)  # nor pass the step limit
            self.safe[key] = found
        return found

    def within_steps(self, node: object) -> bool:
        """Whether evaluating `node` can never count more than the step limit (steps.py),
        found once."""
        if self.steps is None:
            return True
        key = ("steps", self.numbers.of(node))
        found = self.safe.get(key)
        if found is None:
            found = self.safe[key] = self.steps.most(node) <= self.step_limit
        return found

    def most_steps(self, node: object) -> int:
        """The most steps evaluating `node` may count (steps.py; 0 with no compiler),
        found once."""
        if self.steps is None:
            return 0
        key = ("most", self.numbers.of(node))
        found = self.counts.get(key)
        if found is None:
            found = self.counts[key] = self.steps.most(node)
        return found

    def cost(self, node: object) -> int:
        """The steps a compiled closure counts for `node` itself, known when compiled
        (interpreter.compile.costs; 0 with no compiler)."""
        if self.compiler is None or node is None:
            return 0
        key = ("cost", self.numbers.of(node))
        found = self.counts.get(key)
        if found is None:
            found = self.counts[key] = int(self.compiler.cost(node))
        return found

    def kind_of(self, node: object) -> str:
        """The kind of the value a node gives, read (a field named: its value; a roll:
        its total)."""
        return str(value_of(self.compiler.type_of(node)).kind)

    def callee(self, call: object) -> tuple[object, ...] | None:
        """What a call computes besides its arguments, when that cannot fail: () for a
        function of the language, a formula's body, a check's expressions (its named
        rolls taken not to fail: a chain past extra_per_die, far below epsilon where one
        is written, is left out where nothing reads the roll); else None."""
        binding = self.compiler.binding_of(call)
        if binding is None:
            return None
        if binding.kind == "builtin":
            return ()
        definition = binding.node
        body: tuple[object, ...]
        if binding.kind == "formula":
            body = (definition.body,)
        elif binding.kind == "check":
            body = (
                *(let.expr for let in definition.lets),
                definition.roll,
                definition.target,
                *(expr for _, expr in definition.fields),
            )
        elif binding.kind == "roll":
            return ()
        else:  # an action, an opposed check (its ties may reach the limit)
            return None
        return () if all(self.cannot_fail(expr) for expr in body) else None

    def names_read(self, node: object) -> Live:
        key = self.numbers.of(node)
        found = self.reads.get(key)
        if found is None:
            found = self.reads[key] = names_read(node)
        return found

    def names_given(self, node: object) -> frozenset[str]:
        """dsl.nodes.names_given(node) (the names a statement binds), found once."""
        key = self.numbers.of(node)
        found = self.given.get(key)
        if found is None:
            found = self.given[key] = n.names_given(node)
        return found


#: each compiled rulebook's Liveness, kept while the compiler lives
_KEPT: weakref.WeakKeyDictionary[Any, dict[Limits, Liveness]] = weakref.WeakKeyDictionary()


def names_read(node: object) -> Live:
    """Every name an AST node mentions, which of its fields it reads, and how often."""
    return Live(n.field_paths(node), read_counts(node))


#: a name read more than once, or where it may be read many times
MANY = 2


def read_counts(node: object) -> dict[Any, int]:
    """How often each name a node mentions is read: 1, or MANY; and each field of a name
    read as `name.field`, by (name, field)."""
    counts: dict[Any, int] = {}
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        item, many = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend((inner, many) for inner in item)
        elif isinstance(item, n.Name):
            counts[item.name] = MANY if many else min(counts.get(item.name, 0) + 1, MANY)
        elif attrs.has(type(item)):
            if isinstance(item, n.Field) and isinstance(item.subject, n.Name):
                path = (item.subject.name, item.name)
                counts[path] = MANY if many else min(counts.get(path, 0) + 1, MANY)
            many = many or isinstance(item, REPEATED)
            stack.extend((part, many) for part in n.parts(item))
    return counts


class LetWorlds:
    """The worlds a `let` makes, merged as they come: by what else is still read
    (`names`, cut to `cuts`; of the sheet, `sheet`: key_of), then by the new value; at
    most `most` of them (None: no bound), past it TooComplex; `work()` called once every
    WORLDS_PER_WORK values added (a unit of the budget: interpreter.odds.explore)."""

    __slots__ = ("added", "cuts", "made", "merged", "most", "names", "sheet", "work")

    def __init__(
        self,
        names: tuple[str, ...],
        cuts: tuple[tuple[int, tuple[str, ...]], ...],
        most: int | None,
        sheet: Callable[[State], Any] | None = None,
        work: Callable[[], None] | None = None,
    ) -> None:
        self.names, self.cuts, self.most, self.sheet = names, cuts, most, sheet
        self.made, self.added, self.work = 0, 0, work  # worlds made (when bounded), values
        #: what else is still read → [env, state, {value: weights}, steps]
        self.merged: dict[Any, list[Any]] = {}

    def add(self, env: Env, state: State, pairs: Iterable[tuple[Any, Any]], steps: Steps) -> None:
        prefix = key_of(env, self.names, self.cuts, state, self.sheet)
        found = self.merged.get(prefix)
        if found is None:
            found = self.merged[prefix] = [env, state, {}, steps]
        elif found[3] != steps:
            found[3] = spread(found[3], steps)
        values = found[2]
        most, work = self.most, self.work
        for value, weight in pairs:
            self.added += 1
            if work is not None and not self.added % WORLDS_PER_WORK:
                work()
            found = values.get(value)
            if found is None:
                values[value] = weight  # a weight; a Mass once another one comes
                if most is not None:
                    self.made += 1
                    if self.made > most:
                        raise TooComplex(tr("more than {most} worlds", most=most))
            elif type(found) is Mass:
                found.add(weight)
            else:
                values[value] = Mass(found)
                values[value].add(weight)

    def worlds(self, name: str) -> list[World]:
        """The worlds made, the new value under `name` (unless nothing reads it)."""
        out = []
        names = self.names
        for prefix, (_env, state, values, steps) in self.merged.items():
            kept = {k: v for k, v in zip(names, prefix[0]) if v is not MISSING}
            for value, weight in values.items():
                env = kept if value is MISSING else {**kept, name: value}
                weight = weight.weight() if type(weight) is Mass else weight
                out.append(World(env, state, weight, steps))
        return out


def live_before(
    node: object, after: Live, names_read: Callable[[object], Live], local: bool = True
) -> Live:
    """What may be read before a statement, from what may be read after it: a name the
    statement gives a new value (`let x = ...`, `set x to ...` not reading x) is not read
    before it, whatever it held. A `set` of the field a name names (a parameter `p:
    attribute`, the name of a `for each` over a group: not `local`) reads the name."""
    if isinstance(node, n.Let):
        return after.without(node.name).union(names_read(node.expr))
    if isinstance(node, n.Set) and isinstance(node.place, n.Name) and local:
        reads = names_read(node.expr)
        if node.place.name not in reads.needs:
            return after.without(node.place.name).union(reads)
    return after.union(names_read(node))


def entered(explorer: Any, world: World, entry: int = 0) -> int:
    """The explorer's context and roller made ready to run once from `world` (its names
    and sheet copied, no dice pinned, its weight), `entry` steps past its own (a block's,
    counted on entering it): the steps the run starts from."""
    ctx, roller = explorer.ctx, explorer.roller
    explorer.work()
    ctx.env = dict(world.env)
    ctx.state = world.state.copy()
    ctx.depth = ctx.calls = explorer.depth
    roller.pins, roller.cursor = (), 0
    roller.weight = world.weight
    start = world.steps[1] + entry
    ctx.recount(start)
    return start
