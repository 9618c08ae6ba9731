"""A check's sum split into signed terms, each with how its trace line names it."""

from __future__ import annotations

import attrs

from dsl import nodes as n
from dsl import types as t
from dsl.rulebook import names_a_field
from interpreter.compile.check_terms import TermLabel


def signed(node, sign: int = 1) -> list:
    """A sum flattened into signed terms: `a + b - c` → [(+1, a), (+1, b), (-1, c)]."""
    if isinstance(node, n.Binary) and node.op in ("+", "-"):
        right_sign = sign if node.op == "+" else -sign
        return signed(node.left, sign) + signed(node.right, right_sign)
    return [(sign, node)]


def explained_term(compiler, sign: int, node):
    """A term of a check's roll, with how to name it in the trace."""
    binding = compiler.bindings.get(id(node))
    type_ = compiler.type_of(node)
    if isinstance(node, n.Dice):
        return (sign, "roll", compiler.dice(node), None, None)
    if isinstance(node, n.Name) and binding is not None and binding.kind == "roll":
        name = node.name
        return (sign, "roll", lambda ctx: ctx.env[name], name, None)
    if isinstance(node, n.Name) and binding is not None and binding.kind == "rolldef":
        procedure = compiler.roll_definition(binding.name)
        return (sign, "chain", lambda ctx: procedure.call(ctx, ()), binding.name, None)
    if type_.kind == "ref":
        return (sign, "ref", compiler.ref(node), None, None)
    if isinstance(node, n.Name) and binding is not None and binding.kind in ("field", "derived"):
        return (sign, "value", compiler.expr(node), binding.name, None)
    return (sign, "value", compiler.expr(node), _label(compiler, node), _brief(node, binding))


def _brief(node, binding) -> str | None:
    """The author's own name for a term, where there is one: a formula's name
    (`estado`, not `estado(Voluntad in Mentales)`), a record field's (`bono`, not
    `t.bono`); an `if` expression's, "" (its value alone). The whole expression is the
    detail (--verbose)."""
    if isinstance(node, n.Call) and binding is not None and binding.kind == "formula":
        return node.function
    if isinstance(node, n.Field):
        return node.name
    return "" if isinstance(node, n.IfExpr) else None


def _label(compiler, node):
    """A term's source text, with each value that names something replaced by the name
    (`2 * attr` → `2 * Wits`, `Difficulty[difficulty]` → `Difficulty[Hard]`)."""
    text, base = node.span.text, node.span.start
    if isinstance(node, n.IfExpr):  # (a term of its own among the others: in parentheses)
        text, base = f"({text})", base - 1
    holes = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, n.Name | n.Field):
            type_ = compiler.type_of(item)
            value = t.value_of(type_)
            named = type_.kind == "ref" and names_a_field(item, compiler.bindings)
            binding = compiler.bindings.get(id(item))
            local_text = (
                value.kind == "text"
                and isinstance(item, n.Name)
                and binding is not None
                and binding.kind == "local"
            )
            if named or local_text:
                start, end = item.span.start - base, item.span.end - base
                holes.append((start, end, compiler.naming(item), item))
                continue
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif attrs.has(type(item)):
            stack.extend(
                getattr(item, f.name)
                for f in attrs.fields(type(item))
                if f.name not in ("span", "name_span", "op_span")
            )
    if not holes:
        return text
    holes.sort(key=lambda h: h[0])
    return TermLabel(text, tuple(holes))
