"""Checks of calls of the built-in functions (dsl.functions): arity, then each one's type rule."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.functions import FUNCTIONS
from dsl.messages import tr
from dsl.rulebook import Binding

#: each type rule of dsl.functions: the Checker's method that applies it
TYPE_RULES = {
    "numbers": "numbers_type",
    "aggregate": "aggregate_type",
    "size": "size_type",
    "fallback": "fallback_type",
    "ladder": "step_type",
    "pool": "pool_function",
    "list": "list_function",
    "effects": "effect_read",
    "items": "item_function",
}
#: the rules whose methods check the number of arguments themselves, in their own words
OWN_ARITY = frozenset(("effects", "items"))


class FunctionChecks(CheckerHost):
    """The built-in functions' checks (part of the Checker): the type rules of
    dsl.functions, each a method named in TYPE_RULES."""

    def builtin(self, node: n.Call, scope: Scope) -> t.Type:
        """A built-in function's call, checked by its type rule (dsl.functions)."""
        function = FUNCTIONS[node.function]
        rule = getattr(self, TYPE_RULES[function.rule])
        if function.rule in OWN_ARITY:  # their own messages say how they are written
            return rule(node, scope)
        name, low, high = function.name, function.fewest, function.most
        count = len(node.args)
        if node.named:
            self.error(tr("{name} takes no named arguments", name=name), node.span)
        if count < low or (high is not None and count > high):
            expected = str(low) if low == high else tr("at least {low}", low=low)
            self.error(
                tr(
                    "{name} takes {expected} argument(s), not {count}",
                    name=name,
                    expected=expected,
                    count=count,
                ),
                node.span,
            )
        self.bindings[id(node)] = Binding("builtin", name)
        return rule(node, scope)

    def step_type(self, node: n.Call, scope: Scope) -> t.Type:
        """`step(Ladder, from, n)`: a step of the ladder."""
        ladder = node.args[0] if node.args else None
        definition = self.globals.get(ladder.name) if isinstance(ladder, n.Name) else None
        if not isinstance(definition, n.Ladder):
            self.error(
                tr("step(...) moves along a ladder: step(Ladder, from, steps)"),
                ladder.span if ladder is not None else node.span,
            )
            return t.ANY
        self.use(definition.name)
        self.bindings[id(ladder)] = Binding("ladder", definition.name, definition)
        for arg in node.args[1:]:
            self.expr(arg, scope)
        if len(node.args) == 3:
            self.want(node.args[2], scope, t.NUMBER, tr("the number of steps"))
        values = [n.step_value(s) for s in definition.steps]
        return t.text_of(values) if values and isinstance(values[0], str) else t.NUMBER

    def fallback_type(self, node: n.Call, scope: Scope) -> t.Type:
        """`default(x, fallback)`: either's type."""
        types = [self.expr(arg, scope) for arg in node.args]
        return t.join(types[0], types[1]) if len(types) == 2 else t.ANY

    def size_type(self, node: n.Call, scope: Scope) -> t.Type:
        types = [self.expr(arg, scope) for arg in node.args]
        if types and t.value_of(types[0]).kind not in ("list", "text", "any"):
            self.error(tr("size(...) counts the items of a list"), node.args[0].span)
        return t.NUMBER

    def aggregate_type(self, node: n.Call, scope: Scope) -> t.Type:
        """`min`, `max`, `sum`: of one list, or of several numbers."""
        if len(node.args) != 1:
            return self.numbers_type(node, scope)
        given = self.expr(node.args[0], scope)
        if t.value_of(given).kind not in ("list", "any"):
            self.error(
                tr(
                    "{name} of one value needs a list (or give several values)",
                    name=node.function,
                ),
                node.args[0].span,
                self.roll_hint(node.function, node.args[0]) if given.kind == "roll" else None,
            )
        return t.NUMBER

    @staticmethod
    def roll_hint(function: str, roll: object) -> str:
        """What one writes for `sum`, `min` or `max` of a roll (as AnyDice reads them):
        its total is the roll itself, its lowest and highest die `lowest` and `highest`."""
        name = roll.name if isinstance(roll, n.Name) else "..."
        if function == "sum":
            return tr(
                "a roll reads as its total already: write {name} alone "
                "(its kept dice one by one: sum({name}.sorted))",
                name=name,
            )
        if function == "min":
            return tr("the lowest die of a roll: lowest({name})", name=name)
        return tr("the highest die of a roll: highest({name})", name=name)

    def numbers_type(self, node: n.Call, scope: Scope) -> t.Type:
        """A function of numbers giving a number (`floor`, `clamp`, ...)."""
        for arg in node.args:
            type_ = self.expr(arg, scope)
            if not t.fits(type_, t.NUMBER):
                self.error(
                    tr(
                        "{name} works on numbers, not {describe}",
                        name=node.function,
                        describe=t.value_of(type_).describe(),
                    ),
                    arg.span,
                    self.quote_hint(arg),
                )
        return t.NUMBER
