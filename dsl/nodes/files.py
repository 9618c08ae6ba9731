"""File nodes: a header, a `replace`, one parsed rulebook file."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import Expression, span_field


@attrs.frozen
class Header:
    title: str
    extends: str | None
    fields: tuple  # of (key, text)
    span: Span = span_field()


@attrs.frozen
class Replace:
    """`replace table Miedo ...` in a house rule: a definition taking the base's place."""

    definition: Expression
    span: Span = span_field()


@attrs.frozen
class RulebookFile:
    """One parsed file, before a house rule is merged with its base."""

    header: Header | None
    definitions: tuple
    span: Span = span_field()
