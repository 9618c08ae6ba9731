"""Checks of `choose`: its options, their conditions and costs, who decides."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.messages import tr


class ChoiceChecks(CheckerHost):
    """The checks of a decision taken during an action (part of the Checker)."""

    def st_choose(self, node: n.Choose, scope: Scope) -> None:
        if node.by is not None:
            chooser = scope.lookup(node.by)
            kind = chooser[1].kind if chooser is not None else None
            if kind not in ("character", "any"):
                self.error(
                    tr(
                        "`{name}` decides only if it is a character parameter",
                        name=node.by,
                    ),
                    node.span,
                    tr("the acting character decides when `by` is left out"),
                )
        values = [option.value.value for option in node.options if option.each is None]
        numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        chosen = t.NUMBER if numbers else t.text_of(str(v) for v in values)
        items = {}  # an option built from a list: the list's items' type
        for option in node.options:
            if option.each is not None:
                items[id(option)] = self.option_items(option, scope)
        if items:
            kinds = {t.value_of(item).kind for item in items.values()}
            if kinds == {"number"} and numbers:
                chosen = t.NUMBER
            elif values or len(kinds) > 1:
                chosen = t.ANY
            else:
                chosen = next(iter(items.values()))
        # the name holds the option chosen: in the options' statements, and after
        self.declare(scope, node.name, chosen, node.span)
        for option in node.options:
            if option.each is not None:
                outer, scope = scope, scope.child()
                self.declare(scope, option.each[0], items[id(option)], option.span)
            if option.condition is not None:
                self.want(option.condition, scope, t.BOOL, tr("an option's condition"))
            if option.cost is not None:
                amount, place = option.cost
                self.want(amount, scope, t.NUMBER, tr("an option's cost"))
                self.place(place, scope, ("attribute", "skill", "stat", "resource", "counter"))
            self.block(option.body, scope)
            if option.each is not None:
                scope = outer
        if node.label is not None:
            self.expr(node.label, scope)

    def option_items(self, option: n.Option, scope: Scope) -> t.Type:
        """The type of the items of `option each x in LIST` (a list, or a range)."""
        _name, items = option.each
        found = t.value_of(self.expr(items, scope))
        if found.kind == "range":
            if isinstance(items, n.Range | n.RangeOf) and None in (items.low, items.high):
                self.error(tr("`option each` offers a range with both ends (1..n)"), items.span)
            return t.NUMBER
        if found.kind not in ("list", "any"):
            self.error(
                tr(
                    "`option each` offers the items of a list (r.sorted, [1, 2, 3]) or a "
                    "range (1..5), not {describe}",
                    describe=found.describe(),
                ),
                items.span,
            )
        return found.item or t.ANY
