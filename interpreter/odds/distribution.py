"""Exact probability distributions: the values the odds engine computes with.

A `Dist` is a finite table of outcomes with whole-number weights over one denominator:
P(outcome) = weight / total. Weights are Python ints (exact, and much faster than
Fractions). When an open-ended roll (an explosion, a reroll chain) is cut off, the mass
left out is simply not in the table: `omitted = 1 - sum(weights) / total`.

A Dist is the run side's `Unknown` (interpreter.runtime): compiled rules apply
operations over it with `lift`, which combines independent distributions.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterable
from contextvars import ContextVar
from fractions import Fraction
from itertools import accumulate
from math import gcd
from typing import Any, Protocol, cast

from interpreter.compiled import Operation
from interpreter.errors import EvaluationError
from interpreter.odds.budget import too_many_outcomes
from interpreter.odds.keys import next_number
from interpreter.odds.order import ORDERINGS, compared, compared_already, moved
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.sums import form_sums, int_sums
from interpreter.odds.weights import at_most, least_common
from interpreter.runtime import Unknown, UnknownValue
from interpreter.values import Record

#: an outcome: any value a run may give (hashable)
Outcome = Any
#: the weights of a distribution's outcomes
Weights = dict[Outcome, int]


class Memory(Protocol):
    """What this module needs of the odds engine's memory (roller.LiftMemory)."""

    def get(self, key: Hashable) -> Any: ...

    def __setitem__(self, key: Hashable, value: object) -> None: ...

    def settle(self, values: tuple[Any, ...]) -> tuple[Any, ...]: ...

    def work(self, values: Iterable[Any], function: object = None) -> int: ...

    def poll(self) -> None: ...


#: the odds engine's memory of distributions already combined, while it computes
#: (an interpreter.odds.roller.LiftMemory; None outside an odds computation)
LIFTS: ContextVar[Memory | None] = ContextVar("lifts", default=None)

#: no probability (the omitted mass of most distributions)
NOTHING = Fraction(0)
#: what a lift remembers when the operation fails for some of its values
FAILS = object()

#: bit-products (the bits of one number times the other's) the gcds of Dist.reduced may
#: take: some 5 ms (two numbers of 60,000 bits)
REDUCING = 4_000_000_000


class Switch:
    """Whether a distribution moved by a number is found by order.moved before the
    operands are looked up (tests switch it off: then every lift builds its key first)."""

    moves_first = True


SWITCH = Switch()

_UNIFORM: dict[range, Dist] = {}  # a range of faces → its uniform Dist (immutable, so shared)


class Dist(Unknown):
    """An exact distribution: outcome → weight, over `total`. Immutable by convention."""

    __slots__ = ("_mass", "_omitted", "number", "total", "weights")

    def __init__(self, weights: Weights, total: int) -> None:
        self.weights = weights
        self.total = total
        self._omitted: Fraction | None = None
        self._mass: int | None = None  # the weights' sum, once summed
        #: the key what is computed of it is remembered by: unique, never reused
        self.number = next_number()

    @classmethod
    def point(cls, value: Outcome) -> Dist:
        return cls({value: 1}, 1)

    @classmethod
    def uniform(cls, values: Iterable[Outcome]) -> Dist:
        if type(values) is range:  # a die's faces: the same few dice, call after call
            found = _UNIFORM.get(values)
            if found is None:
                if len(_UNIFORM) >= 64:
                    _UNIFORM.clear()
                found = _UNIFORM[values] = cls(dict.fromkeys(values, 1), len(values))  # (in C)
            return found
        weights: Weights = {}
        for value in values:
            weights[value] = weights.get(value, 0) + 1
        return cls(weights, sum(weights.values()))

    # ─── reading ────────────────────────────────────────────────────────────

    def probability(self, outcome: Outcome) -> Fraction:
        return Fraction(self.weights.get(outcome, 0), self.total)

    def items(self) -> list[tuple[Outcome, Fraction]]:
        """(outcome, probability as a Fraction) pairs."""
        total = self.total
        return [(outcome, Fraction(weight, total)) for outcome, weight in self.weights.items()]

    @property
    def omitted(self) -> Fraction:
        """Probability left out by cutting open-ended rolls short (weights.at_most: exact,
        or a hair above it where its fraction would take seconds to reduce)."""
        found = self._omitted
        if found is None:
            missing = self.missing()
            found = NOTHING if not missing else at_most(missing, self.total)
            self._omitted = found
        return found

    def missing(self) -> int:
        """The weight left out (over `total`), a whole number: what omitted reduces."""
        return self.total - self.mass()

    def mass(self) -> int:
        """The weights' sum (over `total`), summed once: a `let`'s distribution is asked
        what it leaves out in each world that binds it."""
        found = self._mass
        if found is None:
            found = self._mass = sum(self.weights.values())
        return found

    def __len__(self) -> int:
        return len(self.weights)

    def certain(self) -> Any:
        """The one outcome, where it is the only one and nothing is left out."""
        if len(self.weights) == 1 and not self.missing():
            return next(iter(self.weights))
        return self

    def __repr__(self) -> str:
        shown = ", ".join(f"{o!r}: {w}" for o, w in list(self.weights.items())[:6])
        more = ", ..." if len(self.weights) > 6 else ""
        return f"Dist({{{shown}{more}}} / {self.total})"

    # ─── the unknown-value protocol (interpreter.runtime.Unknown) ────────────

    def lift(self, function: Callable[..., Any], values: tuple[Any, ...]) -> Dist:
        """The distribution of function(*values) over independent values (self among
        them). The odds engine runs a statement again for each value it branches on, so
        the same distributions meet the same operations again: each result is remembered
        for the rest of the computation."""
        memory = LIFTS.get()
        key = None
        if (
            memory is not None
            and type(function) is Operation
            and function.move is not None
            and SWITCH.moves_first
        ):
            # a roll moved by a number (`d10 + bonus`): remembered by order.moved itself
            # (by its place), so not by the operands too (a key, a look-up, a slot each)
            try:
                moved_to = _moved(function, values, memory)
            except EvaluationError:
                moved_to = None  # (past a limit: as below, a world per value where it fails)
            if moved_to is not None:
                return moved_to
        if memory is not None:
            key = (
                function,
                *((v.number, None) if type(v) is Dist else (v, type(v)) for v in values),
            )
            try:
                found = memory.get(key)
            except TypeError:  # an unhashable operand: compute, do not remember
                found, key = None, None
            if found is not None:
                if found[0] is FAILS:
                    return cast(Dist, function(*memory.settle(values)))
                return cast(Dist, found[0])
        cap = None
        try:
            result = _moved(function, values, memory)  # (charged by what it makes)
            if result is None:
                if memory is not None:
                    # charged before: the work is bounded, not just counted
                    cap = memory.work(values, function)
                result = _apply(function, values, cap)
        except EvaluationError:
            if memory is None:
                raise
            # some values make it fail (`6 / (n - 1)` where n may be 1): a world per value
            # (the explorer's branch), in which it fails as a real run would, or not
            if key is not None:
                memory[key] = (FAILS, values)
            return cast(Dist, function(*memory.settle(values)))
        if key is not None and memory is not None:
            memory[key] = (result, values)
        return result

    def project(self, fields: tuple[Any, ...]) -> Dist:
        """Records cut down to some of their fields (remembered, as `lift` is; of a
        distribution kept from one computation to the next, kept with it: KEPT)."""
        key = ("project", self.number, fields)
        kept = KEPT.get(self.number)
        if kept is None:
            return cast(Dist, remembered(key, (self,), lambda: _projected(self, fields)))

        def made() -> Dist:  # (charged to each computation all the same: `remembered`)
            found = kept.get(fields)
            if found is None:
                found = _projected(self, fields)
                if len(kept) < CUTS_KEPT:  # (memory bounded: a few cuts of each)
                    kept[fields] = found
            return found

        return cast(Dist, remembered(key, (self,), made))

    def field(self, name: str, function: Callable[[Outcome], Outcome]) -> Dist:
        """The field `name` of each record, function(record): remembered, as `project` is
        (a statement run again for each value it branches on reads it again)."""
        key = ("field", self.number, name)
        return cast(Dist, remembered(key, (self,), lambda: self.map(function)))

    # ─── building ───────────────────────────────────────────────────────────

    def map(self, function: Callable[[Outcome], Outcome]) -> Dist:
        """The distribution of function(outcome); equal results are merged."""
        weights: Weights = {}
        if len(self.weights) <= POLLED:  # (no look at the deadline: the commonest)
            for outcome, weight in self.weights.items():
                result = function(outcome)
                weights[result] = weights.get(result, 0) + weight
            return Dist(weights, self.total)
        poll = polling()
        for i, (outcome, weight) in enumerate(self.weights.items()):
            result = function(outcome)
            weights[result] = weights.get(result, 0) + weight
            if poll is not None and not i % POLLED:
                poll()
        return Dist(weights, self.total)

    def combine(
        self, other: Dist, function: Callable[[Outcome, Outcome], Outcome], cap: int | None = None
    ) -> Dist:
        """The distribution of function(a, b) for independent a ~ self, b ~ other; past
        `cap` outcomes (the odds engine's memory bound), TooComplex."""
        weights: Weights = {}
        poll = polling()
        for a, wa in self.weights.items():
            for b, wb in other.weights.items():
                result = function(a, b)
                weights[result] = weights.get(result, 0) + wa * wb
            if cap is not None and len(weights) > cap:
                raise TooComplex(too_many_outcomes(cap))
            poll()
        return Dist(weights, self.total * other.total).reduced()

    def reduced(self) -> Dist:
        """The same distribution with the weights' common factor taken out, when finding
        it is cheap: from the shortest weight first (often 1: done), and never past
        REDUCING bit-products of gcds (each is a step nothing interrupts; a factor left
        in changes no probability)."""
        weights = self.weights
        if not weights:
            return self
        smallest = min(weights.values(), key=int.bit_length)
        left = REDUCING - self.total.bit_length() * smallest.bit_length()
        if left < 0:
            return self
        common = gcd(self.total, smallest)
        if common == 1:
            return self
        bits = common.bit_length()
        for weight in weights.values():
            left -= bits * weight.bit_length()
            if left < 0:
                return self
            common = gcd(common, weight)
            if common == 1:
                return self
            bits = common.bit_length()
        return Dist({o: w // common for o, w in weights.items()}, self.total // common)


def mixture(parts: Iterable[tuple[Fraction, Dist]]) -> Dist:
    """Σ p_i · D_i for (probability as a Fraction, Dist) pairs."""
    return weighed([((p.numerator, p.denominator), dist) for p, dist in parts])


def weighed(parts: list[tuple[tuple[int, int], Dist]]) -> Dist:
    """Σ p_i · D_i for (probability as a weight (numerator, denominator), Dist) pairs:
    over a common denominator (the least, where finding it is cheap)."""
    denominator = 1
    for (_, d), dist in parts:
        below = d * dist.total
        if denominator % below:
            denominator = least_common(denominator, below)
    weights: Weights = {}
    poll = polling()
    for (n, d), dist in parts:
        poll()
        scale = n * (denominator // (d * dist.total))
        for outcome, weight in dist.weights.items():
            weights[outcome] = weights.get(outcome, 0) + weight * scale
    return Dist(weights, denominator).reduced()


def _moved(function: Callable[..., Any], values: tuple[Any, ...], memory: Any) -> Dist | None:
    """A distribution moved by a whole number (`roll + n`, `n + roll`, `roll - n`): the one
    made for its place (order.moved), found again whatever the steps it took there (`roll
    + a + b` and `roll + b + a`, or `+ (a + b)`: one distribution, charged once); two
    compared (`a.total > d.total`) as two shapes at the same gap were before
    (order.compared_already: charged once); None for anything else."""
    if memory is None or type(function) is not Operation or len(values) != 2:
        return None
    a, b = values
    if function.ints in ORDERINGS and type(a) is Dist and type(b) is Dist:
        return cast("Dist | None", compared_already(function.ints, a, b, memory))
    if function.move is None:
        return None
    if type(a) is Dist and type(b) is int:
        return cast("Dist | None", moved(a, b, function.ints, function.move, memory, Dist))
    if type(a) is int and type(b) is Dist and function.move is operator.add:
        return cast("Dist | None", moved(b, a, function.ints, function.move, memory, Dist))
    return None


def _apply(function: Callable[..., Any], values: tuple[Any, ...], cap: int | None = None) -> Dist:
    if len(values) == 1:
        return cast(Dist, values[0].map(function))
    if len(values) == 2:
        a, b = values
        ints: Callable[[int, int], Any] | None = None
        move: Callable[[int, int], int] | None = None
        if type(function) is Operation:  # with the same for two whole numbers
            ints, move, function = function.ints, function.move, function.apply
        if ints is not None:
            found = _on_ints(ints, move, a, b, cap)
            if found is not None:
                return found
        if type(a) is Dist:
            if type(b) is Dist:
                if move is operator.add:  # two pools' symbol sums added, sum by sum
                    sums = form_sums(a.weights, b.weights, cap, polling())
                    if sums is not None:
                        return Dist(sums, a.total * b.total).reduced()
                return a.combine(b, function, cap)
            return a.map(lambda x: function(x, b))
        return cast(Dist, b.map(lambda y: function(a, y)))
    joint = Dist.point(())
    for v in values:
        joint = joint.combine(v if type(v) is Dist else Dist.point(v), lambda t, x: (*t, x), cap)
    return joint.map(lambda t: function(*t))


def _on_ints(
    ints: Callable[[int, int], Any],
    move: Callable[[int, int], int] | None,
    a: Any,
    b: Any,
    cap: int | None,
) -> Dist | None:
    """function(a, b) through its whole-number version, when every value is an int (the
    common case: a roll plus modifiers, compared with a target); else None."""
    if type(a) is Dist and type(b) is int:
        found: Dist | None = moved(
            a, b, ints, move, LIFTS.get(), Dist
        )  # `roll + n`: one made per place
        if found is not None:
            return found
        weights: Weights = {}
        for x, w in a.weights.items():
            if type(x) is not int:
                return None
            r = ints(x, b)
            weights[r] = weights.get(r, 0) + w
        return Dist(weights, a.total)
    if type(b) is Dist and type(a) is int:
        weights = {}
        for y, w in b.weights.items():
            if type(y) is not int:
                return None
            r = ints(a, y)
            weights[r] = weights.get(r, 0) + w
        return Dist(weights, b.total)
    if type(a) is Dist and type(b) is Dist:
        if ints in ORDERINGS:  # a > b: by running sums (interpreter.odds.order), if numbers
            return cast("Dist | None", compared(ints, a, b, LIFTS.get(), Dist))
        if not all(type(x) is int for x in a.weights) or not all(type(y) is int for y in b.weights):
            return None
        if move is operator.add:  # the sums at the ends within the limits: all of them are
            ints(min(a.weights), min(b.weights))
            ints(max(a.weights), max(b.weights))
            sums = int_sums(a.weights, b.weights)
            if sums is not None:
                return Dist(sums, a.total * b.total).reduced()
        weights = {}
        poll = polling()
        for x, wa in a.weights.items():
            for y, wb in b.weights.items():
                r = ints(x, y)
                weights[r] = weights.get(r, 0) + wa * wb
            if cap is not None and len(weights) > cap:
                raise TooComplex(too_many_outcomes(cap))
            poll()
        return Dist(weights, a.total * b.total).reduced()
    return None


#: outcomes a map goes through before it looks at the deadline
POLLED = 4096


#: the distributions kept from one computation to the next (remembered.remembered_term),
#: by number: their projections onto fields (Dist.project), kept with them while they are
KEPT: dict[int, dict[tuple[Any, ...], Dist]] = {}
#: the projections of one kept distribution kept at most
CUTS_KEPT = 8


def polling() -> Callable[[], None]:
    """The look at the deadline of the odds computation under way (LiftMemory.poll), or
    nothing outside one: loops over outcomes call it every so many."""
    memory = LIFTS.get()
    if memory is None:
        return _nothing
    return memory.poll


def _nothing() -> None:
    pass


def remembered(key: tuple[Any, ...], keep: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """compute(), or what it gave before for the same key (values: the numbers of the
    distributions it reads, not their identities), within one odds computation; `keep`,
    the values it reads, is charged to the budget by their sizes."""
    memory = LIFTS.get()
    if memory is None:
        return compute()
    try:
        found = memory.get(key)
    except TypeError:  # something unhashable in the key: compute, do not remember
        return compute()
    if found is None:
        memory.work(keep)  # charged to the odds engine's budget, by the sizes involved
        found = memory[key] = (compute(), keep)
    made: Dist = found[0]
    return made


def cut_already(dist: Dist, fields: tuple[Any, ...]) -> None:
    """Note that every record of `dist` holds `fields` (in order) and no other: its
    projection onto them (Dist.project) is itself, not made again."""
    memory = LIFTS.get()
    if memory is not None:
        memory[("project", dist.number, fields)] = (dist, (dist,))


def _projected(dist: Dist, fields: tuple[Any, ...]) -> Dist:
    """Records cut down to some of their fields (what is left to read of them): the
    records that agree on those fields merged first, then one record made for each."""
    cut: dict[tuple[Any, ...], int] = {}
    others: Weights = {}
    for value, weight in dist.weights.items():
        if type(value) is Record:
            key = (value.kind, *map(value.get, fields))
            try:
                cut[key] = cut.get(key, 0) + weight
            except TypeError:  # a value only a record knows how to hash
                record = Record(dict(zip(fields, key[1:])), value.kind)
                others[record] = others.get(record, 0) + weight
        else:
            others[value] = others.get(value, 0) + weight
    for (kind, *values), weight in cut.items():
        record = Record(dict(zip(fields, values)), kind)
        others[record] = others.get(record, 0) + weight
    return Dist(others, dist.total)


# What mypy checks of the seam's protocol, at no cost at run time: a Dist is an
# UnknownValue (interpreter.runtime).
_UNKNOWN: type[UnknownValue] = Dist


#: sums small enough to count by hand, one die after another (dice × outcomes: the
#: additions it takes; `3d6`, `2d20`): they are what is asked most, and a first call
#: then runs little code (past it, pool_distribution's packed products are faster)
SMALL_SUM = 120


def uniform_sum(count: int, sides: int, low: int = 1) -> Dist:
    """The sum of `count` dice of faces low..low + sides - 1 (the distribution
    pool_distribution counts: the fewest ways, one, leave no common factor to take out)."""
    ways = [1] * sides  # ways[i]: the ways to make the least sum so far + i
    for _ in range(count - 1):
        # one more die: a new sum t gets the ways of t - sides .. t - 1 before it, the
        # difference of two running sums (running[j]: ways[0] + ... + ways[j]), each
        # list made in C (a first call runs few lines of Python)
        running = list(accumulate(ways))
        highs = running + [running[-1]] * (sides - 1)
        ways = list(map(operator.sub, highs, [0] * sides + running[:-1]))
    least = count * low
    return Dist(dict(zip(range(least, least + len(ways)), ways)), sides**count)
