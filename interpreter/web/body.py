"""A request's JSON body read and its fields checked: a clear 400, never a traceback."""

from __future__ import annotations

import json

from interpreter.web.errors import RequestError

#: nesting of a request's JSON, at most (parameters hold lists, sheets hold mappings)
MAX_DEPTH = 32


async def json_body(request) -> dict:
    """The body as a JSON object (the size was bounded by the guard before this)."""
    raw = await request.body()
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RequestError("the body is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise RequestError(
            f"the body is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    except RecursionError:
        raise RequestError("the body is nested too deeply") from None
    if not isinstance(data, dict):
        raise RequestError("the body is a JSON object: {...}")
    if _depth(data) > MAX_DEPTH:
        raise RequestError(f"the body is nested more than {MAX_DEPTH} levels deep")
    return data


def field(body: dict, name: str, kind, required: bool = False, default=None):
    """One field of the body, of the JSON type(s) `kind`, or `default` when absent."""
    value = body.get(name)
    if value is None:
        if required:
            raise RequestError(f"the field {name!r} is required")
        return default
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise RequestError(f"the field {name!r} is {_json_type(value)}; {_names(kinds)} expected")
    if not isinstance(value, kinds):
        raise RequestError(f"the field {name!r} is {_json_type(value)}; {_names(kinds)} expected")
    return value


def unknown_fields(body: dict, allowed: set[str]) -> None:
    """A field the endpoint does not know is an error (a typo would be silently ignored)."""
    from dsl.errors import did_you_mean

    for name in body:
        if name not in allowed:
            raise RequestError(
                f"unknown field {name!r}",
                did_you_mean(name, sorted(allowed)) or "fields: " + ", ".join(sorted(allowed)),
            )


def faces(body: dict, name: str = "dice") -> list[int] | None:
    """A list of die faces (whole numbers), or None."""
    value = field(body, name, list)
    if value is None:
        return None
    for position, face in enumerate(value, 1):
        if not isinstance(face, int) or isinstance(face, bool):
            raise RequestError(f"{name}: value {position} ({face!r}) is not a whole number")
    return value


def _depth(value, level: int = 0) -> int:
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


_TYPE_NAMES = {str: "a text", int: "a whole number", bool: "yes/no (true or false)"}
_TYPE_NAMES.update({dict: "an object", list: "a list", float: "a number"})


def _names(kinds) -> str:
    return " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)


def _json_type(value) -> str:
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return _TYPE_NAMES[kind]
    return type(value).__name__
