"""Checks of tables: every key reaches one row (no gap, no overlap), cells typed."""

from __future__ import annotations

import itertools

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.errors import did_you_mean
from dsl.messages import tr


class TableChecks(CheckerHost):
    """The tables' checks (part of the Checker)."""

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
                        tr(
                            (
                                "table {name} is looked up by {levels} keys, so this "
                                "row needs a sub-table for `{value}`"
                            ),
                            name=table.name,
                            levels=levels,
                            value=table.keys[depth + 1],
                        ),
                        row.span,
                    )
                    continue
                result = t.join(result, self.rows_type(table, row.rows, depth + 1, scope))
            return result
        records = has_fields(table.rows, levels)
        result = t.NONE
        for row in rows:
            value = self.cell(row.value, scope) if row.value is not None else t.NONE
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
                    tr(
                        "table {name}: this row comes after `else`, so it is never reached",
                        name=table.name,
                    ),
                    row.span,
                )
            if key.kind == "else":
                after_else = True
                continue
            if key.kind == "value" and isinstance(key.low, str):
                if key.low in seen_values:
                    self.error(
                        tr('table {name} has the key "{low}" twice', name=table.name, low=key.low),
                        key.span,
                    )
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
                        tr(
                            "table {name}: no key in {describe} reaches this row",
                            name=table.name,
                            describe=d.describe(),
                        ),
                        row.span,
                    )
                    continue
            numeric.append((low, high, row))
        if numeric and seen_values:
            self.error(
                tr("table {name} mixes text keys and number keys", name=table.name), table.span
            )
        ordered = sorted(numeric, key=lambda r: float("-inf") if r[0] is None else r[0])
        for (_low1, high1, row1), (low2, _high2, row2) in itertools.pairwise(ordered):
            if high1 is None or (low2 is not None and low2 <= high1) or low2 is None:
                self.error(
                    tr(
                        "table {name}: rows {describe} and {describe2} overlap",
                        name=table.name,
                        describe=row1.key.describe(),
                        describe2=row2.key.describe(),
                    ),
                    row2.key.span,
                    tr("each key must reach one row"),
                )
            elif low2 > high1 + 1 and not after_else:
                gap = f"{high1 + 1}" if low2 == high1 + 2 else f"{high1 + 1}..{low2 - 1}"
                self.error(
                    tr("table {name} has a gap: no row for {gap}", name=table.name, gap=gap),
                    row2.key.span,
                    tr("add a row for it, or an `else` row"),
                )
        if ordered and table.domain is not None and depth == 0 and not after_else:
            d = table.domain
            first_low, last_high = (
                ordered[0][0],
                max((r[1] for r in ordered), key=lambda h: float("inf") if h is None else h),
            )
            if d.low is not None and first_low is not None and first_low > d.low:
                self.error(
                    tr("table {name} has a gap: no row for {low}", name=table.name, low=d.low),
                    table.span,
                )
            if d.high is not None and last_high is not None and last_high < d.high:
                self.error(
                    tr("table {name} has a gap: no row for {high}", name=table.name, high=d.high),
                    table.span,
                )

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
                tr('table {name} has no row "{value}"', name=table.name, value=keys[0].value),
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

    def cell(self, value, scope: Scope) -> t.Type:
        """A row's value; a bare name that names nothing (`1..3: low`) most likely meant a
        text, and the error says how one is written."""
        name = value.name if isinstance(value, n.Name) else None
        if name is not None and scope.lookup(name) is None and name not in self.globals:
            hint = tr("a text is written in double quotes: {text}", text=f'"{name}"')
            self.undefined(name, value.span, scope, functions=False, fallback=hint)
            return t.ANY
        return self.expr(value, scope)


def has_fields(rows, levels: int, depth: int = 0) -> bool:
    """Whether any last-level row of a table has fields (then every row is a record)."""
    if depth >= levels - 1:
        return any(row.fields for row in rows)
    return any(has_fields(row.rows, levels, depth + 1) for row in rows)
