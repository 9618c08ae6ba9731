"""The statements the explorer runs in a shortcut: a `let` nothing reads, a `set` read once."""

from __future__ import annotations

from interpreter.compiled import Binding, Statement
from interpreter.odds.distribution import Dist
from interpreter.odds.failing import cannot_fail
from interpreter.odds.worlds import Live
from interpreter.runtime import Unknown, known


def unread(statement: Statement, after: Live, safe=cannot_fail) -> bool:
    """A `let` (or a `set` of a local name) whose value nothing reads later, and whose
    expression changes nothing on the sheet and cannot fail (`safe`: a run it would stop
    must stop here too): the odds engine skips it."""
    shape = statement.shape
    if type(shape) is not Binding or not shape.pure:
        return False
    return shape.name not in after.needs and safe(statement.node.expr)


def once_set(statement: Statement, after: Live) -> bool:
    """A `set` of a local name read once later (see Live.once)."""
    shape = statement.shape
    return type(shape) is Binding and shape.local and after.once(shape.name)


def unresolved_set(binding: Binding):
    """The run of a `set` of a local name that keeps a distribution as it is (the one
    later read combines it, as it would a dice term written there); the compiled `set`
    gives one value per world."""
    name, value = binding.name, binding.value

    def unresolved(ctx):
        result = value(ctx)
        if isinstance(result, Unknown) and type(result) is not Dist:
            result = known(ctx, result)  # an opposed check: its ties, its failures
        ctx.env[name] = result

    return unresolved
