"""What evaluating rules costs in steps (the run's fuel), known when they are compiled.

A step is one node of the rules evaluated: a literal, a name read, an operation, a call, a
lookup, a dice term, a statement. What an expression always evaluates is counted at once,
by whoever runs it: a block its statements' steps before running them, a formula its
body's when called (`Costs.cost`). What is evaluated only sometimes counts when it is:
an `if`'s branch taken, the right side of `and`/`or` when it is needed, `default`'s
fallback when it is used (`charged`), each pass of a loop, each condition of an `if` tested.
What goes through a value counts its cells as it does (interpreter.bounds.cells).
"""

from __future__ import annotations

import attrs

from dsl import nodes as n
from dsl.functions import FUNCTIONS
from interpreter.compile.host import CompilerHost
from interpreter.runtime import count_past_bound

#: the node classes that are evaluated (each one step); others (a dice modifier) are
#: part of the node they modify
EXPRESSIONS = (
    n.Literal,
    n.Text,
    n.Name,
    n.Field,
    n.Index,
    n.Call,
    n.CharacterCall,
    n.Unary,
    n.Binary,
    n.IfExpr,
    n.ListLiteral,
    n.Dice,
    n.Range,
    n.RangeOf,
    n.RollGroup,
    n.SymbolDice,
)

#: fields of a node that are not parts evaluated
_NOT_PARTS = frozenset({"span", "name_span", "op_span", "unit_span", "notes"})


class Costs(CompilerHost):
    """The steps of expressions and statements (part of the Compiler)."""

    def cost(self, node) -> int:
        """The steps evaluating an expression always takes: one per node evaluated
        whenever it is (a branch taken only sometimes counts when it is, a called
        definition's body when it is called)."""
        total = 0
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, tuple | list):
                stack.extend(item)
                continue
            if not attrs.has(type(item)):
                continue
            kind = type(item)
            if isinstance(item, EXPRESSIONS):
                total += 1
            if kind is n.IfExpr:
                stack.append(item.condition)
                continue
            if kind is n.Binary and item.op in ("and", "or"):
                stack.append(item.left)
                continue
            if kind is n.Call:
                stack.extend(self._call_parts(item))
                continue
            if kind is n.Index:  # its subject names the table: looked up, not evaluated
                stack.extend(item.keys)
                continue
            for field in attrs.fields(kind):
                if field.name not in _NOT_PARTS:
                    stack.append(getattr(item, field.name))
        return total

    def _call_parts(self, call: n.Call) -> list:
        """What a call evaluates where it is written: its arguments, and the default of
        each parameter not given (`default`'s fallback: only when it is used)."""
        binding = self.bindings.get(id(call))
        if binding is None or binding.kind == "builtin":
            function = FUNCTIONS.get(call.function)
            lazy = function.lazy if function is not None else ()
            return [a for i, a in enumerate(call.args) if i not in lazy] + [
                e for _, e in call.named
            ]
        parts = [*call.args, *(e for _, e in call.named)]
        params = getattr(binding.node, "params", ())
        given = {p.name for p in params[: len(call.args)]} | {name for name, _ in call.named}
        parts += [p.default for p in params if p.name not in given and p.default is not None]
        return parts

    def statement_cost(self, node) -> int:
        """A statement's own steps: one, and what it always evaluates (not its blocks,
        which count as they run, nor an `if`'s conditions, each counted when tested)."""
        kind = type(node)
        if kind is n.If:
            return 1
        if kind is n.Match:
            return 1 + self.cost(node.subject)
        if kind is n.ForEach:
            return 1 + self.cost(node.items)
        if kind is n.Repeat:
            return 1 + self.cost(node.count)
        if kind is n.Require:
            return 1 + self.cost(node.condition)  # its message only when it fails
        if kind is n.Choose:  # every option's condition and cost, to know which are open
            parts = [node.label]
            for option in node.options:
                parts += [option.condition, option.cost]
                if option.each is not None:
                    parts.append(option.each[1])
            return 1 + self.cost(parts)
        return 1 + self.cost(
            [getattr(node, f.name) for f in attrs.fields(kind) if f.name not in _NOT_PARTS]
        )


def block_cost(body: tuple) -> int:
    """The steps of a compiled block's statements themselves (`.cost` of each)."""
    return sum(statement.cost for statement in body)


def charged(function, steps: int, span):
    """`function`, counting `steps` each time it runs (a part evaluated only sometimes)."""

    def run(ctx):
        counted = ctx.steps + steps
        ctx.steps = counted
        if counted > ctx.step_bound:
            count_past_bound(ctx, span)
        return function(ctx)

    return run
