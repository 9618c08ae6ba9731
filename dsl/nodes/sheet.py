"""Sheet nodes: what a character sheet holds (attributes, resources, catalogs, ...)."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import Number, span_field


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
    default: object  # expression or None
    span: Span = span_field()


@attrs.frozen
class OpenSkills:
    """`skills in 0..10 default 0`: any other skill name a sheet lists is allowed."""

    range: Range
    default: object
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
    maximum: object
    minimum: object  # expression or None for 0
    span: Span = span_field()


@attrs.frozen
class Counter:
    """A tally that only rules change (`Tributo`, `Paradoja`); default range 0.."""

    name: str
    range: Range | None
    default: object
    span: Span = span_field()


@attrs.frozen
class Flag:
    name: str
    default: object
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
    expr: object
    span: Span = span_field()


@attrs.frozen
class Ensure:
    """A rule every sheet must keep: `ensure Areté <= Voluntad else "..."`."""

    condition: object
    message: str
    span: Span = span_field()


@attrs.frozen
class Sheet:
    items: tuple
    span: Span = span_field()
