"""The odds engine's roller: dice terms answered with distributions, values pinned per branch."""

from __future__ import annotations

import functools
import operator
import time
from fractions import Fraction
from functools import partial
from typing import Any, cast

import attrs

from dsl.messages import tr
from dsl.nodes import path_cut
from interpreter.compiled import Operation
from interpreter.dice import Die, check_term, roll_pool
from interpreter.errors import ChainTooLong, EvaluationError
from interpreter.odds.budget import Deadline, check_size
from interpreter.odds.contest import Contest, contest
from interpreter.odds.cuts import flat, project
from interpreter.odds.dist_roll import DistRoll
from interpreter.odds.distribution import SMALL_SUM, Dist, cut_already, uniform_sum
from interpreter.odds.draws import chain_distribution, enumerate_draws
from interpreter.odds.keys import Same
from interpreter.odds.order import ORDERINGS
from interpreter.odds.polynomials import Budget, TooComplex, too_many_ways
from interpreter.odds.pools import term_budget
from interpreter.odds.questions import PoolQuestions
from interpreter.odds.reads import ReadMemory
from interpreter.odds.records import FieldMemory
from interpreter.odds.remembered import (
    counted_distribution,
    remembered_term,
    steps_key,
)
from interpreter.odds.riders import SWITCH as RIDERS
from interpreter.odds.riders import riding
from interpreter.odds.side_paths import SWITCH as SIDE_PATHS
from interpreter.odds.side_paths import followed
from interpreter.odds.sums import int_sums_cost
from interpreter.odds.weights import ONE
from interpreter.runtime import ChainRoll, CountingRoller, Unknown
from interpreter.state import MISSING
from interpreter.symbols import Forms, pool_counts, pool_record
from interpreter.values import Record


class Branch(Exception):
    """A concrete value is needed where only its distribution is known: the explorer
    (interpreter.odds.explore) runs the statement again once per value. `stops` are
    (error, probability) pairs: where the run stops instead (an opposed check still tied
    at its limit)."""

    def __init__(self, dist: Dist, stops: tuple = (), bound: str | None = None):
        super().__init__()
        self.dist = dist
        self.stops = stops
        self.bound = bound  # a top-level `let` of this name needs nothing more: no rerun


def record_env(check, env: dict) -> tuple:
    """What a check's records read of its names (CompiledCheck.record_reads), as a key:
    a modifier only added to the roll is in the totals already, so that `roll + a + b`
    with a + b the same is one computation of the records, whatever a and b are."""
    return tuple((k, hashable(env[k])) for k in check.record_reads if k in env)


class LiftMemory(dict):
    """Distributions already combined in one odds computation (Dist.lift), and the work
    they took, counted against the budget."""

    def __init__(self, roller):
        super().__init__()
        self.roller = roller

    def settle(self, values: tuple) -> tuple:
        """The values of the world being explored, each distribution pinned (a branch
        on it, the first time: interpreter.odds.explore)."""
        resolve = self.roller.resolve
        return tuple(resolve(v) if type(v) is Dist else v for v in values)

    def poll(self) -> None:
        """A look at the deadline (interpreter.odds.budget), from a loop over outcomes."""
        self.roller.deadline.check()

    def work(self, values, function=None) -> int:
        """Charge combining `values` to the budget, before it is done; return how many
        outcomes the result may hold (the memory bound). Two numbers compared are
        combined by running sums (interpreter.odds.order): their sizes added."""
        size = 1
        compared = type(function) is Operation and function.ints in ORDERINGS
        if type(function) is Operation and function.move is operator.add and len(values) == 2:
            a, b = values
            if type(a) is Dist and type(b) is Dist:  # added by one product (odds.sums)
                cost = int_sums_cost(a.weights, b.weights)
                if cost is not None:
                    self.roller.charge(1 + cost // 80)  # a unit here: some 20 pairs
                    return self.roller.limits.odds_outcomes
        for value in values:
            if type(value) is Dist:
                size = size + len(value.weights) if compared else size * len(value.weights)
        self.roller.charge(1 + size // 20)
        return self.roller.limits.odds_outcomes


@attrs.frozen
class Letting:
    """The `let` the explorer is running: its name, what is read after it (a Live of
    interpreter.odds.worlds), how deep in calls it is, whether its value is read just
    once later, and which field of it rides (interpreter.odds.riders), or None;
    `deferred`: its value kept whole for the next statement (interpreter.odds.deferred)."""

    name: str
    live: Any
    depth: int
    once: bool
    rider: str | None
    deferred: bool = False


class OddsRoller(PoolQuestions):
    """Answers dice with distributions, and concrete values from the pinned branch."""

    lifts = True

    def __init__(self, epsilon: Fraction, budget: int, limits, progress=None, deadline=None):
        # Each open-ended roll may leave out a hundredth of what the whole answer may,
        # so that an action with several such rolls still stays within `epsilon`; what the
        # explorer leaves out as too unlikely to matter (interpreter.odds.explore), and a
        # power of two at or below it: 2**-prune_bits.
        self.epsilon, self.prune, self.prune_bits = shares_of(epsilon)
        # The `let` the explorer is running (Letting), so that a branch is over what is
        # still read (and none for a value read once).
        self.binding: Letting | None = None
        # (a called definition's name, the fields read of its record, the depth) of the
        # `let` being run, when its value is that call (interpreter.odds.records.direct_call)
        self.direct = None
        self.capture: dict | None = None  # pools' `let`s caught as they roll (odds.compound)
        self.weight = ONE  # the probability of the world being explored (the explorer's)
        self.progress = progress
        self.started = time.monotonic()
        self.next_report = 2000
        self.budget = budget
        self.limits = limits
        # the exact phase's safety stop (interpreter.odds.budget): past it, SafetyStop
        self.deadline = deadline or Deadline(limits.odds_seconds).exact_stop(budget)
        self.dice = 0  # base dice of the terms asked for (against dice_per_evaluation)
        self.work = 0
        self.pins: tuple = ()
        self.cursor = 0
        self.pools: dict = {}
        self.whole: dict = {}  # a Dist's number → whether bind keeps it whole (read_once)
        self.chains: dict = {}
        self.asked: dict = {}  # joint answers to pool questions, by term and questions
        self.read_memory = ReadMemory()  # checks' records, by what they read of the sheet
        self.records: dict = {}  # records made once for every world holding an equal one
        self.field_memory = FieldMemory()  # checks' own fields, by what they read
        self.cut_records: dict = {}  # (fields, their values) → a check's record cut to them
        #: id of a pool's forms → the forms counted instead (compile.symbol_forms.built_in_cuts)
        self.form_cuts: dict = {}

    def charge(self, units: int) -> None:
        """Count `units` of work against the budget before doing it, then look at the
        deadline: TooComplex past either."""
        self.work += units
        if self.work > self.budget:
            raise TooComplex(too_many_ways(self.budget))
        self.deadline.check()

    def restart(self, budget: int, deadline: Deadline) -> None:
        """Count again, with a budget and a deadline of its own, keeping what was
        computed (another field of the same action's result)."""
        self.budget, self.deadline = budget, deadline
        self.work, self.binding, self.weight, self.direct = 0, None, ONE, None
        self.next_report = 2000

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
        if type(dist) is Contest:
            raise Branch(dist.dist(), dist.stops)
        raise Branch(dist)

    def bind(self, ctx, name: str, value, fields, once=None):
        """The value a `let` binds: one branch per value, of the fields read later (of a
        top-level `let`, the explorer knows exactly which, and of those which of theirs;
        else the compiler's guess); a check's pool read once (`once`: see read_once),
        kept whole."""
        if once is not None and type(value) is Dist:  # (decided once per value: every run)
            whole = self.whole.get(value.number)
            if whole is None:
                whole = self.whole[value.number] = read_once(ctx, value, once)
            if whole:  # (one sum reads what differs: combined there, as a term written there)
                return value
        if self.cursor < len(self.pins):
            return self.resolve(value)
        binding = self.binding
        if binding is None or binding.name != name or ctx.depth != binding.depth:
            if fields is not None:
                value = project(value, flat(fields))
            return self.resolve(value)
        # The `let` statement the explorer is running: binding the value is all that is
        # left of it, so the explorer makes a world per value without running it again.
        needed = binding.live.needs.get(name, MISSING)
        if needed is MISSING:  # never read again: one world, whatever it holds
            if type(value) is Contest:  # of an opposed check, where it stops: its sides alone
                value = value.project(())
            if type(value) is Dist:  # (its weights in one: what map(_nothing) gives)
                value = Dist({None: value.mass()}, value.total)
            else:
                value = value.map(_nothing)
        elif needed is not None:
            cut = path_cut(needed)
            if type(value) is Contest and binding.rider is not None and RIDERS.contests:
                value = value.project(cut, binding.rider)  # (its field rides: as a check's)
            else:
                value = project(value, cut)
        if type(value) is Contest:
            raise Branch(value.dist(), value.stops, name)
        if binding.once and needed is not MISSING and type(value) is Dist:
            return value  # read once later: combined there, as a dice term written there
        if binding.rider is not None and type(value) is Dist:  # a field read once, past all
            value = riding(value, binding.rider)  # that still runs here (interpreter.odds.riders)
        raise Branch(value, (), name)

    def bind_pool(self, ctx, name: str, values: Dist):
        """The pool a `let` binds, from the distribution of its values (`settle`): of the
        `let` the explorer is running, a world per value, made without running it again
        (as `bind`; never kept whole); else the world's value."""
        binding = self.binding
        if (
            self.cursor < len(self.pins)
            or binding is None
            or binding.name != name
            or ctx.depth != binding.depth
            or binding.deferred
        ):
            return self.resolve(values)
        if name not in binding.live.needs:  # never read again: one world, whatever it holds
            values = Dist({None: values.mass()}, values.total)
        raise Branch(values, (), name)

    def pool(self, die: Die, count: int, steps: tuple, span, label: str) -> DistRoll:  # noqa: ARG002 (the roller protocol: runtime.RollerProtocol)
        key = (die.key, count, steps_key(die, steps) if steps else ())  # (plain: no call)
        found = self.pools.get(key)
        if found is None:
            check_term(die, count, self.limits, span)  # what a real roll refuses, at once
            self.dice += count
            if self.dice > self.limits.dice_per_evaluation:
                # perhaps in different branches: the real runs sampled will tell
                raise TooComplex(tr("more dice than one evaluation may draw"))
            found = self.pools[key] = DistRoll(self, die, count, steps)
        if found.failure:
            if found.finished is None:
                found.finished = found.finishes() or False
            if found.finished:
                outcome = self.resolve(found.finished)
                if outcome is not True:  # as the real roller would, this often
                    raise ChainTooLong(outcome, span)
        return found

    def symbols(self, die, count: int, span, projection=None) -> tuple:
        """A pool of symbol dice: (the distribution of its record, or of the sums read of
        it where `projection` gives them (interpreter.compile.symbol_forms); None: no faces
        to show)."""
        if self.form_cuts:
            projection = self.form_cuts.get(projection, projection)
        key = (die.key, count, projection)
        found = self.pools.get(key)
        if found is None:
            check_term(die, count, self.limits, span)
            self.dice += count
            if self.dice > self.limits.dice_per_evaluation:
                raise TooComplex(tr("more dice than one evaluation may draw"))
            spent = [0, 0, False]  # (the work polled, the most states, whether counted)

            def poll(work: int, states: int) -> None:
                spent[0] += work
                spent[1] = max(spent[1], states)
                self.charge(work)
                check_size(states, self.limits)

            def counted() -> tuple:  # (the faces as the sums read: when not remembered)
                if projection is None:
                    faces, make = die.counts, partial(pool_record, die.symbols)
                else:
                    faces = tuple(
                        tuple(
                            sum(c * f for c, f in zip(form, face, strict=True))
                            for form in projection
                        )
                        for face in die.counts
                    )
                    make = Forms  # type: ignore[assignment]  # (a class called as the partial is)
                weights = pool_counts(faces, count, poll)
                spent[2] = True
                dist = Dist({make(c): w for c, w in weights.items()}, die.size**count)
                return dist, spent[0], spent[1]

            # counted once for every computation that asks (as a dice term is:
            # remembered_term), its work charged to each as if counted there
            found, work, states = remembered_term(("symbols", *key), counted)
            if not spent[2]:
                self.charge(work)
                check_size(states, self.limits)
            check_size(len(found.weights), self.limits)
            self.pools[key] = found
        return found, None

    def budget_of_term(self) -> Budget:
        """A dice term's own budget: work (in proportion to the caller's budget), bytes
        at once, and the deadline."""
        return Budget(term_budget(self.budget), self.limits.odds_bytes, self.deadline)

    @property
    def extra_per_die(self) -> int:
        return self.limits.extra_per_die

    def term_distribution(self, die, count, steps, net: bool = False) -> Dist:
        check_size(die.size, self.limits)
        small = count > 0 and count * (count * (die.size - 1) + 1) <= SMALL_SUM
        if small and not steps and die.listed is None:
            # a small sum of plain dice (`3d6` in `floor(3d6/2)`): counted by hand, as a
            # plain term is (pool_distribution's Term costs more than it counts)
            sums = uniform_sum(count, die.size, die.low)
            return Dist({(t, None, None): w for t, w in sums.weights.items()}, sums.total)
        try:
            dist = counted_distribution(  # counted once for every call that asks
                die, count, steps, self.epsilon, self.budget_of_term(), self.extra_per_die, net
            )
            check_size(len(dist.weights), self.limits)
            return dist
        except NotImplementedError:
            pass

        def run(tray):
            roll = roll_pool(tray, die, count, steps, None, "")
            return (roll.total, roll.successes, roll.failures)

        return enumerate_draws(run, self.limits)

    def face(self, die: Die, span) -> Dist:
        key = die.key
        found = self.pools.get(key)
        if found is None:
            check_term(die, 1, self.limits, span)
            check_size(die.size, self.limits)
            found = self.pools[key] = Dist.uniform(die.faces())
        return found

    def check_records(self, check, ctx, args: tuple, totals: Dist):  # noqa: ARG002 (a Roller's)
        """The distribution of a check's record, computed once per total, so that a
        caller branches on the records (a few: success, points) and not on every total.
        None when a field or the target needs dice of its own (then the caller branches
        on the total, as a real run would see it)."""
        # The records depend on more than the totals: on the names the check bound
        # before its roll (a named die read by its fields), those its target and fields
        # read (not a modifier only added to the roll: the totals hold it), and on what
        # they read of the sheet as it is now.
        env = record_env(check, ctx.env)
        direct = self.direct  # the `let` being run binds this call's record: what it reads
        names = None
        if direct is not None and direct[0] == check.node.name and ctx.depth == direct[2] + 1:
            names = direct[1]
        # the totals by their number (a Dist's, a Contest's), else held in the key
        held = totals.number if type(totals) is Dist or type(totals) is Contest else Same(totals)
        key = ("check", check.node.name, held, env, names)
        return self.read_memory.get(
            key,
            ctx,
            lambda cut: self._records(check, ctx, totals, cut, names),
            self.negligible(),
            totals,
        )

    def negligible(self) -> int:
        """How unlikely an outcome may be, within the world being explored, and be left
        out (the explorer would prune it in this world anyway): below 2**-cut, the cut a
        multiple of 16, so that what is computed for one world serves the worlds up to
        2**16 times more likely."""
        n, d = self.weight
        bits = self.prune_bits + n.bit_length() - d.bit_length() + 1
        return 16 * (max(bits, 0) // 16 + 1)

    def _records(self, check, ctx, totals: Dist, negligible: int, names=None):
        saved = self.pins, self.cursor
        self.pins, self.cursor = (), 0  # nothing here may take a pinned value
        try:
            # (None: no target, and then no margins either: `shifts` below is None)
            target: Any = check.target(ctx) if check.target is not None else None
            if isinstance(target, Unknown):
                return None
            cut = totals.total >> negligible
            weights: dict = {}
            fields = self.field_memory
            memory = fields.again(check)
            shifts = fields.margins(check, ctx, target, names)  # records by margin
            upward = check.upward
            try:
                for total, weight in totals.weights.items():
                    if weight <= cut:
                        continue
                    if shifts is not None and type(total) is int:
                        record = shifts.get(total - target if upward else target - total)
                        if record is None:
                            record = fields.shifted(
                                check, ctx, total, target, _settled, memory, names, shifts
                            )
                    else:
                        record = check.record(ctx, total, target, _settled, memory, names)
                    weights[record] = weights.get(record, 0) + weight
            except TypeError:  # a field's value only a record knows how to hash: whole
                if names is None:
                    raise
                return self._records(check, ctx, totals, negligible)
            self.work += 1 + len(weights) // 20
            if names is None:
                return Dist(weights, totals.total)
            # the records cut down to what is read of them, each made once
            made = self.cut_records
            cut_down = {}
            for values, w in weights.items():
                record = made.get((names, values))
                if record is None:
                    record = made[names, values] = Record(dict(zip(names, values)), "check")
                cut_down[record] = w
            dist = Dist(cut_down, totals.total)
            cut_already(dist, names)
            return dist
        except (Branch, EvaluationError):  # a field failing on some totals: the caller
            return None  # branches on the total, and fails where a real run would
        finally:
            self.pins, self.cursor = saved

    def opposed_records(self, opposed, ctx, args: tuple):
        """The distribution of an opposed check's record: both sides' distributions
        combined (interpreter.odds.contest). None when a side or a field needs a value
        only a branch can give (then the check runs as a real run would, branching)."""
        key = ("opposed", opposed.node.name, args)
        return self.read_memory.get(
            key, ctx, lambda cut: self._contest(opposed, ctx, cut), self.negligible()
        )

    def _contest(self, opposed, ctx, negligible: int):
        saved = self.pins, self.cursor
        self.pins, self.cursor = (), 0  # nothing here may take a pinned value
        try:
            ours = self._side(opposed.ours, ctx, negligible)
            theirs = self._side(opposed.theirs, ctx, negligible)
            if ours is None or theirs is None:
                return None
            if type(ours) is Contest or type(theirs) is Contest:
                return None
            return contest(opposed, ctx, ours, theirs, self, _settled, negligible)
        except (Branch, EvaluationError):  # (a field failing on some rolls: see _records)
            return None
        finally:
            self.pins, self.cursor = saved

    def _side(self, side, ctx, negligible: int):
        """A side's value: a record, its distribution, or None (it branches on more
        than side_paths follows: the opposed check then runs as a real run would)."""
        try:
            return side(ctx)
        except Branch:
            if not SIDE_PATHS.on:
                raise
        return followed(lambda: self._path(side, ctx), ctx, self, negligible)

    def _path(self, side, ctx) -> tuple:
        """One run of a side with the pins (side_paths.followed): (done, value, stops)."""
        try:
            return True, side(ctx), ()
        except Branch as split:
            return False, split.dist, split.stops

    def chain(self, procedure, ctx) -> ChainRoll:
        key = (procedure.name, tuple(sorted((k, hashable(v)) for k, v in ctx.env.items())))
        found = self.chains.get(key)
        if found is None:
            dist, failure = chain_distribution(procedure, ctx, self)
            finishes = None
            done = sum(dist.weights.values())
            if failure is not None and done < dist.total:
                finishes = Dist({True: done, False: dist.total - done}, dist.total)
                dist = Dist(dist.weights, done)  # in the worlds where it finished
            found = self.chains[key] = (dist, finishes, failure)
        dist, finishes, failure = found
        if finishes is not None and not self.resolve(finishes):
            raise ChainTooLong(failure, procedure.node.span)
        return ChainRoll(procedure.name, [], dist, None, (key, concrete_chain(procedure, ctx)))


def concrete_chain(procedure, ctx):
    """`run(tray)`: the procedure with the arguments it has now, rolled through `tray` as
    a real run rolls it (what `Questions.chain_rolls` walks). (The call's own frame, held:
    a run copies it, as the procedure writes `die` into it.)"""
    env = ctx.env

    def run(tray) -> ChainRoll:
        # (its steps are no run's: the world's own count is left as it was)
        saved = ctx.roller, ctx.env, ctx.steps, ctx.step_bound
        ctx.roller, ctx.env = tray, dict(env)
        try:
            return procedure.roll(ctx)
        finally:
            ctx.roller, ctx.env, ctx.steps, ctx.step_bound = saved

    return run


def shares_of(epsilon: Fraction) -> tuple:
    """(what one open-ended roll may leave out, what the explorer prunes, that as bits);
    a Fraction's, found by its two whole numbers (its own hash costs a modular inverse);
    the very epsilon of the last answer (the default, nearly always), at once."""
    last = _last_shares[0]
    if last is not None and last[0] is epsilon:  # (held there: its identity its own)
        return last[1]
    if type(epsilon) is Fraction:
        found = _shares(epsilon.numerator, epsilon.denominator)
        _last_shares[0] = (epsilon, found)
        return found
    prune = epsilon / 10**6
    return epsilon / 100, prune, prune.denominator.bit_length() - prune.numerator.bit_length() + 1


#: (epsilon, its shares) of the last answer counted with a Fraction's epsilon
_last_shares: list = [None]


@functools.lru_cache(maxsize=16)
def _shares(numerator: int, denominator: int) -> tuple:
    epsilon = Fraction(numerator, denominator)
    prune = epsilon / 10**6
    return epsilon / 100, prune, prune.denominator.bit_length() - prune.numerator.bit_length() + 1


def hashable(value: object) -> object:
    try:
        hash(value)
        return value
    except TypeError:
        return Same(value)


def _nothing(value):  # noqa: ARG001 (a function mapped over a distribution's values)
    return None


#: whether a check's pool read once is kept whole (read_once; tests switch it off)
READ_ONCE = True


def read_once(ctx, value, reads: tuple) -> bool:
    """Whether a check's pool counted as forms (each sum of it a form, each read once:
    compile.symbol_forms.sums_read_once) is read once as it is: a Dist of Forms of which
    one form at most differs between outcomes (the others, a form cut to zeros for a
    field asked alone, read as their one value), its value reading no name that holds a
    distribution (`reads`: it is then made of its own dice alone). Kept whole, not
    branched on, its one read combines it as a dice term written there is combined."""
    if not READ_ONCE or type(value) is not Dist:
        return False
    if any(isinstance(ctx.env.get(name), Unknown) for name in reads):
        return False
    first = None
    differ: set = set()
    for row in value.weights:
        if type(row) is not Forms:
            return False
        if first is None:
            first = row.values
            continue
        differ.update(j for j, (a, b) in enumerate(zip(row.values, first)) if a != b)
        if len(differ) > 1:
            return False
    return first is not None


def _settled(ctx, value):  # noqa: ARG001 (a check's record reads its fields as settled(ctx, value))
    """A field of a check's record, which must not need dice of its own (see _records)."""
    if isinstance(value, Unknown):
        raise Branch(cast(Dist, value))  # (the odds roller's unknown values are Dists)
    return value


# What mypy checks of the seam's protocol, at no cost at run time: the odds engine's
# roller is a CountingRoller (interpreter.runtime).
_COUNTING: type[CountingRoller] = OddsRoller
