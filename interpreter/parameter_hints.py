"""What a parameter's error hints: how a first run gives it, what it takes, what it is."""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import Message, tr
from dsl.rulebook import Rulebook
from interpreter.surface import option


def how_given(param: n.Param, book: Rulebook) -> Message:
    """How a first run on the command line gives a parameter left out, and what it takes
    where its type lists it (`--set stat=VALUE, one of Strength, Speed, ...`)."""
    name = param.name
    if getattr(param.type, "name", None) == "character":
        return tr("on the command line: --target {name}=FILE", name=name)
    choices = choices_said(param.type, book)
    if choices is None:
        return tr("on the command line: --set {name}=VALUE", name=name)
    return tr(
        "on the command line: --set {name}=VALUE, one of {choices}", name=name, choices=choices
    )


def choices_said(type_node, book: Rulebook) -> str | None:
    """The values a parameter's type takes, as a hint lists them (the first few), or
    None for a type of any value (a number, a text)."""
    if isinstance(type_node, n.EnumType):
        choices = list(type_node.choices)
    else:  # (in the rulebook's order: its sheet's, its table's)
        named = book.choices_of(type_node.name) if isinstance(type_node, n.NamedType) else None
        if not named:
            return None
        choices = list(dict.fromkeys(named))
    shown = ", ".join(map(str, choices[:8]))
    return shown + (", ..." if len(choices) > 8 else "")


def asked_as_choice(node, name):
    """The hint when a value given as a parameter names one of the action's own choices
    (`choose void ...`): those are answered as the action runs, not passed in."""
    if not isinstance(node, n.Action) or not any(
        isinstance(item, n.Choose) and item.name == name for item in n.walk(node.body)
    ):
        return None
    return tr(
        "{name} is a choice {action} makes as it runs: answer it as a choice ({choose})",
        name=name,
        action=node.name,
        choose=option("choose", name),
    )
