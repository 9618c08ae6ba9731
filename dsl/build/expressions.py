"""Building expressions, texts with {expression} parts, and dice terms."""

from __future__ import annotations

import re
from typing import Any

from lark import Token

from dsl import nodes as n
from dsl.build.walk import (
    ESCAPES,
    NUMBER_END,
    Tagged,
    TreeWalk,
    WrittenName,
    number_value,
    range_ends,
    whole_number,
)
from dsl.errors import Span
from dsl.messages import tr
from dsl.nodes.base import is_number

#: what a quoted text's characters are read in pieces between: an escape, a brace
_TEXT_SPECIAL = re.compile(r"\\|\{\{|\}\}|\{")


class Expressions(TreeWalk):
    """The expressions' builders (part of the Builder)."""

    # ─── expressions ────────────────────────────────────────────────────────

    def _if_expr(self, span, condition, then, otherwise):
        return n.IfExpr(condition, then, otherwise, span=span)

    def _or_(self, span, left, right):
        return self._binary_node("or", left, right, span)

    def _and_(self, span, left, right):
        return self._binary_node("and", left, right, span)

    def _not_(self, span, operand):
        return n.Unary("not", operand, span=span)

    def _compare(self, span, left, op, right):
        return n.Binary(str(op), left, right, span=span, op_span=self._token_span(op))

    def _equal(self, span, left, right):
        return self._binary_node("=", left, right, span)

    def _in_(self, span, left, right):
        return self._binary_node("in", left, right, span)

    def _binary(self, span, left, op, right):
        return n.Binary(str(op), left, right, span=span, op_span=self._token_span(op))

    def _binary_node(self, op, left, right, span):
        # The operator sits between the operands; point at the gap when we lack its token.
        op_span = Span(self.source, left.span.end, right.span.start)
        return n.Binary(op, left, right, span=span, op_span=op_span)

    def _power(self, span, left, right):
        return self._binary_node("**", left, right, span)

    def _neg(self, span, operand):
        if isinstance(operand, n.Literal) and is_number(operand.value):
            return n.Literal(-operand.value, span=span)
        return n.Unary("-", operand, span=span)

    def _field(self, span, subject, name):
        if isinstance(subject, WrittenName):
            subject = n.Name(subject.text, span=subject.span)
        return n.Field(subject, name.text, span=span)

    def _character_call(self, span, subject, call):
        if isinstance(subject, WrittenName):
            subject = n.Name(subject.text, span=subject.span)
        return n.CharacterCall(subject, call, span=span)

    def _index(self, span, subject, *keys):
        if is_labelled_number(subject, keys, span):  # `1d20 + 5[bonus]`, as Roll20 writes it
            return n.Literal(subject.value, span=span)
        if isinstance(subject, WrittenName):
            subject = n.Name(subject.text, span=subject.span)
        return n.Index(subject, keys, span=span)

    def _call(self, span, name, *arguments):
        args: list[Any] = []
        named: list[tuple[str, Any]] = []
        for argument in arguments:
            if argument is None:
                continue
            if isinstance(argument, Tagged):
                key = argument.value[0]
                if any(key == k for k, _ in named):
                    raise self._error(
                        tr("the argument `{key}` is given twice", key=key), argument.span
                    )
                named.append(argument.value)
            elif named:
                raise self._error(
                    tr("a positional argument cannot follow a named one"), argument.span
                )
            else:
                args.append(argument)
        return n.Call(name.text, tuple(args), tuple(named), span=span, name_span=name.span)

    def _named_argument(self, span, name, expr):
        return Tagged("named", (name.text, expr), span)

    def _number(self, span, token):
        return n.Literal(number_value(token.value, span), span=span)

    def _text(self, span, token):
        return self._text_node(token, span)

    def _range_value(self, span, token):
        low, high = range_ends(token.value)
        if all(not end or NUMBER_END.fullmatch(end) for end in (low, high)):
            return self._range(token)
        # an end read from a name: the value of a sheet field, a parameter, a `let`
        at = self._token_span(token)
        start = at.start

        def end(text: str, offset: int):
            if not text:
                return None
            where = Span(at.source, start + offset, start + offset + len(text))
            if NUMBER_END.fullmatch(text):
                return n.Literal(whole_number(text, where), span=where)
            name = text[1:-1].strip() if text.startswith("'") else text
            return n.Name(name, span=where)

        return n.RangeOf(end(low, 0), end(high, len(low) + 2), span=at)

    def _name_ref(self, span, name):
        return n.Name(name.text, span=name.span)

    def _true(self, span):
        return n.Literal(True, span=span)

    def _false(self, span):
        return n.Literal(False, span=span)

    def _none(self, span):
        return n.Literal(None, span=span)

    def _list_literal(self, span, *items):
        return n.ListLiteral(tuple(i for i in items if i is not None), span=span)

    # ─── texts with {expression} parts ──────────────────────────────────────

    def _text_node(self, token, span):
        if not isinstance(token, Token):  # already unquoted (a text_literal)
            return n.Literal(token, span=span)
        raw = token.value
        base = token.start_pos or 0  # (a token of the parser's has one)
        parts: list = []
        buffer: list[str] = []  # pieces of text between the special characters, not characters
        i, end = 1, len(raw) - 1
        while i < end:
            found = _TEXT_SPECIAL.search(raw, i, end)
            at = end if found is None else found.start()
            if at > i:
                buffer.append(raw[i:at])
            if found is None:
                break
            special = found.group()
            if special == "\\":
                if at + 1 < end:
                    buffer.append(ESCAPES.get(raw[at + 1], raw[at + 1]))
                    i = at + 2
                else:
                    buffer.append(special)
                    i = at + 1
            elif special != "{":  # `{{` or `}}`: a brace of the text itself
                buffer.append(special[0])
                i = at + 2
            else:
                close = raw.find("}", at)
                if close < 0 or close >= end:
                    start = self.offset + base + at
                    raise self._error(
                        tr("this `{` is never closed with `}`"),
                        Span(self.source, start, start + 1),
                        tr("write {{ for a brace in the text itself"),
                    )
                if buffer:
                    parts.append("".join(buffer))
                    buffer = []
                parts.append(self._sub_expression(raw[at + 1 : close], base + at + 1))
                i = close + 1
        if buffer:
            parts.append("".join(buffer))
        if all(isinstance(p, str) for p in parts):
            return n.Literal("".join(parts), span=span)
        return n.Text(tuple(parts), span=span)


def is_labelled_number(subject, keys: tuple, span) -> bool:
    """A number with a one-word label right after it (`5[bonus]`): a number cannot be
    looked up, so the brackets are a label, as on a dice term."""
    return (
        isinstance(subject, n.Literal)
        and is_number(subject.value)
        and len(keys) == 1
        and isinstance(keys[0], WrittenName | n.Name)
        and span.text[len(subject.span.text) : len(subject.span.text) + 1] == "["
    )
