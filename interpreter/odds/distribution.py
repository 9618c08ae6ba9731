"""Exact probability distributions: the values the odds engine computes with.

A `Dist` is a finite table of outcomes with whole-number weights over one denominator:
P(outcome) = weight / total. Weights are Python ints (exact, and much faster than
Fractions). When an open-ended roll (an explosion, a reroll chain) is cut off, the mass
left out is simply not in the table: `omitted = 1 - sum(weights) / total`.

A Dist is the run side's `Unknown` (interpreter.runtime): compiled rules apply
operations over it with `lift`, which combines independent distributions.
"""

from __future__ import annotations

from contextvars import ContextVar
from fractions import Fraction
from math import gcd

from interpreter.compiled import Operation
from interpreter.errors import EvaluationError
from interpreter.odds.budget import too_many_outcomes
from interpreter.odds.order import ORDERINGS, compared, moved
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.weights import at_most, least_common
from interpreter.runtime import Unknown
from interpreter.values import Record

#: the odds engine's memory of distributions already combined, while it computes
#: (an interpreter.odds.roller.LiftMemory; None outside an odds computation)
LIFTS: ContextVar = ContextVar("lifts", default=None)

#: no probability (the omitted mass of most distributions)
NOTHING = Fraction(0)
#: what a lift remembers when the operation fails for some of its values
FAILS = object()

#: bit-products (the bits of one number times the other's) the gcds of Dist.reduced may
#: take: some 5 ms (two numbers of 60,000 bits)
REDUCING = 4_000_000_000

_UNIFORM: dict = {}  # a range of faces → its uniform Dist (immutable, so shared)


class Dist(Unknown):
    """An exact distribution: outcome → weight, over `total`. Immutable by convention."""

    __slots__ = ("_omitted", "total", "weights")

    def __init__(self, weights: dict, total: int):
        self.weights = weights
        self.total = total
        self._omitted = None

    @classmethod
    def point(cls, value) -> Dist:
        return cls({value: 1}, 1)

    @classmethod
    def uniform(cls, values) -> Dist:
        if type(values) is range:  # a die's faces: the same few dice, call after call
            found = _UNIFORM.get(values)
            if found is None:
                if len(_UNIFORM) >= 64:
                    _UNIFORM.clear()
                found = _UNIFORM[values] = cls.uniform(tuple(values))
            return found
        weights: dict = {}
        for value in values:
            weights[value] = weights.get(value, 0) + 1
        return cls(weights, sum(weights.values()))

    # ─── reading ────────────────────────────────────────────────────────────

    def probability(self, outcome) -> Fraction:
        return Fraction(self.weights.get(outcome, 0), self.total)

    def items(self):
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
        return self.total - sum(self.weights.values())

    def __len__(self) -> int:
        return len(self.weights)

    def __repr__(self) -> str:
        shown = ", ".join(f"{o!r}: {w}" for o, w in list(self.weights.items())[:6])
        more = ", ..." if len(self.weights) > 6 else ""
        return f"Dist({{{shown}{more}}} / {self.total})"

    # ─── the unknown-value protocol (interpreter.runtime.Unknown) ────────────

    def lift(self, function, values: tuple) -> Dist:
        """The distribution of function(*values) over independent values (self among
        them). The odds engine runs a statement again for each value it branches on, so
        the same distributions meet the same operations again: each result is remembered
        for the rest of the computation."""
        memory = LIFTS.get()
        key = None
        if memory is not None:
            key = (function, *((id(v), None) if type(v) is Dist else (v, type(v)) for v in values))
            try:
                found = memory.get(key)
            except TypeError:  # an unhashable operand: compute, do not remember
                found, key = None, None
            if found is not None:
                if found[0] is FAILS:
                    return function(*memory.settle(values))
                return found[0]
        cap = None
        if memory is not None:
            # charged before: the work is bounded, not just counted
            cap = memory.work(values, function)
        try:
            result = _apply(function, values, cap)
        except EvaluationError:
            if memory is None:
                raise
            # some values make it fail (`6 / (n - 1)` where n may be 1): a world per value
            # (the explorer's branch), in which it fails as a real run would, or not
            if key is not None:
                memory[key] = (FAILS, values)
            return function(*memory.settle(values))
        if key is not None:
            memory[key] = (result, values)  # the operands are kept, so their ids stay theirs
        return result

    def project(self, fields: tuple) -> Dist:
        """Records cut down to some of their fields (remembered, as `lift` is)."""
        return remembered(("project", id(self), fields), (self,), lambda: _projected(self, fields))

    def field(self, name: str, function) -> Dist:
        """The field `name` of each record, function(record): remembered, as `project` is
        (a statement run again for each value it branches on reads it again)."""
        return remembered(("field", id(self), name), (self,), lambda: self.map(function))

    # ─── building ───────────────────────────────────────────────────────────

    def map(self, function) -> Dist:
        """The distribution of function(outcome); equal results are merged."""
        weights: dict = {}
        poll = polling() if len(self.weights) > POLLED else None
        for i, (outcome, weight) in enumerate(self.weights.items()):
            result = function(outcome)
            weights[result] = weights.get(result, 0) + weight
            if poll is not None and not i % POLLED:
                poll()
        return Dist(weights, self.total)

    def combine(self, other: Dist, function, cap: int | None = None) -> Dist:
        """The distribution of function(a, b) for independent a ~ self, b ~ other; past
        `cap` outcomes (the odds engine's memory bound), TooComplex."""
        weights: dict = {}
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


def mixture(parts) -> Dist:
    """Σ p_i · D_i for (probability as a Fraction, Dist) pairs."""
    return weighed([((p.numerator, p.denominator), dist) for p, dist in parts])


def weighed(parts) -> Dist:
    """Σ p_i · D_i for (probability as a weight (numerator, denominator), Dist) pairs:
    over a common denominator (the least, where finding it is cheap)."""
    denominator = 1
    for (_, d), dist in parts:
        below = d * dist.total
        if denominator % below:
            denominator = least_common(denominator, below)
    weights: dict = {}
    poll = polling()
    for (n, d), dist in parts:
        poll()
        scale = n * (denominator // (d * dist.total))
        for outcome, weight in dist.weights.items():
            weights[outcome] = weights.get(outcome, 0) + weight * scale
    return Dist(weights, denominator).reduced()


def _apply(function, values: tuple, cap: int | None = None) -> Dist:
    if len(values) == 1:
        return values[0].map(function)
    if len(values) == 2:
        a, b = values
        ints = move = None
        if type(function) is Operation:  # with the same for two whole numbers
            ints, move, function = function.ints, function.move, function.apply
        if ints is not None:
            found = _on_ints(ints, move, a, b, cap)
            if found is not None:
                return found
        if type(a) is Dist:
            if type(b) is Dist:
                return a.combine(b, function, cap)
            return a.map(lambda x: function(x, b))
        return b.map(lambda y: function(a, y))
    joint = Dist.point(())
    for v in values:
        joint = joint.combine(v if type(v) is Dist else Dist.point(v), lambda t, x: (*t, x), cap)
    return joint.map(lambda t: function(*t))


def _on_ints(ints, move, a, b, cap) -> Dist | None:
    """function(a, b) through its whole-number version, when every value is an int (the
    common case: a roll plus modifiers, compared with a target); else None."""
    if type(a) is Dist and type(b) is int:
        found = moved(a, b, ints, move, LIFTS.get(), Dist)  # `roll + n`: one made per place
        if found is not None:
            return found
        weights: dict = {}
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
            return compared(ints, a, b, LIFTS.get(), Dist)
        if not all(type(x) is int for x in a.weights) or not all(type(y) is int for y in b.weights):
            return None
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


def polling():
    """The look at the deadline of the odds computation under way (LiftMemory.poll), or
    nothing outside one: loops over outcomes call it every so many."""
    memory = LIFTS.get()
    return _nothing if memory is None else memory.poll


def _nothing() -> None:
    pass


def remembered(key: tuple, keep: tuple, compute):
    """compute(), or what it gave before for the same key, within one odds computation.
    `keep` holds the objects whose ids are in the key, so that their ids stay theirs."""
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
    return found[0]


def cut_already(dist: Dist, fields: tuple) -> None:
    """Note that every record of `dist` holds `fields` (in order) and no other: its
    projection onto them (Dist.project) is itself, not made again."""
    memory = LIFTS.get()
    if memory is not None:
        memory[("project", id(dist), fields)] = (dist, (dist,))


def _projected(dist: Dist, fields: tuple) -> Dist:
    """Records cut down to some of their fields (what is left to read of them): the
    records that agree on those fields merged first, then one record made for each."""
    cut: dict = {}
    others: dict = {}
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
