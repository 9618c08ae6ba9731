"""Expression nodes: literals, texts, names, fields, lookups, calls, operators."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import Expression, span_field


@attrs.frozen
class Literal:
    """A number, a boolean, `none`, or a text without `{...}` parts."""

    value: object
    span: Span = span_field()


@attrs.frozen
class Text:
    """A text with `{expression}` parts: `"+{c.puntos} a la defensa"`."""

    parts: tuple  # of str and expressions
    span: Span = span_field()


@attrs.frozen
class Name:
    name: str
    span: Span = span_field()


@attrs.frozen
class Field:
    subject: Expression
    name: str
    span: Span = span_field()


@attrs.frozen
class Index:
    subject: Expression
    keys: tuple
    span: Span = span_field()


@attrs.frozen
class Call:
    function: str
    args: tuple
    named: tuple  # of (name, expression)
    span: Span = span_field()
    name_span: Span = span_field()


@attrs.frozen
class Unary:
    op: str  # "-" or "not"
    operand: Expression
    span: Span = span_field()


@attrs.frozen
class Binary:
    """Arithmetic, comparison, `and`, `or`, `in`; `op_span` points at the operator."""

    op: str
    left: Expression
    right: Expression
    span: Span = span_field()
    op_span: Span = span_field()


@attrs.frozen
class IfExpr:
    condition: Expression
    then: Expression
    otherwise: Expression
    span: Span = span_field()


@attrs.frozen
class ListLiteral:
    items: tuple
    span: Span = span_field()


@attrs.frozen
class RangeOf:
    """`..Skill`, `difficulty..`, `1..n`: a range with an end read from a name (the
    other, a number written in it or open); its ends are whole numbers when it is made."""

    low: Expression | None
    high: Expression | None
    span: Span = span_field()


@attrs.frozen
class CharacterCall:
    """`objetivo.salvación(Destreza)`: a call made for another character, on its sheet."""

    character: Expression
    call: Call
    span: Span = span_field()
