"""Compiling tables: rows found by value or by range, cells computed when looked up."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from dsl import nodes as n
from dsl.messages import Message, tr
from interpreter.compile.codegen import SWITCH
from interpreter.compile.costs import charged
from interpreter.compile.host import CompilerHost
from interpreter.errors import EvaluationError
from interpreter.runtime import Unknown, known, lift
from interpreter.shown import glimpse
from interpreter.state import MISSING
from interpreter.trace import JOINED, KEPT_STEPS, Later, later_step, made_step
from interpreter.values import PLAIN_TYPES, Record, is_number


class Tables(CompilerHost):
    """How the Compiler turns a table into a lookup closure."""

    def table(self, name: str):
        return self.memo(("table", name), lambda: self._table(self.book.tables[name]))

    def remembered_rows(self, name: str) -> RememberedRows:
        """A one-key table's rows of constants, by whole-number key, as its lookup finds
        them (for generated code: interpreter.compile.codegen)."""
        self.table(name)  # (its rows: made with its lookup)
        found: RememberedRows = self.compiled[("table rows", name)]
        return found

    def _table(self, table: n.Table):
        levels = max(1, len(table.keys))
        root = self._rows(table, table.rows, 0, levels)
        self.compiled[("table rows", table.name)] = RememberedRows(root)
        keys = table.keys
        title = table.name

        def lookup(ctx, key_values: tuple, span, wanted=None, lazy=False):
            if ctx.roller.lifts:
                key_values = tuple(known(ctx, k) for k in key_values)
            node = root
            for depth, key in enumerate(key_values):
                row = node.find(key)
                if row is None:
                    if len(keys) > 1:
                        missing = tr(
                            "table {title} has no row for {key} (at {level})",
                            title=title,
                            key=key,
                            level=keys[depth],
                        )
                    else:
                        missing = tr("table {title} has no row for {key}", title=title, key=key)
                    raise EvaluationError(missing, span)
                node = row
            if type(node) is Cell:
                value = node.cached
                if value is MISSING:
                    lazy = lazy and not ctx.roller.lifts  # (odds: every cell's distribution)
                    value = node.value(ctx, dict(zip(keys, key_values)), wanted, lazy)
            else:
                value = node.summary(ctx, dict(zip(keys, key_values)))
            if ctx.trace is not None:
                lookup_step(ctx, title, tuple(key_values), value, span)
            return value

        return lookup

    def _rows(self, table: n.Table, rows, depth: int, levels: int, records=None):
        if records is None:  # one rule for the whole table: records if any leaf has fields
            records = has_fields(table.rows, levels)
        built = []
        for row in rows:
            if depth < levels - 1:
                label = None
                if row.value is not None:  # counted when it is computed
                    label = charged(self.expr(row.value), self.cost(row.value), row.value.span)
                built.append(
                    (
                        row.key,
                        SubTable(self._rows(table, row.rows, depth + 1, levels, records), label),
                    )
                )
            else:
                built.append((row.key, self._cell(row, records)))
        return Rows(built)

    def _cell(self, row: n.Row, record: bool):
        constant = is_constant(row.value) and all(is_constant(e) for _, e in row.fields)

        def part(expr):
            """A part's closure: counting its steps when computed (a cell is computed on
            lookup), unless the cell is constant (computed once, when compiled)."""
            compiled = self.expr(expr)
            return compiled if constant else charged(compiled, self.cost(expr), expr.span)

        value = part(row.value) if row.value is not None else None
        fields = tuple((name, part(e), self.may_roll(e)) for name, e in row.fields)
        return Cell(value, self.may_roll(row.value), fields, record, constant)

    def may_roll(self, node) -> bool:
        """Whether computing an expression may draw dice: a dice term, a named roll, or a
        call (what it calls may roll)."""
        if node is None:
            return False
        for item in n.walk(node):
            if isinstance(item, n.Dice):
                return True
            binding = self.bindings.get(id(item))
            if isinstance(item, n.Call) and binding is not None and binding.kind != "builtin":
                return True
            if isinstance(item, n.Name) and binding is not None and binding.kind == "rolldef":
                return True
        return False


class Cell:
    """A table cell: a value, or a record of fields (with the value as its label).

    A part that may roll dice is computed only when it is read: a lookup says which
    fields its caller reads (`wanted`; None: all), so that dice in a field nobody reads
    are never rolled (nor take a forced die)."""

    __slots__ = ("cached", "fields", "label_rolls", "record", "value_fn")

    def __init__(self, value_fn, label_rolls: bool, fields, record: bool, constant: bool):
        self.value_fn, self.label_rolls = value_fn, label_rolls
        self.fields, self.record = fields, record
        self.cached = MISSING
        if constant:  # literals only: computed once, without a run
            self.cached = self.compute(None, {}, None)

    def compute(self, ctx, env, wanted, lazy=False):
        if not self.record:
            return self.value_fn(ctx) if self.value_fn is not None else None
        fields = {}
        if self.value_fn is not None and not (
            self.label_rolls and wanted is not None and "label" not in wanted
        ):
            value = self.value_fn(ctx)
            if value is not None:
                fields["label"] = value
        for name, fn, rolls in self.fields:
            if rolls and lazy and wanted is not None and name in wanted:
                fields[name] = Pending(fn, env)  # rolled when first read
            elif not rolls or wanted is None or name in wanted:
                fields[name] = fn(ctx)
        if ctx is not None and ctx.roller.lifts:
            unknown = [k for k, v in fields.items() if isinstance(v, Unknown)]
            if unknown:  # odds: a distribution of rows, each die one roll however often read
                names = tuple(fields)
                return lift(
                    lambda *values: Record(dict(zip(names, values)), kind="row"),
                    *fields.values(),
                )
        return Record(fields, kind="row")

    def value(self, ctx, env, wanted=None, lazy=False):
        if self.cached is not MISSING:
            return self.cached
        saved, ctx.env = ctx.env, env
        try:
            return self.compute(ctx, env, wanted, lazy)
        finally:
            ctx.env = saved


class Pending:
    """A cell's field with dice, in a row a `let` keeps and reads only field by field
    (`let l = Loss[k]` ... `if passed then l.pass else l.fail`): rolled when first read,
    the same value on every later read, never rolled (nor asked for) if never read."""

    __slots__ = ("env", "fn", "value")

    def __init__(self, fn, env: dict):
        self.fn, self.env, self.value = fn, env, MISSING

    def force(self, ctx):
        if self.value is MISSING:
            saved, ctx.env = ctx.env, self.env
            try:
                self.value = self.fn(ctx)
            finally:
                ctx.env = saved
        return self.value


class SubTable:
    """A row of a table looked up by several keys: a label and the next level's rows."""

    __slots__ = ("label", "rows")

    def __init__(self, rows, label):
        self.rows, self.label = rows, label

    def find(self, key):
        return self.rows.find(key)

    def summary(self, ctx, env):
        if self.label is None:
            return Record({}, kind="row")
        saved, ctx.env = ctx.env, env
        try:
            return Record({"label": self.label(ctx)}, kind="row")
        finally:
            ctx.env = saved


class Rows:
    """Rows of one level: text keys in a dict, number ranges searched by bisection."""

    __slots__ = ("by_value", "else_row", "highs", "lows", "ranged")

    def __init__(self, rows: list):
        self.by_value: dict = {}
        self.else_row = None
        ranged = []
        for key, row in rows:
            if key.kind == "else":
                self.else_row = self.else_row or row
            elif key.kind == "value":
                self.by_value.setdefault(key.low, row)
            else:
                ranged.append((key.low, key.high, row))
        ranged.sort(key=lambda r: -math.inf if r[0] is None else r[0])
        self.ranged = ranged
        self.lows = [(-math.inf if low is None else low) for low, _, _ in ranged]
        self.highs = [(math.inf if high is None else high) for _, high, _ in ranged]

    def find(self, key):
        if type(key) is not bool:
            try:
                row = self.by_value.get(key)
            except TypeError:
                row = None
            if row is not None:
                return row
            if is_number(key) and self.ranged:
                i = bisect_right(self.lows, key) - 1
                if i >= 0 and key <= self.highs[i]:
                    return self.ranged[i][2]
        return self.else_row


def text_keyed(table: n.Table) -> list[bool]:
    """For each level of a table, whether its keys are texts."""
    out: list[bool] = []
    rows: Sequence = table.rows
    for _ in range(max(1, len(table.keys))):
        out.append(any(r.key.kind == "value" and isinstance(r.key.low, str) for r in rows))
        rows = [sub for r in rows for sub in r.rows]
    return out


def has_fields(rows, levels: int, depth: int = 0) -> bool:
    if depth >= levels - 1:
        return any(row.fields for row in rows)
    return any(has_fields(row.rows, levels, depth + 1) for row in rows)


def is_constant(node) -> bool:
    return node is None or isinstance(node, n.Literal)


def lookup_step(ctx, title: str, key_values: tuple, value, span) -> None:
    """A lookup's step, of a traced run: the table, the keys and the row found (its cells
    not rolled yet left out: shown when, if, they are read); the lookup's own, and the
    generated code's for a row it remembered (interpreter.compile.codegen)."""
    trace = ctx.trace  # (`step_texts.record`, written out)
    most = trace.most
    if most is not None and len(trace) >= most:
        trace.omitted += 1
        return
    length, depth, bounded = ctx.limits.shown_length, ctx.depth, trace.length
    if SWITCH.lazy_steps:  # (made when read: `Step._m`; flat: `Trace.flat`)
        entry: Any = (looked_up, title, key_values, value, length, depth, span, bounded)
        if SWITCH.flat_steps:
            trace.flat = True
        else:
            entry = later_step(entry)
    else:
        entry = made_step(looked_up(title, key_values, value, length, depth, span, bounded))
    list.append(trace, entry)


def looked_up(title: str, key_values: tuple, value, length: int, depth: int, span, bounded):
    """A lookup's step's parts (`Step._r`): its text, its data; the row's cells not rolled
    yet left out (a record's cells are its own: the same when read as when recorded)."""
    seen = value
    if type(value) is Record and Pending in map(type, value.values()):
        seen = Record({k: v for k, v in value.items() if type(v) is not Pending})
    text = Later(_lookup_text, title, key_values, seen, length)
    data = {"table": title, "key": list(key_values), "value": seen}
    return ("lookup", text, None, data, depth, None, None, False, span, bounded)


def _lookup_text(title: str, key_values: tuple, seen, length: int) -> Message:
    """A lookup's step: `Table[key, ...] → value` (each cut short when long: `glimpse`),
    its values in the language it is shown in (`esferas: sí`)."""
    return Message.joined(lookup_parts(title, key_values, seen, length))


def lookup_parts(title: str, key_values: tuple, seen, length: int) -> list:
    parts: list = [title, "["]
    for i, key in enumerate(key_values):
        parts += [", ", glimpse(key, length)] if i else [glimpse(key, length)]
    parts += ["] → ", glimpse(seen, length)]
    return parts


JOINED[_lookup_text] = lookup_parts
KEPT_STEPS.add(looked_up)  # (its step: of its arguments alone)


#: whole-number keys remembered of one table (each a row's constant value)
REMEMBERED_KEYS = 4096


class RememberedRows:
    """The values a one-key table gives for whole-number keys whose row is a constant
    (`Cell.cached`): what generated code reads before calling the lookup (`remembered`),
    the same value the lookup gives, with none of its work. Bounded (REMEMBERED_KEYS)."""

    __slots__ = ("root", "values")

    def __init__(self, root) -> None:
        self.root = root
        self.values: dict[int, object] = {}

    def plain(self) -> bool:
        """Whether every row of the table is one level of constants holding no other
        value (a number, a text, yes/no, none): its lookup never gives a list, a record
        nor a field rolled later (`Pending`), whatever the key (generated code tests
        nothing of what it gives: `PLAIN_ROWS`)."""
        root = self.root
        rows = [*root.by_value.values(), *(row for _, _, row in root.ranged)]
        if root.else_row is not None:
            rows.append(root.else_row)
        return all(
            type(row) is Cell and not row.record and type(row.cached) in PLAIN_TYPES for row in rows
        )

    def remembered(self, lookup, ctx, key: int, span):
        """`lookup(ctx, (key,), span)`, remembered when the row found is a constant."""
        value = lookup(ctx, (key,), span)
        row = self.root.find(key)
        if type(row) is Cell and row.cached is not MISSING and len(self.values) < REMEMBERED_KEYS:
            self.values[key] = value
        return value
