"""Questions asked of any node: what kind of definition, what it contains, what it reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from dsl.nodes.definitions import Action, Check, Formula, Ladder, Opposed, RollDef, Table
from dsl.nodes.dice import Dice, DieDef, RollGroup, SymbolDice, Symbols
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
    RangeOf,
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
    DieDef: "die",
}


def kind_of(node) -> str:
    """What a definition is, in one word: attribute, skill, resource, ..., table, action."""
    if isinstance(node, Stat):
        return node.kind
    return _KINDS.get(type(node), "definition")


#: the fields of a node that are positions, not parts of it
SPANS = frozenset(("span", "name_span", "op_span"))


def parts(node, skipped: frozenset = SPANS) -> list:
    """A node's fields but the `skipped` ones (its positions), in their order: the nodes,
    tuples of them and plain values it is made of."""
    return [getattr(node, f.name) for f in attrs.fields(type(node)) if f.name not in skipped]


def walk(node: object) -> Iterator[Any]:
    """Every node under `node` (itself included), in no particular order."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif attrs.has(type(item)):
            yield item
            stack.extend(parts(item))


def names_given(node) -> frozenset:
    """The names statements under `node` give a value to (`let`, `choose`, a `for each`'s
    name, `set NAME to`), those of inner blocks included."""
    out = set()
    for item in walk(node):
        if isinstance(item, Let | Choose):
            out.add(item.name)
        elif isinstance(item, ForEach):
            out.add(item.var)
        elif isinstance(item, Set) and isinstance(item.place, Name):
            out.add(item.place.name)
    return frozenset(out)


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


def field_paths(node) -> dict:
    """field_reads, along whole chains of fields: for each name, a dict of the fields
    read of it, each to the dict of its own fields read (`r.ours.nivel.daño` reads only
    `daño` of `nivel` of `ours` of `r`), None where a value is used whole. Iterated, a
    name's dict gives its fields as field_reads does."""
    inner = set()  # chains' inner links: the subject of a Field
    for item in walk(node):
        if isinstance(item, Field):
            inner.add(id(item.subject))
    paths: dict = {}
    for item in walk(node):
        if id(item) in inner:
            continue
        if isinstance(item, Name):
            paths[item.name] = None
        elif isinstance(item, Field):
            chain = []
            while isinstance(item, Field):
                chain.append(item.name)
                item = item.subject
            if isinstance(item, Name):
                _add_path(paths, item.name, chain[::-1])
    return paths


def _add_path(paths: dict, name: str, chain: list) -> None:
    """Note `name.chain[0].chain[1]...` read (a value read whole stays whole)."""
    level, key = paths, name
    for field in chain:
        if key in level and level[key] is None:
            return
        level = level.setdefault(key, {})
        key = field
    level[key] = None


def path_cut(paths: dict) -> tuple:
    """A name's field_paths as a hashable value: ((field, its own cut or None), ...),
    in the fields' order."""
    return tuple(
        (field, None if inner is None else path_cut(inner))
        for field, inner in sorted(paths.items(), key=lambda item: item[0])
    )


def merged_paths(first, second):
    """What two field_paths of one name read together (None: the whole value)."""
    if first is None or second is None:
        return None
    out = dict(first)
    for field, inner in second.items():
        out[field] = merged_paths(out[field], inner) if field in out else inner
    return out


DEFINITIONS = (Sheet, RollDef, Ladder, Formula, Table, Check, Opposed, Action, Symbols, DieDef)
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
    RangeOf,
    RollGroup,
    SymbolDice,
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
