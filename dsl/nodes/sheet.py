"""Sheet nodes: what a character sheet holds (attributes, resources, catalogs, ...)."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import Expression, Number, span_field


@attrs.frozen
class Range:
    low: Number | None
    high: Number | None
    span: Span | None = attrs.field(eq=False, kw_only=True, repr=False, default=None)

    def __contains__(self, value) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def describe(self) -> str:
        low = "" if self.low is None else str(self.low)
        high = "" if self.high is None else str(self.high)
        return f"{low}..{high}"


@attrs.frozen
class Stat:
    """An attribute or a named skill: a number in a range."""

    kind: str  # "attribute" or "skill"
    name: str
    range: Range
    default: Expression  # expression or None
    span: Span = span_field()


@attrs.frozen
class OpenSkills:
    """`skills in 0..10 default 0`: any other skill name a sheet lists is allowed."""

    range: Range
    default: Expression
    span: Span = span_field()


@attrs.frozen
class Resource:
    """A pool spent and regained: a current value between `minimum` and `maximum`.

    With `key_var`/`key_group` it is a family, one pool per member of a group:
    `resource dinamis[d in Dignitates] max 5 * d`.
    """

    name: str
    key_var: str | None
    key_group: str | None
    maximum: Expression
    minimum: Expression  # expression or None for 0
    span: Span = span_field()


@attrs.frozen
class Counter:
    """A tally that only rules change (`Tributo`, `Paradoja`); default range 0.."""

    name: str
    range: Range | None
    default: Expression
    span: Span = span_field()


@attrs.frozen
class Flag:
    name: str
    default: Expression
    span: Span = span_field()


@attrs.frozen
class TextField:
    name: str
    span: Span = span_field()


@attrs.frozen
class ListField:
    name: str
    span: Span = span_field()


@attrs.frozen
class Catalog:
    """Entities with typed fields, such as a theurgist's *núminas*."""

    name: str
    fields: tuple  # of Param (no defaults)
    span: Span = span_field()


@attrs.frozen
class Group:
    """A named set of sheet fields: `group Dignitates = Virtus, Gravitas, Fides`."""

    name: str
    members: tuple
    span: Span = span_field()


@attrs.frozen
class Derived:
    """A value computed from the sheet, never stored: `derived Dignitas = ...`."""

    name: str
    expr: Expression
    span: Span = span_field()


@attrs.frozen
class Ensure:
    """A rule every sheet must keep: `ensure Areté <= Voluntad else "..."`."""

    condition: Expression
    message: str
    span: Span = span_field()


@attrs.frozen
class TimeUnit:
    """A unit of time lasting effects are measured in: `minuto = 12 turno` (or a clock's
    first unit, `turno`, with no length)."""

    name: str
    count: Number | None  # how many of `of` it lasts; None for a clock's first unit
    of: str | None
    span: Span = span_field()


@attrs.frozen
class Effects:
    """`effects Efectos on acciones, sociales time turno, minuto = 12 turno time escena`:
    the sheet keeps lasting effects under this name, each with a modifier, the targets it
    modifies and what is left of its duration, in the units of one of its clocks."""

    name: str
    targets: tuple  # of str
    clocks: tuple  # of tuples of TimeUnit, each clock's first unit first
    span: Span = span_field()

    def unit(self, name: str):
        """(the clock's first unit, the unit's length in it), or None if no clock has it."""
        for clock in self.clocks:
            lengths: dict = {}
            for unit in clock:
                lengths[unit.name] = 1 if unit.of is None else unit.count * lengths.get(unit.of, 0)
            if name in lengths:
                return clock[0].name, lengths[name]
        return None


@attrs.frozen
class Sheet:
    items: tuple
    span: Span = span_field()
