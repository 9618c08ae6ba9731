"""Building expressions, texts with {expression} parts, and dice terms."""

from __future__ import annotations

from lark import Token

from dsl import nodes as n
from dsl.build.walk import (
    DICE_HEAD,
    DICE_MODIFIER,
    ESCAPES,
    Tagged,
    WrittenName,
    is_number,
    number_value,
    whole_number,
)
from dsl.errors import Span


class Expressions:
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
        if isinstance(subject, WrittenName):
            subject = n.Name(subject.text, span=subject.span)
        return n.Index(subject, keys, span=span)

    def _call(self, span, name, *arguments):
        args, named = [], []
        for argument in arguments:
            if argument is None:
                continue
            if isinstance(argument, Tagged):
                key = argument.value[0]
                if any(key == k for k, _ in named):
                    raise self._error(f"the argument `{key}` is given twice", argument.span)
                named.append(argument.value)
            elif named:
                raise self._error("a positional argument cannot follow a named one", argument.span)
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
        return self._range(token)

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
        base = token.start_pos
        parts: list = []
        buffer: list[str] = []
        i = 1
        while i < len(raw) - 1:
            char = raw[i]
            if char == "\\" and i + 1 < len(raw) - 1:
                buffer.append(ESCAPES.get(raw[i + 1], raw[i + 1]))
                i += 2
            elif raw.startswith("{{", i) or raw.startswith("}}", i):
                buffer.append(char)
                i += 2
            elif char == "{":
                close = raw.find("}", i)
                if close < 0 or close >= len(raw) - 1:
                    start = self.offset + base + i
                    raise self._error(
                        "this `{` is never closed with `}`",
                        Span(self.source, start, start + 1),
                        "write {{ for a brace in the text itself",
                    )
                if buffer:
                    parts.append("".join(buffer))
                    buffer = []
                parts.append(self._sub_expression(raw[i + 1 : close], base + i + 1))
                i = close + 1
            else:
                buffer.append(char)
                i += 1
        if buffer:
            parts.append("".join(buffer))
        if all(isinstance(p, str) for p in parts):
            return n.Literal("".join(parts), span=span)
        return n.Text(tuple(parts), span=span)

    # ─── dice terms ─────────────────────────────────────────────────────────

    def _dice(self, span, token):
        return self._dice_term(token)

    def _dice_term(self, token: Token) -> n.Dice:
        text = token.value
        head = DICE_HEAD.match(text)
        count = self._dice_value(head, "count", token)
        sides_text = head.group("sides")
        if sides_text == "%":
            sides = 100
        elif sides_text == "F":
            sides = "F"
        else:
            sides = self._dice_value(head, "sides", token)
            if isinstance(sides, n.Literal):
                sides = sides.value
                if sides < 1:
                    raise self._error("a die needs at least one face", self._token_span(token))
        modifiers = []
        position = head.end()
        seen_cs = False
        while position < len(text):
            match = DICE_MODIFIER.match(text, position)
            mod_span = Span(
                self.source,
                self.offset + token.start_pos + match.start(),
                self.offset + token.start_pos + match.end(),
            )
            if match.group("keep"):
                mode = "kh" if match.group("keep") == "k" else match.group("keep")
                kept = self._dice_value(match, "kval", token)
                modifiers.append(n.Keep(mode, kept, span=mod_span))
            elif match.group("explode"):
                condition = None
                if match.group("xop"):
                    condition = n.Condition(
                        match.group("xop"), self._dice_value(match, "xval", token), span=mod_span
                    )
                once = match.group("explode") == "xo"
                modifiers.append(n.Explode(once, condition, span=mod_span))
            else:
                kind = match.group("kind")
                condition = n.Condition(
                    match.group("op"), self._dice_value(match, "val", token), span=mod_span
                )
                if kind in ("rr", "ro"):
                    modifiers.append(n.Reroll(kind == "ro", condition, span=mod_span))
                elif kind == "cs":
                    if seen_cs:
                        raise self._error("a dice term counts successes once (one `cs`)", mod_span)
                    seen_cs = True
                    modifiers.append(n.CountSuccesses(condition, span=mod_span))
                else:
                    if not seen_cs:
                        raise self._error(
                            "`df` takes successes away, so it needs a `cs` before it",
                            mod_span,
                            "as in 10d10cs>=6df=1",
                        )
                    if any(isinstance(m, n.CountFailures) for m in modifiers):
                        raise self._error("a dice term has one `df`", mod_span)
                    modifiers.append(n.CountFailures(condition, span=mod_span))
            position = match.end()
        return n.Dice(count, sides, tuple(modifiers), span=self._token_span(token))

    def _dice_value(self, match, group: str, token: Token):
        text = match.group(group)
        if text is None:
            return None
        start = match.start(group)
        if text.startswith("("):
            return self._sub_expression(text[1:-1], token.start_pos + start + 1)
        span = Span(
            self.source,
            self.offset + token.start_pos + start,
            self.offset + token.start_pos + match.end(group),
        )
        return n.Literal(whole_number(text, span), span=span)
