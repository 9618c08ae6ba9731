"""What every AST node shares: a source span that equality ignores."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, TypeAlias, TypeGuard

import attrs


def span_field():
    """The `span` field of a node: keyword-only, ignored by equality and repr."""
    return attrs.field(eq=False, kw_only=True, repr=False)


Number = int | Fraction


def is_number(value: object) -> TypeGuard[Number]:
    """An int or a Fraction, not a bool (the checker, the builder and the compiler ask
    it of literals; here, so that none of them imports another for it)."""
    return isinstance(value, int | Fraction) and not isinstance(value, bool)


#: a node a field holds where the grammar puts an expression (any class of
#: dsl.nodes.expressions or dsl.nodes.dice; a type or a definition where the field says so):
#: every reader dispatches on its class (`isinstance`, a handler found by class), which a
#: union of forty classes would make mypy ask of each attribute read first, so it is `Any`
#: by name
Expression: TypeAlias = Any
