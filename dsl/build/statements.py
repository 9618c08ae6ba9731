"""Building statements: the body of an action."""

from __future__ import annotations

from dsl import nodes as n
from dsl.build.walk import (
    Tagged,
    TreeWalk,
    WrittenName,
)
from dsl.messages import tr


class Statements(TreeWalk):
    """The statements' builders (part of the Builder)."""

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
        return n.Name(place.text, span=place.span) if isinstance(place, WrittenName) else place

    def _require(self, span, condition, message):
        return n.Require(condition, self._text_node(message, self._token_span(message)), span=span)

    def _if_(self, span, condition, body, *rest):
        *else_ifs, otherwise = rest
        branches = [(condition, body), *(item.value for item in else_ifs)]
        return n.If(tuple(branches), otherwise.value if otherwise else None, span=span)

    def _else_if(self, span, condition, body):
        return Tagged("else_if", (condition, body), span)

    def _else_block(self, span, body):
        return Tagged("else", body, span)

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
        return Tagged("case", (tuple(values), body), span)

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
                raise self._error(tr("the result names `{name}` twice", name=name), span)
        return n.Result(fields, span=span)

    def _result_field(self, span, name, expr):
        return (name.text, expr)

    def _note(self, span, expr):
        return n.Note(expr, span=span)

    def _choose(self, span, name, by, label, *options):
        values = [option.value.value if option.each is None else option for option in options]
        for i, option in enumerate(options):
            if option.each is None and values.index(values[i]) != i:
                raise self._error(
                    tr("the option {value} is listed twice", value=values[i]), option.value.span
                )
        # the question, a text like any other: `"Burn momentum ({x} now)?"` shows x's value
        label_node = None
        if label is not None:
            label_node = self._text_node(label, self._token_span(label))
        return n.Choose(
            name.text, by.text if by is not None else None, label_node, options, span=span
        )

    def _option(self, span, value, condition, cost, body):
        if isinstance(value, WrittenName):
            value = n.Literal(value.text, span=value.span)
        if not isinstance(value, n.Literal):  # a text with {…} parts
            raise self._error(tr("an option is a word, a text or a number"), value.span)
        return n.Option(value, condition, cost, body or (), span=span)

    def _option_each(self, span, name, items, condition, cost, body):
        return n.Option(None, condition, cost, body or (), (name.text, items), span=span)

    def _option_cost(self, span, amount, place):
        return (amount, self._place(place))

    def _do_as(self, span, subject, call):
        return n.Do(self._character_call(span, subject, call), span=span)

    def _do(self, span, call):
        return n.Do(call, span=span)

    def _add(self, span, item, place, fields):
        return n.Add(item, self._place(place), fields, span=span)

    def _entry_fields(self, span, *fields):
        names = [name for name, _ in fields]
        for name in set(names):
            if names.count(name) > 1:
                raise self._error(tr("the field `{name}` is given twice", name=name), span)
        return fields

    def _effect(self, span, name, modifier, targets, duration):
        amount, unit = duration
        return n.Effect(
            name,
            modifier,
            tuple((t.text, t.span) for t in targets or ()),
            amount,
            unit.text,
            unit.span,
            span=span,
        )

    def _effect_modifier(self, span, expr):
        return expr

    def _effect_targets(self, span, names):
        return names

    def _for_duration(self, span, amount, unit):
        return (amount, unit)

    def _until_duration(self, span, unit):
        return (n.Literal(1, span=unit.span), unit)

    def _pass_time(self, span, amount, unit):
        return n.PassTime(amount, unit.text, unit.span, span=span)

    def _end_effect(self, span, name):
        return n.EndEffect(name, span=span)
