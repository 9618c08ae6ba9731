"""Compiling list literals and the list functions `without(list, items)` and `subsets(list)`.

`without(r.sorted, [3, 7])` is the list less one 3 and one 7 (an item it does not hold is
not taken: a multiset's difference); `subsets(list)` is every different choice of some of
its items (each once however its items repeat), from the fewest up: the sets a player
may make of the dice rolled, to offer with `option each s in subsets(r.sorted)`.
"""

from __future__ import annotations

import itertools

from dsl.messages import tr
from interpreter.bounds import bounded_value, check_length
from interpreter.errors import EvaluationError
from interpreter.runtime import Unknown, known, lift

#: in odds mode, a list literal holding a die (`[d10]`) is the distribution of its lists,
#: made once and remembered, not a run again per face: `without(r, [x]) + [d10]` is one
#: run that binds its lists at once (interpreter.odds.roller.bind; switch off to compare)
LIFTED = True


def listed(ctx, value, span, name: str) -> tuple:
    """The items of a list argument, known."""
    value = known(ctx, value)
    if type(value) is not tuple:
        raise EvaluationError(
            tr("{name}(...) takes a list, not {value}", name=name, value=value), span
        )
    check_length(len(value), ctx.limits, span)
    return tuple(known(ctx, item) for item in value)


def list_literal(items: tuple, span):
    """The closure of `[a, b, ...]`: its items known, in order, except (odds mode) one
    that is a distribution of whole numbers: the list made for each of its values."""

    def made(*values) -> tuple:  # one per literal: the odds remember what it made
        return values

    def literal(ctx):
        values: list = []
        held = None
        for item in items:
            value = item(ctx)
            if isinstance(value, Unknown):
                faces = getattr(value, "weights", None)  # (an odds Dist's outcomes)
                if held is None and LIFTED and faces and all(type(v) is int for v in faces):
                    held = len(values)
                else:
                    value = known(ctx, value)
            values.append(value)
        if held is None:
            return bounded_value(ctx, tuple(values), span)
        # counted and bounded as each of its lists: one number in the place of the die
        unknown, values[held] = values[held], 0
        bounded_value(ctx, tuple(values), span)
        values[held] = unknown
        return lift(made, *values)

    return literal


def same(a, b) -> bool:
    """Equal as the language compares (2 is 4/2), but never `yes` and 1."""
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def without(ctx, items, taken, span) -> tuple:
    left = list(listed(ctx, items, span, "without"))
    taken = known(ctx, taken)
    for item in taken if type(taken) is tuple else (taken,):
        item = known(ctx, item)
        for i, held in enumerate(left):
            if same(held, item):
                del left[i]
                break
    return tuple(left)


def subsets(ctx, items, span) -> tuple:
    values: list = []  # the different items, in the order they come, with how many
    for item in listed(ctx, items, span, "subsets"):
        for pair in values:
            if same(pair[0], item):
                pair[1] += 1
                break
        else:
            values.append([item, 1])
    count = 1
    for _, many in values:
        count *= many + 1
        check_length(count, ctx.limits, span)
    ctx.count(count, span)
    found = [
        tuple(item for (item, _), k in zip(values, takes) for _ in range(k))
        for takes in itertools.product(*(range(many + 1) for _, many in values))
    ]
    found.sort(key=len)  # stable: the fewest items first, else in the order made
    return tuple(found)


def list_function(name: str, args: tuple, span):
    """The closure of `without(...)` or `subsets(...)` over its compiled arguments."""
    if name == "without":
        items, taken = args
        return lambda ctx: without(ctx, items(ctx), taken(ctx), span)
    (items,) = args
    return lambda ctx: subsets(ctx, items(ctx), span)
