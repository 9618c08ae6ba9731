"""Dice-term nodes: `4d6kh3`, `(Areté)d10cs>=(dif)df=1` and their modifiers."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import span_field


@attrs.frozen
class Condition:
    """A face condition in a dice modifier: `>=6`, `=1`; `value` is an expression."""

    op: str
    value: object
    span: Span = span_field()


@attrs.frozen
class Keep:
    """`khK`, `klK`, `dhK`, `dlK`: keep or drop the K highest or lowest dice."""

    mode: str  # "kh", "kl", "dh", "dl"
    count: object  # expression, or None for 1
    span: Span = span_field()


@attrs.frozen
class Explode:
    """`x`, `x>=5`, `xo`: each die meeting the condition adds another die."""

    once: bool
    condition: Condition | None  # None: the die's top face
    span: Span = span_field()


@attrs.frozen
class Reroll:
    """`rr<=2` rerolls while the condition holds; `ro=1` rerolls once."""

    once: bool
    condition: Condition
    span: Span = span_field()


@attrs.frozen
class CountSuccesses:
    """`cs>=6`: the term counts dice meeting the condition instead of adding them."""

    condition: Condition
    span: Span = span_field()


@attrs.frozen
class CountFailures:
    """`df=1` (after `cs`): each die meeting the condition takes one success away."""

    condition: Condition
    span: Span = span_field()


@attrs.frozen
class Dice:
    """A dice term: `4d6kh3`, `(Areté)d10cs>=(dif)df=1`, `dF`, `d%`.

    `sides` is an int, the text "F" (Fudge: -1, 0, +1) or an expression; `d%` is 100.
    """

    count: object  # expression or None for one die
    sides: object
    modifiers: tuple
    span: Span = span_field()
