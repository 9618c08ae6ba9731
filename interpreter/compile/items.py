"""Compiling lists and texts taken apart: list[1], join, number."""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.bounds import bounded_text, cells, read_number
from interpreter.compile.arithmetic import as_whole
from interpreter.compile.host import CompilerHost
from interpreter.errors import EvaluationError
from interpreter.runtime import known
from interpreter.values import show

#: what a value is, where a whole number is wanted (a refusal says it)
A_POSITION = tr("a position in a list")


class Items(CompilerHost):
    """A list's item (`dice[1]`), `join`, `number` (part of the Compiler)."""

    def list_item(self, node: n.Index):
        """`dice[1]`: the first item, `dice[-1]` the last; a position past the list's
        end is an error at the lookup."""
        items, position, span = self.expr(node.subject), self.expr(node.keys[0]), node.span

        def item(ctx):
            listed = known(ctx, items(ctx))
            if type(listed) is not tuple:
                raise EvaluationError(tr("only a list's items are taken by position"), span)
            at = as_whole(ctx, known(ctx, position(ctx)), span, A_POSITION)
            size = len(listed)
            if at == 0 or not -size <= at <= size:
                raise EvaluationError(
                    tr(
                        "the list has {size} item(s): no item at {at} (the first is 1, the "
                        "last -1)",
                        size=size,
                        at=at,
                    ),
                    span,
                )
            return listed[at - 1 if at > 0 else at]

        return item

    def item_function(self, node: n.Call):
        name, span = node.function, node.span
        args = tuple(self.expr(a) for a in node.args)
        if name == "number":
            (text,) = args

            def number(ctx):
                value = known(ctx, text(ctx))
                if not isinstance(value, str):
                    raise EvaluationError(tr("number(...) reads a text as a number"), span)
                try:
                    found = read_number(value, ctx.limits)
                except ValueError as error:
                    raise EvaluationError(error.args[0], span) from None
                if found is None:
                    raise EvaluationError(tr("{text} is not a number", text=repr(value[:40])), span)
                return found

            return number
        items = args[0]

        def listed(ctx) -> tuple:
            value = known(ctx, items(ctx))
            if type(value) is not tuple:
                raise EvaluationError(tr("{name}(...) takes a list first", name=name), span)
            ctx.count(cells(value, ctx.limits.value_size), span)
            return value

        separator = args[1] if len(args) == 2 else None

        def join(ctx):
            between = known(ctx, separator(ctx)) if separator is not None else ""
            if not isinstance(between, str):
                raise EvaluationError(tr("the separator of join(...) is a text"), span)
            parts = [show(known(ctx, v)) for v in listed(ctx)]
            return bounded_text(between.join(parts), ctx.limits, span)

        return join
