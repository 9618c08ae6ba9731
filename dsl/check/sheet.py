"""Checks of the sheet: defaults within their ranges, resources' bounds, groups, catalogs."""

from __future__ import annotations

from fractions import Fraction

import attrs

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.messages import tr
from dsl.nodes.walk import parts

#: the functions that make a division's fraction whole
ROUNDING = frozenset(("floor", "ceil", "round"))


def unrounded_division(node) -> n.Binary | None:
    """The first `/` written in an expression that no floor, ceil or round takes in,
    unless it divides two numbers written out that divide whole (`T / 10`: 38/10 for a
    T of 38; `7 / 2`; not `10 / 2`)."""
    found = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif isinstance(item, n.Call) and item.function in ROUNDING:
            continue
        elif isinstance(item, n.Binary) and item.op == "/":
            a, b = item.left, item.right
            literals = isinstance(a, n.Literal) and isinstance(b, n.Literal)
            if not literals or _fraction_left(a.value, b.value):  # (`T / 10`, `7 / 2`)
                found.append(item)
            stack.extend(parts(item))
        elif attrs.has(type(item)):
            stack.extend(parts(item))
    return min(found, key=lambda d: d.op_span.start, default=None)  # (the first written)


def _fraction_left(top: object, bottom: object) -> bool:
    """Whether two numbers written out divide with a fraction left."""
    if isinstance(top, int | Fraction) and isinstance(bottom, int | Fraction) and bottom:
        return (Fraction(top) / bottom).denominator != 1
    return False


class SheetChecks(CheckerHost):
    """The sheet's checks (part of the Checker)."""

    def sheet_item(self, item) -> None:
        if isinstance(item, n.Stat):
            self.constant_in_range(item.default, item.range, item.name)
        elif isinstance(item, n.Resource):
            scope = Scope()
            if item.key_group is not None:
                group = self.groups.get(item.key_group)
                if group is None:
                    self.undefined(item.key_group, item.span, Scope(), tr("unknown group `{name}`"))
                    return
                self.used.add(group.name)
                scope = Scope(names={item.key_var: ("key", self.member_type(group))})
            self.in_definition(
                item.name,
                lambda: self.want(item.maximum, scope, t.NUMBER, tr("a resource's maximum")),
            )
            if item.minimum is not None:
                self.want(item.minimum, scope, t.NUMBER, tr("a resource's minimum"))
            for bound in (item.maximum, item.minimum):
                division = unrounded_division(bound)
                if division is not None:
                    self.warning(
                        tr("`/` is exact: {name} may hold a fraction", name=item.name),
                        division.op_span,
                        tr("round it as the rules say: floor(...), ceil(...) or round(...)"),
                    )
        elif isinstance(item, n.Counter):
            self.constant_in_range(item.default, item.range, item.name)
        elif isinstance(item, n.Flag):
            if item.default is not None:
                self.want(item.default, Scope(), t.BOOL, tr("a flag's default"))
                if not isinstance(item.default, n.Literal):
                    self.error(
                        tr("the default of {name} is yes or no, written out", name=item.name),
                        item.default.span,
                    )
        elif isinstance(item, n.Effects):
            self.effects_item(item)
        elif isinstance(item, n.Catalog):
            names = [f.name for f in item.fields]
            for field in item.fields:
                if names.count(field.name) > 1:
                    self.error(
                        tr(
                            "catalog {name} lists the field `{name2}` twice",
                            name=item.name,
                            name2=field.name,
                        ),
                        field.span,
                    )
                if field.name == "name":
                    self.error(tr("`name` is every catalog entry's own field"), field.span)
                self.type_of(field.type)

    def constant_in_range(self, default, range_: n.Range | None, name: str) -> None:
        if default is None:
            return
        self.want(default, Scope(), t.NUMBER, tr("the default of {name}", name=name))
        if not isinstance(default, n.Literal):
            self.error(
                tr("the default of {name} is a number written out", name=name),
                default.span,
                tr("a value computed from others is a `derived` value"),
            )
        elif range_ is not None and default.value not in range_:
            self.error(
                tr(
                    "the default {value} of {name} is outside {describe}",
                    value=default.value,
                    name=name,
                    describe=range_.describe(),
                ),
                default.span,
            )

    def group(self, group: n.Group) -> None:
        kinds = set()
        for member in group.members:
            field = self.fields.get(member)
            if field is None:
                if member in self.globals:
                    self.error(
                        tr(
                            "group {name}: `{member}` is not a sheet field",
                            name=group.name,
                            member=member,
                        ),
                        group.span,
                    )
                else:
                    self.undefined(member, group.span, Scope(), tr("unknown sheet field `{name}`"))
                continue
            kinds.add(n.kind_of(field))
        if len(kinds) > 1:
            self.error(
                tr(
                    "group {name} mixes kinds of fields ({join})",
                    name=group.name,
                    join=", ".join(sorted(kinds)),
                ),
                group.span,
            )

    def global_named(self, node, scope: Scope):
        """The definition a plain name refers to, unless a local name hides it."""
        if isinstance(node, n.Name) and scope.lookup(node.name) is None:
            return self.globals.get(node.name)
        return None

    def member_type(self, group: n.Group) -> t.Type:
        first = self.fields.get(group.members[0]) if group.members else None
        kind = n.kind_of(first) if first is not None else "stat"
        return attrs.evolve(t.ref(kind, group.name), choices=frozenset(group.members))
