"""Exact odds: the distribution of a dice expression, or of a check's or action's result.

The odds engine runs the SAME compiled closures as a real run (interpreter.evaluate),
with a different roller:

- a dice term gives its exact distribution (`distribution.pool_distribution`, counted
  combinatorially) instead of faces, and arithmetic, comparisons and rounding on
  distributions combine them (convolution: `evaluate.lift`);
- where the rules need a concrete value (a condition, a `let`, an amount, a table key),
  the roller *branches*: the statement is run once per possible value, each run a
  "world" with its probability;
- after each statement, worlds that agree on everything still needed later (liveness)
  are merged, so a long action stays small.

Open-ended rolls (explosions, rerolls, custom procedures such as Brujería's open d10) are
expanded until the probability left out is below `epsilon`, and that mass is reported.
When the exact computation would pass `budget` (statement runs), the engine falls back to
Monte Carlo over the real engine and says so (`exact: false`, `trials`, standard errors).
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from fractions import Fraction

import attrs

from dsl import nodes as n
from interpreter.dice import Die, PoolRoll, roll_pool
from interpreter.distribution import Dist, TooComplex, mixture, pool_distribution
from interpreter.errors import EvaluationError, InsufficientResource, RequirementFailed
from interpreter.evaluate import LIFTS, Branch, ChainRoll, Context, Roller, State, watch
from interpreter.values import Record, is_number, show

#: probability an open-ended roll may leave out
EPSILON = Fraction(1, 10**12)
#: work (statement runs and the statements they execute, distributions combined) the
#: exact computation may do before falling back to sampling (a few seconds)
BUDGET = 100_000
#: trials of the Monte Carlo fallback
TRIALS = 20_000
#: draws one enumerated roll (a procedure's base or extra) may make
ENUMERATION_LEAVES = 50_000


class LiftMemory(dict):
    """Distributions already combined in one odds computation (see evaluate.lift), and
    the work they took, counted against the budget."""

    def __init__(self, roller):
        super().__init__()
        self.roller = roller

    def work(self, values) -> None:
        size = 1
        for value in values:
            if type(value) is Dist:
                size *= len(value.weights)
        roller = self.roller
        roller.work += 1 + size // 20
        if roller.work > roller.budget:
            raise TooComplex(f"more than {roller.budget} units of work")


@attrs.frozen
class Failure:
    """An outcome in which the action stopped: a failed `require`, a short resource."""

    message: str

    def __str__(self) -> str:
        return f"fails: {self.message}"


class Summary(PoolRoll):
    """A dice term's outcome in odds mode: its value and counts, without faces."""

    __slots__ = ()

    def __init__(self, total, successes, failures):
        super().__init__("", (), total, successes, failures)

    def __eq__(self, other):
        return isinstance(other, Summary) and (self.total, self.successes, self.failures) == (
            other.total,
            other.successes,
            other.failures,
        )

    def __hash__(self):
        return hash((self.total, self.successes, self.failures))


class DistRoll:
    """A dice term in odds mode: the distribution of (total, successes, failures)."""

    __slots__ = ("dist",)

    def __init__(self, dist: Dist):
        self.dist = dist

    @property
    def total(self) -> Dist:
        return self.dist.map(lambda o: o[0])

    @property
    def successes(self) -> Dist:
        return self.dist.map(lambda o: o[1])

    @property
    def failures(self) -> Dist:
        return self.dist.map(lambda o: o[2])


# ─── the roller of the odds engine ──────────────────────────────────────────


class OddsRoller:
    """Answers dice with distributions, and concrete values from the pinned branch."""

    lifts = True

    def __init__(self, epsilon: Fraction, budget: int, limits, progress=None):
        # Each open-ended roll may leave out a hundredth of what the whole answer may,
        # so that an action with several such rolls still stays within `epsilon`.
        self.epsilon = epsilon / 100
        self.progress = progress
        self.started = time.monotonic()
        self.next_report = 2000
        self.budget = budget
        self.limits = limits
        self.work = 0
        self.pins: tuple = ()
        self.cursor = 0
        self.pools: dict = {}
        self.chains: dict = {}

    def report(self, done: bool = False) -> None:
        """Progress of the exact computation: its work against the budget."""
        if self.progress is not None:
            work = self.budget if done else self.work
            self.progress(work, self.budget, time.monotonic() - self.started, "exact")
        self.next_report = self.work + 2000

    def resolve(self, dist: Dist):
        if self.cursor < len(self.pins):
            value = self.pins[self.cursor]
            self.cursor += 1
            return value
        raise Branch(dist)

    def resolve_roll(self, roll: DistRoll) -> Summary:
        return Summary(*self.resolve(roll.dist))

    def pool(self, die: Die, count: int, steps: tuple, span, label: str) -> DistRoll:
        key = (die.low, die.high, count, _steps_key(die, steps))
        found = self.pools.get(key)
        if found is None:
            found = self.pools[key] = DistRoll(self._pool(die, count, steps))
        return found

    def _pool(self, die, count, steps) -> Dist:
        try:
            return pool_distribution(die, count, steps, self.epsilon)
        except NotImplementedError:
            pass

        def run(tray):
            roll = roll_pool(tray, die, count, steps, None, "")
            return (roll.total, roll.successes, roll.failures)

        return enumerate_draws(run, self.limits)

    def face(self, die: Die, span) -> Dist:
        key = (die.low, die.high)
        found = self.pools.get(key)
        if found is None:
            found = self.pools[key] = Dist.uniform(die.faces())
        return found

    def chain(self, procedure, ctx) -> ChainRoll:
        key = (id(procedure), tuple(sorted((k, _hashable(v)) for k, v in ctx.env.items())))
        found = self.chains.get(key)
        if found is None:
            found = self.chains[key] = chain_distribution(procedure, ctx, self)
        return ChainRoll(procedure.name, [], found)


def _steps_key(die: Die, steps: tuple) -> tuple:
    faces = list(die.faces()) if die.size <= 1000 else None
    out = []
    for step in steps:
        kind = step[0]
        if kind == "keep":
            out.append((kind, step[1], step[2]))
        elif kind in ("explode", "reroll"):
            test = step[2]
            out.append((kind, step[1], tuple(test(f) for f in faces) if faces else id(test)))
        else:
            test = step[1]
            out.append((kind, tuple(test(f) for f in faces) if faces else id(test)))
    return tuple(out)


def _hashable(value):
    try:
        hash(value)
        return value
    except TypeError:
        return id(value)


# ─── rolls enumerated through the real roller ───────────────────────────────


class _NeedDie(Exception):
    def __init__(self, die: Die):
        super().__init__()
        self.die = die


class _PrefixSource:
    """Faces from a fixed prefix; past its end, say which die is needed next."""

    origin = "forced"

    def __init__(self, prefix: tuple):
        self.prefix = prefix
        self.next = 0

    def draw(self, die: Die, position: int) -> int:
        if self.next >= len(self.prefix):
            raise _NeedDie(die)
        face = self.prefix[self.next][0]
        self.next += 1
        return face

    def finish(self) -> None:
        pass


def enumerate_draws(run, limits, leaves: int = ENUMERATION_LEAVES) -> Dist:
    """The exact distribution of run(tray) over every sequence of faces it may draw.

    For finite rolls only (no explosion chains): more than `leaves` sequences is too
    complex. This walks the real roller, so it means exactly what a real roll means.
    """
    probabilities: dict = {}
    stack = [((), Fraction(1))]
    count = 0
    while stack:
        prefix, probability = stack.pop()
        count += 1
        if count > leaves:
            raise TooComplex(f"more than {leaves} ways the dice can fall")
        try:
            value = run(Roller(_PrefixSource(prefix), limits))
        except _NeedDie as need:
            die = need.die
            step = probability / die.size
            for face in die.faces():
                stack.append(((*prefix, (face, die.size)), step))
            continue
        probabilities[value] = probabilities.get(value, 0) + probability
    return _from_fractions(probabilities)


def _from_fractions(probabilities: dict) -> Dist:
    denominator = 1
    for p in probabilities.values():
        denominator = denominator * p.denominator // math.gcd(denominator, p.denominator)
    return Dist(
        {v: p.numerator * (denominator // p.denominator) for v, p in probabilities.items()},
        denominator,
    )


def chain_distribution(procedure, ctx, roller: OddsRoller) -> Dist:
    """The distribution of a custom roll procedure's total (`roll x = d10 then {...}`).

    The base roll and each rule's extra roll are enumerated through the real roller;
    the rules' conditions are the compiled conditions; a chain that goes on while its
    `again` condition holds is the fixed point C = stop + continue ⊛ C, expanded until
    the mass not yet expanded is below epsilon.
    """
    saved_roller = ctx.roller
    env = ctx.env
    limits = roller.limits
    try:

        def base(roller):
            ctx.roller = roller
            roll = procedure.base(ctx)
            watch(env, [roll], roll.total)
            for index, (condition, _sign, _extra, _again, rule) in enumerate(procedure.rules):
                if _concrete_bool(condition(ctx), rule):
                    return (roll.total, index)
            return (roll.total, None)

        base_dist = enumerate_draws(base, limits)
        chains = {}
        parts = []
        for (total, index), weight in base_dist.weights.items():
            probability = Fraction(weight, base_dist.total)
            if index is None:
                parts.append((probability, Dist.point(total)))
                continue
            if index not in chains:
                chains[index] = _chain(procedure.rules[index], ctx, env, roller)
            sign = procedure.rules[index][1]
            parts.append((probability, chains[index].map(lambda c, t=total, s=sign: t + s * c)))
        return mixture(parts)
    finally:
        ctx.roller = saved_roller


def _chain(rule, ctx, env, roller: OddsRoller) -> Dist:
    _condition, _sign, extra, again, node = rule
    limits = roller.limits

    def one(roller):
        ctx.roller = roller
        captured, ctx.capture = ctx.capture, []
        try:
            value = extra(ctx)
            rolls = ctx.capture
        finally:
            ctx.capture = captured
        if again is None:
            return (value, False)
        watch(env, rolls, value)
        return (value, _concrete_bool(again(ctx), node))

    step = enumerate_draws(one, limits)
    stop = Dist({v: w for (v, go), w in step.weights.items() if not go}, step.total)
    more = Dist({v: w for (v, go), w in step.weights.items() if go}, step.total)
    chain = stop
    left = Fraction(sum(more.weights.values()), more.total)
    unexpanded = left
    rounds = 1
    while unexpanded >= roller.epsilon and more.weights:
        rounds += 1
        if rounds > limits.extra_per_die:
            break
        chain = _add(stop, more.combine(chain, lambda a, b: a + b))
        unexpanded *= left
    return chain


def _add(a: Dist, b: Dist) -> Dist:
    """Two parts of one distribution, over different denominators, put together."""
    total = a.total * b.total // math.gcd(a.total, b.total)
    weights: dict = {}
    for dist in (a, b):
        scale = total // dist.total
        for outcome, weight in dist.weights.items():
            weights[outcome] = weights.get(outcome, 0) + weight * scale
    return Dist(weights, total).reduced()


def _concrete_bool(value, rule) -> bool:
    if value is True or value is False:
        return value
    raise EvaluationError("a roll's condition must be yes or no", rule.span)


# ─── worlds ─────────────────────────────────────────────────────────────────


class World:
    __slots__ = ("env", "state", "weight")

    def __init__(self, env: dict, state: State, weight: Fraction):
        self.env, self.state, self.weight = env, state, weight


class Explorer:
    """Runs compiled statements over weighted worlds, branching where values are needed."""

    def __init__(self, ctx: Context, roller: OddsRoller, epsilon: Fraction):
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
            except (RequirementFailed, InsufficientResource) as error:
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
        from interpreter.evaluate import _bool

        results, failures = [], []
        remaining = worlds
        for condition, body, span in compiled.branches:
            yes, no = [], []
            for world in remaining:
                runs = self.explore(world, lambda ctx, c=condition, s=span: _bool(ctx, c(ctx), s))
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
            key = (tuple(sorted((k, _hashable(v)) for k, v in env.items())), world.state.snapshot())
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


# ─── answers ────────────────────────────────────────────────────────────────


class Odds:
    """The distribution of one quantity: exact fractions, or a sample's estimates."""

    def __init__(
        self,
        subject: dict,
        field,
        probabilities: dict,
        exact: bool,
        omitted: Fraction = Fraction(0),
        trials: int | None = None,
    ):
        self.subject = subject
        self.field = field
        self.probabilities = dict(sorted(probabilities.items(), key=lambda kv: _order(kv[0])))
        self.exact = exact
        self.omitted = omitted
        self.trials = trials

    # ─── reading ────────────────────────────────────────────────────────────

    def probability(self, outcome) -> Fraction:
        return self.probabilities.get(outcome, Fraction(0))

    def numeric(self) -> bool:
        return bool(self.probabilities) and all(
            is_number(o) and not isinstance(o, bool) for o in self.probabilities
        )

    def at_least(self, x) -> Fraction:
        """P(outcome >= x), for numbers (and yes/no, where no < yes)."""
        key = _order(x)
        return sum((p for o, p in self.probabilities.items() if _order(o) >= key), Fraction(0))

    def at_most(self, x) -> Fraction:
        """P(outcome <= x)."""
        key = _order(x)
        return sum((p for o, p in self.probabilities.items() if _order(o) <= key), Fraction(0))

    @property
    def mean(self) -> Fraction | None:
        """The mean over the outcomes computed (the omitted mass is left out)."""
        if not self.numeric():
            return None
        mass = sum(self.probabilities.values())
        return sum(o * p for o, p in self.probabilities.items()) / mass

    @property
    def stdev(self) -> float | None:
        mean = self.mean
        if mean is None:
            return None
        mass = sum(self.probabilities.values())
        variance = sum(p * (o - mean) ** 2 for o, p in self.probabilities.items()) / mass
        return math.sqrt(variance)

    def quantile(self, q) -> object:
        """The smallest outcome x with P(outcome <= x) >= q."""
        running = Fraction(0)
        for outcome, p in self.probabilities.items():
            running += p
            if running >= q:
                return outcome
        return next(reversed(self.probabilities)) if self.probabilities else None

    def stderr(self, outcome) -> float | None:
        """The standard error of a sampled probability (None when exact)."""
        if self.exact or not self.trials:
            return None
        p = float(self.probability(outcome))
        return math.sqrt(p * (1 - p) / self.trials)

    def to_json(self) -> dict:
        out = dict(self.subject)
        out["field"] = self.field
        out["exact"] = self.exact
        out["distribution"] = {_key(o): float(p) for o, p in self.probabilities.items()}
        out["fractions"] = (
            {_key(o): f"{p.numerator}/{p.denominator}" for o, p in self.probabilities.items()}
            if self.exact
            else None
        )
        out["mean"] = float(self.mean) if self.mean is not None else None
        out["stdev"] = self.stdev
        out["omitted_mass"] = float(self.omitted)
        out["trials"] = self.trials
        if not self.exact:
            out["stderr"] = {_key(o): self.stderr(o) for o in self.probabilities}
        return out


def _key(outcome) -> str:
    if isinstance(outcome, Record):
        return ", ".join(f"{k}={show(v)}" for k, v in outcome.items())
    if isinstance(outcome, bool):
        return "true" if outcome else "false"
    if isinstance(outcome, Failure):
        return str(outcome)
    return show(outcome) if not isinstance(outcome, str) else outcome


def _comparable(outcome) -> bool:
    return is_number(outcome) and not isinstance(outcome, bool)


def _order(outcome):
    if isinstance(outcome, bool):
        return (1, int(outcome), "")
    if _comparable(outcome):
        return (0, outcome, "")
    if isinstance(outcome, Failure):
        return (3, 0, outcome.message)
    return (2, 0, _key(outcome))


# ─── entry points ───────────────────────────────────────────────────────────


def expression_odds(
    text: str,
    *,
    epsilon: Fraction = EPSILON,
    budget: int = BUDGET,
    limits=None,
    trials: int = TRIALS,
    seed: int = 0,
    progress=None,
) -> Odds:
    """The exact distribution of a dice expression such as `3d6` or `10d10cs>=6df=1`."""
    from interpreter.engine import _EXPRESSIONS
    from interpreter.limits import DEFAULT_LIMITS

    limits = limits or DEFAULT_LIMITS
    _node, value = _EXPRESSIONS.compile(text)
    try:
        return _exact_expression(text, value, epsilon, budget, limits)
    except TooComplex:
        counts = _sample_expression(text, trials, seed, limits, progress)
        probabilities = {o: Fraction(c, trials) for o, c in counts.items()}
        return Odds({"expression": text}, None, probabilities, False, Fraction(0), trials)


def _sample_expression(text, trials, seed, limits, progress) -> Counter:
    """Monte Carlo over the real roller, for expressions too complex to count exactly."""
    from interpreter.dice import SeededDice
    from interpreter.engine import roll

    dice = SeededDice(seed)
    counts: Counter = Counter()
    started = time.monotonic()
    for trial in range(trials):
        counts[roll(text, dice, limits).total] += 1
        if progress is not None and trial % 1024 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts


def _exact_expression(text, value, epsilon, budget, limits) -> Odds:
    roller = OddsRoller(epsilon, budget, limits)
    ctx = Context(roller, limits)
    explorer = Explorer(ctx, roller, epsilon)
    parts = []
    token = LIFTS.set(LiftMemory(roller))
    try:
        for world, result in explorer.explore(World({}, State({}), Fraction(1)), value):
            dist = result if type(result) is Dist else Dist.point(result)
            parts.append((world.weight, dist))
    finally:
        LIFTS.reset(token)
    dist = mixture(parts)
    probabilities = {o: Fraction(w, dist.total) for o, w in dist.weights.items()}
    omitted = 1 - sum(probabilities.values())
    return Odds({"expression": text}, None, probabilities, True, omitted)


def action_odds(
    engine,
    action: str,
    sheet,
    params: dict,
    field=None,
    *,
    epsilon: Fraction = EPSILON,
    budget: int = BUDGET,
    trials: int = TRIALS,
    seed: int = 0,
    progress=None,
) -> Odds:
    """The distribution of an action's (or a check's) result field for a sheet and
    parameters; exact when it fits the budget, else sampled from real runs."""
    subject = {"action": action}
    try:
        probabilities, omitted = _exact(
            engine, action, sheet, params, field, epsilon, budget, progress
        )
        return Odds(subject, field, probabilities, True, omitted)
    except TooComplex:
        counts = _sample(engine, action, sheet, params, field, trials, seed, progress)
        probabilities = {o: Fraction(c, trials) for o, c in counts.items()}
        return Odds(subject, field, probabilities, False, Fraction(0), trials)


def _exact(engine, action, sheet, params, field, epsilon, budget, progress=None):
    limits = attrs.evolve(engine.limits, steps_per_run=10**12)
    roller = OddsRoller(epsilon, budget, limits, progress)
    token = LIFTS.set(LiftMemory(roller))
    try:
        return _explore_action(engine, action, sheet, params, field, epsilon, roller, limits)
    finally:
        LIFTS.reset(token)


def _explore_action(engine, action, sheet, params, field, epsilon, roller, limits):
    ctx = engine._context(roller, sheet)
    ctx.limits = limits
    explorer = Explorer(ctx, roller, epsilon)
    start = World({}, State(sheet._values, engine.compiler.open_default), Fraction(1))
    outcomes: dict = {}

    def add(outcome, weight):
        if type(outcome) is Dist:  # a distribution still: each of its values, weighted
            for value, probability in outcome.items():
                add(value, weight * probability)
            explorer.omitted += weight * outcome.omitted
            return
        outcomes[outcome] = outcomes.get(outcome, Fraction(0)) + weight

    book = engine.rulebook
    if action in book.checks or action in book.rolls:
        run = _check_or_roll(engine, action, sheet, params, field)
        for world, outcome in explorer.explore(start, run):
            add(outcome, world.weight)
        return outcomes, explorer.omitted
    compiled, args, _shown = engine._prepare(action, sheet, params)
    start.env = dict(zip(compiled.names, args))
    wanted = _result_names(compiled, field)
    worlds, failures = explorer.block(compiled.body, [start], wanted)
    for world, failure in failures:
        add(failure, world.weight)

    def finish(ctx):
        result = None
        if compiled.result is not None:
            fields = {}
            for name, fn in compiled.result:
                if field is None or name == field:
                    from interpreter.evaluate import _value

                    fields[name] = _value(ctx, fn(ctx))
            result = Record(fields, kind="result")
        new_sheet, _changes = engine._commit(ctx, sheet)
        return _outcome(result, new_sheet, field, compiled)

    for world in worlds:
        for after, outcome in explorer.explore(world, finish):
            add(outcome, after.weight)
    return outcomes, explorer.omitted


def _check_or_roll(engine, name: str, sheet, params: dict, field):
    """A check's record (or one field of it), or a named roll's total, as a run(ctx)."""
    if name in engine.rulebook.rolls:
        procedure = engine.compiler.roll_definition(name)
        args = engine.roll_arguments(name, sheet, params)
        if field is not None:
            raise EvaluationError(f"roll {name} gives a number: leave out --field")
        return lambda ctx: procedure.call(ctx, args).total
    check = engine.compiler.check(name)
    args = engine.check_arguments(name, sheet, params)

    def run(ctx):
        record = check(ctx, args, check.node.span)
        if type(record) is Dist:
            return record.map(lambda r: pick(r, field))
        return pick(record, field)

    return run


def _result_names(compiled, field) -> Live:
    live = Live({})
    if compiled.result is None:
        return live
    for name, expr in compiled.node.body[-1].fields:
        if field is None or name == field:
            live = live.union(names_read(expr))
    return live


def pick(record, field):
    if field is None:
        return record
    if isinstance(record, Record) and field in record:
        return record[field]
    raise EvaluationError(
        f"the result has no field {field!r}"
        + (f"; it has {', '.join(record.keys())}" if isinstance(record, Record) else "")
    )


def _outcome(result, sheet, field, compiled):
    if field is None:
        return result
    if result is not None and field in result:
        return result[field]
    value = sheet.get(field, _MISSING)
    if value is _MISSING:
        names = list(result.keys()) if result is not None else []
        raise EvaluationError(
            f"{compiled.node.name} gives no field {field!r} and the sheet "
            f"has no {field!r}" + (f"; fields: {', '.join(names)}" if names else "")
        )
    return value


_MISSING = object()


def _sample(engine, action, sheet, params, field, trials, seed, progress) -> Counter:
    from interpreter.dice import SeededDice

    dice = SeededDice(seed)
    counts: Counter = Counter()
    started = time.monotonic()
    book = engine.rulebook
    is_check = action in book.checks
    for trial in range(trials):
        try:
            if action in book.rolls:
                outcome = engine.run_roll(action, sheet, params, dice)
            elif is_check:
                outcome = pick(engine.run_check(action, sheet, params, dice), field)
            else:
                out = engine.run(action, sheet, params, dice=dice)
                outcome = _outcome(out.result, out.sheet, field, engine.compiler.action(action))
        except (RequirementFailed, InsufficientResource) as error:
            outcome = Failure(error.message)
        counts[outcome] += 1
        if progress is not None and trial % 256 == 0:
            progress(trial, trials, time.monotonic() - started)
    if progress is not None:
        progress(trials, trials, time.monotonic() - started)
    return counts


def progress_bar(stream=sys.stderr):
    """A progress bar on the terminal, shown once a computation passes a second."""
    if not stream.isatty():
        return None

    def show_progress(done: int, total: int, elapsed: float, what: str = "sampling") -> None:
        if elapsed < 1:
            return
        width = 30
        filled = width * min(done, total) // max(total, 1)
        stream.write(f"\r  {what} [{'#' * filled}{' ' * (width - filled)}] {done}/{total} ")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show_progress


def to_text(odds: Odds, fractions: bool = False) -> str:
    """A row per outcome: probability, P(at least), a bar (as AnyDice draws them)."""
    lines = []
    subject = odds.subject.get("expression") or odds.subject.get("action")
    head = f"{subject}" + (f" · {odds.field}" if odds.field else "")
    lines.append(head)
    exactness = "exact" if odds.exact else f"sampled, {odds.trials} trials"
    lines.append(f"  ({exactness}; omitted mass {float(odds.omitted):.3g})")
    show_fractions = odds.exact and (fractions or len(odds.probabilities) <= 10)
    numeric = odds.numeric()
    width = max((len(_key(o)) for o in odds.probabilities), default=1)
    peak = max(odds.probabilities.values(), default=Fraction(1)) or Fraction(1)
    at_least = Fraction(1) - odds.omitted
    for outcome, p in odds.probabilities.items():
        bar = "█" * round(40 * p / peak)
        row = f"  {_key(outcome):>{width}}  {float(p) * 100:8.4f}%"
        if numeric:
            row += f"  ≥ {float(at_least) * 100:8.4f}%"
            at_least -= p
        if not odds.exact:
            row += f"  ± {odds.stderr(outcome) * 100:.3f}"
        row += f"  {bar}"
        if show_fractions:
            row += f"  {p.numerator}/{p.denominator}"
        lines.append(row)
    if numeric:
        lines.append(f"  mean {float(odds.mean):.4f}, standard deviation {odds.stdev:.4f}")
    return "\n".join(lines)


def compare_text(a: Odds, b: Odds, names: tuple[str, str]) -> str:
    """Two distributions side by side, with the change in each probability and the mean."""
    outcomes = sorted(set(a.probabilities) | set(b.probabilities), key=_order)
    width = max((len(_key(o)) for o in outcomes), default=1)
    lines = [
        f"  A: {names[0]}",
        f"  B: {names[1]}",
        f"  {'':>{width}}  {'A':>12}  {'B':>12}  {'B - A':>10}",
    ]
    for outcome in outcomes:
        pa, pb = a.probability(outcome), b.probability(outcome)
        delta = float(pb - pa) * 100
        lines.append(
            f"  {_key(outcome):>{width}}  {float(pa) * 100:11.4f}%  "
            f"{float(pb) * 100:11.4f}%  {delta:+9.4f}%"
        )
    if a.mean is not None and b.mean is not None:
        lines.append(
            f"  mean {float(a.mean):.4f} → {float(b.mean):.4f} ({float(b.mean - a.mean):+.4f})"
        )
    return "\n".join(lines)


__all__ = ["EPSILON", "Odds", "action_odds", "expression_odds"]
