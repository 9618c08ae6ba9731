"""A request's JSON body read and its fields checked: a clear 400, never a traceback.

Only JSON as RFC 8259 has it, with what a client could use to break the server
refused while it is read: a number of more digits than a run may hold (Python would
take quadratic time to read it, or refuse it with a ValueError), NaN and Infinity (not
JSON), a number too large for a float, an object giving a key twice (which value was
meant?), a text holding half of a UTF-16 surrogate pair (no character: it could not be
written back), nesting deeper than `MAX_DEPTH`.
"""

from __future__ import annotations

import json
import math
import re

import anyio.to_thread

from dsl.errors import did_you_mean
from dsl.messages import tr
from interpreter.limits import DEFAULT_LIMITS
from interpreter.web.errors import RequestError

#: nesting of a request's JSON, at most (parameters hold lists, sheets hold mappings)
MAX_DEPTH = 32
#: digits of a number in a request, at most (a run refuses more: `Limits.number_digits`)
MAX_DIGITS = DEFAULT_LIMITS.number_digits
#: characters of a key or text quoted in an error message
SHOWN = 60


class _Refused(Exception):
    """Raised from inside json.loads by the hooks below, with the error to answer."""

    def __init__(self, error: RequestError):
        super().__init__(error.message)
        self.error = error


_TYPE_NAMES = {
    str: tr("a text"),
    int: tr("a whole number"),
    bool: tr("yes/no (true or false)"),
    dict: tr("an object"),
    list: tr("a list"),
    float: tr("a number"),
}


class _Twice(Exception):
    """A key given twice in one object (where, the text says: `_places_of_twice`)."""


async def json_body(request) -> dict:
    """The body as a JSON object (the size was bounded by the guard before this)."""
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
        # (a byte order mark: json.loads refuses it, before any decoder reads the text)
        data = json.loads(text) if text.startswith("\ufeff") else _DECODE(text)
    except _Refused as refused:
        raise refused.error from None
    except _Twice as twice:  # (found in the text off the event loop: up to a second)
        places = await anyio.to_thread.run_sync(_places_of_twice, text)
        raise _given_twice(twice.args[0], places) from None
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
    if not _plain(raw) and _depth(data) > MAX_DEPTH:
        raise RequestError(tr("the body is nested more than {most} levels deep", most=MAX_DEPTH))
    return data


def _plain(raw: bytes) -> bool:
    """Whether a body's text alone shows it within `_depth`'s bounds, not walked: fewer
    braces and brackets than MAX_DEPTH levels (each nested value one level, a text or
    number inside it one more) and no `\\u` escape (half of a surrogate pair is written
    only so: the text is UTF-8). A run's body, the commonest, is such a body."""
    return b"\\u" not in raw and raw.count(b"{") + raw.count(b"[") < MAX_DEPTH


def _integer(text: str) -> int:
    _digits(len(text) - text.startswith("-"))
    return int(text)


def _real(text: str) -> float:
    if len(text) > MAX_DIGITS:
        _digits(sum(c.isdigit() for c in text))
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(
            RequestError(
                tr("the body holds a number too large to be read: {number}", number=_shown(text))
            )
        )
    return value


def _digits(digits: int) -> None:
    if digits > MAX_DIGITS:
        raise _Refused(
            RequestError(
                tr(
                    "the body holds a number of {digits} digits, more than {most}",
                    digits=digits,
                    most=MAX_DIGITS,
                )
            )
        )


def _constant(text: str):
    raise _Refused(
        RequestError(
            tr("the body holds {value}, which is not a number in JSON", value=text),
            tr("JSON has no NaN nor Infinity"),
        )
    )


def _object(pairs: list) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _Twice(key)
        out[key] = value
    return out


#: `json.loads(text, ...)` with the hooks below, its decoder made once (json.loads given
#: hooks makes one, and its scanner, at each call)
_DECODE = json.JSONDecoder(
    parse_int=_integer,
    parse_float=_real,
    parse_constant=_constant,
    object_pairs_hook=_object,
).decode


def _given_twice(key: str, places) -> RequestError:
    hint = tr("give each key once: which value was meant is not known")
    if places is None:
        return RequestError(tr("the body gives the key {key} twice", key=_shown(key)), hint)
    key, first, second = places
    return RequestError(
        tr(
            "the body gives the key {key} twice: at line {line}, column {column} and at "
            "line {second_line}, column {second_column}",
            key=_shown(key),
            line=first[0],
            column=first[1],
            second_line=second[0],
            second_column=second[1],
        ),
        hint,
    )


#: a JSON text (a key when a colon follows it), or a brace: what `_places_of_twice` reads
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*+"(\s*+:)?|[{}]')


def _places_of_twice(text: str):
    """(key, (line, column) of its first, (line, column) of its second) for the first
    key given twice in one object of a JSON text (None: none found). One pass over the
    text, each object's keys in a set while it is open."""
    stack: list[dict] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "{":
            stack.append({})
        elif token == "}":
            if stack:
                stack.pop()
        elif match.group(1) is not None and stack:
            quoted = token[: match.start(1) - match.start()]
            key = json.loads(quoted) if "\\" in quoted else quoted[1:-1]
            seen = stack[-1]
            if key in seen:
                return key, _line_column(text, seen[key]), _line_column(text, match.start())
            seen[key] = match.start()
    return None


def _line_column(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def _shown(text: str) -> str:
    """A key or a number as a message quotes it: short, a lone surrogate escaped."""
    return json.dumps(text if len(text) <= SHOWN else text[:SHOWN] + "…")


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
    """How deep the body nests; a text or key that is not Unicode text is refused."""
    stack: list[tuple] = [(value, 1, ())]
    deepest = 0
    while stack:
        item, depth, where = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        if isinstance(item, dict):
            for key, inner in item.items():
                _text(key, (*where, key))
                stack.append((inner, depth + 1, (*where, key)))
        elif isinstance(item, list):
            stack.extend((inner, depth + 1, (*where, i)) for i, inner in enumerate(item))
        elif isinstance(item, str):
            _text(item, where)
    return deepest


def _text(text: str, where: tuple) -> None:
    """Refuse a text holding half of a surrogate pair (`"\\ud800"` alone)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in where)[1:]
        raise RequestError(
            tr(
                "the body's {where} holds {escape}, half of a surrogate pair: not a character",
                where=_shown(path or "?"),
                escape=json.dumps(text[error.start]),
            ),
            tr("send whole characters (a pair of surrogates, or the character itself)"),
        ) from None


def _json_type(value):
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return _TYPE_NAMES[kind]
    return type(value).__name__
