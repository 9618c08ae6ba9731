"""Static checks, run on every load: names, arity, types, tables, duplicates, cycles.

The checker resolves every name once and records, for each expression node, what it
refers to (`bindings`) and its type (`types`); the interpreter compiles from those and
never resolves a name again. Errors and warnings carry file:line:col and a caret.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import attrs

from dsl import nodes as n
from dsl import types as t
from dsl.errors import Diagnostic, RulebookInvalid, Span, did_you_mean

#: functions every rulebook has: name → (fewest, most arguments; None for no limit)
BUILTINS = {
    "floor": (1, 1),
    "ceil": (1, 1),
    "round": (1, 1),
    "abs": (1, 1),
    "min": (1, None),
    "max": (1, None),
    "clamp": (3, 3),
    "sum": (1, 1),
    "size": (1, 1),
    "default": (2, 2),
    "step": (3, 3),
}

#: names a check's fields can use, and what they are
CHECK_NAMES = {"total": t.NUMBER, "target": t.NUMBER, "success": t.BOOL, "margin": t.NUMBER}
#: names a roll's `on` and `again` conditions can use
ROLL_NAMES = {"die": t.NUMBER, "dice": t.list_of(t.NUMBER), "total": t.NUMBER, "doubles": t.BOOL}
PARAM_TYPES = {
    "int": t.NUMBER,
    "number": t.NUMBER,
    "bool": t.BOOL,
    "text": t.TEXT,
    "attribute": t.ref("attribute"),
    "skill": t.ref("skill"),
    "resource": t.ref("resource"),
    "counter": t.ref("counter"),
    "stat": t.ref("stat"),
}


@attrs.frozen
class Binding:
    """What a name, call, index or field refers to; `node` is the definition, if any."""

    kind: str
    name: str
    node: object = None


@attrs.frozen(eq=False)
class Rulebook:
    """A checked rulebook: its definitions by kind, and what the checker resolved."""

    title: str
    header: dict
    path: str
    fields: dict  # sheet fields by name: Stat, Resource, Counter, Flag, TextField, ...
    open_skills: n.OpenSkills | None
    groups: dict
    derived: dict
    ensures: tuple
    rolls: dict
    ladders: dict
    formulas: dict
    tables: dict
    checks: dict
    opposed: dict
    actions: dict
    bindings: dict  # id(node) → Binding
    types: dict  # id(node) → Type
    warnings: tuple
    changes: tuple  # what a house rule did: ("replaced" | "added", kind, name)
    base: Rulebook | None = None

    @property
    def language(self) -> str:
        return self.header.get("language", "en")

    def definition(self, name: str):
        for table in (
            self.actions,
            self.checks,
            self.opposed,
            self.tables,
            self.rolls,
            self.formulas,
            self.ladders,
        ):
            if name in table:
                return table[name]
        return None


class Scope:
    """Local names: parameters, `let`s, loop variables, a check's `total`, ..."""

    def __init__(self, parent: Scope | None = None, names: dict | None = None):
        self.parent = parent
        self.names: dict[str, tuple[str, t.Type]] = dict(names or {})

    def lookup(self, name: str):
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self) -> list[str]:
        out, scope = [], self
        while scope is not None:
            out.extend(scope.names)
            scope = scope.parent
        return out

    def child(self, names: dict | None = None) -> Scope:
        return Scope(self, names)


def check_definitions(
    header: n.Header | None, definitions: list, path: str, changes=(), base=None
) -> Rulebook:
    """Check merged definitions; raise RulebookInvalid on any error, else the Rulebook."""
    checker = Checker(definitions)
    checker.run()
    errors = [d for d in checker.diagnostics if d.severity == "error"]
    if errors:
        raise RulebookInvalid(checker.diagnostics)
    fields = dict(header.fields) if header else {}
    return Rulebook(
        title=header.title if header else path,
        header=fields,
        path=path,
        fields=checker.fields,
        open_skills=checker.open_skills,
        groups=checker.groups,
        derived=checker.derived,
        ensures=tuple(checker.ensures),
        rolls=checker.by_kind["roll"],
        ladders=checker.by_kind["ladder"],
        formulas=checker.by_kind["formula"],
        tables=checker.by_kind["table"],
        checks=checker.by_kind["check"],
        opposed=checker.by_kind["opposed"],
        actions=checker.by_kind["action"],
        bindings=checker.bindings,
        types=checker.types,
        warnings=tuple(checker.diagnostics),
        changes=tuple(changes),
        base=base,
    )


class Checker:
    def __init__(self, definitions: list):
        self.definitions = definitions
        self.diagnostics: list[Diagnostic] = []
        self.bindings: dict[int, Binding] = {}
        self.types: dict[int, t.Type] = {}
        self.globals: dict[str, object] = {}
        self.fields: dict[str, object] = {}
        self.groups: dict[str, n.Group] = {}
        self.derived: dict[str, n.Derived] = {}
        self.ensures: list[n.Ensure] = []
        self.open_skills: n.OpenSkills | None = None
        self.by_kind: dict[str, dict] = {
            k: {} for k in ("roll", "ladder", "formula", "table", "check", "opposed", "action")
        }
        self.used: set[str] = set()
        self.calls: dict[str, set[str]] = {}
        self.current: str | None = None  # the definition being checked (for call cycles)
        self.result_types: dict[str, t.Type] = {}
        self.done: set[str] = set()
        self.in_progress: set[str] = set()

    # ─── reporting ──────────────────────────────────────────────────────────

    def error(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic("error", message, span, hint))

    def warning(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic("warning", message, span, hint))

    # ─── the whole rulebook ─────────────────────────────────────────────────

    def run(self) -> None:
        self.collect()
        for item in self.fields.values():
            self.sheet_item(item)
        for group in self.groups.values():
            self.group(group)
        for derived in self.derived.values():
            self.in_definition(derived.name, lambda d=derived: self.expr(d.expr, Scope()))
        for ensure in self.ensures:
            self.want(ensure.condition, Scope(), t.BOOL, "an `ensure` condition")
        for definition in self.definitions:
            if not isinstance(definition, n.Sheet):
                self.in_definition(definition.name, lambda d=definition: self.definition(d))
        self.check_cycles()
        self.check_unused()
        self.diagnostics.sort(
            key=lambda d: (d.span.source.name, d.span.start) if d.span else ("", 0)
        )

    def in_definition(self, name: str, check) -> None:
        previous, self.current = self.current, name
        self.calls.setdefault(name, set())
        try:
            check()
        finally:
            self.current = previous

    def collect(self) -> None:
        """Every top-level name, once: sheet fields and definitions share one namespace."""
        for definition in self.definitions:
            items = definition.items if isinstance(definition, n.Sheet) else (definition,)
            for item in items:
                if isinstance(item, n.OpenSkills):
                    if self.open_skills is not None:
                        self.error("the open skill list is declared twice", item.span)
                    self.open_skills = item
                    continue
                if isinstance(item, n.Ensure):
                    self.ensures.append(item)
                    continue
                name = item.name
                if name in BUILTINS:
                    self.error(f"`{name}` is a built-in function; choose another name", item.span)
                    continue
                if name in self.globals:
                    first = self.globals[name]
                    self.error(
                        f"`{name}` is defined twice",
                        item.span,
                        f"the first definition is at {first.span.location()}",
                    )
                    continue
                self.globals[name] = item
                if isinstance(item, n.Group):
                    self.groups[name] = item
                elif isinstance(item, n.Derived):
                    self.derived[name] = item
                elif isinstance(
                    item,
                    n.RollDef | n.Ladder | n.Formula | n.Table | n.Check | n.Opposed | n.Action,
                ):
                    self.by_kind[n.kind_of(item)][name] = item
                else:
                    self.fields[name] = item

    # ─── the sheet ──────────────────────────────────────────────────────────

    def sheet_item(self, item) -> None:
        if isinstance(item, n.Stat):
            self.constant_in_range(item.default, item.range, item.name)
        elif isinstance(item, n.Resource):
            scope = Scope()
            if item.key_group is not None:
                group = self.groups.get(item.key_group)
                if group is None:
                    self.undefined(item.key_group, item.span, Scope(), "group")
                    return
                self.used.add(group.name)
                scope = Scope(names={item.key_var: ("key", self.member_type(group))})
            self.in_definition(
                item.name, lambda: self.want(item.maximum, scope, t.NUMBER, "a resource's maximum")
            )
            if item.minimum is not None:
                self.want(item.minimum, scope, t.NUMBER, "a resource's minimum")
        elif isinstance(item, n.Counter):
            self.constant_in_range(item.default, item.range, item.name)
        elif isinstance(item, n.Flag):
            if item.default is not None:
                self.want(item.default, Scope(), t.BOOL, "a flag's default")
                if not isinstance(item.default, n.Literal):
                    self.error(
                        f"the default of {item.name} is yes or no, written out", item.default.span
                    )
        elif isinstance(item, n.Catalog):
            names = [f.name for f in item.fields]
            for field in item.fields:
                if names.count(field.name) > 1:
                    self.error(
                        f"catalog {item.name} lists the field `{field.name}` twice", field.span
                    )
                if field.name == "name":
                    self.error("`name` is every catalog entry's own field", field.span)
                self.type_of(field.type)

    def constant_in_range(self, default, range_: n.Range | None, name: str) -> None:
        if default is None:
            return
        self.want(default, Scope(), t.NUMBER, f"the default of {name}")
        if not isinstance(default, n.Literal):
            self.error(
                f"the default of {name} is a number written out",
                default.span,
                "a value computed from others is a `derived` value",
            )
        elif range_ is not None and default.value not in range_:
            self.error(
                f"the default {default.value} of {name} is outside {range_.describe()}",
                default.span,
            )

    def group(self, group: n.Group) -> None:
        kinds = set()
        for member in group.members:
            field = self.fields.get(member)
            if field is None:
                if member in self.globals:
                    self.error(f"group {group.name}: `{member}` is not a sheet field", group.span)
                else:
                    self.undefined(member, group.span, Scope(), "sheet field")
                continue
            kinds.add(n.kind_of(field))
        if len(kinds) > 1:
            self.error(
                f"group {group.name} mixes kinds of fields ({', '.join(sorted(kinds))})", group.span
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
                self.error(f"the parameter `{param.name}` is listed twice", param.span)
            self.not_global(param.name, param.span, "parameter")
            type_ = self.type_of(param.type)
            if param.default is not None:
                default = self.expr(param.default, scope)
                if not t.fits(default, type_) and default.kind != "none":
                    self.error(
                        f"the default of `{param.name}` should be "
                        f"{type_.describe()}, not {default.describe()}",
                        param.default.span,
                    )
                self.text_fits(param.default, type_)
            inner.names[param.name] = ("local", type_)
        return inner

    def not_global(self, name: str, span: Span, what: str) -> None:
        if name in self.globals:
            other = self.globals[name]
            self.error(
                f"the {what} `{name}` hides {_describe(other)} of the same name",
                span,
                "choose another name",
            )

    def def_rolldef(self, node: n.RollDef) -> None:
        scope = self.params(node.params, Scope())
        self.want(node.body, scope, t.NUMBER, "a roll")
        if node.rules and not isinstance(node.body, n.Dice):
            self.error(
                "a roll with `then` rules starts from one dice term, such as 2d10", node.body.span
            )
        rule_scope = scope.child(dict((k, ("local", v)) for k, v in ROLL_NAMES.items()))
        for rule in node.rules:
            self.want(rule.condition, rule_scope, t.BOOL, "an `on` condition")
            self.want(rule.extra, scope, t.NUMBER, "what a rule adds or subtracts")
            if rule.again is not None:
                self.want(rule.again, rule_scope, t.BOOL, "an `again while` condition")

    def def_ladder(self, node: n.Ladder) -> None:
        values = [_step_value(step) for step in node.steps]
        for i, value in enumerate(values):
            if values.index(value) != i:
                self.error(f"ladder {node.name} lists {value} twice", node.steps[i].span)
        kinds = {isinstance(v, str) for v in values}
        if len(kinds) > 1:
            self.error(f"ladder {node.name} mixes numbers and texts", node.span)

    def def_formula(self, node: n.Formula) -> None:
        scope = self.params(node.params, Scope())
        self.result_types[node.name] = self.expr(node.body, scope)

    def def_table(self, node: n.Table) -> None:
        for key in node.keys:
            self.not_global(key, node.span, "table key")
        scope = Scope(names={key: ("local", t.ANY) for key in node.keys})
        self.result_types[node.name] = self.rows_type(node, node.rows, 0, scope)

    def rows_type(self, table: n.Table, rows, depth: int, scope: Scope) -> t.Type:
        """Check rows at one level; the type of what a full lookup gives."""
        self.check_rows(table, rows, depth)
        levels = max(1, len(table.keys))
        if depth < levels - 1:
            result = t.NONE
            for row in rows:
                if row.value is not None:
                    self.expr(row.value, scope)
                if not row.rows:
                    self.error(
                        f"table {table.name} is looked up by {levels} keys, so this "
                        f"row needs a sub-table for `{table.keys[depth + 1]}`",
                        row.span,
                    )
                    continue
                result = t.join(result, self.rows_type(table, row.rows, depth + 1, scope))
            return result
        records = _has_fields(table.rows, levels)
        result = t.NONE
        for row in rows:
            value = self.expr(row.value, scope) if row.value is not None else t.NONE
            if records:
                fields = {"label": value} if row.value is not None else {}
                for name, expr in row.fields:
                    fields[name] = self.expr(expr, scope)
                value = t.record(fields)
            result = t.join(result, value)
        return result

    def check_rows(self, table: n.Table, rows, depth: int) -> None:
        """Duplicates, overlaps and gaps (errors); rows nobody can reach (warnings)."""
        # A cell written as `"label" { field: value }` is parsed as a sub-table whose keys
        # are names; at the last level those are the record's fields.
        numeric = []
        seen_values: dict = {}
        after_else = False
        for row in rows:
            key = row.key
            if after_else:
                self.warning(
                    f"table {table.name}: this row comes after `else`, so it is never reached",
                    row.span,
                )
            if key.kind == "else":
                after_else = True
                continue
            if key.kind == "value" and isinstance(key.low, str):
                if key.low in seen_values:
                    self.error(f'table {table.name} has the key "{key.low}" twice', key.span)
                seen_values[key.low] = row
                continue
            low, high = (key.low, key.low) if key.kind == "value" else (key.low, key.high)
            if table.domain is not None and depth == 0:
                d = table.domain
                outside = (high is not None and d.low is not None and high < d.low) or (
                    low is not None and d.high is not None and low > d.high
                )
                if outside:
                    self.warning(
                        f"table {table.name}: no key in {d.describe()} reaches this row", row.span
                    )
                    continue
            numeric.append((low, high, row))
        if numeric and seen_values:
            self.error(f"table {table.name} mixes text keys and number keys", table.span)
        ordered = sorted(numeric, key=lambda r: float("-inf") if r[0] is None else r[0])
        for (_low1, high1, row1), (low2, _high2, row2) in itertools.pairwise(ordered):
            if high1 is None or (low2 is not None and low2 <= high1) or low2 is None:
                self.error(
                    f"table {table.name}: rows {row1.key.describe()} and "
                    f"{row2.key.describe()} overlap",
                    row2.key.span,
                    "each key must reach one row",
                )
            elif low2 > high1 + 1 and not after_else:
                gap = f"{high1 + 1}" if low2 == high1 + 2 else f"{high1 + 1}..{low2 - 1}"
                self.error(
                    f"table {table.name} has a gap: no row for {gap}",
                    row2.key.span,
                    "add a row for it, or an `else` row",
                )
        if ordered and table.domain is not None and depth == 0 and not after_else:
            d = table.domain
            first_low, last_high = (
                ordered[0][0],
                max((r[1] for r in ordered), key=lambda h: float("inf") if h is None else h),
            )
            if d.low is not None and first_low is not None and first_low > d.low:
                self.error(f"table {table.name} has a gap: no row for {d.low}", table.span)
            if d.high is not None and last_high is not None and last_high < d.high:
                self.error(f"table {table.name} has a gap: no row for {d.high}", table.span)

    def def_check(self, node: n.Check) -> None:
        scope = self.params(node.params, Scope())
        scope = self.lets(node.lets, scope)
        self.want(node.roll, scope, t.NUMBER, "a check's roll")
        fields = {"total": t.NUMBER}
        if node.comparison is not None:
            self.want(node.target, scope, t.NUMBER, "a check's target")
            fields.update(CHECK_NAMES)
        field_scope = scope.child({k: ("local", v) for k, v in fields.items()})
        self.check_fields(node.fields, field_scope, fields)
        self.result_types[node.name] = t.record(fields)

    def lets(self, lets, scope: Scope) -> Scope:
        for let in lets:
            declared = self.let_type(let.expr, scope)
            self.types[id(let)] = declared
            self.declare(scope, let.name, declared, let.span, let.expr)
        return scope

    def check_fields(self, items, scope: Scope, fields: dict) -> None:
        for name, expr in items:
            if name in fields:
                self.error(
                    f"the field `{name}` is defined twice (or is a built-in field)", expr.span
                )
            self.not_global(name, expr.span, "field")
            fields[name] = self.expr(expr, scope)
            scope.names[name] = ("local", fields[name])

    def def_opposed(self, node: n.Opposed) -> None:
        scope = self.params(node.params, Scope())
        sides = []
        for side in (node.ours, node.theirs):
            type_ = self.expr(side, scope)
            value = t.value_of(type_)
            if value.kind not in ("number", "record", "any"):
                self.error(
                    f"each side of an opposed check is a roll or a check, not {value.describe()}",
                    side.span,
                )
            sides.append(value if value.kind == "record" else t.record({"total": t.NUMBER}))
        for name in node.compare:
            for side, expr in zip(sides, (node.ours, node.theirs)):
                if side.fields is not None and side.field(name) is None:
                    self.error(
                        f"this side has no `{name}` to compare",
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

    def def_action(self, node: n.Action) -> None:
        scope = self.params(node.params, Scope())
        self.result_types.setdefault(node.name, t.NONE)
        self.block(node.body, scope, top=True, action=node)

    # ─── statements ─────────────────────────────────────────────────────────

    def block(self, statements, scope: Scope, top: bool = False, action=None) -> None:
        inner = scope.child()
        for i, statement in enumerate(statements):
            if isinstance(statement, n.Result):
                if not top or i != len(statements) - 1:
                    self.error("`result` is the last statement of an action", statement.span)
                fields = {}
                for name, expr in statement.fields:
                    fields[name] = self.expr(expr, inner)
                if action is not None:
                    self.result_types[action.name] = t.record(fields)
                continue
            self.statement(statement, inner)

    def statement(self, node, scope: Scope) -> None:
        getattr(self, f"st_{type(node).__name__.lower()}")(node, scope)

    def declare(self, scope: Scope, name: str, type_: t.Type, span: Span, expr=None) -> None:
        if name in scope.names or scope.lookup(name) is not None:
            self.error(
                f"`{name}` is already defined here",
                span,
                f"to change it, write `set {name} to ...`",
            )
        self.not_global(name, span, "name")
        if name in BUILTINS:
            self.error(f"`{name}` is a built-in function; choose another name", span)
        kind = "roll" if isinstance(expr, n.Dice) else "local"
        scope.names[name] = (kind, type_)

    def let_type(self, expr, scope: Scope) -> t.Type:
        """What a `let` holds: a value (a field named in it is read at that moment), and
        of a type wide enough to be `set` later (any text, not just the one written)."""
        type_ = self.expr(expr, scope)
        if isinstance(expr, n.Dice):
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
        self.declare(scope, node.name, declared, node.span, node.expr)

    def st_set(self, node: n.Set, scope: Scope) -> None:
        value = self.expr(node.expr, scope)
        if isinstance(node.place, n.Name) and scope.lookup(node.place.name) is not None:
            kind, type_ = scope.lookup(node.place.name)
            if kind not in ("local", "roll"):
                self.error(f"`{node.place.name}` cannot be changed", node.place.span)
            self.bindings[id(node.place)] = Binding("local", node.place.name)
            self.types[id(node.place)] = type_
            if not t.fits(value, t.value_of(type_)) and value.kind != "none":
                self.error(
                    f"`{node.place.name}` holds {t.value_of(type_).describe()}, "
                    f"not {t.value_of(value).describe()}",
                    node.expr.span,
                )
            return
        place = self.place(
            node.place, scope, ("attribute", "skill", "stat", "resource", "counter", "flag", "text")
        )
        if place is not None and not t.fits(value, t.REF_VALUES.get(place.ref, t.ANY)):
            self.error(
                f"{node.place.span.text} holds "
                f"{t.REF_VALUES[place.ref].describe()}, not "
                f"{t.value_of(value).describe()}",
                node.expr.span,
            )

    def place(self, node, scope: Scope, kinds) -> t.Type | None:
        type_ = self.expr(node, scope)
        if type_.kind == "any":
            return None
        if type_.kind != "ref" or type_.ref not in kinds:
            self.error(
                f"{node.span.text} is not something on the sheet that can change",
                node.span,
                "a place is an attribute, skill, resource or counter",
            )
            return None
        return type_

    def st_change(self, node: n.Change, scope: Scope) -> None:
        self.want(node.amount, scope, t.NUMBER, f"the amount to {node.verb}")
        self.place(node.place, scope, ("attribute", "skill", "stat", "resource", "counter"))

    def st_require(self, node: n.Require, scope: Scope) -> None:
        self.want(node.condition, scope, t.BOOL, "a `require` condition")
        self.expr(node.message, scope)

    def st_if(self, node: n.If, scope: Scope) -> None:
        for condition, body in node.branches:
            self.want(condition, scope, t.BOOL, "an `if` condition")
            self.block(body, scope)
        if node.otherwise is not None:
            self.block(node.otherwise, scope)

    def st_match(self, node: n.Match, scope: Scope) -> None:
        subject = self.expr(node.subject, scope)
        seen = []
        for values, body in node.cases:
            for value in values:
                type_ = self.expr(value, scope)
                if not _comparable(subject, type_):
                    self.error(
                        f"this case is {t.value_of(type_).describe()}, but the match "
                        f"is on {t.value_of(subject).describe()}",
                        value.span,
                    )
                self.text_fits(value, subject)
                if isinstance(value, n.Literal):
                    if value.value in seen:
                        self.warning(
                            f"the case {value.value!r} is listed twice; the second "
                            "is never reached",
                            value.span,
                        )
                    seen.append(value.value)
            self.block(body, scope)
        if node.otherwise is not None:
            self.block(node.otherwise, scope)

    def st_foreach(self, node: n.ForEach, scope: Scope) -> None:
        items = t.value_of(self.expr(node.items, scope))
        if items.kind not in ("list", "any"):
            self.error(f"`for each` goes over a list, not {items.describe()}", node.items.span)
        inner = scope.child()
        self.declare(inner, node.var, items.item or t.ANY, node.span)
        self.block(node.body, inner)

    def st_repeat(self, node: n.Repeat, scope: Scope) -> None:
        self.want(node.count, scope, t.NUMBER, "a repeat count")
        if node.until is not None:
            self.want(node.until, scope, t.BOOL, "an `until` condition")
        self.block(node.body, scope)

    def st_note(self, node: n.Note, scope: Scope) -> None:
        self.expr(node.text, scope)

    def st_do(self, node: n.Do, scope: Scope) -> None:
        self.expr(node.call, scope)

    def st_add(self, node: n.Add, scope: Scope) -> None:
        place = node.place
        catalog = self.global_named(place, scope)
        if isinstance(catalog, n.Catalog):
            self.use(catalog.name)
            self.bindings[id(place)] = Binding("catalog", catalog.name, catalog)
            self.want(node.item, scope, t.TEXT, "a catalog entry's name")
            declared = {f.name: f for f in catalog.fields}
            given = dict(node.fields or ())
            for name, expr in given.items():
                if name not in declared:
                    self.error(
                        f"catalog {catalog.name} has no field `{name}`",
                        expr.span,
                        did_you_mean(name, list(declared)),
                    )
                    self.expr(expr, scope)
                    continue
                wanted = self.type_of(declared[name].type)
                type_ = self.expr(expr, scope)
                if not t.fits(type_, wanted):
                    self.error(
                        f"`{name}` should be {wanted.describe()}, not "
                        f"{t.value_of(type_).describe()}",
                        expr.span,
                    )
                self.text_fits(expr, wanted)
            missing = [name for name in declared if name not in given]
            if missing:
                self.error(f"a new {catalog.name} entry needs {', '.join(missing)}", node.span)
            return
        if node.fields is not None:
            self.error("only a catalog entry is added with { fields }", node.span)
        self.expr(node.item, scope)
        type_ = self.expr(place, scope)
        if isinstance(place, n.Name) and scope.lookup(place.name) is not None:
            _kind, local = scope.lookup(place.name)
            if t.value_of(local).kind not in ("list", "any"):
                self.error(f"`{place.name}` is not a list", place.span)
            return
        if not (type_.kind == "ref" and type_.ref == "list") and type_.kind != "any":
            self.error(f"{place.span.text} is not a list on the sheet, nor a catalog", place.span)

    def st_result(self, node: n.Result, scope: Scope) -> None:  # placed by block()
        raise AssertionError("result is checked by block()")

    # ─── expressions ────────────────────────────────────────────────────────

    def want(self, node, scope: Scope, wanted: t.Type, what: str) -> t.Type:
        type_ = self.expr(node, scope)
        if not t.fits(type_, wanted):
            self.error(
                f"{what} should be {wanted.describe()}, not {t.value_of(type_).describe()}",
                node.span,
                self.quote_hint(node),
            )
        return type_

    def expr(self, node, scope: Scope) -> t.Type:
        type_ = getattr(self, f"ex_{type(node).__name__.lower()}")(node, scope)
        self.types[id(node)] = type_
        return type_

    def ex_literal(self, node: n.Literal, scope: Scope) -> t.Type:
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
                    f"{node.name} has one pool per {definition.key_group}; say which: "
                    f"{node.name}[...]",
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
        if isinstance(definition, n.Catalog):
            self.bindings[id(node)] = Binding("catalog", node.name, definition)
            return t.list_of(t.TEXT)
        if isinstance(definition, n.RollDef):
            if definition.params:
                self.error(f"roll {node.name} takes parameters: {node.name}(...)", node.span)
            self.bindings[id(node)] = Binding("rolldef", node.name, definition)
            self.note_call(node.name)
            return t.NUMBER
        self.error(f"{node.name} is {_describe(definition)}; {_how_to_use(definition)}", node.span)
        return t.ANY

    def use(self, name: str) -> None:
        self.used.add(name)

    def note_call(self, name: str) -> None:
        if self.current is not None:
            self.calls.setdefault(self.current, set()).add(name)

    def undefined(
        self, name: str, span: Span, scope: Scope, what: str = "name", functions: bool = True
    ) -> None:
        candidates = set(scope.all_names()) | set(self.globals)
        if functions:
            candidates |= set(BUILTINS)
        self.error(f"unknown {what} `{name}`", span, did_you_mean(name, candidates))

    def ex_field(self, node: n.Field, scope: Scope) -> t.Type:
        subject = self.expr(node.subject, scope)
        if subject.kind == "ref" and subject.ref == "resource" and node.name in ("max", "min"):
            self.bindings[id(node)] = Binding("resource_bound", node.name)
            return t.NUMBER
        value = t.value_of(subject) if subject.kind != "roll" else subject
        if value.kind == "any":
            return t.ANY
        if value.kind not in ("record", "roll"):
            self.error(
                f"{node.subject.span.text} is {value.describe()}, which has no fields", node.span
            )
            return t.ANY
        if value.fields is None:
            return t.ANY
        field = value.field(node.name)
        if field is None:
            self.error(
                f"{node.subject.span.text} has no field `{node.name}`",
                node.span,
                did_you_mean(node.name, value.field_names())
                or "it has: " + ", ".join(value.field_names()),
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
                    f"table {definition.name} is looked up by {levels} key(s), not "
                    f"{len(node.keys)}",
                    node.span,
                )
            self.text_keys_fit(definition, node.keys)
            return self.table_type(definition, len(node.keys))
        if isinstance(definition, n.Resource) and definition.key_group is not None:
            self.use(definition.name)
            group = self.groups.get(definition.key_group)
            self.bindings[id(node)] = Binding("family", definition.name, definition)
            if len(node.keys) != 1:
                self.error(f"{definition.name}[...] takes one key", node.span)
            for key in node.keys:
                key_type = self.expr(key, scope)
                if group is not None:
                    wanted = self.member_type(group)
                    if not t.fits(key_type, wanted) and not (
                        key_type.kind == "ref" and key_type.group == group.name
                    ):
                        self.error(
                            f"{definition.name}[...] takes one of {', '.join(group.members)}",
                            key.span,
                        )
                    self.text_fits(key, wanted)
            return t.ref("resource", definition.key_group)
        if isinstance(definition, n.Catalog):
            self.use(definition.name)
            self.bindings[id(node)] = Binding("catalog_entry", definition.name, definition)
            for key in node.keys:
                self.want(key, scope, t.TEXT, "a catalog entry's name")
            return self.catalog_type(definition)
        if (
            isinstance(subject, n.Name)
            and definition is None
            and scope.lookup(subject.name) is None
            and subject.name not in self.globals
        ):
            self.undefined(subject.name, subject.span, scope)
            return t.ANY
        self.expr(subject, scope)
        self.error(
            f"{subject.span.text} cannot be looked up with [...]",
            node.span,
            "tables, catalogs and resources kept per group can",
        )
        return t.ANY

    def text_keys_fit(self, table: n.Table, keys) -> None:
        """A text key written in the rulebook must be one of the table's keys."""
        if not keys or not isinstance(keys[0], n.Literal) or not isinstance(keys[0].value, str):
            return
        texts = [
            row.key.low
            for row in table.rows
            if row.key.kind == "value" and isinstance(row.key.low, str)
        ]
        if any(row.key.kind == "else" for row in table.rows):
            return
        if keys[0].value not in texts:
            self.error(
                f'table {table.name} has no row "{keys[0].value}"',
                keys[0].span,
                did_you_mean(keys[0].value, texts),
            )

    def table_type(self, table: n.Table, depth: int) -> t.Type:
        if table.name not in self.result_types:  # definition order is free
            self.in_definition(table.name, lambda: self.definition(table))
        full = self.result_types.get(table.name, t.ANY)
        levels = max(1, len(table.keys))
        if depth < levels:
            return t.record(None)
        return full

    def catalog_type(self, catalog: n.Catalog) -> t.Type:
        fields = {"name": t.TEXT}
        for field in catalog.fields:
            fields[field.name] = self.type_of(field.type)
        return t.record(fields)

    def ex_call(self, node: n.Call, scope: Scope) -> t.Type:
        name = node.function
        if name in BUILTINS and scope.lookup(name) is None and name not in self.globals:
            return self.builtin(node, scope)
        definition = self.globals.get(name)
        if definition is None:
            self.undefined(name, node.name_span, scope, "function")
            for arg in node.args:
                self.expr(arg, scope)
            return t.ANY
        if not isinstance(definition, n.Formula | n.Check | n.Opposed | n.Action | n.RollDef):
            self.error(
                f"{name} is {_describe(definition)}, which cannot be called",
                node.name_span,
                _how_to_use(definition),
            )
            return t.ANY
        self.use(name)
        self.note_call(name)
        self.bindings[id(node)] = Binding(n.kind_of(definition), name, definition)
        self.arguments(node, definition.params, scope, name)
        if isinstance(definition, n.RollDef):
            return t.NUMBER
        if name not in self.result_types:
            # Checked later in file order; its fields are known once it is checked.
            self.in_definition(name, lambda: self.definition(definition))
        return self.result_types.get(name, t.ANY)

    def arguments(self, node: n.Call, params, scope: Scope, name: str) -> None:
        by_name = {p.name: p for p in params}
        given = {}
        if len(node.args) > len(params):
            self.error(
                f"{name} takes {_count(len(params), 'argument')}, not {len(node.args)}",
                node.span,
                _signature(name, params),
            )
        for param, arg in zip(params, node.args):
            given[param.name] = arg
        for key, arg in node.named:
            if key not in by_name:
                self.error(
                    f"{name} has no parameter `{key}`",
                    arg.span,
                    did_you_mean(key, list(by_name)) or _signature(name, params),
                )
                self.expr(arg, scope)
                continue
            if key in given:
                self.error(f"the parameter `{key}` is given twice", arg.span)
            given[key] = arg
        for param in params:
            arg = given.get(param.name)
            if arg is None:
                if param.default is None:
                    self.error(
                        f"{name} needs the parameter `{param.name}`",
                        node.span,
                        _signature(name, params),
                    )
                continue
            wanted = self.type_of(param.type)
            type_ = self.expr(arg, scope)
            if not t.fits(type_, wanted) and type_.kind != "none":
                self.error(
                    f"`{param.name}` should be {wanted.describe()}, not "
                    f"{t.value_of(type_).describe()}",
                    arg.span,
                    self.quote_hint(arg),
                )
            self.text_fits(arg, wanted)

    def builtin(self, node: n.Call, scope: Scope) -> t.Type:
        name = node.function
        low, high = BUILTINS[name]
        count = len(node.args)
        if node.named:
            self.error(f"{name} takes no named arguments", node.span)
        if count < low or (high is not None and count > high):
            expected = str(low) if low == high else f"at least {low}"
            self.error(f"{name} takes {expected} argument(s), not {count}", node.span)
        self.bindings[id(node)] = Binding("builtin", name)
        if name == "step":
            ladder = node.args[0] if node.args else None
            definition = self.globals.get(ladder.name) if isinstance(ladder, n.Name) else None
            if not isinstance(definition, n.Ladder):
                self.error(
                    "step(...) moves along a ladder: step(Ladder, from, steps)",
                    ladder.span if ladder is not None else node.span,
                )
                return t.ANY
            self.use(definition.name)
            self.bindings[id(ladder)] = Binding("ladder", definition.name, definition)
            for arg in node.args[1:]:
                self.expr(arg, scope)
            if len(node.args) == 3:
                self.want(node.args[2], scope, t.NUMBER, "the number of steps")
            values = [_step_value(s) for s in definition.steps]
            return t.text_of(values) if values and isinstance(values[0], str) else t.NUMBER
        types = [self.expr(arg, scope) for arg in node.args]
        if name == "default":
            return t.join(types[0], types[1]) if len(types) == 2 else t.ANY
        if name == "size":
            if types and t.value_of(types[0]).kind not in ("list", "text", "any"):
                self.error("size(...) counts the items of a list", node.args[0].span)
            return t.NUMBER
        if name in ("min", "max", "sum") and count == 1:
            value = t.value_of(types[0])
            if value.kind not in ("list", "any"):
                self.error(
                    f"{name} of one value needs a list (or give several values)", node.args[0].span
                )
            return t.NUMBER
        for arg, type_ in zip(node.args, types):
            if not t.fits(type_, t.NUMBER):
                self.error(
                    f"{name} works on numbers, not {t.value_of(type_).describe()}",
                    arg.span,
                    self.quote_hint(arg),
                )
        return t.NUMBER

    def ex_unary(self, node: n.Unary, scope: Scope) -> t.Type:
        if node.op == "not":
            self.want(node.operand, scope, t.BOOL, "what `not` negates")
            return t.BOOL
        self.want(node.operand, scope, t.NUMBER, "what `-` negates")
        return t.NUMBER

    def ex_binary(self, node: n.Binary, scope: Scope) -> t.Type:
        op = node.op
        if op in ("and", "or"):
            self.want(node.left, scope, t.BOOL, f"each side of `{op}`")
            self.want(node.right, scope, t.BOOL, f"each side of `{op}`")
            return t.BOOL
        left = self.expr(node.left, scope)
        right = self.expr(node.right, scope)
        if op == "+" and t.value_of(left).kind == "list" and t.value_of(right).kind == "list":
            return t.list_of(
                t.join(t.value_of(left).item or t.ANY, t.value_of(right).item or t.ANY)
            )
        if op in ("+", "-", "*", "/", ">=", "<=", ">", "<"):
            for side, type_ in ((node.left, left), (node.right, right)):
                if not t.fits(type_, t.NUMBER):
                    self.error(
                        f"`{op}` works on numbers, but {side.span.text} is "
                        f"{t.value_of(type_).describe()}",
                        side.span,
                        self.quote_hint(side),
                    )
            return t.NUMBER if op in "+-*/" else t.BOOL
        if op in ("=", "!="):
            if not _comparable(left, right):
                self.error(
                    f"{node.left.span.text} is {t.value_of(left).describe()} and "
                    f"{node.right.span.text} is {t.value_of(right).describe()}; "
                    "they are never equal",
                    node.op_span,
                    self.quote_hint(node.right),
                )
            self.text_fits(node.right, left)
            self.text_fits(node.left, right)
            return t.BOOL
        if op == "in":
            container = t.value_of(right)
            if container.kind not in ("list", "text", "any"):
                self.error(f"`in` looks in a list, not in {container.describe()}", node.right.span)
            return t.BOOL
        raise AssertionError(op)

    def text_fits(self, node, wanted: t.Type) -> None:
        """A text written in the rulebook must be one of the choices it is compared to."""
        if not (isinstance(node, n.Literal) and isinstance(node.value, str)):
            return
        choices = wanted.choices
        if wanted.kind == "ref" and wanted.group is None and choices is None:
            choices = self.names_of_kind(wanted.ref)
            if choices is None:
                return
        if choices and node.value not in choices:
            self.error(
                f'"{node.value}" is not one of the choices here',
                node.span,
                did_you_mean(node.value, choices)
                or "the choices are: " + ", ".join(sorted(map(str, choices))),
            )

    def quote_hint(self, node) -> str | None:
        """A text that is the name of something: perhaps a name was meant, in quotes."""
        if (
            isinstance(node, n.Literal)
            and isinstance(node.value, str)
            and node.value in self.globals
        ):
            return f"a name with spaces is written in single quotes: '{node.value}'"
        return None

    def names_of_kind(self, kind: str):
        if kind == "skill" and self.open_skills is not None:
            return None  # any skill name is accepted
        kinds = ("attribute", "skill") if kind == "stat" else (kind,)
        return frozenset(name for name, f in self.fields.items() if n.kind_of(f) in kinds)

    def ex_ifexpr(self, node: n.IfExpr, scope: Scope) -> t.Type:
        self.want(node.condition, scope, t.BOOL, "an `if` condition")
        return t.join(self.expr(node.then, scope), self.expr(node.otherwise, scope))

    def ex_dice(self, node: n.Dice, scope: Scope) -> t.Type:
        if node.count is not None:
            self.want(node.count, scope, t.NUMBER, "the number of dice")
        if not isinstance(node.sides, int | str):
            self.want(node.sides, scope, t.NUMBER, "the number of faces")
        for modifier in node.modifiers:
            value = getattr(modifier, "count", None)
            condition = getattr(modifier, "condition", None)
            if value is not None:
                self.want(value, scope, t.NUMBER, "how many dice to keep or drop")
            if condition is not None:
                self.want(condition.value, scope, t.NUMBER, "a face to compare with")
        return t.ROLL

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
            values = [_step_value(s) for s in definition.steps]
            return t.text_of(values) if values and isinstance(values[0], str) else t.NUMBER
        choices = [
            *PARAM_TYPES,
            *(
                k
                for k, v in self.globals.items()
                if isinstance(v, n.Group | n.Table | n.Catalog | n.Ladder)
            ),
        ]
        self.error(
            f"unknown type `{name}`",
            node.span,
            did_you_mean(name, choices)
            or "types: " + ", ".join(PARAM_TYPES) + ", or a group, table, catalog or ladder name",
        )
        return t.ANY

    # ─── whole-rulebook checks ──────────────────────────────────────────────

    def check_cycles(self) -> None:
        """No definition may call itself, directly or through others: evaluation is total."""
        state: dict[str, int] = {}
        reported = set()

        def visit(name: str, path: list[str]) -> None:
            state[name] = 1
            for callee in sorted(self.calls.get(name, ())):
                if state.get(callee) == 1:
                    cycle = [*path[path.index(callee) :], callee] if callee in path else [callee]
                    key = frozenset(cycle)
                    if key not in reported:
                        reported.add(key)
                        node = self.globals.get(callee)
                        self.error(
                            f"{callee} calls itself (through "
                            f"{' → '.join(cycle)}); rules must always finish",
                            node.span if node is not None else None,
                        )
                elif state.get(callee) is None:
                    visit(callee, [*path, callee])
            state[name] = 2

        for name in sorted(self.calls):
            if state.get(name) is None:
                visit(name, [name])

    def check_unused(self) -> None:
        for name, definition in self.globals.items():
            if isinstance(
                definition,
                n.Action
                | n.Stat
                | n.Resource
                | n.Counter
                | n.Flag
                | n.TextField
                | n.ListField
                | n.Catalog
                | n.Derived,
            ):
                continue
            if name not in self.used:
                what = _describe(definition).split(" ", 1)[1]
                self.warning(f"{what} `{name}` is never used", definition.span)


# ─── helpers ────────────────────────────────────────────────────────────────


def _has_fields(rows, levels: int, depth: int = 0) -> bool:
    """Whether any last-level row of a table has fields (then every row is a record)."""
    if depth >= levels - 1:
        return any(row.fields for row in rows)
    return any(_has_fields(row.rows, levels, depth + 1) for row in rows)


def names_a_field(node, bindings: dict) -> bool:
    """Whether a ref-typed expression is a value that names a field (a parameter
    `atributo: attribute`, a catalog entry's `numina.dignitas`), rather than a field
    written by its own name (`Fuerza`). In texts, lookups and `in`, the first stands for
    the field's name; the second always for its value."""
    if isinstance(node, n.Name):
        binding = bindings.get(id(node))
        return binding is not None and binding.kind in ("local", "key")
    return isinstance(node, n.Field)


def _step_value(step):
    if isinstance(step, n.Dice):
        return step.sides
    return step.value


def _comparable(a: t.Type, b: t.Type) -> bool:
    va, vb = t.value_of(a), t.value_of(b)
    if "any" in (va.kind, vb.kind) or "none" in (va.kind, vb.kind):
        return True
    if (a.kind == "ref" and vb.kind == "text") or (b.kind == "ref" and va.kind == "text"):
        return True  # comparing a field's name with a text
    return va.kind == vb.kind


def _describe(node) -> str:
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


def _how_to_use(node) -> str:
    name = node.name
    if isinstance(node, n.Table):
        return f"look a row up with {name}[...]"
    if isinstance(node, n.Ladder):
        return f"move along it with step({name}, from, steps)"
    if isinstance(node, n.Formula | n.Check | n.Opposed | n.Action):
        return f"call it with {name}(...)"
    return "use it by name"


def _count(number: int, word: str) -> str:
    return f"{number} {word}" + ("" if number == 1 else "s")


def _signature(name: str, params) -> str:
    parts = []
    for p in params:
        parts.append(p.name if p.default is None else f"{p.name} = {p.default.span.text}")
    return f"it is {name}({', '.join(parts)})"
