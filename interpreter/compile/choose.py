"""Compiling `choose`: the options open now, the run's chooser asked, the one chosen run.

An option is open when its condition holds and its cost can be paid (a `spend` of it
would not fail). The run's `Chooser` (interpreter.choosers; the odds engine's policy in
odds mode) answers with one of the open options; the choice is kept on the context
(`ctx.choices`) and in the trace, the cost is spent, then the option's statements run.
"""

from __future__ import annotations

from typing import Any

import attrs

from dsl import nodes as n
from dsl.messages import Message, tr
from interpreter.choosers import Choice, Chooser, Question
from interpreter.compile.arithmetic import as_whole
from interpreter.compile.characters import character_of
from interpreter.compile.codegen import SWITCH
from interpreter.compile.costs import block_cost
from interpreter.compile.host import CompilerHost
from interpreter.compile.statements import range_items, run_block
from interpreter.errors import EvaluationError
from interpreter.runtime import as_bool, known
from interpreter.trace import Later, later_step, made_step
from interpreter.values import Range

#: how the trace says who chose, by `Choice.how`
HOW = {
    "given": tr("answered in advance"),
    "asked": tr("chosen at the table"),
    "only": tr("the only option open"),
    "recorded": tr("as chosen then"),
    "policy": tr("the best choice for the goal"),
}

NOBODY_CHOOSES = Chooser()  # a run given no answers: only a choice with one option open


def choice_step(ctx, name: str, value, who: str | None, by, how: str, span) -> None:
    """A choice's step, of a traced run: what was chosen, by whom (`who`: the character's
    label, or None) and how; recorded as what makes it, its text made when read
    (`SWITCH.lazy_steps`, flat: `SWITCH.flat_steps`), as a lookup's is."""
    trace = ctx.trace  # (`step_texts.record`, written out)
    most = trace.most
    if most is not None and len(trace) >= most:
        trace.omitted += 1
        return
    entry: Any = (_chosen, name, value, who, by, how, ctx.depth, span, trace.length)
    if not SWITCH.lazy_steps:
        entry = made_step(_chosen(*entry[1:]))
    elif SWITCH.flat_steps:
        trace.flat = True
    else:
        entry = later_step(entry)
    list.append(trace, entry)


def _chosen(name: str, value, who: str | None, by, how: str, depth: int, span, bounded):
    """A choice's step's parts (`Step._r`)."""
    text = Later(_choice_text, name, value, who, how)
    data = {"choice": name, "value": value, "by": by, "how": how}
    return ("choice", text, None, data, depth, None, None, False, span, bounded)


def _choice_text(name: str, value, who: str | None, how: str) -> Message:
    """`invoke: yes (the only option open)`, `(Ana, chosen at the table)` with a who."""
    if who is None:
        return tr("{name}: {value} ({how})", name=name, value=value, how=HOW[how])
    return tr("{name}: {value} ({who}, {how})", name=name, value=value, who=who, how=HOW[how])


def _key(value) -> tuple:
    return (type(value), value)


#: what `option each` was given in place of a list or a range with both ends
OPTION_EACH_OVER = tr("`option each` goes over a list or a range with both ends, not {value}")


def option_items(ctx, items, span) -> tuple:
    """The items `option each` offers: a list's, or a range's (both ends given)."""
    items = known(ctx, items)
    if type(items) is Range:
        return range_items(ctx, items, span, OPTION_EACH_OVER)
    if type(items) is not tuple:
        raise EvaluationError(OPTION_EACH_OVER.fill(value=items), span)
    return tuple(known(ctx, item) for item in items)


class Choices(CompilerHost):
    """The Compiler's handler of `choose` (part of the Compiler)."""

    def st_choose(self, node: n.Choose):
        options = tuple(self.compile_option(option) for option in node.options)
        offered = self.offered(node, options)
        label = self.expr(node.label) if node.label is not None else None
        by = node.by  # a character parameter (or a name bound to one): a local name
        who = (lambda ctx: ctx.env.get(by)) if by is not None else None
        name, span = node.name, node.span

        def choose(ctx):
            open_, closed, why = [], [], []
            listed = offered(ctx)
            for value, closed_by, _pay, _body, _steps, var in listed:
                if var is not None:
                    ctx.env[var] = value
                reason = closed_by(ctx)
                if reason is None:
                    open_.append(value)
                else:
                    closed.append(value)
                    why.append(reason)
            if not open_:
                raise EvaluationError(tr("{name}: no option is open", name=name), span)
            character = character_of(ctx, who(ctx), span) if who is not None else None
            question = Question(
                name,
                label(ctx) if label is not None else None,
                tuple(open_),
                tuple(closed),
                character.role if character is not None else None,
                character.label if character is not None else None,
                span,
                tuple(why),
            )
            chooser = ctx.chooser if ctx.chooser is not None else NOBODY_CHOOSES
            if getattr(chooser, "by_occurrence", False) and ctx.choices is not None:
                asked = sum(1 for made in ctx.choices if made.name == name)
                question = attrs.evolve(question, occurrence=asked + 1)
            value, how = chooser.choose(question)
            if ctx.choices is not None:
                ctx.choices.append(Choice(name, value, question.by, how))
            ctx.env[name] = value
            if ctx.trace is not None:
                by_label = character.label if character is not None else None
                choice_step(ctx, name, value, by_label, question.by, how, span)
            for option_value, _open, pay, body, steps, var in listed:
                if option_value == value and type(option_value) is type(value):
                    if var is not None:
                        ctx.env[var] = value
                    if pay is not None:
                        pay(ctx)
                    run_block(ctx, body, steps, span)
                    return

        return choose

    def offered(self, node: n.Choose, options: tuple):
        """A closure listing the options of a run: (value, closed_by, pay, body, steps, the
        name an option built from a list gives its item, or None), an option `each` item
        of its list once (the first time it comes)."""
        built = []
        for option, compiled in zip(node.options, options):
            if option.each is None:
                built.append((None, None, (*compiled, None)))
            else:
                var, items = option.each
                built.append((var, self.naming(items), compiled))
        span = node.span
        if all(var is None for var, _, _ in built):
            fixed = [entry for _, _, entry in built]
            return lambda ctx: fixed

        def offered(ctx):
            listed, seen = [], set()
            for var, items, entry in built:
                if var is None:
                    listed.append(entry)
                    seen.add(_key(entry[0]))
                    continue
                _value, closed_by, pay, body, steps = entry
                for item in option_items(ctx, items(ctx), span):
                    if _key(item) not in seen:
                        seen.add(_key(item))
                        listed.append((item, closed_by, pay, body, steps, var))
            return listed

        return offered

    def compile_option(self, option: n.Option) -> tuple:
        """(value, closed_by(ctx) (None when open), pay(ctx) or None, body, the steps of
        paying and of the body's statements)."""
        condition = self.expr(option.condition) if option.condition is not None else None
        cspan = option.condition.span if option.condition is not None else None
        affordable, pay, steps = None, None, 0
        if option.cost is not None:
            amount, place = option.cost
            spend = n.Change("spend", amount, place, span=option.span)
            pay = self.st_change(spend)
            affordable = self.affordable(amount, place)
            steps = self.statement_cost(spend)
        body = self.block(option.body)

        def closed_by(ctx):
            """None when the option is open; else what closes it: "condition", "cost"."""
            if condition is not None and not as_bool(ctx, condition(ctx), cspan):
                return "condition"
            return None if affordable is None or affordable(ctx) else "cost"

        value = option.value.value if option.value is not None else None
        return value, closed_by, pay, body, steps + block_cost(body)

    def affordable(self, amount_node, place_node):
        """Whether spending the amount from the place would not fail (its minimum kept)."""
        amount_fn, place, bounds = (
            self.expr(amount_node),
            self.written(place_node),
            self.place_bounds(),
        )

        def can_pay(ctx):
            where = place(ctx)
            amount = as_whole(ctx, amount_fn(ctx), amount_node.span, tr("an option's cost"))
            low, _high = bounds(ctx, where)
            return amount >= 0 and (low is None or ctx.state.read(where) - amount >= low)

        return can_pay
