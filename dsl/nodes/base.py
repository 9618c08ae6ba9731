"""What every AST node shares: a source span that equality ignores."""

from __future__ import annotations

from fractions import Fraction

import attrs


def span_field():
    """The `span` field of a node: keyword-only, ignored by equality and repr."""
    return attrs.field(eq=False, kw_only=True, repr=False)


Number = int | Fraction
