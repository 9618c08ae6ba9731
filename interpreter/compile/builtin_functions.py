"""The built-in functions' back end: how each is compiled and how the odds engine counts it.

Keyed by the names of dsl.functions (the front end's registry: arity, types, reference
text); tests/test_functions.py holds the two to the same names. A compile function takes
the Compiler and the call's node and gives the closure `f(ctx)`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import attrs

from dsl import nodes as n
from dsl.messages import tr
from interpreter.bounds import bounded_number, cells
from interpreter.compile.arithmetic import (
    THE_ARGUMENT,
    as_number,
    as_whole,
    lifted1,
    minmax,
)
from interpreter.compile.costs import charged
from interpreter.compile.effects import LastingEffects
from interpreter.compile.items import Items
from interpreter.compile.lists import list_function
from interpreter.errors import EvaluationError
from interpreter.pool import Count, Highest, Lowest, MostSets, Question
from interpreter.runtime import Unknown, known, lift
from interpreter.values import normalize, round_half_away, show

#: what a value is, where a number is wanted (a refusal says it)
NUMBER_OF_STEPS = tr("the number of steps")
AN_ITEM_OF_SUM = tr("an item of sum")
CLAMPED = tr("the value to clamp")
CLAMP_LOW = tr("clamp's lower bound")
CLAMP_HIGH = tr("clamp's upper bound")

#: how the odds engine counts a built-in's value, where its arguments are distributions
COUNTED = {
    "lifted": "applied to each value of its arguments' distributions (`lift`): no branching",
    "question": "a question asked of a pool (interpreter.pool): counted over the multisets "
    "of kept faces, never over every way the dice fell",
    "known": "its arguments made known first: the odds engine branches on their values",
    "sheet": "reads the sheet, which the dice do not change until a statement does",
}


@attrs.frozen
class Builtin:
    """The back end of one built-in function."""

    #: (compiler, node) → the closure computing the call's value
    compile: Callable
    #: how the odds engine counts it (one of COUNTED)
    counted: str
    #: the pool's question it asks (`counted` "question"): interpreter.pool's class
    question: Callable[..., Question] | None = None
    #: (compiler, node) → the closure giving the place the call names, for a function
    #: that can name a field (`default(atributo_rival, atributo)`); None: it cannot
    place: Callable | None = None


def arguments(compiler, node: n.Call) -> tuple:
    return tuple(compiler.expr(a) for a in node.args)


def rounding(function):
    """`floor`, `ceil`, `round`, `abs`: a number's function, lifted over a distribution."""

    def compile_rounding(compiler, node: n.Call):
        (value,) = arguments(compiler, node)
        span, name = node.span, node.function

        def apply(v):
            return function(as_number(v, span, THE_ARGUMENT, name=name))

        return lifted1(apply, value)

    return compile_rounding


def least_or_greatest(function):
    """`min`, `max`: of several values, or of one list (which it goes through)."""

    def compile_minmax(compiler, node: n.Call):
        args, span, name = arguments(compiler, node), node.span, node.function
        if len(args) == 1:  # of a list: it goes through the list
            (items,) = args

            def of_list(ctx):
                values = items(ctx)
                if type(values) is tuple:
                    ctx.count(cells(values, ctx.limits.value_size), span)
                return minmax(function, [values], span, name)

            def empty(ctx):  # noqa: ARG001 (`max(r.dice)` of no dice: the list's error)
                return minmax(function, [()], span, name)

            return compiler.listed_pool(node, of_list, empty)  # (`max(r.dice)`: the odds')
        keep = (("keep", "kh" if function is max else "kl", 1),)

        def each(*values):
            return minmax(function, list(values), span, name)

        def of_values(ctx):
            values = [a(ctx) for a in args]
            if ctx.roller.lifts and any(isinstance(v, Unknown) for v in values):
                return ctx.roller.kept(values, keep, each)  # as `{a, b}kh1` is counted
            return minmax(function, values, span, name)

        return of_values

    return compile_minmax


def clamp(compiler, node: n.Call):
    value, low, high = arguments(compiler, node)
    span = node.span

    def clamp_values(v, lo, hi):
        v = as_number(v, span, CLAMPED)
        lo = as_number(lo, span, CLAMP_LOW)
        hi = as_number(hi, span, CLAMP_HIGH)
        if lo > hi:
            raise EvaluationError(
                tr(
                    "clamp between {lo} and {hi}: the lower bound is above the upper",
                    lo=lo,
                    hi=hi,
                ),
                span,
            )
        return min(max(v, lo), hi)

    return lambda ctx: lift(clamp_values, value(ctx), low(ctx), high(ctx))


def total(compiler, node: n.Call):
    """`sum(list)`: its items added up, going through them."""
    (items,) = arguments(compiler, node)
    span = node.span

    def add_up(ctx):
        return adding(ctx, items(ctx))

    def adding(ctx, listed):
        listed = known(ctx, listed)
        if not isinstance(listed, tuple):
            raise EvaluationError(tr("sum(...) adds up a list"), span)
        ctx.count(cells(listed, ctx.limits.value_size), span)
        values = tuple(known(ctx, v) for v in listed)
        value = sum(as_number(v, span, AN_ITEM_OF_SUM) for v in values)
        return normalize(bounded_number(value, ctx.limits, span))

    return compiler.summed_pool(node, add_up, adding)  # (`sum(highest(r, 2))`: the odds')


def size(compiler, node: n.Call):
    (items,) = arguments(compiler, node)

    def length(ctx):
        return len(known(ctx, items(ctx)))

    return compiler.listed_pool(node, length)  # (`size(r.sorted)`: the odds' count of dice)


def default(compiler, node: n.Call):
    """`default(x, fallback)`: the fallback counts when it is used."""
    fallback = charged(compiler.expr(node.args[1]), compiler.cost(node.args[1]), node.args[1].span)
    if compiler.names_a_field(node.args[0]):
        # `default(habilidad, 0)`: a field-naming parameter not given reads as 0, so
        # "not given" is asked of the name it holds, not of the value read
        given, read = compiler.ref(node.args[0]), compiler.expr(node.args[0])
        return lambda ctx: read(ctx) if given(ctx) is not None else fallback(ctx)
    value = compiler.expr(node.args[0])
    return lambda ctx: v if (v := known(ctx, value(ctx))) is not None else fallback(ctx)


def default_place(compiler, node: n.Call):
    """`default(atributo_rival, atributo)`: the first field named, else the second."""
    first = compiler.ref(node.args[0])
    second = charged(compiler.ref(node.args[1]), compiler.cost(node.args[1]), node.args[1].span)
    return lambda ctx: place if (place := first(ctx)) is not None else second(ctx)


def step(compiler, node: n.Call):
    """`step(Ladder, from, n)`: n steps along the ladder, stopping at its ends."""
    ladder = compiler.book.ladders[node.args[0].name]
    steps = [s.sides if isinstance(s, n.Dice) else s.value for s in ladder.steps]
    start, count = compiler.naming(node.args[1]), compiler.expr(node.args[2])
    span = node.span

    def along(ctx):
        value = known(ctx, start(ctx))
        if value not in steps:
            raise EvaluationError(
                tr(
                    "{value} is not a step of ladder {name} ({join})",
                    value=value,
                    name=ladder.name,
                    join=", ".join(map(show, steps)),
                ),
                span,
            )
        moved = steps.index(value) + as_whole(ctx, count(ctx), span, NUMBER_OF_STEPS)
        return steps[min(max(moved, 0), len(steps) - 1)]

    return along


def of_a_list(compiler, node: n.Call):
    """`without(list, items)`, `subsets(list)` (interpreter.compile.lists)."""
    return list_function(node.function, arguments(compiler, node), node.span)


def asked_of_a_pool(question: type[Question]) -> Builtin:
    """`count`, `highest`, `lowest`, `most_sets` (interpreter.compile.pools)."""
    return Builtin(lambda compiler, node: compiler.pool_function(node), "question", question)


#: every built-in function's back end, by its name in dsl.functions
BUILTINS: dict[str, Builtin] = {
    "floor": Builtin(rounding(math.floor), "lifted"),
    "ceil": Builtin(rounding(math.ceil), "lifted"),
    "round": Builtin(rounding(round_half_away), "lifted"),
    "abs": Builtin(rounding(abs), "lifted"),
    "min": Builtin(least_or_greatest(min), "lifted"),
    "max": Builtin(least_or_greatest(max), "lifted"),
    "clamp": Builtin(clamp, "lifted"),
    "sum": Builtin(total, "known"),
    "size": Builtin(size, "known"),
    "default": Builtin(default, "known", place=default_place),
    "step": Builtin(step, "known"),
    "count": asked_of_a_pool(Count),
    "highest": asked_of_a_pool(Highest),
    "lowest": asked_of_a_pool(Lowest),
    "most_sets": asked_of_a_pool(MostSets),
    "without": Builtin(of_a_list, "known"),
    "subsets": Builtin(of_a_list, "known"),
    "effects": Builtin(LastingEffects.effect_read, "sheet"),
    "active": Builtin(LastingEffects.effect_read, "sheet"),
    "effect_modifier": Builtin(LastingEffects.effect_read, "sheet"),
    "join": Builtin(Items.item_function, "known"),
    "number": Builtin(Items.item_function, "known"),
}

#: the functions that ask a question of a pool: name → the question's class
POOL_QUESTIONS = {name: b.question for name, b in BUILTINS.items() if b.question is not None}
