"""A row of `if`s that test one name against whole numbers, run by a lookup of its value.

`for each d in r.dice { if d = 2 { set s to s + 1 } if d = 3 { ... } ... }`: a block run
whole (odds.direct: a world per face, odds.one_roll: a run per face) tests every `if` of
the row in every run, eleven tests for a d12 where one or none holds. Here a row of `if`s
(each branch `x = 3` or `3 = x`, whole numbers written in the rules, the same local `x`
whose every block leaves `x` as it was) is run once its value is known as a table made
once per value says: the blocks taken, in order, each after the steps its tests count.
The steps are the same, counted in the same order; where they would pass the count's
bound before a block, the row goes on `if` by `if` from the first test not counted (as
it is written: the bound met where it is met, the clock read, the limit's error). A
value that is not a whole number (a distribution, a text) runs the row `if` by `if`.
"""

from __future__ import annotations

from dsl import nodes as n


class Switch:
    """Whether a row of `if`s testing one name against whole numbers is run by a lookup
    of its value (tests switch it off: then `if` by `if`)."""

    on = True


SWITCH = Switch()

#: the kinds of names whose value a test reads as the run holds it, where it is a whole
#: number (a local; a roll's, whose total is read where it holds a roll)
READ_AS_HELD = frozenset(("local", "roll"))
#: the values whose plans a row keeps, at most (the rest planned at each run)
KEPT_PLANS = 256


def tested_name(compiler, node) -> tuple | None:
    """(the local name, the whole numbers) an `if` node's branches test it against, each
    `x = k` or `k = x` of the same name, or None."""
    name, first, numbers = None, None, []
    for condition, _ in node.branches:
        if type(condition) is not n.Binary or condition.op != "=":
            return None
        left, right = condition.left, condition.right
        if type(left) is n.Literal and type(right) is n.Name:
            left, right = right, left
        if type(left) is not n.Name or type(right) is not n.Literal or type(right.value) is not int:
            return None
        binding = compiler.binding_of(left)
        if first is None:
            if binding is None or binding.kind not in READ_AS_HELD:
                return None
            if compiler.type_of(left).kind == "ref":  # (a name of a field: the field's value)
                return None
            name, first = left.name, binding
        elif binding != first:
            return None
        numbers.append(right.value)
    return None if name is None else (name, tuple(numbers))


def gives(node, name: str) -> bool:
    """Whether a statement (its blocks' too) may give `name` a value."""
    for item in n.walk(node):
        kind = type(item)
        if kind is n.Set and type(item.place) is n.Name and item.place.name == name:
            return True
        if kind is n.Let and item.name == name:
            return True
        if kind is n.ForEach and item.var == name:
            return True
    return False


def row_run(name: str, ifs: list, runs: list):
    """The run of a row of `if`s testing `name` (`ifs`: each `if`'s ((number, test's
    steps, its block's steps, its block's run) per branch, (its `else`'s steps, its
    run), its span); `runs`: each `if`'s own run, `if` by `if`)."""
    plans: dict = {}
    count = len(ifs)

    def one_by_one(ctx, start: int) -> None:
        for index in range(start, count):
            runs[index](ctx)

    def plan(value: int) -> tuple:
        """([(the first `if` whose tests count here, the steps of those tests, the
        block's steps, its run, the `if`'s span)], the first `if` of the tests after the
        last block, their steps)."""
        taken: list = []
        start = lump = 0
        for index, (branches, (otherwise_steps, otherwise), span) in enumerate(ifs):
            block = None
            for number, steps, block_steps, body in branches:
                lump += steps
                if number == value:
                    block = (block_steps, body)
                    break
            if block is None and (otherwise_steps or otherwise is not None):
                block = (otherwise_steps, otherwise)
            if block is not None:
                taken.append((start, lump, block[0], block[1], span))
                start, lump = index + 1, 0
        return tuple(taken), start, lump

    def run(ctx) -> None:
        value = ctx.env.get(name)
        if type(value) is not int or not SWITCH.on:
            one_by_one(ctx, 0)
            return
        found = plans.get(value)
        if found is None:
            found = plan(value)
            if len(plans) < KEPT_PLANS:
                plans[value] = found
        taken, start, lump = found
        for first, steps, block_steps, body, span in taken:
            counted = ctx.steps + steps
            if counted > ctx.step_bound:  # (a test past the bound: as written from there)
                one_by_one(ctx, first)
                return
            ctx.steps = counted
            ctx.count(block_steps, span)
            if body is not None:
                body(ctx)
        if lump:
            counted = ctx.steps + lump
            if counted > ctx.step_bound:
                one_by_one(ctx, start)
                return
            ctx.steps = counted

    return run
