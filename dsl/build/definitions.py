"""Building definitions: the header, the sheet, rolls, ladders, formulas, tables, checks."""

from __future__ import annotations

from typing import Any

import attrs
from lark import Token

from dsl import nodes as n
from dsl.build.walk import (
    NUMBER_END,
    Tagged,
    TreeWalk,
    WrittenName,
    number_value,
    range_ends,
    unquote,
    whole_number,
)
from dsl.messages import tr

#: most times one face may show one symbol (`3 success`)
MAX_SYMBOLS_ON_FACE = 9


class Definitions(TreeWalk):
    """The definitions' builders (part of the Builder)."""

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
                raise self._error(tr("the header gives `{key}` twice", key=key), span)
        return n.Header(title, extends, tuple(fields), span=span)

    def _extends(self, span, base):
        return base.text if isinstance(base, WrittenName) else unquote(base.value)

    def _header_field(self, span, key, value):
        return (str(key), value)

    def _replace(self, span, definition):
        return n.Replace(definition, span=span)

    def _text_literal(self, span, token):
        return unquote(token.value)

    def _label(self, span, token):
        return unquote(token.value)

    def _name(self, span, token):
        text = token.value[1:-1].strip() if token.type == "QUOTED_NAME" else token.value
        return WrittenName(text, self._token_span(token))

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

    def _effects(self, span, name, targets, *clocks):
        return n.Effects(name.text, tuple(t.text for t in targets), clocks, span=name.span)

    def _clock(self, span, *units):
        return units

    def _time_unit(self, span, name, count, of):
        value = number_value(count.value, self._token_span(count)) if count is not None else None
        return n.TimeUnit(name.text, value, of.text if of is not None else None, span=span)

    def _default(self, span, expr):
        return expr

    def _range_clause(self, span, token):
        return self._range(token)

    def _range(self, token: Token) -> n.Range:
        low, high = range_ends(token.value)
        span = self._token_span(token)
        for end in (low, high):
            if end and not NUMBER_END.fullmatch(end):
                raise self._error(
                    tr("a range here has whole numbers for ends, not {end}", end=end),
                    span,
                    tr("as in 1..10, 24.. or ..8"),
                )
        if not low and not high:
            raise self._error(tr("a range needs at least one end, as in 1..10 or 24.."), span)
        result = n.Range(
            whole_number(low, span) if low else None,
            whole_number(high, span) if high else None,
            span=span,
        )
        if result.low is not None and result.high is not None and result.low > result.high:
            raise self._error(
                tr("this range is empty: {low} is above {high}", low=result.low, high=result.high),
                span,
            )
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
            if isinstance(step, WrittenName):
                values.append(n.Literal(step.text, span=step.span))
            else:
                values.append(step)
        for step in values:
            if isinstance(step, n.Dice) and (
                step.count is not None or step.modifiers or not isinstance(step.sides, int)
            ):
                raise self._error(tr("a ladder step is a single die such as d8"), step.span)
        return n.Ladder(name.text, tuple(values), span=name.span)

    def _negative_number(self, span, token):
        return n.Literal(-number_value(token.value, span), span=span)

    def _formula(self, span, name, params, body):
        return n.Formula(name.text, params, body, span=name.span)

    # ─── symbol dice ────────────────────────────────────────────────────────

    def _symbols(self, span, names):
        return n.Symbols(tuple((name.text, name.span) for name in names), span=span)

    def _die(self, span, name, *faces):
        return n.DieDef(name.text, tuple(faces), span=name.span)

    def _blank_face(self, span):
        return n.DieFace((), span=span)

    def _die_face(self, span, *parts):
        for part in parts:
            if isinstance(part, Token) and part.value != "+":
                raise self._error(
                    tr("a face's symbols are joined with +, not {sign}", sign=part.value),
                    self._token_span(part),
                    tr("as in success + advantage"),
                )
        return n.DieFace(tuple(p for p in parts if not isinstance(p, Token)), span=span)

    def _face_symbol(self, span, count, name):
        how_many = 1
        if count is not None:
            how_many = number_value(count.value, span)
            if type(how_many) is not int or not 1 <= how_many <= MAX_SYMBOLS_ON_FACE:
                raise self._error(
                    tr(
                        "a face shows each symbol 1 to {most} times",
                        most=MAX_SYMBOLS_ON_FACE,
                    ),
                    span,
                    tr("as in 2 advantage"),
                )
        return (name.text, how_many, span)

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
            fields: list[Any] = []
            for field in row.rows:
                key = field.key
                if key.kind != "value" or not isinstance(key.low, str) or field.rows:
                    raise self._error(
                        tr("a record field is `name: value`"),
                        key.span,
                        tr("a table looked up by several keys names them all: `by zona, punto`"),
                    )
                if field.value is None:
                    raise self._error(
                        tr("the field `{name}` needs a value", name=key.low), key.span
                    )
                if any(key.low == name for name, _ in fields):
                    raise self._error(
                        tr("the field `{name}` is given twice", name=key.low), key.span
                    )
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
        return n.Key("range", r.low, r.high, span=r.span if r.span is not None else span)

    def _number_key(self, span, token):
        span = self._token_span(token)
        return n.Key("value", number_value(token.value, span), span=span)

    def _name_key(self, span, name):
        return n.Key("value", name.text, span=name.span)

    def _text_key(self, span, token):
        return n.Key("value", unquote(token.value), span=self._token_span(token))

    def _else_key(self, span):
        return n.Key("else", span=span)

    def _cell(self, span, first, body=None):
        if isinstance(first, Tagged) and first.tag == "body":
            return (None, first.value)
        return (first, body.value if body is not None else None)

    def _cell_body(self, span, *entries):
        return Tagged("body", entries, span)

    # ─── checks and actions ─────────────────────────────────────────────────

    def _check(self, span, name, params, label, *items):
        lets, fields, roll, degrees = [], [], None, ()
        for item in items:
            if isinstance(item, Tagged) and item.tag == "degrees":
                if roll is None:
                    raise self._error(tr("a check's degrees come after its `roll`"), item.span)
                if degrees:
                    raise self._error(tr("a check has one `degrees` block"), item.span)
                degrees = tuple(label for label, _, _ in item.value)
                fields.append(("degree", self._degree_field(item)))
                continue
            if isinstance(item, n.Let):
                if roll is not None:
                    raise self._error(
                        tr("a check's `let`s come before its `roll`"),
                        item.span,
                        tr(
                            "after the roll, a value is a result field: `{name} = …`",
                            name=item.name,
                        ),
                    )
                lets.append(item)
            elif item.tag == "roll":
                if roll is not None:
                    raise self._error(tr("a check has one `roll`"), item.span)
                roll = item
            else:
                if roll is None:
                    raise self._error(
                        tr("a check's result fields come after its `roll`"), item.span
                    )
                fields.append(item.value)
        if roll is None:
            raise self._error(
                tr("check {name} has no `roll`", name=name.text),
                name.span,
                tr("write `roll <dice and modifiers> >= <target>`"),
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
            degrees,
            span=name.span,
        )

    def _degree_field(self, block: Tagged):
        """`degrees { a: c1  b: c2  c: else }` is the field `degree = if c1 then "a" else
        if c2 then "b" else "c"` (none when no degree holds and there is no `else`)."""
        rows = block.value
        labels = [label for label, _, _ in rows]
        for i, (label, condition, row_span) in enumerate(rows):
            if labels.index(label) != i:
                raise self._error(tr("the degree `{label}` is listed twice", label=label), row_span)
            if condition is None and i != len(rows) - 1:
                raise self._error(
                    tr("`else` is the last degree: the ones after it are never reached"), row_span
                )
        last_label, last_condition, last_span = rows[-1]
        value: Any
        if last_condition is None:
            value, rows = n.Literal(last_label, span=last_span), rows[:-1]
        else:
            value = n.Literal(None, span=block.span)
        for label, condition, row_span in reversed(rows):
            value = n.IfExpr(condition, n.Literal(label, span=row_span), value, span=row_span)
        return value

    def _check_degrees(self, span, *rows):
        return Tagged("degrees", rows, span)

    def _degree(self, span, label, condition):
        return (self._choice_text(label), condition, span)

    def _degree_else(self, span, label):
        return (self._choice_text(label), None, span)

    def _choice_text(self, choice) -> str:
        return choice.text if isinstance(choice, WrittenName) else unquote(choice.value)

    def _check_roll(self, span, expr):
        return Tagged("roll", expr, span)

    def _check_field(self, span, name, expr):
        return Tagged("field", (name.text, expr), span)

    def _opposed(self, span, name, params, label, *items):
        # `compare` left out: the default, which depends on the sides (dsl.opposed)
        parts: dict[str, Any] = {"roll": None, "against": None, "compare": (), "tie": "reroll"}
        fields = []
        for item in items:
            if item.tag == "field":
                fields.append(item.value)
                continue
            if item.tag in ("roll", "against") and parts[item.tag] is not None:
                raise self._error(tr("an opposed check has one `{tag}`", tag=item.tag), item.span)
            parts[item.tag] = item.value
        for tag in ("roll", "against"):
            if parts[tag] is None:
                raise self._error(
                    tr("opposed check {name} has no `{tag}`", name=name.text, tag=tag), name.span
                )
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
        return Tagged("roll", expr, span)

    def _opposed_against(self, span, expr):
        return Tagged("against", expr, span)

    def _opposed_compare(self, span, names):
        return Tagged("compare", tuple(name.text for name in names), span)

    def _opposed_tie(self, span, token):
        return Tagged("tie", str(token), span)

    def _opposed_tie_none(self, span):
        return Tagged("tie", "none", span)

    def _action(self, span, name, params, label, body):
        return n.Action(name.text, params, label, body, span=name.span)

    def _param_list(self, span, *params):
        return tuple(p for p in params if p is not None)

    def _param(self, span, name, type_, default):
        return n.Param(name.text, type_, default, span=name.span)

    def _named_type(self, span, name):
        return n.NamedType(name.text, span=name.span)

    def _enum_type(self, span, *choices):
        texts = [self._choice_text(choice) for choice in choices]
        if len(set(texts)) != len(texts):
            raise self._error(tr("a choice is listed twice"), span)
        return n.EnumType(tuple(texts), span=span)

    def _list_type(self, span, item):
        return n.ListType(item, span=span)
