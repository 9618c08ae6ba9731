"""How the checker names things in its messages: kinds of definitions, signatures."""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr, tr_n

#: how messages name each kind of definition, with its article, and without it
DEFINITIONS = {
    "roll": (tr("a roll"), tr("roll")),
    "ladder": (tr("a ladder"), tr("ladder")),
    "formula": (tr("a formula"), tr("formula")),
    "table": (tr("a table"), tr("table")),
    "check": (tr("a check"), tr("check")),
    "opposed": (tr("an opposed check"), tr("opposed check")),
    "action": (tr("an action"), tr("action")),
    "die": (tr("a die"), tr("die")),
    "group": (tr("a group"), tr("group")),
    "catalog": (tr("a catalog"), tr("catalog")),
    "derived": (tr("a derived value"), tr("derived value")),
    "resource": (tr("a resource"), tr("resource")),
    "counter": (tr("a counter"), tr("counter")),
    "flag": (tr("a flag"), tr("flag")),
    "text": (tr("a text field"), tr("text field")),
    "list": (tr("a list"), tr("list")),
    "attribute": (tr("an attribute"), tr("attribute")),
    "skill": (tr("a skill"), tr("skill")),
}


def describe_definition(node) -> str:
    """`a table`, `an action`: a definition's kind as a message says it."""
    kind = n.kind_of(node)
    return DEFINITIONS[kind][0] if kind in DEFINITIONS else kind


def kind_word(node) -> str:
    """`table`, `action`: a definition's kind, without an article."""
    kind = n.kind_of(node)
    return DEFINITIONS[kind][1] if kind in DEFINITIONS else kind


def how_to_use(node) -> str:
    """How a definition is used, for a message about using it wrongly."""
    name = node.name
    if isinstance(node, n.Table):
        return tr("look a row up with {name}[...]", name=name)
    if isinstance(node, n.Ladder):
        return tr("move along it with step({name}, from, steps)", name=name)
    if isinstance(node, n.Formula | n.Check | n.Opposed | n.Action):
        return tr("call it with {name}(...)", name=name)
    return tr("use it by name")


def arguments(number: int) -> str:
    """`1 argument`, `2 arguments`."""
    return tr_n("{n} argument", "{n} arguments", number)


def signature_of(name: str, params) -> str:
    """`it is cast(spell, time = "normal")`."""
    parts = []
    for p in params:
        parts.append(p.name if p.default is None else f"{p.name} = {p.default.span.text}")
    return tr("it is {call}", call=f"{name}({', '.join(parts)})")
