"""How the checker names things in its messages: kinds of definitions, signatures."""

from __future__ import annotations

from dsl import nodes as n


def describe_definition(node) -> str:
    kind = n.kind_of(node)
    words = {
        "roll": "a roll",
        "ladder": "a ladder",
        "formula": "a formula",
        "table": "a table",
        "check": "a check",
        "opposed": "an opposed check",
        "action": "an action",
        "group": "a group",
        "catalog": "a catalog",
        "derived": "a derived value",
        "resource": "a resource",
        "counter": "a counter",
        "flag": "a flag",
        "text": "a text field",
        "list": "a list",
        "attribute": "an attribute",
        "skill": "a skill",
    }
    return words.get(kind, kind)


def how_to_use(node) -> str:
    name = node.name
    if isinstance(node, n.Table):
        return f"look a row up with {name}[...]"
    if isinstance(node, n.Ladder):
        return f"move along it with step({name}, from, steps)"
    if isinstance(node, n.Formula | n.Check | n.Opposed | n.Action):
        return f"call it with {name}(...)"
    return "use it by name"


def count_of(number: int, word: str) -> str:
    return f"{number} {word}" + ("" if number == 1 else "s")


def signature_of(name: str, params) -> str:
    parts = []
    for p in params:
        parts.append(p.name if p.default is None else f"{p.name} = {p.default.span.text}")
    return f"it is {name}({', '.join(parts)})"
