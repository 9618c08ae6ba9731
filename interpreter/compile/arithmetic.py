"""Exact arithmetic for compiled rules: numbers, comparisons and lifting over unknowns."""

from __future__ import annotations

import math
import operator
from fractions import Fraction

from dsl import nodes as n
from dsl.errors import Span
from dsl.messages import Message, tr
from interpreter.bounds import (
    bounded_list,
    bounded_number,
    bounded_value,
    size_within,
    too_long,
)
from interpreter.compiled import Operation
from interpreter.errors import EvaluationError
from interpreter.pool import Rolled
from interpreter.runtime import Unknown, lift
from interpreter.symbols import Forms, is_pool, joined_forms
from interpreter.symbols import joined as joined_pools
from interpreter.values import Record, normalize, type_name

#: the sides of an operator and a function's arguments, as a refusal names them
LEFT_SIDE = tr("the left side of {op}")
RIGHT_SIDE = tr("the right side of {op}")
AN_ARGUMENT = tr("an argument of {name}")
THE_ARGUMENT = tr("the argument of {name}")


def as_number(value, span: Span | None, what: Message, **params):
    """The value as a number (a roll's total); else refused, saying `what` it is (a
    message declared once, its `params` filled only when refusing)."""
    if type(value) is int or type(value) is Fraction:
        return value
    if isinstance(value, Rolled):
        return value.total
    raise EvaluationError(
        tr(
            "{what} should be a number, not {type_name} ({value})",
            what=what.fill(**params) if params else what,
            type_name=type_name(value),
            value=value,
        ),
        span,
    )


def as_whole(ctx, value, span: Span | None, what: Message, **params) -> int:
    if isinstance(value, Unknown):
        value = ctx.roller.resolve(value)
    value = as_number(value, span, what, **params)
    if type(value) is not int:
        what = what.fill(**params) if params else what
        raise EvaluationError(
            tr("{what} should be a whole number, not {value}", what=what, value=value),
            span,
            tr("round it explicitly with floor, ceil or round"),
        )
    return value


def lifted1(function, operand):
    """A closure applying `function` to a value: directly, or lifted over a distribution."""

    def apply(ctx):
        value = operand(ctx)
        if isinstance(value, Unknown):
            return lift(function, value)
        return function(value)

    return apply


def arith(op: str, left_span, right_span, op_span):
    """compute(a, b, limits): a + b, a - b, a * b or a / b, exact, within the limits on
    numbers and lists (`interpreter.bounds`), lifted over distributions."""

    def compute(a, b, limits):
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return lift(with_limits(limits), a, b)
        if op == "+" and type(a) is tuple and type(b) is tuple:  # lists are joined
            joined = bounded_list(a + b, limits, op_span)
            size_within(joined, limits, op_span)
            return joined
        if type(a) is not int and type(a) is not Fraction:
            if op == "+" and is_pool(a) and is_pool(b):  # two pools of symbol dice as one
                return joined_pools(a, b)
            if op == "+" and type(a) is Forms and type(b) is Forms:  # as the odds count them
                return joined_forms(a, b)
            a = as_number(a, left_span, LEFT_SIDE, op=op)
        if type(b) is not int and type(b) is not Fraction:
            b = as_number(b, right_span, RIGHT_SIDE, op=op)
        if op == "+":
            value = a + b
        elif op == "-":
            value = a - b
        elif op == "*":
            value = a * b
        elif op == "**":
            value = power(a, b, limits, op_span)
        elif b == 0:
            raise EvaluationError(tr("division by zero"), op_span)
        elif op == "%":  # the remainder with the dividend's sign, as Roll20 and Foundry give
            value = a - b * math.trunc(Fraction(a) / b)
        else:
            value = Fraction(a) / b
        return normalize(bounded_number(value, limits, op_span))

    lifted: dict = {}  # limits → compute with them, one function each (odds remember it)

    def with_limits(limits):
        function = lifted.get(limits)
        if function is None:
            # with the same on two whole numbers, without the other cases (for the odds)
            whole = WHOLE.get(op)
            ints = _on_ints(whole, limits, op_span) if whole is not None else None
            if op == "/":  # two whole numbers: a whole one, or their Fraction made at once
                ints = _divided(limits, op_span)
            function = lifted[limits] = Operation(
                lambda a, b: compute(a, b, limits),
                ints,
                whole if whole in (operator.add, operator.sub) else None,
            )
        return function

    return compute


#: the operations that keep whole numbers whole
WHOLE = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def _divided(limits, span):
    """a / b of two whole numbers, as `compute` gives it (a whole number when b divides a)."""

    def divided(a: int, b: int):
        if b == 0:
            raise EvaluationError(tr("division by zero"), span)
        quotient, remainder = divmod(a, b)
        value = quotient if not remainder else Fraction(a, b)
        return normalize(bounded_number(value, limits, span))

    return divided


def _on_ints(operation, limits, span):
    bound = limits.number_bound

    def on_ints(a: int, b: int) -> int:
        value = operation(a, b)
        if abs(value) < bound:
            return value
        raise too_long(limits, span)

    return on_ints


def power(base, exponent, limits, span):
    """`a ** b` for a whole exponent, refused before it is computed if it would pass the
    limit on digits (number_digits)."""
    if type(exponent) is not int:
        raise EvaluationError(
            tr("an exponent must be a whole number, not {value}", value=exponent),
            span,
            tr("round it with floor, ceil or round"),
        )
    if base == 0 and exponent < 0:
        raise EvaluationError(tr("zero to a negative power divides by zero"), span)
    size = max(abs(base.numerator), base.denominator) if type(base) is Fraction else abs(base)
    if size > 1 and abs(exponent) * math.log10(size) > limits.number_digits:
        raise too_long(limits, span)
    if exponent < 0:
        return 1 / Fraction(base) ** -exponent
    return base**exponent


def minmax(function, args, span, name):
    if any(isinstance(a, Unknown) for a in args):
        if len(args) > 1:  # each combination of known values: no list, nothing unknown
            return lift(
                lambda *values: function(
                    [as_number(v, span, AN_ARGUMENT, name=name) for v in values]
                ),
                *args,
            )
        return lift(lambda *values: minmax(function, list(values), span, name), *args)
    if len(args) == 1:
        items = args[0]
        if not isinstance(items, tuple):
            raise EvaluationError(tr("{name} of one value needs a list", name=name), span)
        if not items:
            raise EvaluationError(tr("{name} of an empty list", name=name), span)
        args = items
    return function(as_number(a, span, AN_ARGUMENT, name=name) for a in args)


COMPARISONS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}


def tuple_of(fns: tuple):
    """A closure computing (f(ctx) for f in fns) as a tuple, without a generator."""
    if not fns:
        return lambda ctx: ()
    if len(fns) == 1:
        (a,) = fns
        return lambda ctx: (a(ctx),)
    if len(fns) == 2:
        a, b = fns
        return lambda ctx: (a(ctx), b(ctx))
    if len(fns) == 3:
        a, b, c = fns
        return lambda ctx: (a(ctx), b(ctx), c(ctx))
    return lambda ctx: tuple([f(ctx) for f in fns])


def unequal(a, b) -> bool:
    return not equal(a, b)


def equal(a, b) -> bool:
    kind = type(a)
    if kind is type(b) and (kind is int or kind is str or kind is bool):
        return a == b  # (the commonest: two numbers, two texts)
    if isinstance(a, Rolled):
        a = a.total
    if isinstance(b, Rolled):
        b = b.total
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return a == b


def field_of(record, name: str, span):
    if isinstance(record, Record):
        return record.get(name)
    if isinstance(record, Unknown):  # odds: the field of each record the check may give
        return record.field(name, lambda r: field_of(r, name, span))
    if isinstance(record, Rolled):
        return getattr(record, name, None)
    if record is None:
        raise EvaluationError(
            tr("there is nothing here to take `{name}` from (none)", name=name), span
        )
    raise EvaluationError(tr("{record} has no field `{name}`", record=record, name=name), span)


def ordering(node: n.Binary, left, right):
    """`>=`, `<=`, `>`, `<` between two compiled sides."""
    op = node.op
    compare = COMPARISONS[op]
    lspan, rspan = node.left.span, node.right.span

    def on_numbers(a, b):
        if type(a) is not int:
            a = as_number(a, lspan, LEFT_SIDE, op=op)
        if type(b) is not int:
            b = as_number(b, rspan, RIGHT_SIDE, op=op)
        return compare(a, b)

    # with the same for two whole numbers (the odds engine's lifts)
    compare_values = Operation(on_numbers, compare)

    def comparison(ctx):
        a, b = left(ctx), right(ctx)
        if type(a) is int and type(b) is int:
            return compare(a, b)
        return lift(compare_values, a, b)

    return comparison


def arithmetic(node: n.Binary, left, right):
    """`+`, `-`, `*`, `/`, ... between two compiled sides: whole numbers at once, the
    rest through `arith` (fractions, lists, distributions)."""
    op = node.op
    compute = arith(op, node.left.span, node.right.span, node.op_span)
    span = node.op_span
    if op == "+":

        def add(ctx):
            a, b = left(ctx), right(ctx)
            if type(a) is int and type(b) is int:
                value = a + b
                # abs: no -bound (a big int) made each time
                if abs(value) < ctx.limits.number_bound:
                    return value
                raise too_long(ctx.limits, span)
            if type(a) is tuple and type(b) is tuple:  # two lists joined: counted
                return bounded_value(ctx, bounded_list(a + b, ctx.limits, span), span)
            return compute(a, b, ctx.limits)

        return add
    if op == "-":

        def subtract(ctx):
            a, b = left(ctx), right(ctx)
            if type(a) is int and type(b) is int:
                value = a - b
                if abs(value) < ctx.limits.number_bound:
                    return value
                raise too_long(ctx.limits, span)
            return compute(a, b, ctx.limits)

        return subtract
    if op == "*":

        def multiply(ctx):
            a, b = left(ctx), right(ctx)
            if type(a) is int and type(b) is int:
                value = a * b
                if abs(value) < ctx.limits.number_bound:
                    return value
                raise too_long(ctx.limits, span)
            return compute(a, b, ctx.limits)

        return multiply
    if op == "/" and WHOLE_DIVISION:

        def divide(ctx):
            a, b = left(ctx), right(ctx)
            if type(a) is int and type(b) is int and b:  # (as `compute` divides them)
                quotient, remainder = divmod(a, b)
                value = quotient if not remainder else Fraction(a, b)
                return normalize(bounded_number(value, ctx.limits, span))
            return compute(a, b, ctx.limits)

        return divide
    return lambda ctx: compute(left(ctx), right(ctx), ctx.limits)


#: whether `a / b` of two whole numbers is divided at once in a run (a whole number when
#: b divides a, else their Fraction made at once: as the odds' `_divided`), not made a
#: Fraction then divided (off: every division through `compute`; tests compare)
WHOLE_DIVISION = True
