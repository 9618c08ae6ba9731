"""Checks of lists and texts taken apart: list[1], join, number."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.functions import FUNCTIONS
from dsl.messages import tr
from dsl.rulebook import Binding


class ItemChecks(CheckerHost):
    """A list's item (`dice[1]`), `join`, `number` (part of the Checker)."""

    def list_item(self, node: n.Index, listed: t.Type, scope: Scope) -> t.Type:
        """`dice[1]`: the first item of a list, `dice[-1]` the last."""
        if len(node.keys) != 1:
            self.error(tr("an item of a list is taken by one position: `list[1]`"), node.span)
        for key in node.keys:
            self.want(key, scope, t.NUMBER, tr("a position in a list"))
            if type(key) is n.Literal and type(key.value) is int and key.value == 0:
                # (never an item: a newcomer from Python or C counts from 0)
                self.error(
                    tr("a list has no item at 0: the first is at 1, the last at -1"),
                    key.span,
                    tr("write {text}[1] for its first item", text=node.subject.span.text),
                )
        item = t.value_of(listed).item
        return item if item is not None else t.ANY

    def item_function(self, node: n.Call, scope: Scope) -> t.Type:
        name = node.function
        low, high = FUNCTIONS[name].fewest, FUNCTIONS[name].most
        self.bindings[id(node)] = Binding("builtin", name)
        if node.named or len(node.args) < low or (high is not None and len(node.args) > high):
            self.error(
                tr("{name} takes {low} argument(s)", name=name, low=low)
                if low == high
                else tr("{name} takes {low} to {high} argument(s)", name=name, low=low, high=high),
                node.span,
                USES[name],
            )
            for arg in node.args:
                self.expr(arg, scope)
            return t.ANY
        types = [self.expr(arg, scope) for arg in node.args]
        first = t.value_of(types[0])
        if name == "number":
            if first.kind not in ("text", "any"):
                self.error(tr("number(...) reads a text as a number"), node.args[0].span)
            return t.NUMBER
        if first.kind not in ("list", "any"):
            self.error(
                tr(
                    "{name}(...) takes a list first, not {given}", name=name, given=first.describe()
                ),
                node.args[0].span,
                USES[name],
            )
        if name == "join":
            if len(types) == 2 and t.value_of(types[1]).kind not in ("text", "any"):
                self.error(tr("the separator of join(...) is a text"), node.args[1].span)
            return t.TEXT
        return first if first.kind == "list" else t.list_of(t.ANY)


#: how each is written, for a message
USES = {
    "join": tr('join(list, ", "): its items as one text, the separator between them'),
    "number": tr('number("12"): the number a text writes'),
}
