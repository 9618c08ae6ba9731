"""Small expressions over plain dice (`floor(3d6/2)`, `max(1d20, 1d20)`) counted from the text."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dsl import plain_dice
from dsl.errors import RulebookError
from interpreter.odds.distribution import Dist
from interpreter.values import normalize, round_half_away

#: pairs of outcomes one operation here may combine (past it: the general path, which
#: charges and bounds its work by the budget)
PAIRS = 20_000
#: the operations of `+ - *`, their results normalized and checked afterwards
WHOLE: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}
#: the comparisons of two numbers (a whole small expression's: dsl.plain_dice)
COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "!=": operator.ne,
    "=": operator.eq,
    "<": operator.lt,
    ">": operator.gt,
}
#: the functions of one number counted here, as the compiled builtins apply them
ROUNDING: dict[str, Callable[[Any], Any]] = {
    "floor": math.floor,
    "ceil": math.ceil,
    "abs": abs,
    "round": round_half_away,
}


class NotHere(Exception):
    """Not counted here: the general path counts it (and says what is wrong with it)."""


def small_distribution(
    text: str, term: Callable[[str], Dist | None], limits, budget, more=(None, None)
) -> Dist | None:
    """The distribution of a small expression's value (dsl.plain_dice.read_expression:
    whole numbers, plain dice terms, `+ - * /`, parentheses, floor, ceil, round, abs, min,
    max), each dice term a roll of its own, counted by `term(its text)`; or None when it is
    not one, or anything in it is not exactly what the general path gives: an error (a
    division by zero in some outcome), a number past the limits, more steps, dice or
    work than the general path allows. `more`: read's `term` and `end`."""
    node = read(text, *more)
    if node is None:
        return None
    counting = _Counting(text, term, limits, budget)
    try:
        value = counting.value(node)
    except NotHere:
        return None
    return value if type(value) is Dist else Dist.point(value)


def read(text: str, term=None, end=None):
    """A small expression read by dsl.plain_dice's own reader (read_expression: as the
    parser reads it, tests/test_plain_dice.py), into the few plain nodes below rather
    than the AST's (no spans, no attrs: a first reading costs a third), or None. With
    `term` and `end` (interpreter.odds.plain's), a dice term with other modifiers
    (`4dF + 2`, `max(2d20ro=1, 1d20)`) is one too: dsl.plain_dice.read_small."""
    if len(text) > 400 or not text.strip():
        return None
    return plain_dice.read_small(text, None, Nodes, _where, term, end)


def _where(_source, start: int, end: int) -> tuple[int, int]:
    return start, end


class Nodes:
    """The nodes `read` makes: what the counting reads of dsl.nodes' classes."""

    class Literal:
        __slots__ = ("value",)

        def __init__(self, value, **_spans):
            self.value = value

    class Binary:
        __slots__ = ("left", "op", "right")

        def __init__(self, op, left, right, **_spans):
            self.op, self.left, self.right = op, left, right

    class Dice:
        """A dice term: its dice, the steps its written parts take beside its own (each
        a node evaluated: interpreter.compile.costs), where it is written."""

        __slots__ = ("count", "span", "steps")

        def __init__(self, count, _sides, modifiers, span, steps=None):
            if steps is None:  # (the plain reader's: its count and keep's count, nodes)
                steps = (count is not None) + sum(m.count is not None for m in modifiers)
                count = 1 if count is None else count.value
            self.count, self.steps, self.span = count, steps, span

    class Keep:
        __slots__ = ("count",)

        def __init__(self, _mode, count, **_spans):
            self.count = count

    class Call:
        __slots__ = ("args", "function", "named")

        def __init__(self, function, args, named, **_spans):
            self.function, self.args, self.named = function, args, named


class _Counting:
    """One small expression counted: its nodes evaluated over distributions, with the
    steps, dice and work the general path would count for them."""

    def __init__(self, text: str, term, limits, budget):
        self.text, self.term, self.limits = text, term, limits
        self.steps = 0  # one per node evaluated (interpreter.compile.costs)
        self.dice = 0  # every term's dice (limits.dice_per_evaluation)
        #: work units as the odds engine charges a combination (roller.LiftMemory.work):
        #: allowed here up to half the budget, the rest left for the terms' own
        self.work, self.most_work = 1, budget // 2

    def step(self, steps: int = 1) -> None:
        self.steps += steps
        if self.steps > self.limits.steps_per_run:
            raise NotHere

    def value(self, node):
        self.step()
        kind = type(node)
        if kind is Nodes.Literal:
            return node.value
        if kind is Nodes.Dice:
            return self.dice_term(node)
        if kind is Nodes.Binary:
            return self.binary(node.op, self.value(node.left), self.value(node.right))
        if kind is Nodes.Call and not node.named:
            return self.call(node)
        raise NotHere

    def dice_term(self, node):
        count = node.count
        self.step(node.steps)  # its written count, keep's count, conditions: nodes too
        self.dice += count
        if self.dice > self.limits.dice_per_evaluation:
            raise NotHere
        try:
            found = self.term(self.text[node.span[0] : node.span[1]])
        except RulebookError:  # (`3d4rr<=4`: said where the term stands by the general path)
            raise NotHere from None
        if found is None:
            raise NotHere
        return found

    def call(self, node):
        name, args = node.function, node.args
        if name in ("floor", "ceil", "round", "abs") and len(args) == 1:
            rounding = ROUNDING[name]
            (arg,) = args
            if name in ("floor", "ceil") and type(arg) is Nodes.Binary and arg.op == "/":
                self.step()  # `floor(a / b)`: whole numbers divided whole, no Fraction made
                left, right = self.value(arg.left), self.value(arg.right)
                up = name == "ceil"
                return self.over((left, right), lambda a, b: self.rounded(a, b, up))
            if name == "abs":  # (a number within the limits: its size is too)
                return self.over((self.value(arg),), abs, raw=True)
            return self.over((self.value(arg),), lambda a: self.checked(rounding(a)))
        if name in ("min", "max") and len(args) >= 2:
            function = min if name == "min" else max
            value = self.value(args[0])
            for arg in args[1:]:  # independent values: the least (greatest) two by two
                value = self.over((value, self.value(arg)), function, name == "max")
            return value
        raise NotHere

    def binary(self, op: str, left, right):
        if op in WHOLE:
            return self.over((left, right), WHOLE[op], raw=True)
        if op == "/":
            return self.over((left, right), self.divided)
        if op in COMPARE:  # (the whole expression's: a yes or no, read no further)
            return self.over((left, right), COMPARE[op])
        raise NotHere

    def divided(self, a, b):
        if b == 0:  # an error in some outcome: the general path says so
            raise NotHere
        if type(a) is int and type(b) is int:
            quotient, remainder = divmod(a, b)
            return self.checked(quotient if not remainder else Fraction(a, b))
        return self.checked(Fraction(a) / b)

    def rounded(self, a, b, up: bool):
        """floor(a / b), or ceil: as the quotient made first then rounded gives it."""
        if (
            type(a) is int
            and type(b) is int
            and b != 0
            and abs(a) < self.limits.number_bound
            and abs(b) < self.limits.denominator_bound
        ):  # a quotient within the limits (reduced, its parts are no larger)
            return -(-a // b) if up else a // b
        quotient = self.divided(a, b)
        return self.checked(math.ceil(quotient) if up else math.floor(quotient))

    def checked(self, value):
        """The value as the general path keeps it (normalized), or NotHere past its
        limits on numbers (interpreter.bounds.bounded_number)."""
        value = normalize(value)
        if type(value) is int:
            if abs(value) < self.limits.number_bound:
                return value
        elif (
            abs(value.numerator) < self.limits.number_bound
            and value.denominator < self.limits.denominator_bound
        ):
            return value
        raise NotHere

    def over(self, values: tuple, function, greatest: bool | None = None, raw: bool = False):
        """function(*values) over independent values, any of them a distribution;
        `greatest` said for max (True) and min (False), counted by running sums; `raw`,
        a function whose results are not yet normalized and checked (`settled`)."""
        dists = [v for v in values if type(v) is Dist]
        if not dists:
            value = function(*values)
            return self.checked(value) if raw else value
        size = 1
        for dist in dists:
            size *= len(dist.weights)
        self.work += 1 + size // 20
        if size > PAIRS or size > self.limits.odds_outcomes or self.work > self.most_work:
            raise NotHere
        if len(values) == 1:
            made = values[0].map(function)
        elif type(values[1]) is not Dist:
            a, b = values
            made = a.map(lambda x: function(x, b))
        elif type(values[0]) is not Dist:
            a, b = values
            made = b.map(lambda y: function(a, y))
        elif greatest is not None and not values[0].missing() and not values[1].missing():
            return extreme(values[0], values[1], greatest)
        else:
            a, b = values
            weights: dict = {}
            for x, wa in a.weights.items():
                for y, wb in b.weights.items():
                    result = function(x, y)
                    weights[result] = weights.get(result, 0) + wa * wb
            made = Dist(weights, a.total * b.total).reduced()
        return self.settled(made) if raw else made

    def settled(self, made: Dist) -> Dist:
        """Outcomes made by a raw operation as the general path keeps them: normalized,
        within the limits on numbers (`checked`); most are whole numbers already."""
        bound = self.limits.number_bound
        for value in made.weights:
            if type(value) is not int or not -bound < value < bound:
                break
        else:
            return made
        weights: dict = {}
        for value, weight in made.weights.items():
            value = self.checked(value)
            weights[value] = weights.get(value, 0) + weight
        return Dist(weights, made.total)


def extreme(a: Dist, b: Dist, greatest: bool) -> Dist:
    """max(x, y) (or min) for independent numbers x ~ a, y ~ b, neither missing any
    mass: by running sums, P(max <= v) = P(x <= v) P(y <= v), in one pass over the values."""
    wa, wb = a.weights, b.weights
    weights: dict = {}
    below_a = below_b = before = 0
    for v in sorted(wa.keys() | wb.keys(), reverse=not greatest):
        below_a += wa.get(v, 0)
        below_b += wb.get(v, 0)
        now = below_a * below_b
        if now != before:
            weights[v] = now - before
            before = now
    return Dist(weights, a.total * b.total).reduced()
