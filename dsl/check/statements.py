"""Checks of statements: places that can change, lets, loops, matches, adds."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.check.sheet import unrounded_division
from dsl.errors import Span, did_you_mean
from dsl.functions import FUNCTIONS
from dsl.messages import tr
from dsl.rulebook import Binding, names_a_field


class StatementChecks(CheckerHost):
    """The statements' checks (part of the Checker)."""

    def block(self, statements, scope: Scope, top: bool = False, action=None) -> None:
        inner = scope.child()
        for i, statement in enumerate(statements):
            if isinstance(statement, n.Result):
                if not top or i != len(statements) - 1:
                    hint = (
                        None
                        if top
                        else tr(
                            "one `result` closes the action: let the branches `set` what differs"
                            " (`let hit = no` before the `if`, `set hit to yes` inside)"
                        )
                    )
                    self.error(
                        tr("`result` is the last statement of an action"), statement.span, hint
                    )
                fields = {}
                for name, expr in statement.fields:
                    fields[name] = t.value_of(self.expr(expr, inner))  # a record holds values
                if action is not None:
                    self.result_types[action.name] = t.record(fields)
                continue
            self.statement(statement, inner)

    def statement(self, node, scope: Scope) -> None:
        self.depth += 2  # statements nest, a block in each (whole.check_nesting)
        if self.depth > self.deepest:
            self.deepest = self.depth
        try:
            getattr(self, f"st_{type(node).__name__.lower()}")(node, scope)
        finally:
            self.depth -= 2

    def declare(self, scope: Scope, name: str, type_: t.Type, span: Span) -> None:
        if name in scope.names or scope.lookup(name) is not None:
            self.error(
                tr("`{name}` is already defined here", name=name),
                span,
                tr("to change it, write `set {name} to ...`", name=name),
            )
        self.not_global(name, span, "name")
        self.not_dice(name, span)
        if name in FUNCTIONS:
            self.error(tr("`{name}` is a built-in function; choose another name", name=name), span)
        kind = "roll" if type_.kind == "roll" else "local"
        scope.names[name] = (kind, type_)

    def let_type(self, expr, scope: Scope) -> t.Type:
        """What a `let` holds: a value (a field named in it is read at that moment), and
        of a type wide enough to be `set` later (any text, not just the one written)."""
        type_ = self.expr(expr, scope)
        if type_.kind == "roll":  # a pool: its total, and its dice (interpreter.pool)
            return type_
        if type_.kind == "ref" and names_a_field(expr, self.bindings):
            return type_  # `let d = numina.dignitas` goes on naming the field
        value = t.value_of(type_)
        if value.kind == "text":
            return t.TEXT
        if value.kind == "none":
            return t.ANY
        if value.kind == "list" and value.item is not None and value.item.kind == "ref":
            return t.list_of(t.value_of(value.item))
        return value

    def st_let(self, node: n.Let, scope: Scope) -> None:
        declared = self.let_type(node.expr, scope)
        self.types[id(node)] = declared
        self.declare(scope, node.name, declared, node.span)
        self.let_scopes[id(node)] = (scope, node)

    def st_set(self, node: n.Set, scope: Scope) -> None:
        value = self.expr(node.expr, scope)
        local = isinstance(node.place, n.Name) and scope.lookup(node.place.name)
        # a name that names a field (`which: Pools`, `for each s in Pools`) changes the field
        if local and local[1].kind != "ref":
            kind, type_ = local
            if kind not in ("local", "roll"):
                self.error(tr("`{name}` cannot be changed", name=node.place.name), node.place.span)
            self.bindings[id(node.place)] = Binding("local", node.place.name)
            self.types[id(node.place)] = type_
            if kind == "roll" and value.kind != "roll":  # its dice are read as a pool
                self.error(
                    tr(
                        "`{name}` holds a roll and its dice: set it to another roll",
                        name=node.place.name,
                    ),
                    node.expr.span,
                    tr(
                        "to hold a number, let it hold the roll's total: `let {name} = d6 + 0`",
                        name=node.place.name,
                    ),
                )
                return
            if not t.fits(value, t.value_of(type_)) and value.kind != "none":
                self.error(
                    tr(
                        "`{name}` holds {describe}, not {describe2}",
                        name=node.place.name,
                        describe=t.value_of(type_).describe(),
                        describe2=t.value_of(value).describe(),
                    ),
                    node.expr.span,
                )
            return
        place = self.place(
            node.place, scope, ("attribute", "skill", "stat", "resource", "counter", "flag", "text")
        )
        held = t.REF_VALUES.get(place.ref, t.ANY) if place and place.ref else t.ANY
        if place is not None and not t.fits(value, held):
            self.error(
                tr(
                    "{text} holds {describe}, not {describe2}",
                    text=node.place.span.text,
                    describe=held.describe(),
                    describe2=t.value_of(value).describe(),
                ),
                node.expr.span,
            )

    def place(self, node, scope: Scope, kinds) -> t.Type | None:
        type_ = self.expr(node, scope)
        if type_.kind == "any":
            return None
        if type_.kind != "ref" or type_.ref not in kinds:
            self.error(
                tr("{text} is not something on the sheet that can change", text=node.span.text),
                node.span,
                tr("a place is an attribute, skill, resource or counter"),
            )
            return None
        return type_

    def st_change(self, node: n.Change, scope: Scope) -> None:
        self.want(node.amount, scope, t.NUMBER, tr("the amount to {verb}", verb=node.verb))
        division = unrounded_division(node.amount)
        if division is not None:  # (a run with a fraction left stops there: a whole number)
            self.warning(
                tr(
                    "`/` is exact: the amount to {verb} may be a fraction, which stops the run",
                    verb=node.verb,
                ),
                division.op_span,
                tr("round it as the rules say: floor(...), ceil(...) or round(...)"),
            )
        self.place(node.place, scope, ("attribute", "skill", "stat", "resource", "counter"))

    def st_require(self, node: n.Require, scope: Scope) -> None:
        self.want(node.condition, scope, t.BOOL, tr("a `require` condition"))
        self.expr(node.message, scope)

    def st_if(self, node: n.If, scope: Scope) -> None:
        for condition, body in node.branches:
            self.want(condition, scope, t.BOOL, tr("an `if` condition"))
            self.block(body, scope)
        if node.otherwise is not None:
            self.block(node.otherwise, scope)

    def st_match(self, node: n.Match, scope: Scope) -> None:
        subject = self.expr(node.subject, scope)
        seen = []
        for values, body in node.cases:
            for value in values:
                type_ = self.expr(value, scope)
                if not t.comparable(subject, type_):
                    self.error(
                        tr(
                            "this case is {describe}, but the match is on {describe2}",
                            describe=t.value_of(type_).describe(),
                            describe2=t.value_of(subject).describe(),
                        ),
                        value.span,
                    )
                self.text_fits(value, self.compared_as(node.subject, subject))
                if isinstance(value, n.Literal):
                    if value.value in seen:
                        self.warning(
                            tr(
                                "the case {value} is listed twice; the second is never reached",
                                value=repr(value.value),
                            ),
                            value.span,
                        )
                    seen.append(value.value)
            self.block(body, scope)
        if node.otherwise is not None:
            self.block(node.otherwise, scope)

    def st_foreach(self, node: n.ForEach, scope: Scope) -> None:
        items = t.value_of(self.expr(node.items, scope))
        if items.kind not in ("list", "range", "any"):
            self.error(
                tr(
                    "`for each` goes over a list (r.sorted, [1, 2, 3]) or a range (1..n), "
                    "not {describe}",
                    describe=items.describe(),
                ),
                node.items.span,
            )
        if isinstance(node.items, n.Range | n.RangeOf) and None in (
            node.items.low,
            node.items.high,
        ):
            self.error(tr("`for each` goes over a range with both ends (1..n)"), node.items.span)
        item = t.NUMBER if items.kind == "range" else items.item or t.ANY
        inner = scope.child()
        self.declare(inner, node.var, item, node.span)
        self.block(node.body, inner)

    def st_repeat(self, node: n.Repeat, scope: Scope) -> None:
        self.want(node.count, scope, t.NUMBER, tr("a repeat count"))
        if node.until is not None:
            self.want(node.until, scope, t.BOOL, tr("an `until` condition"))
        self.block(node.body, scope)

    def st_note(self, node: n.Note, scope: Scope) -> None:
        self.expr(node.text, scope)

    def st_do(self, node: n.Do, scope: Scope) -> None:
        self.expr(node.call, scope)  # a call, or one made for another character

    def st_add(self, node: n.Add, scope: Scope) -> None:
        place = node.place
        catalog = self.global_named(place, scope)
        if isinstance(catalog, n.Catalog):
            self.use(catalog.name)
            self.bindings[id(place)] = Binding("catalog", catalog.name, catalog)
            self.want(node.item, scope, t.TEXT, tr("a catalog entry's name"))
            declared = {f.name: f for f in catalog.fields}
            given = dict(node.fields or ())
            for name, expr in given.items():
                if name not in declared:
                    self.error(
                        tr("catalog {name} has no field `{name2}`", name=catalog.name, name2=name),
                        expr.span,
                        did_you_mean(name, list(declared)),
                    )
                    self.expr(expr, scope)
                    continue
                wanted = self.type_of(declared[name].type)
                type_ = self.expr(expr, scope)
                if not t.fits(type_, wanted):
                    self.error(
                        tr(
                            "`{name}` should be {describe}, not {describe2}",
                            name=name,
                            describe=wanted.describe(),
                            describe2=t.value_of(type_).describe(),
                        ),
                        expr.span,
                    )
                self.text_fits(expr, wanted)
            missing = [name for name in declared if name not in given]
            if missing:
                self.error(
                    tr(
                        "a new {name} entry needs {join}",
                        name=catalog.name,
                        join=", ".join(missing),
                    ),
                    node.span,
                )
            return
        if node.fields is not None:
            self.error(tr("only a catalog entry is added with { fields }"), node.span)
        item = self.expr(node.item, scope)
        type_ = self.expr(place, scope)
        if isinstance(place, n.Name) and scope.lookup(place.name) is not None:
            _kind, local = scope.lookup(place.name)
            if t.value_of(local).kind not in ("list", "any"):
                self.error(tr("`{name}` is not a list", name=place.name), place.span)
            return
        if not (type_.kind == "ref" and type_.ref == "list") and type_.kind != "any":
            self.error(
                tr("{text} is not a list on the sheet, nor a catalog", text=place.span.text),
                place.span,
            )
        elif type_.kind == "ref" and not t.fits(item, t.TEXT):
            self.error(
                tr(
                    "{place} is a list of texts, not of {given}",
                    place=place.span.text,
                    given=t.value_of(item).describe(),
                ),
                node.item.span,
                tr('write the item as a text: "{...}"'),
            )

    def st_result(self, node: n.Result, scope: Scope) -> None:  # noqa: ARG002 (dispatched as st_<node>(node, scope)); placed by block()
        raise AssertionError("result is checked by block()")
