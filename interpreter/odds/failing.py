"""What never stops a run: the expressions the explorer may leave uncomputed where unread."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dsl import nodes as n
from interpreter.limits import Limits

#: comparisons that never fail between two numbers
ORDERED = ("<", "<=", ">", ">=")
#: sums and differences: they fail only past `number_digits` (sums_may_fail)
ADDED = ("+", "-")
#: digits of room a number needs between a fraction's denominator and number_digits for
#: its sums never to be taken to fail
ROOM = 100


def sums_may_fail(limits: Limits) -> bool:
    """Whether a sum of two numbers should be taken to fail on some values under these
    limits. A sum fails only past `number_digits` (of a fraction: its numerator, which
    grows with the denominator, at most `denominator_digits`): with ROOM digits to spare
    beyond the denominators, only numbers within a factor of 10**ROOM of that bound pass
    it (products and powers, which do fail, or a sheet holding such numbers), and sums
    are taken not to fail; under tighter limits (number_digits 4: 9999 + 1) they may."""
    return limits.number_digits < limits.denominator_digits + ROOM


#: dice modifiers that never make a roll fail (explosions and rerolls may pass
#: extra_per_die on some rolls)
SAFE_MODIFIERS = (n.Keep, n.CountSuccesses, n.CountFailures, n.Sort)


def cannot_fail(
    expr: object,
    kind_of: Callable[[object], str] | None = None,
    callee: Callable[[object], tuple[object, ...] | None] | None = None,
    sums_fail: bool = True,
) -> bool:
    """Whether computing an expression can never stop a run, by the static types
    `kind_of(node)` gives (the compiler's: "number", "bool", ...; without them, only
    what needs none): a value written, a name, a field of a record, a text of those, two
    values compared for equality, numbers compared (and added, where sums_fail is
    false: sums_may_fail), yes/no joined (`and`,
    `or`, `not`), an `if` of those, a dice term of fixed dice that keeps or counts them,
    a call with arguments of those of a definition made of those (`callee(call)`: the
    expressions of what it calls, None when it may fail). Any other (lookups, products,
    quotients, explosions) may fail on some values: the odds engine computes it even
    where its value is never read (a run it stops is stopped in every field's answer)."""

    def kind(node: object) -> str:
        return kind_of(node) if kind_of is not None else "any"

    stack: list[Any] = [expr]
    while stack:
        node = stack.pop()
        if node is None or isinstance(node, n.Literal | n.Name | str):
            continue
        if isinstance(node, n.Field) and kind(node.subject) in ("record", "roll", "symbols"):
            stack.append(node.subject)
        elif isinstance(node, n.Text):
            stack += node.parts
        elif isinstance(node, n.ListLiteral):
            stack += node.items
        elif isinstance(node, n.Unary) and kind(node.operand) == TYPED[node.op]:
            stack.append(node.operand)
        elif isinstance(node, n.Binary) and _safe_operator(node, kind, sums_fail):
            stack += (node.left, node.right)
        elif isinstance(node, n.IfExpr) and kind(node.condition) == "bool":
            stack += (node.condition, node.then, node.otherwise)
        elif isinstance(node, n.Call):
            inside = callee(node) if callee is not None else None
            if inside is None:
                return False
            stack += node.args
            stack += (value for _, value in node.named)
            stack += inside
        elif isinstance(node, n.CharacterCall):
            stack += (node.character, node.call)
        elif isinstance(node, n.Dice):
            fixed = node.count is None or isinstance(node.count, n.Literal)
            if not fixed or not isinstance(node.sides, int | tuple | str):
                return False
            if not all(isinstance(m, SAFE_MODIFIERS) for m in node.modifiers):
                return False
        else:
            return False
    return True


#: what a unary operator's operand must be for it never to fail
TYPED = {"not": "bool", "-": "number"}


def _safe_operator(node: n.Binary, kind: Callable[[object], str], sums_fail: bool) -> bool:
    op = node.op
    if op in ("=", "!="):
        return True
    kinds = (kind(node.left), kind(node.right))
    if op in ("and", "or"):
        return kinds == ("bool", "bool")
    if op in ADDED and sums_fail:
        return False
    return op in ORDERED + ADDED and kinds == ("number", "number")
