"""Lark parse tree to AST nodes (dsl.nodes), with source spans on every node.

The walk is iterative, so a long expression cannot exhaust Python's stack here, and the
depth of every expression is bounded (MAX_DEPTH) so that later stages cannot either.
Parts that the grammar keeps inside one token are parsed here: the counts, sides and
values of a dice term (`(Areté)d10cs>=(dif)`) and the `{...}` parts of a text.
"""

from __future__ import annotations

import re
from fractions import Fraction

import attrs
from lark import Token, Tree

from dsl import nodes as n
from dsl.errors import RulebookSyntaxError, Source, Span
from dsl.parser import parse_tree

#: deepest expression tree accepted (a chain `a + b + c ...` counts one level per term)
MAX_DEPTH = 200

_PAREN = r"\((?:[^()\n]|\([^()\n]*\))*\)"
_DICE_HEAD = re.compile(rf"(?P<count>\d+|{_PAREN})?d(?P<sides>\d+|%|F|{_PAREN})")
_DICE_MOD = re.compile(
    rf"(?P<keep>kh|kl|dh|dl|k)(?P<kval>\d+|{_PAREN})?"
    rf"|(?P<explode>xo?)(?:(?P<xop>>=|<=|>|<|=)(?P<xval>-?\d+|{_PAREN}))?"
    rf"|(?P<kind>rr|ro|cs|df)(?P<op>>=|<=|>|<|=)(?P<val>-?\d+|{_PAREN})"
)


@attrs.frozen
class _Name:
    """A name as written, with its span (the builder's own intermediate value)."""

    text: str
    span: Span


@attrs.frozen
class _Item:
    """A tagged piece of a larger construct (a check's `roll`, an `else` block, ...)."""

    tag: str
    value: object
    span: Span


def parse_expression(text: str, name: str = "<expression>") -> object:
    """Parse a dice expression such as `4d6kh3 + 2` into an AST node."""
    source = Source(name, text)
    return Builder(source).build(parse_tree(text, source, "expression"))


def parse_rulebook_file(text: str, name: str) -> n.RulebookFile:
    """Parse one rulebook file (a house rule is merged with its base later)."""
    source = Source(name, text)
    return Builder(source).build(parse_tree(text, source, "rulebook"))


class Builder:
    def __init__(self, source: Source, offset: int = 0):
        self.source = source
        self.offset = offset

    # ─── the walk ───────────────────────────────────────────────────────────

    def build(self, root):
        results: list = []  # (value, depth)
        stack: list = [(root, False)]
        while stack:
            node, visited = stack.pop()
            if not isinstance(node, Tree):
                results.append((node, 0))
                continue
            if not visited:
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node.children))
                continue
            count = len(node.children)
            built = results[len(results) - count :] if count else []
            del results[len(results) - count :]
            depth = 1 + max((d for _, d in built), default=0)
            span = self._tree_span(node)
            if depth > MAX_DEPTH and node.data in _EXPRESSION_RULES:
                raise RulebookSyntaxError(
                    f"this expression is nested more than {MAX_DEPTH} levels deep",
                    span,
                    "split it with `let` into smaller parts",
                )
            handler = getattr(self, f"_{node.data}")
            results.append((handler(span, *[value for value, _ in built]), depth))
        return results[0][0]

    def _tree_span(self, tree: Tree) -> Span:
        meta = tree.meta
        if getattr(meta, "empty", True):
            return Span(self.source, self.offset, self.offset)
        return Span(self.source, self.offset + meta.start_pos, self.offset + meta.end_pos)

    def _token_span(self, token: Token) -> Span:
        start = self.offset + token.start_pos
        return Span(self.source, start, start + len(token.value))

    def _sub_expression(self, text: str, offset: int):
        """Parse a part of a token (dice count, text interpolation) as an expression."""
        start = self.offset + offset
        tree = parse_tree(text, self.source, "expression", start)
        return Builder(self.source, start).build(tree)

    def _error(self, message: str, span: Span, hint: str | None = None):
        return RulebookSyntaxError(message, span, hint)

    # ─── files and headers ──────────────────────────────────────────────────

    def _rulebook(self, span, *children):
        header = None
        definitions = list(children)
        if definitions and isinstance(definitions[0], n.Header):
            header = definitions.pop(0)
        return n.RulebookFile(header, tuple(definitions), span=span)

    def _expression(self, span, expr):
        return expr

    def _header(self, span, title, extends, *fields):
        keys = [key for key, _ in fields]
        for key in set(keys):
            if keys.count(key) > 1:
                raise self._error(f"the header gives `{key}` twice", span)
        return n.Header(title, extends, tuple(fields), span=span)

    def _extends(self, span, base):
        return base.text if isinstance(base, _Name) else _unquote(base.value)

    def _header_field(self, span, key, value):
        return (str(key), value)

    def _replace(self, span, definition):
        return n.Replace(definition, span=span)

    def _text_literal(self, span, token):
        return _unquote(token.value)

    def _label(self, span, token):
        return _unquote(token.value)

    def _name(self, span, token):
        text = token.value[1:-1].strip() if token.type == "QUOTED_NAME" else token.value
        return _Name(text, self._token_span(token))

    def _names(self, span, *names):
        return names

    # ─── the sheet ──────────────────────────────────────────────────────────

    def _sheet(self, span, *items):
        flat = []
        for item in items:
            flat.extend(item if isinstance(item, list) else [item])
        return n.Sheet(tuple(flat), span=span)

    def _attribute(self, span, names, range_, default):
        return [n.Stat("attribute", name.text, range_, default, span=name.span) for name in names]

    def _skill(self, span, names, range_, default):
        return [n.Stat("skill", name.text, range_, default, span=name.span) for name in names]

    def _open_skills(self, span, range_, default):
        return n.OpenSkills(range_, default, span=span)

    def _resource(self, span, name, key, maximum, minimum):
        key_var, key_group = key if key else (None, None)
        return n.Resource(name.text, key_var, key_group, maximum, minimum, span=name.span)

    def _resource_key(self, span, var, group):
        return (var.text, group.text)

    def _resource_min(self, span, expr):
        return expr

    def _counter(self, span, names, range_, default):
        return [n.Counter(name.text, range_, default, span=name.span) for name in names]

    def _flag(self, span, names, default):
        return [n.Flag(name.text, default, span=name.span) for name in names]

    def _text_field(self, span, names):
        return [n.TextField(name.text, span=name.span) for name in names]

    def _list_field(self, span, names):
        return [n.ListField(name.text, span=name.span) for name in names]

    def _catalog(self, span, name, *fields):
        return n.Catalog(name.text, fields, span=name.span)

    def _catalog_field(self, span, name, type_):
        return n.Param(name.text, type_, None, span=name.span)

    def _group(self, span, name, members):
        return n.Group(name.text, tuple(m.text for m in members), span=name.span)

    def _derived(self, span, name, expr):
        return n.Derived(name.text, expr, span=name.span)

    def _ensure(self, span, condition, message):
        return n.Ensure(condition, message, span=span)

    def _default(self, span, expr):
        return expr

    def _range_clause(self, span, token):
        return self._range(token)

    def _range(self, token: Token) -> n.Range:
        low, _, high = token.value.partition("..")
        span = self._token_span(token)
        if not low and not high:
            raise self._error("a range needs at least one end, as in 1..10 or 24..", span)
        result = n.Range(int(low) if low else None, int(high) if high else None, span=span)
        if result.low is not None and result.high is not None and result.low > result.high:
            raise self._error(f"this range is empty: {result.low} is above {result.high}", span)
        return result

    # ─── rolls, ladders, formulas ───────────────────────────────────────────

    def _roll_def(self, span, name, params, body, rules):
        return n.RollDef(name.text, params or (), body, rules or (), span=name.span)

    def _roll_rules(self, span, *rules):
        return rules

    def _roll_rule(self, span, condition, sign, extra, again):
        return n.RollRule(condition, sign, extra, again, span=span)

    def _roll_sign(self, span, token):
        return 1 if token == "add" else -1

    def _again(self, span, expr):
        return expr

    def _ladder(self, span, name, *steps):
        values = []
        for step in steps:
            if isinstance(step, _Name):
                values.append(n.Literal(step.text, span=step.span))
            else:
                values.append(step)
        for step in values:
            if isinstance(step, n.Dice) and (
                step.count is not None or step.modifiers or not isinstance(step.sides, int)
            ):
                raise self._error("a ladder step is a single die such as d8", step.span)
        return n.Ladder(name.text, tuple(values), span=name.span)

    def _negative_number(self, span, token):
        return n.Literal(-_number(token.value), span=span)

    def _formula(self, span, name, params, body):
        return n.Formula(name.text, params, body, span=name.span)

    # ─── tables ─────────────────────────────────────────────────────────────

    def _table(self, span, name, keys, domain, *entries):
        keys = keys or ()
        rows = self._shape_rows(entries, 0, max(1, len(keys)))
        return n.Table(name.text, keys, domain, rows, span=name.span)

    def _shape_rows(self, rows, depth: int, levels: int) -> tuple:
        """Braces after a cell hold a sub-table above the last level, record fields at it."""
        shaped = []
        for row in rows:
            if depth < levels - 1:
                shaped.append(attrs.evolve(row, rows=self._shape_rows(row.rows, depth + 1, levels)))
                continue
            fields = []
            for field in row.rows:
                key = field.key
                if key.kind != "value" or not isinstance(key.low, str) or field.rows:
                    raise self._error(
                        "a record field is `name: value`",
                        key.span,
                        "a table looked up by several keys names them all: `by zona, punto`",
                    )
                if field.value is None:
                    raise self._error(f"the field `{key.low}` needs a value", key.span)
                if any(key.low == name for name, _ in fields):
                    raise self._error(f"the field `{key.low}` is given twice", key.span)
                fields.append((key.low, field.value))
            shaped.append(attrs.evolve(row, fields=tuple(fields), rows=()))
        return tuple(shaped)

    def _table_keys(self, span, *names):
        return tuple(name.text for name in names)

    def _entry(self, span, key, cell):
        value, body = cell
        rows = body if body is not None else ()
        return n.Row(key, value, (), rows, span=span)

    def _range_key(self, span, token):
        r = self._range(token)
        return n.Key("range", r.low, r.high, span=r.span)

    def _number_key(self, span, token):
        return n.Key("value", _number(token.value), span=self._token_span(token))

    def _name_key(self, span, name):
        return n.Key("value", name.text, span=name.span)

    def _text_key(self, span, token):
        return n.Key("value", _unquote(token.value), span=self._token_span(token))

    def _else_key(self, span):
        return n.Key("else", span=span)

    def _cell(self, span, first, body=None):
        if isinstance(first, _Item) and first.tag == "body":
            return (None, first.value)
        return (first, body.value if body is not None else None)

    def _cell_body(self, span, *entries):
        return _Item("body", entries, span)

    # ─── checks and actions ─────────────────────────────────────────────────

    def _check(self, span, name, params, label, *items):
        lets, fields, roll = [], [], None
        for item in items:
            if isinstance(item, n.Let):
                if roll is not None:
                    raise self._error("a check's `let`s come before its `roll`", item.span)
                lets.append(item)
            elif item.tag == "roll":
                if roll is not None:
                    raise self._error("a check has one `roll`", item.span)
                roll = item
            else:
                if roll is None:
                    raise self._error("a check's result fields come after its `roll`", item.span)
                fields.append(item.value)
        if roll is None:
            raise self._error(
                f"check {name.text} has no `roll`",
                name.span,
                "write `roll <dice and modifiers> >= <target>`",
            )
        expr, comparison, target = roll.value, None, None
        if isinstance(expr, n.Binary) and expr.op in (">=", ">", "<=", "<"):
            expr, comparison, target = expr.left, expr.op, expr.right
        return n.Check(
            name.text,
            params,
            label,
            tuple(lets),
            expr,
            comparison,
            target,
            tuple(fields),
            span=name.span,
        )

    def _check_roll(self, span, expr):
        return _Item("roll", expr, span)

    def _check_field(self, span, name, expr):
        return _Item("field", (name.text, expr), span)

    def _opposed(self, span, name, params, label, *items):
        parts = {"roll": None, "against": None, "compare": ("total",), "tie": "reroll"}
        fields = []
        for item in items:
            if item.tag == "field":
                fields.append(item.value)
                continue
            if item.tag in ("roll", "against") and parts[item.tag] is not None:
                raise self._error(f"an opposed check has one `{item.tag}`", item.span)
            parts[item.tag] = item.value
        for tag in ("roll", "against"):
            if parts[tag] is None:
                raise self._error(f"opposed check {name.text} has no `{tag}`", name.span)
        return n.Opposed(
            name.text,
            params,
            label,
            parts["roll"],
            parts["against"],
            parts["compare"],
            parts["tie"],
            tuple(fields),
            span=name.span,
        )

    def _opposed_roll(self, span, expr):
        return _Item("roll", expr, span)

    def _opposed_against(self, span, expr):
        return _Item("against", expr, span)

    def _opposed_compare(self, span, names):
        return _Item("compare", tuple(name.text for name in names), span)

    def _opposed_tie(self, span, token):
        return _Item("tie", str(token), span)

    def _action(self, span, name, params, label, body):
        return n.Action(name.text, params, label, body, span=name.span)

    def _param_list(self, span, *params):
        return tuple(p for p in params if p is not None)

    def _param(self, span, name, type_, default):
        return n.Param(name.text, type_, default, span=name.span)

    def _named_type(self, span, name):
        return n.NamedType(name.text, span=name.span)

    def _enum_type(self, span, *choices):
        texts = []
        for choice in choices:
            texts.append(choice.text if isinstance(choice, _Name) else _unquote(choice.value))
        if len(set(texts)) != len(texts):
            raise self._error("a choice is listed twice", span)
        return n.EnumType(tuple(texts), span=span)

    def _list_type(self, span, item):
        return n.ListType(item, span=span)

    # ─── statements ─────────────────────────────────────────────────────────

    def _block(self, span, *statements):
        return statements

    def _let(self, span, name, expr):
        return n.Let(name.text, expr, span=span)

    def _set(self, span, place, expr):
        return n.Set(self._place(place), expr, span=span)

    def _spend(self, span, amount, place):
        return n.Change("spend", amount, self._place(place), span=span)

    def _gain(self, span, amount, place):
        return n.Change("gain", amount, self._place(place), span=span)

    def _lose(self, span, amount, place):
        return n.Change("lose", amount, self._place(place), span=span)

    def _place(self, place):
        return n.Name(place.text, span=place.span) if isinstance(place, _Name) else place

    def _require(self, span, condition, message):
        return n.Require(condition, self._text_node(message, self._token_span(message)), span=span)

    def _if_(self, span, condition, body, *rest):
        *else_ifs, otherwise = rest
        branches = [(condition, body), *(item.value for item in else_ifs)]
        return n.If(tuple(branches), otherwise.value if otherwise else None, span=span)

    def _else_if(self, span, condition, body):
        return _Item("else_if", (condition, body), span)

    def _else_block(self, span, body):
        return _Item("else", body, span)

    def _match(self, span, subject, *rest):
        *cases, otherwise = rest
        return n.Match(
            subject,
            tuple(c.value for c in cases),
            otherwise.value if otherwise else None,
            span=span,
        )

    def _case(self, span, *parts):
        *values, body = parts
        return _Item("case", (tuple(values), body), span)

    def _for_each(self, span, name, items, body):
        return n.ForEach(name.text, items, body, span=span)

    def _repeat(self, span, count, until, body):
        return n.Repeat(count, until, body, span=span)

    def _until(self, span, expr):
        return expr

    def _result(self, span, *fields):
        names = [name for name, _ in fields]
        for name in set(names):
            if names.count(name) > 1:
                raise self._error(f"the result names `{name}` twice", span)
        return n.Result(fields, span=span)

    def _result_field(self, span, name, expr):
        return (name.text, expr)

    def _note(self, span, expr):
        return n.Note(expr, span=span)

    def _do(self, span, call):
        return n.Do(call, span=span)

    def _add(self, span, item, place, fields):
        return n.Add(item, self._place(place), fields, span=span)

    def _entry_fields(self, span, *fields):
        names = [name for name, _ in fields]
        for name in set(names):
            if names.count(name) > 1:
                raise self._error(f"the field `{name}` is given twice", span)
        return fields

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
        if isinstance(operand, n.Literal) and _is_number(operand.value):
            return n.Literal(-operand.value, span=span)
        return n.Unary("-", operand, span=span)

    def _field(self, span, subject, name):
        if isinstance(subject, _Name):
            subject = n.Name(subject.text, span=subject.span)
        return n.Field(subject, name.text, span=span)

    def _index(self, span, subject, *keys):
        if isinstance(subject, _Name):
            subject = n.Name(subject.text, span=subject.span)
        return n.Index(subject, keys, span=span)

    def _call(self, span, name, *arguments):
        args, named = [], []
        for argument in arguments:
            if argument is None:
                continue
            if isinstance(argument, _Item):
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
        return _Item("named", (name.text, expr), span)

    def _number(self, span, token):
        return n.Literal(_number(token.value), span=span)

    def _text(self, span, token):
        return self._text_node(token, span)

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
                buffer.append(_ESCAPES.get(raw[i + 1], raw[i + 1]))
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
        head = _DICE_HEAD.match(text)
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
            match = _DICE_MOD.match(text, position)
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
        return n.Literal(int(text), span=span)


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}

_EXPRESSION_RULES = {
    "if_expr",
    "or_",
    "and_",
    "not_",
    "compare",
    "equal",
    "in_",
    "binary",
    "neg",
    "field",
    "index",
    "call",
    "list_literal",
}


def _unquote(text: str) -> str:
    body = text[1:-1]
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _number(text: str):
    value = Fraction(text)
    return value.numerator if value.denominator == 1 else value


def _is_number(value) -> bool:
    return isinstance(value, int | Fraction) and not isinstance(value, bool)
