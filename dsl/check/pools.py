"""Checks of the pool functions (count, highest, lowest, most_sets) and the list ones."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.messages import tr


class PoolChecks(CheckerHost):
    """The checks of the functions that look at a pool's dice, or a list (part of the
    Checker)."""

    def pool_function(self, node: n.Call, scope: Scope) -> t.Type:
        """`count(pool, test)`, `highest(pool)`, `lowest(pool, n)`: of a pool or a list."""
        name = node.function
        types = [self.expr(arg, scope) for arg in node.args]
        if not types:
            return t.ANY
        subject = types[0]
        if subject.kind != "roll" and t.value_of(subject).kind not in ("list", "any"):
            self.error(
                tr(
                    (
                        "{name}(...) looks at the dice of a pool (a dice term, a named roll, a "
                        "`let` holding one) or at a list, not at {describe}"
                    ),
                    name=name,
                    describe=t.value_of(subject).describe(),
                ),
                node.args[0].span,
                tr("as in {name}(5d6{value})", name=name, value=", 6" if name == "count" else ""),
            )
        if name == "count":
            if len(types) == 2 and t.value_of(types[1]).kind not in (
                "number",
                "range",
                "list",
                "text",
                "any",
            ):
                self.error(
                    tr(
                        "count(pool, faces) counts the dice showing a face (6), a range of "
                        "faces (5..6, 5..) or a list of them ([1, 2]), not {describe}",
                        describe=types[1].describe(),
                    ),
                    node.args[1].span,
                )
            return t.NUMBER
        if name == "most_sets":
            if len(types) == 2 and t.value_of(types[1]).kind not in ("number", "list", "any"):
                self.error(
                    tr(
                        "most_sets(pool, at_least) splits the dice into sets adding up to at "
                        "least a number (10), or to a list of rising numbers ([10, 15]: a set "
                        "of 15 counts twice), not {describe}",
                        describe=t.value_of(types[1]).describe(),
                    ),
                    node.args[1].span,
                )
            return t.NUMBER
        if len(types) == 2:
            if not t.fits(types[1], t.NUMBER):
                self.error(
                    tr(
                        "how many dice {name} takes should be a number, not {describe}",
                        name=name,
                        describe=t.value_of(types[1]).describe(),
                    ),
                    node.args[1].span,
                )
            return t.list_of(t.NUMBER)
        return t.NUMBER

    def list_function(self, node: n.Call, scope: Scope) -> t.Type:
        """`without(list, items)`: the list less those items (one each); `subsets(list)`:
        every different choice of some of its items."""
        name = node.function
        types = [self.expr(arg, scope) for arg in node.args]
        if not types:
            return t.ANY
        subject = t.value_of(types[0])
        if subject.kind not in ("list", "any"):
            self.error(
                tr(
                    "{name}(...) takes a list (r.sorted, [1, 2, 3]), not {describe}",
                    name=name,
                    describe=subject.describe(),
                ),
                node.args[0].span,
            )
            return t.ANY
        if name == "subsets":
            return t.list_of(subject)
        return subject
