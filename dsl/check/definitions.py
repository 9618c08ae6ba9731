"""Checks of definitions: parameters, rolls, ladders, formulas, checks, opposed checks, actions."""

from __future__ import annotations

import attrs

from dsl import nodes as n
from dsl import opposed
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import CHECK_NAMES, OWN_OUTCOME, PARAM_TYPES, ROLL_NAMES, Scope
from dsl.check.wording import describe_definition
from dsl.dice_terminal import reads_as_dice
from dsl.errors import Span, did_you_mean
from dsl.messages import tr

#: other languages' (and sheets') names of the parameter types, and ours
OTHER_TYPE_NAMES = {
    "flag": "bool",
    "yesno": "bool",
    "yes": "bool",
    "string": "text",
    "str": "text",
    "float": "number",
    "decimal": "number",
    "fraction": "number",
}


class DefinitionChecks(CheckerHost):
    """The definitions' checks (part of the Checker)."""

    # ─── definitions ────────────────────────────────────────────────────────

    def definition(self, node) -> None:
        """Check a definition once, even when a caller asks for it before its turn."""
        if node.name in self.done or node.name in self.in_progress:
            return
        self.in_progress.add(node.name)
        try:
            getattr(self, f"def_{type(node).__name__.lower()}")(node)
        finally:
            self.in_progress.discard(node.name)
            self.done.add(node.name)

    def params(self, params, scope: Scope) -> Scope:
        inner = scope.child()
        for param in params:
            if param.name in inner.names:
                self.error(
                    tr("the parameter `{name}` is listed twice", name=param.name), param.span
                )
            self.not_global(param.name, param.span, "parameter")
            self.not_dice(param.name, param.span)
            type_ = self.type_of(param.type)
            if type_.kind == "character":
                self.character_param(param)
            if param.default is not None:
                default = self.expr(param.default, scope)
                if not t.fits(default, type_) and default.kind != "none":
                    self.error(
                        tr(
                            "the default of `{name}` should be {describe}, not {describe2}",
                            name=param.name,
                            describe=type_.describe(),
                            describe2=default.describe(),
                        ),
                        param.default.span,
                        self.no_place_hint(type_, default),
                    )
                self.text_fits(param.default, type_)
            inner.names[param.name] = ("local", type_)
        return inner

    @staticmethod
    def no_place_hint(type_: t.Type, default: t.Type) -> str | None:
        """`skill: skill = 0`: a place on the sheet is named; `none` is the one that adds 0."""
        if type_.kind != "ref" or default.kind != "number":
            return None
        return tr(
            "name one, or write `= none` for none: a {kind} that is none counts 0",
            kind=type_.ref,
        )

    def not_dice(self, name: str, span: Span) -> None:
        """`let d20 = d20` names something no expression can read: `d20` is dice there."""
        if reads_as_dice(name):
            self.error(
                tr("`{name}` reads as dice wherever a value goes; choose another name", name=name),
                span,
            )

    def not_global(self, name: str, span: Span, what: str) -> None:
        if name in self.globals:
            other = self.globals[name]
            self.error(
                tr(
                    "the {what} `{name}` hides {describe_definition} of the same name",
                    what=what,
                    name=name,
                    describe_definition=describe_definition(other),
                ),
                span,
                tr("choose another name"),
            )

    def def_rolldef(self, node: n.RollDef) -> None:
        scope = self.params(node.params, Scope())
        self.want(node.body, scope, t.NUMBER, tr("a roll"))
        if node.rules and not isinstance(node.body, n.Dice):
            self.error(
                tr("a roll with `then` rules starts from one dice term, such as 2d10"),
                node.body.span,
            )
        rule_scope = scope.child(dict((k, ("local", v)) for k, v in ROLL_NAMES.items()))
        for rule in node.rules:
            self.want(rule.condition, rule_scope, t.BOOL, tr("an `on` condition"))
            self.want(rule.extra, scope, t.NUMBER, tr("what a rule adds or subtracts"))
            if rule.again is not None:
                self.want(rule.again, rule_scope, t.BOOL, tr("an `again while` condition"))

    def def_ladder(self, node: n.Ladder) -> None:
        values = [n.step_value(step) for step in node.steps]
        for i, value in enumerate(values):
            if values.index(value) != i:
                self.error(
                    tr("ladder {name} lists {value} twice", name=node.name, value=value),
                    node.steps[i].span,
                )
        kinds = {isinstance(v, str) for v in values}
        if len(kinds) > 1:
            self.error(tr("ladder {name} mixes numbers and texts", name=node.name), node.span)

    def def_formula(self, node: n.Formula) -> None:
        scope = self.params(node.params, Scope())
        self.result_types[node.name] = self.expr(node.body, scope)

    def def_check(self, node: n.Check) -> None:
        scope = self.params(node.params, Scope())
        scope = self.lets(node.lets, scope)
        self.want(node.roll, scope, t.NUMBER, tr("a check's roll"))
        fields = {"total": t.NUMBER}
        if node.comparison is not None:
            self.want(node.target, scope, t.NUMBER, tr("a check's target"))
            fields.update(CHECK_NAMES)
        field_scope = scope.child({k: ("local", v) for k, v in fields.items()})
        self.check_fields(node.fields, field_scope, fields, OWN_OUTCOME)
        self.result_types[node.name] = t.record(fields)

    def lets(self, lets, scope: Scope) -> Scope:
        for let in lets:
            declared = self.let_type(let.expr, scope)
            self.types[id(let)] = declared
            self.declare(scope, let.name, declared, let.span)
            self.let_scopes[id(let)] = (scope, let)
        return scope

    def check_fields(self, items, scope: Scope, fields: dict, own=()) -> None:
        """A check's fields in order; those in `own` (a check's `success`) the author may
        define once, in place of the built-in one, and must keep their type."""
        builtins = dict(fields)
        defined = set()
        for name, expr in items:
            if name in defined:
                self.error(tr("the field `{name}` is defined twice", name=name), expr.span)
            elif name in builtins and name not in own:
                self.error(
                    tr("`{name}` is a built-in field; choose another name", name=name),
                    expr.span,
                    tr(
                        "a check may define its own `success`; `total`, `target` and "
                        "`margin` are what its roll gave"
                    ),
                )
            defined.add(name)
            self.not_global(name, expr.span, "field")
            type_ = self.expr(expr, scope)
            if name in own and not t.fits(type_, own[name]):
                self.error(
                    tr(
                        "`{name}` is {wanted}, not {given}",
                        name=name,
                        wanted=own[name].describe(),
                        given=t.value_of(type_).describe(),
                    ),
                    expr.span,
                )
                type_ = own[name]
            # a record holds values: a field written as a sheet field's name holds its value
            fields[name] = t.value_of(type_)
            scope.names[name] = ("local", fields[name])

    def def_opposed(self, node: n.Opposed) -> None:
        scope = self.params(node.params, Scope())
        sides = []
        for side in (node.ours, node.theirs):
            type_ = self.expr(side, scope)
            value = t.value_of(type_)
            if value.kind not in ("number", "record", "any"):
                self.error(
                    tr(
                        "each side of an opposed check is a roll or a check, not {describe}",
                        describe=value.describe(),
                    ),
                    side.span,
                )
            sides.append(value if value.kind == "record" else t.record({"total": t.NUMBER}))
        self.opposed_directions(node)
        for name in opposed.compared(node, self.bindings):
            for side, expr in zip(sides, (node.ours, node.theirs)):
                if side.fields is not None and side.field(name) is None:
                    self.error(
                        tr("this side has no `{name}` to compare", name=name),
                        expr.span,
                        did_you_mean(name, side.field_names()),
                    )
        fields = {
            "ours": sides[0],
            "theirs": sides[1],
            "won": t.BOOL,
            "tie": t.BOOL,
            "margin": t.NUMBER,
            "rerolls": t.NUMBER,
        }
        field_scope = scope.child({k: ("local", v) for k, v in fields.items()})
        self.check_fields(node.fields, field_scope, fields)
        self.result_types[node.name] = t.record(fields)

    def opposed_directions(self, node: n.Opposed) -> None:
        """A side rolled under its target in one branch and over it in another, or totals
        compared of a side rolled under and one not: an error (no order says which wins). Only
        `total` depends on the direction: `margin` and `success` say it already."""
        if "total" not in opposed.compared(node, self.bindings):
            return  # the other keys say the same whichever way the sides roll
        found = []
        for expr in (node.ours, node.theirs):
            way = opposed.direction(opposed.side_checks(expr, self.bindings))
            if way == "mixed":
                self.error(
                    tr(
                        "this side rolls under its target in one branch and not in another: "
                        "which roll is the better cannot be told"
                    ),
                    expr.span,
                )
            found.append(way)
        if set(found) == {"under", "over"}:
            self.error(
                tr(
                    "one side rolls under its target and the other not: their totals cannot "
                    "be compared (compare `margin`, or fields of your own)"
                ),
                node.theirs.span,
            )

    def def_action(self, node: n.Action) -> None:
        scope = self.params(node.params, Scope())
        self.result_types.setdefault(node.name, t.NONE)
        self.block(node.body, scope, top=True, action=node)

    # ─── types written in the rulebook ──────────────────────────────────────

    def type_of(self, node) -> t.Type:
        if isinstance(node, n.EnumType):
            return t.text_of(node.choices)
        if isinstance(node, n.ListType):
            return t.list_of(self.type_of(node.item))
        name = node.name
        if name in PARAM_TYPES:
            return PARAM_TYPES[name]
        definition = self.globals.get(name)
        if isinstance(definition, n.Group):
            self.use(name)
            return self.member_type(definition)
        if isinstance(definition, n.Table):
            self.use(name)
            keys = [row.key.low for row in definition.rows if row.key.kind == "value"]
            if keys and all(isinstance(k, str) for k in keys):
                return t.text_of(keys)
            return t.NUMBER
        if isinstance(definition, n.Catalog):
            self.use(name)
            return attrs.evolve(self.catalog_type(definition), group=name)
        if isinstance(definition, n.Ladder):
            self.use(name)
            values = [n.step_value(s) for s in definition.steps]
            return t.text_of(values) if values and isinstance(values[0], str) else t.NUMBER
        choices = [
            *PARAM_TYPES,
            *(
                k
                for k, v in self.globals.items()
                if isinstance(v, n.Group | n.Table | n.Catalog | n.Ladder)
            ),
        ]
        ours = OTHER_TYPE_NAMES.get(name.lower())
        self.error(
            tr("unknown type `{name}`", name=name),
            node.span,
            (tr("here, write {ours}", ours=ours) if ours is not None else None)
            or did_you_mean(name, choices)
            or tr(
                "types: {types}, or a group, table, catalog or ladder name",
                types=", ".join(PARAM_TYPES),
            ),
        )
        return t.ANY
