"""Questions asked of any node: what kind of definition, what it contains, what it reads."""

from __future__ import annotations

import attrs

from dsl.nodes.definitions import Action, Check, Formula, Ladder, Opposed, RollDef, Table
from dsl.nodes.dice import Dice, RollGroup
from dsl.nodes.expressions import (
    Binary,
    Call,
    CharacterCall,
    Field,
    IfExpr,
    Index,
    ListLiteral,
    Literal,
    Name,
    Text,
    Unary,
)
from dsl.nodes.sheet import (
    Catalog,
    Counter,
    Derived,
    Effects,
    Flag,
    Group,
    ListField,
    Range,
    Resource,
    Sheet,
    Stat,
    TextField,
)
from dsl.nodes.statements import (
    Add,
    Change,
    Choose,
    Do,
    Effect,
    EndEffect,
    ForEach,
    If,
    Let,
    Match,
    Note,
    PassTime,
    Repeat,
    Require,
    Result,
    Set,
)

_KINDS = {
    Resource: "resource",
    Counter: "counter",
    Flag: "flag",
    TextField: "text",
    ListField: "list",
    Catalog: "catalog",
    Effects: "effects",
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
EXPRESSIONS = (
    Literal,
    Text,
    Name,
    Field,
    Index,
    Call,
    CharacterCall,
    Unary,
    Binary,
    IfExpr,
    ListLiteral,
    Dice,
    Range,
    RollGroup,
)
STATEMENTS = (
    Let,
    Set,
    Change,
    Require,
    If,
    Match,
    ForEach,
    Repeat,
    Result,
    Note,
    Do,
    Add,
    Effect,
    PassTime,
    EndEffect,
    Choose,
)


def step_value(step):
    """The value of a ladder step: a die's size (`d8` is 8), or the step's own value."""
    if isinstance(step, Dice):
        return step.sides
    return step.value
