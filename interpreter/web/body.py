"""A request's JSON body read and its fields checked: a clear 400, never a traceback."""

from __future__ import annotations

import json

from dsl.errors import did_you_mean
from dsl.messages import tr
from interpreter.web.errors import RequestError

#: nesting of a request's JSON, at most (parameters hold lists, sheets hold mappings)
MAX_DEPTH = 32

_TYPE_NAMES = {
    str: tr("a text"),
    int: tr("a whole number"),
    bool: tr("yes/no (true or false)"),
    dict: tr("an object"),
    list: tr("a list"),
    float: tr("a number"),
}


async def json_body(request) -> dict:
    """The body as a JSON object (the size was bounded by the guard before this)."""
    raw = await request.body()
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RequestError(tr("the body is not UTF-8 text")) from None
    except json.JSONDecodeError as error:
        raise RequestError(
            tr(
                "the body is not valid JSON: {problem} at line {line}, column {column}",
                problem=error.msg,
                line=error.lineno,
                column=error.colno,
            )
        ) from None
    except RecursionError:
        raise RequestError(tr("the body is nested too deeply")) from None
    if not isinstance(data, dict):
        raise RequestError(tr("the body is a JSON object, in braces"))
    if isinstance(data.get("lang"), str):  # errors answer in it too (app.project_error)
        request.state.lang = data["lang"]
    if _depth(data) > MAX_DEPTH:
        raise RequestError(tr("the body is nested more than {most} levels deep", most=MAX_DEPTH))
    return data


def field(body: dict, name: str, kind: type, required: bool = False, default=None):
    """One field of the body, of the JSON type `kind`, or `default` when absent."""
    value = body.get(name)
    if value is None:
        if required:
            raise RequestError(tr("the field {name} is required", name=repr(name)))
        return default
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise RequestError(
            tr(
                "the field {name} is {found}; {expected} expected",
                name=repr(name),
                found=_json_type(value),
                expected=_TYPE_NAMES[kind],
            )
        )
    return value


def unknown_fields(body: dict, allowed: set[str]) -> None:
    """A field the endpoint does not know is an error (a typo would be silently ignored)."""
    for name in body:
        if name not in allowed:
            raise RequestError(
                tr("unknown field {name}", name=repr(name)),
                did_you_mean(name, sorted(allowed))
                or tr("fields: {names}", names=", ".join(sorted(allowed))),
            )


def faces(body: dict, name: str = "dice") -> list[int] | None:
    """A list of die faces (whole numbers), or None."""
    value = field(body, name, list)
    if value is None:
        return None
    for position, face in enumerate(value, 1):
        if not isinstance(face, int) or isinstance(face, bool):
            raise RequestError(
                tr(
                    "{field}: value {position} ({face}) is not a whole number",
                    field=name,
                    position=position,
                    face=repr(face),
                )
            )
    return value


def _depth(value) -> int:
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def _json_type(value):
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return _TYPE_NAMES[kind]
    return type(value).__name__
