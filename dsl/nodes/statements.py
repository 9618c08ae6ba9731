"""Statement nodes: what an action's body is made of."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import Expression, span_field
from dsl.nodes.expressions import Call


@attrs.frozen
class Let:
    name: str
    expr: Expression
    span: Span = span_field()


@attrs.frozen
class Set:
    place: Expression
    expr: Expression
    span: Span = span_field()


@attrs.frozen
class Change:
    """`spend`, `gain` or `lose` an amount of a place on the sheet."""

    verb: str
    amount: Expression
    place: Expression
    span: Span = span_field()


@attrs.frozen
class Require:
    condition: Expression
    message: Expression  # Text or Literal
    span: Span = span_field()


@attrs.frozen
class If:
    branches: tuple  # of (condition, body)
    otherwise: tuple | None
    span: Span = span_field()


@attrs.frozen
class Match:
    subject: Expression
    cases: tuple  # of (values, body)
    otherwise: tuple | None
    span: Span = span_field()


@attrs.frozen
class ForEach:
    var: str
    items: Expression
    body: tuple
    span: Span = span_field()


@attrs.frozen
class Repeat:
    count: Expression
    until: Expression  # expression or None
    body: tuple
    span: Span = span_field()


@attrs.frozen
class Result:
    fields: tuple  # of (name, expression)
    span: Span = span_field()


@attrs.frozen
class Note:
    text: Expression
    span: Span = span_field()


@attrs.frozen
class Do:
    call: Call
    span: Span = span_field()


@attrs.frozen
class Add:
    """`add x to Lista`, or `add "Nombre" to Catálogo { campo: valor, ... }`."""

    item: Expression
    place: Expression
    fields: tuple | None  # an entry's fields, when the place is a catalog
    span: Span = span_field()


@attrs.frozen
class Effect:
    """`effect "Temblores" modifier -2 on acciones for 2 turno`: a lasting effect on the
    sheet (taking the place of one of the same name), until its time has passed."""

    name: Expression
    modifier: Expression  # expression or None (0)
    targets: tuple  # of (name, span): a declared target, or a local naming a field
    amount: Expression  # how many units it lasts (`until escena` is 1)
    unit: str
    unit_span: Span
    span: Span = span_field()


@attrs.frozen
class PassTime:
    """`pass 1 turno`: time passes on the sheet's lasting effects of that unit's clock."""

    amount: Expression
    unit: str
    unit_span: Span
    span: Span = span_field()


@attrs.frozen
class EndEffect:
    """`end "Ventaja"`: a lasting effect ends now (nothing happens if it is not on)."""

    name: Expression
    span: Span = span_field()


@attrs.frozen
class Option:
    """One option of a `choose`: its value, and when it is offered, what it costs, what
    it does (`option sí if PuntosDestino > 0 cost 1 from PuntosDestino { ... }`)."""

    value: Expression  # a Literal: the text or number the choice's name holds once chosen
    condition: Expression  # expression or None
    cost: Expression  # (amount, place) or None
    body: tuple
    # `option each d in r.sorted`: (the name, the list) — an option for each item, the
    # item named in the condition, the cost and the body; `value` is None
    each: Expression = None
    span: Span = span_field()


@attrs.frozen
class Choose:
    """A decision taken during an action, after seeing what was rolled: `name` holds the
    option chosen; `by` is the character parameter who decides (None: the acting one)."""

    name: str
    by: str | None
    label: Expression  # Literal or None
    options: tuple  # of Option
    span: Span = span_field()
