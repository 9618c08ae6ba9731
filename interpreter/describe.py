"""What a rulebook offers, as data: for forms, chat bots and `rulebook describe`."""

from __future__ import annotations

from dsl import nodes as n
from dsl.rulebook import Rulebook


def describe(book: Rulebook) -> dict:
    """Actions with their parameters, checks, rolls, tables, the sheet, house-rule changes."""
    return {
        "rulebook": book.title,
        "header": dict(book.header),
        "path": book.path,
        "extends": book.base.title if book.base is not None else None,
        "changes": [
            {"change": what, "kind": kind, "name": name} for what, kind, name in book.changes
        ],
        "actions": [_callable(a, book) for a in book.actions.values()],
        "checks": [_check(c, book) for c in book.checks.values()],
        "opposed": [_callable(o, book) for o in book.opposed.values()],
        "rolls": [
            {
                "name": r.name,
                "params": [_param(p, book) for p in r.params],
                "dice": r.body.span.text,
                "line": r.span.line,
            }
            for r in book.rolls.values()
        ],
        "tables": [_table(t) for t in book.tables.values()],
        "ladders": [
            {"name": ladder.name, "steps": [s.span.text for s in ladder.steps]}
            for ladder in book.ladders.values()
        ],
        "sheet": _sheet(book),
    }


def _callable(node, book: Rulebook) -> dict:
    return {
        "name": node.name,
        "label": node.label,
        "line": node.span.line,
        "params": [_param(p, book) for p in node.params],
    }


def _check(node: n.Check, book: Rulebook) -> dict:
    out = _callable(node, book)
    out["roll"] = node.roll.span.text
    out["comparison"] = node.comparison
    out["target"] = node.target.span.text if node.target is not None else None
    out["fields"] = [name for name, _ in node.fields]
    own = dict(node.fields).get("success")
    out["success"] = own.span.text if own is not None else None  # None: the comparison
    out["degrees"] = list(node.degrees)
    return out


def _param(param: n.Param, book: Rulebook) -> dict:
    out = {"name": param.name, "type": param.type.span.text, "required": param.default is None}
    if param.default is not None:
        out["default"] = param.default.span.text
    choices = _choices(param.type, book)
    if choices is not None:
        out["choices"] = choices
    return out


def _choices(type_node, book: Rulebook):
    if isinstance(type_node, n.EnumType):
        return list(type_node.choices)
    if isinstance(type_node, n.ListType):
        return _choices(type_node.item, book)
    name = type_node.name
    if name == "bool":
        return [True, False]
    if name in book.groups:
        return list(book.groups[name].members)
    if name in ("attribute", "skill"):
        return [k for k, f in book.fields.items() if isinstance(f, n.Stat) and f.kind == name]
    if name == "resource":
        return [k for k, f in book.fields.items() if isinstance(f, n.Resource)]
    if name in book.tables:
        return [r.key.low for r in book.tables[name].rows if r.key.kind == "value"]
    if name in book.ladders:
        return [s.span.text for s in book.ladders[name].steps]
    if name in book.fields and isinstance(book.fields[name], n.Catalog):
        return "the entries of the character's " + name
    return None


def _table(table: n.Table) -> dict:
    return {
        "name": table.name,
        "keys": list(table.keys) or ["key"],
        "line": table.span.line,
        "rows": [_row(r) for r in table.rows],
    }


def _row(row: n.Row) -> dict:
    out = {"key": row.key.describe()}
    if row.value is not None:
        out["value"] = row.value.span.text
    if row.fields:
        out["fields"] = {name: expr.span.text for name, expr in row.fields}
    if row.rows:
        out["rows"] = [_row(r) for r in row.rows]
    return out


def _sheet(book: Rulebook) -> dict:
    fields = []
    for name, field in book.fields.items():
        item = {"name": name, "kind": n.kind_of(field)}
        if isinstance(field, n.Stat):
            item["range"] = field.range.describe()
        elif isinstance(field, n.Resource):
            item["max"] = field.maximum.span.text
            if field.minimum is not None:
                item["min"] = field.minimum.span.text
            if field.key_group:
                item["per"] = field.key_group
        elif isinstance(field, n.Counter) and field.range is not None:
            item["range"] = field.range.describe()
        elif isinstance(field, n.Catalog):
            item["fields"] = {f.name: f.type.span.text for f in field.fields}
        fields.append(item)
    return {
        "fields": fields,
        "open_skills": book.open_skills.range.describe() if book.open_skills else None,
        "groups": {g.name: list(g.members) for g in book.groups.values()},
        "derived": {d.name: d.expr.span.text for d in book.derived.values()},
        "rules": [e.message for e in book.ensures],
    }
