"""What a rulebook offers, as plain data: for forms, chat bots and `rulebook describe`.

Parameters and sheet fields come with a JSON Schema each (`schema`: type, `enum` of the
choices, `default` as a value, `minimum`/`maximum`), and every callable with the schema of
its whole parameter object (`parameters`), so a form is built from them directly. The
keywords a schema holds beyond JSON Schema's own start with `x-`: `x-sheet-catalog` (the
value names an entry of that catalog on the character's sheet), `x-default-expression`
and `x-maximum-expression` (computed from the sheet, shown as written).
"""

from __future__ import annotations

from typing import Any

from dsl import nodes as n
from dsl.rulebook import Rulebook

#: JSON Schema types of the built-in parameter types
BUILT_IN = {
    "int": {"type": "integer"},
    "number": {"type": "number"},
    "bool": {"type": "boolean"},
    "text": {"type": "string"},
}


#: the fields every opposed check's record has (interpreter.compile.checks.CompiledOpposed)
OPPOSED_FIELDS = ("ours", "theirs", "won", "tie", "margin", "rerolls")


def result_fields(book, action: str) -> tuple:
    """The names of an action's result fields, or an opposed check's (none for a check,
    a roll, or no result)."""
    opposed = book.opposed.get(action)
    if opposed is not None:
        return OPPOSED_FIELDS + tuple(name for name, _ in opposed.fields)
    definition = book.actions.get(action)
    body = definition.body if definition is not None else ()
    if not body or not isinstance(body[-1], n.Result):
        return ()
    return tuple(name for name, _ in body[-1].fields)


def describe(book: Rulebook) -> dict:
    """Actions with their parameters, checks, rolls, tables, the sheet, house-rule changes."""
    return {
        "rulebook": book.title,
        "header": dict(book.header),
        "language": book.language,
        "path": book.path,
        "extends": book.base.title if book.base is not None else None,
        "changes": [
            {"change": what, "kind": kind, "name": name} for what, kind, name in book.changes
        ],
        "actions": [_action(a, book) for a in book.actions.values()],
        "checks": [_check(c, book) for c in book.checks.values()],
        "opposed": [_opposed(o, book) for o in book.opposed.values()],
        "rolls": [
            {
                "name": r.name,
                "label": None,
                "line": r.span.line,
                "params": [_param(p, book) for p in r.params],
                "parameters": _parameters(r.params, book),
                "dice": r.body.span.text,
            }
            for r in book.rolls.values()
        ],
        "tables": [_table(t) for t in book.tables.values()],
        "ladders": [
            {"name": ladder.name, "steps": [n.step_value(s) for s in ladder.steps]}
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
        "parameters": _parameters(node.params, book),
    }


def _action(node: n.Action, book: Rulebook) -> dict:
    """An action, and the choices it makes while it runs (`choose`), for a form to offer
    them in advance or a table to ask them."""
    out = _callable(node, book)
    out["choices"] = [
        _choice(choose) for choose in n.walk(node.body) if isinstance(choose, n.Choose)
    ]
    out["result_fields"] = list(result_fields(book, node.name))
    return out


def _opposed(node: n.Opposed, book: Rulebook) -> dict:
    out = _callable(node, book)
    out["result_fields"] = list(result_fields(book, node.name))
    return out


def _question(label) -> str | None:
    """A choice's question as written (its `{...}` parts as they are: known when it runs)."""
    if label is None:
        return None
    if isinstance(label, n.Literal):
        return str(label.value)
    return str(label.span.text[1:-1])


def _choice(choose: n.Choose) -> dict:
    """A `choose`: its name, text, options, who decides, line; `options_from`, for
    options built from a list as the run reaches it (`d in r.sorted`)."""
    out = {
        "name": choose.name,
        "label": _question(choose.label),
        "options": [option.value.value for option in choose.options if option.each is None],
        "by": choose.by,
        "line": choose.span.line,
    }
    built = [
        f"{option.each[0]} in {option.each[1].span.text}"
        for option in choose.options
        if option.each is not None
    ]
    if built:
        out["options_from"] = built
    return out


def _check(node: n.Check, book: Rulebook) -> dict:
    out = _callable(node, book)
    out["roll"] = node.roll.span.text
    out["comparison"] = node.comparison
    out["target"] = node.target.span.text if node.target is not None else None
    out["fields"] = [name for name, _ in node.fields]
    own = dict(node.fields).get("success")
    out["success"] = own.span.text if own is not None else None  # None: the comparison
    out["degrees"] = list(node.degrees)
    # its record's fields: the comparison's, then the author's (`success` may be both)
    compared = ["target", "success", "margin"] if node.target is not None else []
    own = [name for name, _ in node.fields if name not in compared]
    out["result_fields"] = ["total", *compared, *own]
    return out


def _parameters(params, book: Rulebook) -> dict:
    """The JSON Schema of a callable's parameters, as one object."""
    return {
        "type": "object",
        "properties": {p.name: _param_schema(p, book) for p in params},
        "required": [p.name for p in params if p.default is None],
        "additionalProperties": False,
    }


def _param(param: n.Param, book: Rulebook) -> dict:
    literal = isinstance(param.default, n.Literal)
    choices = _choices(param.type, book)
    return {
        "name": param.name,
        "type": type_data(param.type),
        "required": param.default is None,
        "default": param.default.value if literal else None,
        "default_expression": (
            param.default.span.text if param.default is not None and not literal else None
        ),
        "choices": choices if isinstance(choices, list) else None,
        "choices_from": choices.name if isinstance(choices, n.Catalog) else None,
        "schema": _param_schema(param, book),
    }


def type_data(type_node) -> dict:
    """A parameter's type: its kind (named, enum, list), its name, and as written."""
    if isinstance(type_node, n.EnumType):
        return {"kind": "enum", "name": None, "text": type_node.span.text}
    if isinstance(type_node, n.ListType):
        return {
            "kind": "list",
            "name": None,
            "text": type_node.span.text,
            "item": type_data(type_node.item),
        }
    return {"kind": "named", "name": type_node.name, "text": type_node.span.text}


def _param_schema(param: n.Param, book: Rulebook) -> dict:
    schema = {"title": param.name, **type_schema(param.type, book)}
    if isinstance(param.default, n.Literal):
        schema["default"] = param.default.value
    elif param.default is not None:
        schema["x-default-expression"] = param.default.span.text
    return schema


def type_schema(type_node, book: Rulebook) -> dict:
    """The JSON Schema of a value of a parameter type."""
    if isinstance(type_node, n.ListType):
        return {"type": "array", "items": type_schema(type_node.item, book)}
    if isinstance(type_node, n.NamedType) and type_node.name in BUILT_IN:
        return dict(BUILT_IN[type_node.name])
    choices = _choices(type_node, book)
    if isinstance(choices, n.Catalog):
        return {"type": "string", "x-sheet-catalog": choices.name}
    if choices is None:
        return {}
    kinds = {"integer" if type(c) is int else "string" for c in choices}
    schema = {"enum": choices}
    if len(kinds) == 1:
        schema = {"type": kinds.pop(), "enum": choices}
    return schema


def _choices(type_node, book: Rulebook):
    """The values a parameter may take: a list, a Catalog (its entries on the sheet), or
    None (any value of its type)."""
    if isinstance(type_node, n.EnumType):
        return list(type_node.choices)
    if isinstance(type_node, n.ListType):
        return _choices(type_node.item, book)
    name = type_node.name
    if name == "bool":
        return [True, False]
    field = book.fields.get(name)
    if isinstance(field, n.Catalog):
        return field
    # None for an open list of skills (any name): an empty enum would refuse every value
    return book.choices_of(name) or None


def _table(table: n.Table) -> dict:
    return {
        "name": table.name,
        "keys": list(table.keys) or ["key"],
        "line": table.span.line,
        "rows": [_row(r) for r in table.rows],
    }


def _row(row: n.Row) -> dict:
    key = row.key
    out = {
        "key": key.describe(),
        "low": key.low if key.kind != "else" else None,
        "high": (key.high if key.kind == "range" else key.low) if key.kind != "else" else None,
    }
    if row.value is not None:
        out["value"] = _literal_or_text(row.value)
    if row.fields:
        out["fields"] = {name: _literal_or_text(expr) for name, expr in row.fields}
    if row.rows:
        out["rows"] = [_row(r) for r in row.rows]
    return out


def _literal_or_text(expr):
    return expr.value if isinstance(expr, n.Literal) else expr.span.text


def _sheet(book: Rulebook) -> dict:
    fields = [_field(field, book) for field in book.fields.values()]
    properties = {f["name"]: f["schema"] for f in fields}
    if book.open_skills is not None:
        properties["skills"] = {
            "type": "object",
            "additionalProperties": _range_schema(book.open_skills.range, "integer"),
        }
    return {
        "fields": fields,
        "schema": {
            "type": "object",
            "properties": {"rulebook": {"type": "string"}, **properties},
            "additionalProperties": False,
        },
        "open_skills": (_range(book.open_skills.range) if book.open_skills is not None else None),
        "groups": {g.name: list(g.members) for g in book.groups.values()},
        "derived": {d.name: d.expr.span.text for d in book.derived.values()},
        "rules": [e.message for e in book.ensures],
    }


def _field(field, book: Rulebook) -> dict:
    """One sheet field: its kind, its bounds as numbers, and its JSON Schema."""
    item: dict[str, Any] = {"name": field.name, "kind": n.kind_of(field), "range": None}
    item["per"] = None
    schema: dict[str, Any]
    if isinstance(field, n.Stat):
        item["range"] = _range(field.range)
        schema = _range_schema(field.range, "integer")
    elif isinstance(field, n.Resource):
        schema = {"type": "integer", "minimum": 0}
        if isinstance(field.minimum, n.Literal):
            schema["minimum"] = field.minimum.value
        if isinstance(field.maximum, n.Literal):
            schema["maximum"] = field.maximum.value
        else:
            schema["x-maximum-expression"] = field.maximum.span.text
        item["range"] = {"min": schema["minimum"], "max": schema.get("maximum")}
        if field.key_group:
            item["per"] = field.key_group
            members = list(book.groups[field.key_group].members)
            schema = {
                "type": "object",
                "properties": {m: dict(schema) for m in members},
                "additionalProperties": False,
            }
    elif isinstance(field, n.Counter):
        range_ = field.range or n.Range(0, None)
        item["range"] = _range(range_)
        schema = _range_schema(range_, "integer")
    elif isinstance(field, n.Flag):
        schema = {"type": "boolean"}
    elif isinstance(field, n.TextField):
        schema = {"type": "string"}
    elif isinstance(field, n.ListField):
        schema = {"type": "array", "items": {"type": "string"}}
    elif isinstance(field, n.Catalog):
        entry: dict[str, Any] = {
            "type": "object",
            "properties": {f.name: type_schema(f.type, book) for f in field.fields},
        }
        item["fields"] = {f.name: type_data(f.type) for f in field.fields}
        schema = {"type": "object", "additionalProperties": entry}
    elif isinstance(field, n.Effects):
        units = [u.name for clock in field.clocks for u in clock]
        item["targets"] = list(field.targets)
        item["time"] = [
            [u.name if u.of is None else f"{u.name} = {u.count} {u.of}" for u in clock]
            for clock in field.clocks
        ]
        entry = {
            "type": "object",
            "properties": {
                "modifier": {"type": "number", "default": 0},
                "targets": {"type": "array", "items": {"type": "string"}},
                "left": {"type": "integer", "minimum": 1},
                "unit": {"type": "string", "enum": units},
            },
            "required": ["left", "unit"],
            "additionalProperties": False,
        }
        schema = {"type": "object", "additionalProperties": entry}
    else:
        schema = {}
    default = getattr(field, "default", None)
    if isinstance(default, n.Literal):
        schema["default"] = default.value
    schema["title"] = field.name
    item["schema"] = schema
    return item


def _range(range_: n.Range) -> dict:
    return {"min": range_.low, "max": range_.high}


def _range_schema(range_: n.Range, kind: str) -> dict:
    schema: dict[str, Any] = {"type": kind}
    if range_.low is not None:
        schema["minimum"] = range_.low
    if range_.high is not None:
        schema["maximum"] = range_.high
    return schema
