"""Dice-term nodes: `4d6kh3`, `(Areté)d10cs>=(dif)df=1`, `{1d20+5, 1d20+3}kh1`, modifiers."""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.nodes.base import Expression, span_field


@attrs.frozen
class Condition:
    """A face condition in a dice modifier: `>=6`, `=1`; `value` is an expression
    (None for `even` and `odd`, whose `op` says which)."""

    op: str
    value: Expression
    span: Span = span_field()


@attrs.frozen
class Keep:
    """`khK`, `klK`, `dhK`, `dlK`: keep or drop the K highest or lowest dice."""

    mode: str  # "kh", "kl", "dh", "dl"
    count: Expression  # expression, or None for 1
    span: Span = span_field()


@attrs.frozen
class Explode:
    """`x`, `x>=5`, `xo`, `!`: each die meeting the condition adds another die.
    `style` "compound" (`!!`): the extra dice add to the die itself, which stays one die;
    "penetrate" (`!p`): each extra die counts one less than it shows."""

    once: bool
    condition: Condition | None  # None: the die's top face
    style: str = "explode"
    span: Span = span_field()


@attrs.frozen
class Reroll:
    """`rr<=2` rerolls while the condition holds; `ro=1` rerolls once."""

    once: bool
    condition: Condition
    span: Span = span_field()


@attrs.frozen
class CountSuccesses:
    """`cs>=6`, `even`, `odd`: the term counts dice meeting the condition instead of
    adding them; `cf<=3` (failures=True) counts them as failures."""

    condition: Condition
    failures: bool = False
    span: Span = span_field()


@attrs.frozen
class CountFailures:
    """`df=1` (after `cs`): each die meeting the condition takes one success away."""

    condition: Condition
    span: Span = span_field()


@attrs.frozen
class Clamp:
    """`min2`, `max5`: each die below (above) the value counts as the value."""

    bound: str  # "min" or "max"
    value: Expression  # expression
    span: Span = span_field()


@attrs.frozen
class Sort:
    """`s`, `sa`, `sd`: the dice listed from the lowest (the highest) up (down)."""

    descending: bool
    span: Span = span_field()


@attrs.frozen
class Dice:
    """A dice term: `4d6kh3`, `(Areté)d10cs>=(dif)df=1`, `dF`, `d%`, `d{1,1,2,3}`.

    `sides` is an int, the text "F" (Fudge: -1, 0, +1), a tuple of listed faces or an
    expression; `d%` is 100. `label` is a `[fire]` written after it (shown in the trace);
    `notes` are (message, hint, span) about a spelling other dice rollers read otherwise,
    which the checker reports as warnings.
    """

    count: Expression  # expression or None for one die
    sides: Expression
    modifiers: tuple
    label: str | None = None
    notes: tuple = attrs.field(default=(), eq=False, repr=False)
    span: Span = span_field()


@attrs.frozen
class RollGroup:
    """`{1d20+5, 1d20+3}kh1`: the highest of several rolls; `{4d6+3d8}k4`: of one roll
    of several terms, the highest dice across all of them. `modifiers` are Keeps."""

    items: tuple
    modifiers: tuple
    span: Span = span_field()


@attrs.frozen
class SymbolDice:
    """`2dBoost`, `(n)dAbility`: a pool of dice of a declared `die` of symbol faces;
    `count` is an expression, `die` the die's name."""

    count: Expression
    die: str
    label: str | None = None
    span: Span = span_field()


@attrs.frozen
class Symbols:
    """`symbols success, advantage, failure`: the symbols a die's faces may show."""

    names: tuple  # (name, Span) pairs, in the order declared
    span: Span = span_field()


@attrs.frozen
class DieFace:
    """One face of a symbol die: `blank` (no symbol), `success + advantage`, `2 advantage`.
    `symbols` holds (symbol, how many, Span) in the order written."""

    symbols: tuple
    span: Span = span_field()


@attrs.frozen
class DieDef:
    """`die Boost { blank, success, success + advantage, 2 advantage }`."""

    name: str
    faces: tuple
    span: Span = span_field()
