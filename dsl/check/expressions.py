"""Checks of expressions: names resolved once, arity of calls, types of operators."""

from __future__ import annotations

import re
from fractions import Fraction

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.check.wording import arguments, describe_definition, how_to_use, signature_of
from dsl.errors import Span, did_you_mean
from dsl.functions import FUNCTIONS
from dsl.messages import Message, tr
from dsl.rulebook import Binding, names_a_field
from dsl.unicode_text import digits_refused

#: a name that is a die written wrong: `d` with no sides, `dd6` with one d too many
_DIE_MISWRITTEN = re.compile(r"[dD]{1,2}([0-9]*)")

#: functions other languages name otherwise, and how they are written here
OTHER_FUNCTIONS = {
    "len": "size(list)",
    "length": "size(list)",
    "int": "floor(x)",
    "roundup": "ceil(x)",
    "rounddown": "floor(x)",
    "str": '"{x}"',
    "sorted": "lowest(list, size(list))",
    "sort": "lowest(list, size(list))",
}


class ExpressionChecks(CheckerHost):
    """The expressions' checks (part of the Checker)."""

    def want(self, node, scope: Scope, wanted: t.Type, what: str) -> t.Type:
        type_ = self.expr(node, scope)
        if not t.fits(type_, wanted):
            self.error(
                tr(
                    "{what} should be {describe}, not {describe2}",
                    what=what,
                    describe=wanted.describe(),
                    describe2=t.value_of(type_).describe(),
                ),
                node.span,
                self.quote_hint(node),
            )
        return type_

    def expr(self, node, scope: Scope) -> t.Type:
        self.depth += 1  # expressions nest (whole.check_nesting)
        if self.depth > self.deepest:
            self.deepest = self.depth
        try:
            type_ = getattr(self, f"ex_{type(node).__name__.lower()}")(node, scope)
        finally:
            self.depth -= 1
        self.types[id(node)] = type_
        return type_

    def ex_literal(self, node: n.Literal, scope: Scope) -> t.Type:  # noqa: ARG002 (dispatched as ex_<node>(node, scope))
        value = node.value
        if value is None:
            return t.NONE
        if isinstance(value, bool):
            return t.BOOL
        if isinstance(value, int | Fraction):
            return t.NUMBER
        return t.text_of({value})

    def ex_text(self, node: n.Text, scope: Scope) -> t.Type:
        for part in node.parts:
            if not isinstance(part, str):
                self.expr(part, scope)
        return t.TEXT

    def ex_listliteral(self, node: n.ListLiteral, scope: Scope) -> t.Type:
        item = t.NONE
        for element in node.items:
            item = t.join(item, self.expr(element, scope))
        return t.list_of(item if item.kind != "none" else t.ANY)

    def ex_name(self, node: n.Name, scope: Scope) -> t.Type:
        local = scope.lookup(node.name)
        if local is not None:
            kind, type_ = local
            self.bindings[id(node)] = Binding(kind, node.name)
            scope.note_read(node.name)
            return type_
        definition = self.globals.get(node.name)
        if definition is None:
            self.undefined(node.name, node.span, scope, functions=False)
            return t.ANY
        self.use(node.name)
        if isinstance(definition, n.Stat):
            self.bindings[id(node)] = Binding("field", node.name, definition)
            return t.ref(definition.kind)
        if isinstance(definition, n.Resource | n.Counter | n.Flag | n.TextField | n.ListField):
            if isinstance(definition, n.Resource) and definition.key_group is not None:
                self.error(
                    tr(
                        "{name} has one pool per {key_group}; say which: {name2}[...]",
                        name=node.name,
                        key_group=definition.key_group,
                        name2=node.name,
                    ),
                    node.span,
                )
                return t.ANY
            self.bindings[id(node)] = Binding("field", node.name, definition)
            return t.ref(n.kind_of(definition))
        if isinstance(definition, n.Derived):
            self.bindings[id(node)] = Binding("derived", node.name, definition)
            self.note_call(node.name)
            return t.NUMBER
        if isinstance(definition, n.Group):
            self.bindings[id(node)] = Binding("group", node.name, definition)
            return t.list_of(self.member_type(definition))
        if isinstance(definition, n.Catalog | n.Effects):
            # a catalog's entries, or the lasting effects now on: their names
            self.bindings[id(node)] = Binding("catalog", node.name, definition)
            return t.list_of(t.TEXT)
        if isinstance(definition, n.RollDef):
            if definition.params:
                self.error(
                    tr(
                        "roll {name} takes parameters: {name2}(...)",
                        name=node.name,
                        name2=node.name,
                    ),
                    node.span,
                )
            self.bindings[id(node)] = Binding("rolldef", node.name, definition)
            self.note_call(node.name)
            return t.ROLL
        self.error(
            tr(
                "{name} is {describe_definition}; {how_to_use}",
                name=node.name,
                describe_definition=describe_definition(definition),
                how_to_use=how_to_use(definition),
            ),
            node.span,
        )
        return t.ANY

    def use(self, name: str) -> None:
        self.used.add(name)

    def note_call(self, name: str) -> None:
        if self.current is not None:
            self.calls.setdefault(self.current, set()).add(name)
            sites = self.sites.setdefault(self.current, {})
            sites[name] = max(sites.get(name, 0), self.depth - self.base)

    def undefined(
        self,
        name: str,
        span: Span,
        scope: Scope,
        unknown=None,
        functions: bool = True,
        fallback: Message | None = None,
    ) -> None:
        """`unknown`: what the error says, `tr("unknown name `{name}`")` unless told;
        `fallback`: the hint where no other fits (a table's cell: a text in quotes)."""
        candidates = set(scope.all_names()) | set(self.globals)
        if functions:
            candidates |= set(FUNCTIONS)
        hint: Message | str | None = digits_refused(name)
        if hint is None and functions and name.lower() in OTHER_FUNCTIONS:  # `len(list)`
            hint = tr("here, write {ours}", ours=OTHER_FUNCTIONS[name.lower()])
        hint = hint or did_you_mean(name, candidates)
        if hint is None and (die := _DIE_MISWRITTEN.fullmatch(name)) is not None:  # `d`, `dd6`
            sides = die.group(1) or "6"
            hint = tr("a die is written with its sides after one d: {example}", example=f"d{sides}")
        if hint is None and span is not None and span.text.startswith("'"):  # `'hello'`
            hint = tr(
                "'...' is a name written in quotes; a text is written in double quotes: {text}",
                text=f'"{name}"',
            )
        hint = hint or fallback
        if hint is None and self.open_skills is not None and unknown is None:
            hint = tr(  # (`Strength + Athletics`: a skill of the open list, by its name)
                "a skill of the sheet's open list is read through a parameter of type "
                'skill (`s: skill`, given "{name}"), or named in the sheet: skill {name}',
                name=name,
            )
        self.error((unknown or tr("unknown name `{name}`")).fill(name=name), span, hint)

    def ex_field(self, node: n.Field, scope: Scope) -> t.Type:
        subject = self.expr(node.subject, scope)
        if subject.kind == "character":
            return self.character_field(node)
        if subject.kind == "ref" and subject.ref == "resource" and node.name in ("max", "min"):
            self.bindings[id(node)] = Binding("resource_bound", node.name)
            return t.NUMBER
        value = t.value_of(subject) if subject.kind != "roll" else subject
        if value.kind == "any":
            return t.ANY
        if value.kind not in ("record", "roll", "symbols"):
            sized = value.kind in ("list", "text") and node.name in ("length", "len", "size")
            self.error(
                tr(
                    "{text} is {describe}, which has no fields",
                    text=node.subject.span.text,
                    describe=value.describe(),
                ),
                node.span,
                tr("here, write {ours}", ours=f"size({node.subject.span.text})") if sized else None,
            )
            return t.ANY
        if value.fields is None:
            return t.ANY
        field = value.field(node.name)
        if field is None:
            self.error(
                tr("{text} has no field `{name}`", text=node.subject.span.text, name=node.name),
                node.span,
                did_you_mean(node.name, value.field_names())
                or tr("it has: {fields}", fields=", ".join(value.field_names())),
            )
            return t.ANY
        return field

    def ex_index(self, node: n.Index, scope: Scope) -> t.Type:
        subject = node.subject
        definition = self.global_named(subject, scope)
        if isinstance(definition, n.Table):
            self.use(definition.name)
            self.note_call(definition.name)
            self.bindings[id(node)] = Binding("table", definition.name, definition)
            for key in node.keys:
                self.expr(key, scope)
            levels = max(1, len(definition.keys))
            if len(node.keys) > levels:
                self.error(
                    tr(
                        "table {name} is looked up by {levels} key(s), not {len}",
                        name=definition.name,
                        levels=levels,
                        len=len(node.keys),
                    ),
                    node.span,
                )
            self.text_keys_fit(definition, node.keys)
            return self.table_type(definition, len(node.keys))
        if isinstance(definition, n.Resource) and definition.key_group is not None:
            self.use(definition.name)
            group = self.groups.get(definition.key_group)
            self.bindings[id(node)] = Binding("family", definition.name, definition)
            if len(node.keys) != 1:
                self.error(tr("{name}[...] takes one key", name=definition.name), node.span)
            for key in node.keys:
                key_type = self.expr(key, scope)
                if group is not None:
                    wanted = self.member_type(group)
                    if not t.fits(key_type, wanted) and not (
                        key_type.kind == "ref" and key_type.group == group.name
                    ):
                        self.error(
                            tr(
                                "{name}[...] takes one of {join}",
                                name=definition.name,
                                join=", ".join(group.members),
                            ),
                            key.span,
                        )
                    self.text_fits(key, wanted)
            return t.ref("resource", definition.key_group)
        if isinstance(definition, n.Catalog | n.Effects):
            self.use(definition.name)
            self.bindings[id(node)] = Binding("catalog_entry", definition.name, definition)
            for key in node.keys:
                self.want(key, scope, t.TEXT, tr("a catalog entry's name"))
            if isinstance(definition, n.Effects):
                return t.record(
                    {
                        "name": t.TEXT,
                        "modifier": t.NUMBER,
                        "targets": t.list_of(t.TEXT),
                        "left": t.NUMBER,
                        "unit": t.TEXT,
                    }
                )
            return self.catalog_type(definition)
        if (
            isinstance(subject, n.Name)
            and definition is None
            and scope.lookup(subject.name) is None
            and subject.name not in self.globals
        ):
            self.undefined(subject.name, subject.span, scope)
            return t.ANY
        if t.value_of(listed := self.expr(subject, scope)).kind == "list":
            return self.list_item(node, listed, scope)
        hint = tr("tables, catalogs and resources kept per group can")
        if isinstance(subject, n.Dice | n.RollGroup) and all(
            isinstance(k, n.Name) for k in node.keys
        ):  # d20's `1d20 [attack]`: a label, written here right after the term
            label = " ".join(k.name for k in node.keys)
            hint = tr(
                "a label is written right after the term, with no space: {example}",
                example=f"{subject.span.text}[{label}]",
            )
        self.error(
            tr("{text} cannot be looked up with [...]", text=subject.span.text), node.span, hint
        )
        return t.ANY

    def catalog_type(self, catalog: n.Catalog) -> t.Type:
        fields = {"name": t.TEXT}
        for field in catalog.fields:
            fields[field.name] = self.type_of(field.type)
        return t.record(fields)

    def ex_call(self, node: n.Call, scope: Scope) -> t.Type:
        name = node.function
        if name in FUNCTIONS and scope.lookup(name) is None and name not in self.globals:
            return self.builtin(node, scope)
        definition = self.globals.get(name)
        if definition is None and scope.lookup(name) is not None:  # (`y (z)`: a value called)
            self.error(
                tr("`{name}` is a value, not a function: it cannot be called", name=name),
                node.name_span,
                tr("to multiply, write {example}", example=f"{name} * (...)"),
            )
            for arg in node.args:
                self.expr(arg, scope)
            return t.ANY
        if definition is None:
            self.undefined(name, node.name_span, scope, tr("unknown function `{name}`"))
            for arg in node.args:
                self.expr(arg, scope)
            return t.ANY
        if not isinstance(definition, n.Formula | n.Check | n.Opposed | n.Action | n.RollDef):
            self.error(
                tr(
                    "{name} is {describe_definition}, which cannot be called",
                    name=name,
                    describe_definition=describe_definition(definition),
                ),
                node.name_span,
                how_to_use(definition),
            )
            return t.ANY
        self.use(name)
        self.note_call(name)
        self.bindings[id(node)] = Binding(n.kind_of(definition), name, definition)
        self.arguments(node, definition.params, scope, name)
        if isinstance(definition, n.RollDef):
            return t.ROLL
        if name not in self.result_types:
            # Checked later in file order; its fields are known once it is checked.
            self.in_definition(name, lambda: self.definition(definition))
        return self.result_types.get(name, t.ANY)

    def arguments(self, node: n.Call, params, scope: Scope, name: str) -> None:
        by_name = {p.name: p for p in params}
        given = {}
        if len(node.args) > len(params):
            self.error(
                tr(
                    "{name} takes {count_of}, not {len}",
                    name=name,
                    count_of=arguments(len(params)),
                    len=len(node.args),
                ),
                node.span,
                signature_of(name, params),
            )
        for param, arg in zip(params, node.args):
            given[param.name] = arg
        for key, arg in node.named:
            if key not in by_name:
                self.error(
                    tr("{name} has no parameter `{key}`", name=name, key=key),
                    arg.span,
                    did_you_mean(key, list(by_name)) or signature_of(name, params),
                )
                self.expr(arg, scope)
                continue
            if key in given:
                self.error(tr("the parameter `{key}` is given twice", key=key), arg.span)
            given[key] = arg
        for param in params:
            arg = given.get(param.name)
            if arg is None:
                if param.default is None:
                    self.error(
                        tr("{name} needs the parameter `{name2}`", name=name, name2=param.name),
                        node.span,
                        signature_of(name, params),
                    )
                continue
            wanted = self.type_of(param.type)
            type_ = self.expr(arg, scope)
            if not t.fits(type_, wanted) and type_.kind != "none":
                self.error(
                    tr(
                        "`{name}` should be {describe}, not {describe2}",
                        name=param.name,
                        describe=wanted.describe(),
                        describe2=t.value_of(type_).describe(),
                    ),
                    arg.span,
                    self.quote_hint(arg),
                )
            self.text_fits(arg, wanted)

    def ex_range(self, node: n.Range, scope: Scope) -> t.Type:  # noqa: ARG002 (dispatched as ex_<node>(node, scope))
        return t.RANGE

    def ex_rangeof(self, node: n.RangeOf, scope: Scope) -> t.Type:
        for end, what in (
            (node.low, tr("a range's low end")),
            (node.high, tr("a range's high end")),
        ):
            if end is not None:
                self.want(end, scope, t.NUMBER, what)
        return t.RANGE

    def ex_unary(self, node: n.Unary, scope: Scope) -> t.Type:
        if node.op == "not":
            self.want(node.operand, scope, t.BOOL, tr("what `not` negates"))
            return t.BOOL
        self.want(node.operand, scope, t.NUMBER, tr("what `-` negates"))
        return t.NUMBER

    def ex_binary(self, node: n.Binary, scope: Scope) -> t.Type:
        op = node.op
        if op in ("and", "or"):
            self.want(node.left, scope, t.BOOL, tr("each side of `{op}`", op=op))
            self.want(node.right, scope, t.BOOL, tr("each side of `{op}`", op=op))
            return t.BOOL
        left = self.expr(node.left, scope)
        right = self.expr(node.right, scope)
        if op == "+" and t.value_of(left).kind == "list" and t.value_of(right).kind == "list":
            return t.list_of(
                t.join(t.value_of(left).item or t.ANY, t.value_of(right).item or t.ANY)
            )
        if op == "+" and (pooled := self.symbol_sum(left, right)) is not None:
            return pooled
        if op in (">=", "<=", ">", "<"):
            self.note_counted(node)
        if op in ("+", "-", "*", "/", "**", "%", ">=", "<=", ">", "<"):
            for side, type_ in ((node.left, left), (node.right, right)):
                if not t.fits(type_, t.NUMBER):
                    self.error(
                        tr(
                            "`{op}` works on numbers, but {text} is {describe}",
                            op=op,
                            text=side.span.text,
                            describe=t.value_of(type_).describe(),
                        ),
                        side.span,
                        self.quote_hint(side) or _joined_text_hint(node, side),
                    )
            return t.NUMBER if op in ("+", "-", "*", "/", "**", "%") else t.BOOL
        if op in ("=", "!="):
            if op == "=":
                self.note_counted(node)
            if not t.comparable(left, right):
                self.error(
                    tr(
                        "{text} is {describe} and {text2} is {describe2}; they are never equal",
                        text=node.left.span.text,
                        describe=t.value_of(left).describe(),
                        text2=node.right.span.text,
                        describe2=t.value_of(right).describe(),
                    ),
                    node.op_span,
                    self.quote_hint(node.right),
                )
            # a text compared with a value naming a field (`atributo = "Fuerza"`) must be
            # one of those names; with a field written by its own name (`Mild = ""`), it
            # is compared with the field's value
            self.text_fits(node.right, self.compared_as(node.left, left))
            self.text_fits(node.left, self.compared_as(node.right, right))
            return t.BOOL
        if op == "in":
            container = t.value_of(right)
            if container.kind not in ("list", "text", "range", "any"):
                self.error(
                    tr("`in` looks in a list, not in {describe}", describe=container.describe()),
                    node.right.span,
                )
            item = t.value_of(left)
            if container.kind == "text" and left.kind != "ref" and item.kind not in ("text", "any"):
                self.error(
                    tr("`in` a text looks for a text, not for {given}", given=item.describe()),
                    node.left.span,
                )
            return t.BOOL
        raise AssertionError(op)

    def text_fits(self, node, wanted: t.Type) -> None:
        """A text written in the rulebook must be one of the choices it is compared to."""
        if not (isinstance(node, n.Literal) and isinstance(node.value, str)):
            return
        choices = wanted.choices
        if wanted.kind == "ref" and wanted.ref and wanted.group is None and choices is None:
            choices = self.names_of_kind(wanted.ref)
            if choices is None:
                return
        if choices and node.value not in choices:
            self.error(
                tr('"{value}" is not one of the choices here', value=node.value),
                node.span,
                did_you_mean(node.value, choices)
                or tr("the choices are: {choices}", choices=", ".join(sorted(map(str, choices)))),
            )

    def compared_as(self, node, type_: t.Type) -> t.Type:
        """What `=` compares of a value: a field's name, if it names one, else its value."""
        if type_.kind == "ref" and not names_a_field(node, self.bindings):
            return t.value_of(type_)
        return type_

    def quote_hint(self, node) -> str | None:
        """A text that is the name of something: perhaps a name was meant, in quotes."""
        if (
            isinstance(node, n.Literal)
            and isinstance(node.value, str)
            and node.value in self.globals
        ):
            return tr("a name with spaces is written in single quotes: '{name}'", name=node.value)
        return None

    def names_of_kind(self, kind: str):
        if kind == "skill" and self.open_skills is not None:
            return None  # any skill name is accepted
        kinds = ("attribute", "skill") if kind == "stat" else (kind,)
        return frozenset(name for name, f in self.fields.items() if n.kind_of(f) in kinds)

    def ex_ifexpr(self, node: n.IfExpr, scope: Scope) -> t.Type:
        self.want(node.condition, scope, t.BOOL, tr("an `if` condition"))
        return t.join(self.expr(node.then, scope), self.expr(node.otherwise, scope))


def _joined_text_hint(node: n.Binary, side) -> str | None:
    """`"x is " + x`: a text written out, added to a value, as one text with the value
    in braces (`"x is {x}"`), when the value is written short."""
    if node.op != "+" or not (isinstance(side, n.Literal) and isinstance(side.value, str)):
        return None
    other = node.right if side is node.left else node.left
    if isinstance(other, n.Literal):  # (`1 + "a"`: nothing to show in braces)
        return None
    written = other.span.text
    if len(written) > 40 or "\n" in written or '"' in written:
        return None
    text = side.value.replace("{", "{{").replace("}", "}}")
    joined = text + "{" + written + "}" if side is node.left else "{" + written + "}" + text
    return tr("a text shows values in braces: {example}", example=f'"{joined}"')
