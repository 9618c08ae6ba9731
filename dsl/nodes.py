"""The rulebook AST: frozen attrs nodes, each carrying the span of text it came from.

Equality ignores spans (two `2d6` written in different places are equal nodes), so
nodes can be compared in tests and used as keys.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from dsl.errors import Span


def _span():
    return attrs.field(eq=False, kw_only=True, repr=False)


Number = int | Fraction

# ─── expressions ────────────────────────────────────────────────────────────


@attrs.frozen
class Literal:
    """A number, a boolean, `none`, or a text without `{...}` parts."""

    value: object
    span: Span = _span()


@attrs.frozen
class Text:
    """A text with `{expression}` parts: `"+{c.puntos} a la defensa"`."""

    parts: tuple  # of str and expressions
    span: Span = _span()


@attrs.frozen
class Name:
    name: str
    span: Span = _span()


@attrs.frozen
class Field:
    subject: object
    name: str
    span: Span = _span()


@attrs.frozen
class Index:
    subject: object
    keys: tuple
    span: Span = _span()


@attrs.frozen
class Call:
    function: str
    args: tuple
    named: tuple  # of (name, expression)
    span: Span = _span()
    name_span: Span = _span()


@attrs.frozen
class Unary:
    op: str  # "-" or "not"
    operand: object
    span: Span = _span()


@attrs.frozen
class Binary:
    """Arithmetic, comparison, `and`, `or`, `in`; `op_span` points at the operator."""

    op: str
    left: object
    right: object
    span: Span = _span()
    op_span: Span = _span()


@attrs.frozen
class IfExpr:
    condition: object
    then: object
    otherwise: object
    span: Span = _span()


@attrs.frozen
class ListLiteral:
    items: tuple
    span: Span = _span()


# ─── dice ───────────────────────────────────────────────────────────────────


@attrs.frozen
class Condition:
    """A face condition in a dice modifier: `>=6`, `=1`; `value` is an expression."""

    op: str
    value: object
    span: Span = _span()


@attrs.frozen
class Keep:
    """`khK`, `klK`, `dhK`, `dlK`: keep or drop the K highest or lowest dice."""

    mode: str  # "kh", "kl", "dh", "dl"
    count: object  # expression, or None for 1
    span: Span = _span()


@attrs.frozen
class Explode:
    """`x`, `x>=5`, `xo`: each die meeting the condition adds another die."""

    once: bool
    condition: Condition | None  # None: the die's top face
    span: Span = _span()


@attrs.frozen
class Reroll:
    """`rr<=2` rerolls while the condition holds; `ro=1` rerolls once."""

    once: bool
    condition: Condition
    span: Span = _span()


@attrs.frozen
class CountSuccesses:
    """`cs>=6`: the term counts dice meeting the condition instead of adding them."""

    condition: Condition
    span: Span = _span()


@attrs.frozen
class CountFailures:
    """`df=1` (after `cs`): each die meeting the condition takes one success away."""

    condition: Condition
    span: Span = _span()


@attrs.frozen
class Dice:
    """A dice term: `4d6kh3`, `(Areté)d10cs>=(dif)df=1`, `dF`, `d%`.

    `sides` is an int, the text "F" (Fudge: -1, 0, +1) or an expression; `d%` is 100.
    """

    count: object  # expression or None for one die
    sides: object
    modifiers: tuple
    span: Span = _span()


# ─── types and parameters ───────────────────────────────────────────────────


@attrs.frozen
class NamedType:
    """`int`, `number`, `bool`, `text`, `attribute`, `skill`, or a declared name."""

    name: str
    span: Span = _span()


@attrs.frozen
class EnumType:
    """`evocación | don | lustración`: one of these texts."""

    choices: tuple
    span: Span = _span()


@attrs.frozen
class ListType:
    item: object
    span: Span = _span()


@attrs.frozen
class Param:
    name: str
    type: object
    default: object  # expression or None (required)
    span: Span = _span()


# ─── the sheet ──────────────────────────────────────────────────────────────


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
    span: Span = _span()


@attrs.frozen
class OpenSkills:
    """`skills in 0..10 default 0`: any other skill name a sheet lists is allowed."""

    range: Range
    default: object
    span: Span = _span()


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
    span: Span = _span()


@attrs.frozen
class Counter:
    """A tally that only rules change (`Tributo`, `Paradoja`); default range 0.."""

    name: str
    range: Range | None
    default: object
    span: Span = _span()


@attrs.frozen
class Flag:
    name: str
    default: object
    span: Span = _span()


@attrs.frozen
class TextField:
    name: str
    span: Span = _span()


@attrs.frozen
class ListField:
    name: str
    span: Span = _span()


@attrs.frozen
class Catalog:
    """Entities with typed fields, such as a theurgist's *núminas*."""

    name: str
    fields: tuple  # of Param (no defaults)
    span: Span = _span()


@attrs.frozen
class Group:
    """A named set of sheet fields: `group Dignitates = Virtus, Gravitas, Fides`."""

    name: str
    members: tuple
    span: Span = _span()


@attrs.frozen
class Derived:
    """A value computed from the sheet, never stored: `derived Dignitas = ...`."""

    name: str
    expr: object
    span: Span = _span()


@attrs.frozen
class Ensure:
    """A rule every sheet must keep: `ensure Areté <= Voluntad else "..."`."""

    condition: object
    message: str
    span: Span = _span()


@attrs.frozen
class Sheet:
    items: tuple
    span: Span = _span()


# ─── rolls, ladders, formulas, tables ───────────────────────────────────────


@attrs.frozen
class RollRule:
    """`on die = 10: add d6 - 1, again while die = 6`."""

    condition: object
    sign: int  # +1 add, -1 subtract
    extra: object
    again: object  # expression or None
    span: Span = _span()


@attrs.frozen
class RollDef:
    name: str
    params: tuple
    body: object
    rules: tuple
    span: Span = _span()


@attrs.frozen
class Ladder:
    """An ordered list of steps (die sizes, difficulty names) to move along."""

    name: str
    steps: tuple
    span: Span = _span()


@attrs.frozen
class Formula:
    name: str
    params: tuple
    body: object
    span: Span = _span()


@attrs.frozen
class Key:
    """A table row key: a value, a range (`low`/`high` may be open), or `else`."""

    kind: str  # "value", "range", "else"
    low: object = None
    high: object = None
    span: Span = _span()

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
    value: object  # expression or None
    fields: tuple  # of (name, expression)
    rows: tuple  # sub-table rows (two-level tables), else ()
    span: Span = _span()


@attrs.frozen
class Table:
    name: str
    keys: tuple  # names bound to the lookup keys inside cells
    domain: Range | None
    rows: tuple
    span: Span = _span()


# ─── checks and actions ─────────────────────────────────────────────────────


@attrs.frozen
class Check:
    """A roll plus modifiers against a target; the result is a record.

    `comparison` is ">=", ">", "<=", "<" or None (a roll with no target).
    """

    name: str
    params: tuple
    label: str | None
    lets: tuple  # of Let
    roll: object
    comparison: str | None
    target: object
    fields: tuple  # of (name, expression)
    span: Span = _span()


@attrs.frozen
class Opposed:
    """Two rolls compared; `tie` is "reroll", "ours" or "theirs"."""

    name: str
    params: tuple
    label: str | None
    ours: object
    theirs: object
    compare: tuple
    tie: str
    fields: tuple
    span: Span = _span()


@attrs.frozen
class Action:
    name: str
    params: tuple
    label: str | None
    body: tuple
    span: Span = _span()


@attrs.frozen
class Let:
    name: str
    expr: object
    span: Span = _span()


@attrs.frozen
class Set:
    place: object
    expr: object
    span: Span = _span()


@attrs.frozen
class Change:
    """`spend`, `gain` or `lose` an amount of a place on the sheet."""

    verb: str
    amount: object
    place: object
    span: Span = _span()


@attrs.frozen
class Require:
    condition: object
    message: object  # Text or Literal
    span: Span = _span()


@attrs.frozen
class If:
    branches: tuple  # of (condition, body)
    otherwise: tuple | None
    span: Span = _span()


@attrs.frozen
class Match:
    subject: object
    cases: tuple  # of (values, body)
    otherwise: tuple | None
    span: Span = _span()


@attrs.frozen
class ForEach:
    var: str
    items: object
    body: tuple
    span: Span = _span()


@attrs.frozen
class Repeat:
    count: object
    until: object  # expression or None
    body: tuple
    span: Span = _span()


@attrs.frozen
class Result:
    fields: tuple  # of (name, expression)
    span: Span = _span()


@attrs.frozen
class Note:
    text: object
    span: Span = _span()


@attrs.frozen
class Do:
    call: Call
    span: Span = _span()


@attrs.frozen
class Add:
    """`add x to Lista`, or `add "Nombre" to Catálogo { campo: valor, ... }`."""

    item: object
    place: object
    fields: tuple | None  # an entry's fields, when the place is a catalog
    span: Span = _span()


# ─── the whole file ─────────────────────────────────────────────────────────


@attrs.frozen
class Header:
    title: str
    extends: str | None
    fields: tuple  # of (key, text)
    span: Span = _span()


@attrs.frozen
class Replace:
    """`replace table Miedo ...` in a house rule: a definition taking the base's place."""

    definition: object
    span: Span = _span()


@attrs.frozen
class RulebookFile:
    """One parsed file, before a house rule is merged with its base."""

    header: Header | None
    definitions: tuple
    span: Span = _span()


_KINDS = {
    Resource: "resource",
    Counter: "counter",
    Flag: "flag",
    TextField: "text",
    ListField: "list",
    Catalog: "catalog",
    Group: "group",
    Derived: "derived",
    RollDef: "roll",
    Ladder: "ladder",
    Formula: "formula",
    Table: "table",
    Check: "check",
    Opposed: "opposed",
    Action: "action",
}


def kind_of(node) -> str:
    """What a definition is, in one word: attribute, skill, resource, ..., table, action."""
    if isinstance(node, Stat):
        return node.kind
    return _KINDS.get(type(node), "definition")


def walk(node):
    """Every node under `node` (itself included), in no particular order."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif attrs.has(type(item)):
            yield item
            stack.extend(
                getattr(item, f.name)
                for f in attrs.fields(type(item))
                if f.name not in ("span", "name_span", "op_span")
            )


def field_reads(node) -> dict:
    """For each name an AST mentions, the fields of it that are read (`c.success` reads
    only `success` of `c`), or None where the whole value is used. An over-approximation
    of what a piece of rules reads, used to drop what nobody will look at again."""
    needs: dict = {}
    fields_of = set()
    for item in walk(node):
        if isinstance(item, Field) and isinstance(item.subject, Name):
            fields_of.add(id(item.subject))
            name = item.subject.name
            if name not in needs:
                needs[name] = {item.name}
            elif needs[name] is not None:
                needs[name].add(item.name)
    for item in walk(node):
        if isinstance(item, Name) and id(item) not in fields_of:
            needs[item.name] = None
    return needs


DEFINITIONS = (Sheet, RollDef, Ladder, Formula, Table, Check, Opposed, Action)
EXPRESSIONS = (Literal, Text, Name, Field, Index, Call, Unary, Binary, IfExpr, ListLiteral, Dice)
STATEMENTS = (Let, Set, Change, Require, If, Match, ForEach, Repeat, Result, Note, Do, Add)
