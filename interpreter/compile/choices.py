"""Compiling `choose`: the options open now, the run's chooser asked, the one chosen run.

An option is open when its condition holds and its cost can be paid (a `spend` of it
would not fail). The run's `Chooser` (interpreter.choices; the odds engine's policy in
odds mode) answers with one of the open options; the choice is kept on the context
(`ctx.choices`) and in the trace, the cost is spent, then the option's statements run.
"""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.choices import Choice, Chooser, Question
from interpreter.compile.arithmetic import as_whole
from interpreter.compile.characters import character_of
from interpreter.compile.costs import block_cost
from interpreter.compile.statements import run_block
from interpreter.errors import EvaluationError
from interpreter.runtime import as_bool

#: how the trace says who chose, by `Choice.how`
HOW = {
    "given": tr("answered in advance"),
    "asked": tr("chosen at the table"),
    "only": tr("the only option open"),
    "recorded": tr("as chosen then"),
    "policy": tr("the best choice for the goal"),
}

NOBODY_CHOOSES = Chooser()  # a run given no answers: only a choice with one option open


class Choices:
    """The Compiler's handler of `choose` (part of the Compiler)."""

    def st_choose(self, node: n.Choose):
        options = tuple(self.compile_option(option) for option in node.options)
        label = self.expr(node.label) if node.label is not None else None
        by = node.by  # a character parameter (or a name bound to one): a local name
        who = (lambda ctx: ctx.env.get(by)) if by is not None else None
        name, span = node.name, node.span

        def choose(ctx):
            open_, closed = [], []
            for value, is_open, _pay, _body, _steps in options:
                (open_ if is_open(ctx) else closed).append(value)
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
            )
            chooser = ctx.chooser if ctx.chooser is not None else NOBODY_CHOOSES
            value, how = chooser.choose(question)
            if ctx.choices is not None:
                ctx.choices.append(Choice(name, value, question.by, how))
            ctx.env[name] = value
            if ctx.trace is not None and ctx.trace.wants():
                text = (
                    tr("{name}: {value} ({how})", name=name, value=value, how=HOW[how])
                    if character is None
                    else tr(
                        "{name}: {value} ({who}, {how})",
                        name=name,
                        value=value,
                        who=character.label,
                        how=HOW[how],
                    )
                )
                ctx.step("choice", text, span, choice=name, value=value, by=question.by, how=how)
            for option_value, _open, pay, body, steps in options:
                if option_value == value and type(option_value) is type(value):
                    if pay is not None:
                        pay(ctx)
                    run_block(ctx, body, steps, span)
                    return

        return choose

    def compile_option(self, option: n.Option) -> tuple:
        """(value, is_open(ctx), pay(ctx) or None, body, the steps of paying and of the
        body's statements)."""
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

        def is_open(ctx):
            if condition is not None and not as_bool(ctx, condition(ctx), cspan):
                return False
            return affordable is None or affordable(ctx)

        return option.value.value, is_open, pay, body, steps + block_cost(body)

    def affordable(self, amount_node, place_node):
        """Whether spending the amount from the place would not fail (its minimum kept)."""
        amount_fn, place, bounds = (
            self.expr(amount_node),
            self.written(place_node),
            self.bounds_of(place_node),
        )

        def can_pay(ctx):
            where = place(ctx)
            amount = as_whole(ctx, amount_fn(ctx), amount_node.span, tr("an option's cost"))
            low, _high = bounds(ctx, where)
            return amount >= 0 and (low is None or ctx.state.read(where) - amount >= low)

        return can_pay
