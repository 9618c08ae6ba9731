"""Definition nodes: parameters and types, rolls, ladders, formulas, tables, checks, actions."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import Expression, span_field
from dsl.nodes.sheet import Range

# ─── types and parameters ───────────────────────────────────────────────────


@attrs.frozen
class NamedType:
    """`int`, `number`, `bool`, `text`, `attribute`, `skill`, or a declared name."""

    name: str
    span: Span = span_field()


@attrs.frozen
class EnumType:
    """`evocación | don | lustración`: one of these texts."""

    choices: tuple
    span: Span = span_field()


@attrs.frozen
class ListType:
    item: Expression
    span: Span = span_field()


@attrs.frozen
class Param:
    name: str
    type: Expression
    default: Expression  # expression or None (required)
    span: Span = span_field()


# ─── rolls, ladders, formulas, tables ───────────────────────────────────────


@attrs.frozen
class RollRule:
    """`on die = 10: add d6 - 1, again while die = 6`."""

    condition: Expression
    sign: int  # +1 add, -1 subtract
    extra: Expression
    again: Expression  # expression or None
    span: Span = span_field()


@attrs.frozen
class RollDef:
    name: str
    params: tuple
    body: Expression
    rules: tuple
    span: Span = span_field()


@attrs.frozen
class Ladder:
    """An ordered list of steps (die sizes, difficulty names) to move along."""

    name: str
    steps: tuple
    span: Span = span_field()


@attrs.frozen
class Formula:
    name: str
    params: tuple
    body: Expression
    span: Span = span_field()


@attrs.frozen
class Key:
    """A table row key: a value, a range (`low`/`high` may be open), or `else`."""

    kind: str  # "value", "range", "else"
    low: Expression = None
    high: Expression = None
    span: Span = span_field()

    def describe(self) -> str:
        if self.kind == "else":
            return "else"
        if self.kind == "value":
            return str(self.low)
        low = "" if self.low is None else str(self.low)
        high = "" if self.high is None else str(self.high)
        return f"{low}..{high}"


@attrs.frozen
class Row:
    """A row: its key, and a cell that holds a value, record fields, or a sub-table."""

    key: Key
    value: Expression  # expression or None
    fields: tuple  # of (name, expression)
    rows: tuple  # sub-table rows (two-level tables), else ()
    span: Span = span_field()


@attrs.frozen
class Table:
    name: str
    keys: tuple  # names bound to the lookup keys inside cells
    domain: Range | None
    rows: tuple
    span: Span = span_field()


# ─── checks and actions ─────────────────────────────────────────────────────


@attrs.frozen
class Check:
    """A roll plus modifiers against a target; the result is a record.

    `comparison` is ">=", ">", "<=", "<" or None (a roll with no target). A `degrees`
    block is the field `degree` among `fields` (the first degree whose condition holds);
    `degrees` keeps its labels in order, for the trace and for describing the check.
    """

    name: str
    params: tuple
    label: str | None
    lets: tuple  # of Let
    roll: Expression
    comparison: str | None
    target: Expression
    fields: tuple  # of (name, expression)
    degrees: tuple = ()  # the labels of the `degrees` block, in order
    span: Span = span_field()


@attrs.frozen
class Opposed:
    """Two rolls compared; `tie` is "reroll", "ours", "theirs" or "none" (the tie stands:
    nobody wins); `compare` is empty when not written (the default: dsl.opposed)."""

    name: str
    params: tuple
    label: str | None
    ours: Expression
    theirs: Expression
    compare: tuple
    tie: str
    fields: tuple
    span: Span = span_field()


@attrs.frozen
class Action:
    name: str
    params: tuple
    label: str | None
    body: tuple
    span: Span = span_field()
