"""JSON that came from outside (a record, a journal's row), read within bounds.

`loads(text)` is `json.loads` that refuses, with the line where it is, what the journal
never writes and a hostile file may hold: more than `MAX_NESTING` levels of lists and
objects (found by a scan of the brackets before the text is parsed, so that Python's
stack never runs out), a number of more than `MAX_DIGITS` digits (Python's own limit on
reading one), `NaN` or `Infinity`, a key given twice in one object, and a lone
surrogate in a text (`"\\ud800"`, which no UTF-8 file can hold and no output can print).
"""

from __future__ import annotations

import itertools
import json
import math
import re

from dsl.messages import Message, tr

#: levels of lists and objects, at most: a record's own four, and a run's values in them
#: (a sheet nests at most 100: interpreter.sheets.field_positions.MAX_SHEET_NESTING)
MAX_NESTING = 128
#: digits of a number, at most: the most a run may build (Limits.number_digits at most)
MAX_DIGITS = 4300

# a text in quotes (its escapes skipped whole), or one bracket; an unrolled loop, so that
# a long text is one match, not a match per character
_TOKEN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"|[\[\]{}]')  # (possessive: no state per escape)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_QUOTED = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"')
_BRACKET = re.compile(r"[\[\]{}]")
_CHUNK = 1 << 20
# a \u escape of a surrogate: half of a pair, or a lone one (or an escaped backslash
# before `ud800`: the texts it may be in are read to tell)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonRefused(ValueError):
    """What is wrong with a JSON text, and the line it is at (1-based; None: unknown).
    `found`: a piece of the text that shows where, when the reader could not say."""

    def __init__(
        self, reason: Message, line: int | None = None, found: str | None = None, nth: int = 1
    ):
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.found = found  # (its `nth` occurrence)
        self.nth = nth

    @property
    def message(self) -> Message:
        if self.line is None:
            return self.reason
        return tr("{reason} (line {line})", reason=self.reason, line=self.line)


def loads(text: str):
    """The value of a JSON text, or JsonRefused saying why (and where) it is refused."""
    if not isinstance(text, str):
        raise JsonRefused(tr("not a text"))
    _within_nesting(text)
    if _SURROGATE.search(text):
        raise JsonRefused(tr("a lone surrogate (not a character)"), _line_of(text, _SURROGATE))
    try:
        value = json.loads(
            text,
            parse_int=_integer,
            parse_float=_decimal,
            parse_constant=_constant,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as error:
        raise JsonRefused(tr("not valid JSON: {msg}", msg=error.msg), error.lineno) from None
    except JsonRefused as refused:
        if refused.line is None and refused.found is not None:
            refused.line = _line_at(text, _nth_place(text, refused.found, refused.nth))
        raise
    except RecursionError:  # within MAX_NESTING, yet an app already deep in its stack
        raise JsonRefused(tr("nested too deeply for the stack left")) from None
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        raise JsonRefused(tr("a lone surrogate (not a character)"), _lone_escape_line(text))
    return value


def _within_nesting(text: str) -> None:
    """Refuse a text nested past MAX_NESTING, before it is parsed: its brackets outside
    quotes, counted a chunk at a time (a list of every bracket would be large)."""
    brackets = _QUOTED.sub("", text)
    depth = 0
    for start in range(0, len(brackets), _CHUNK):
        steps = map(_STEP.__getitem__, _BRACKET.findall(brackets, start, start + _CHUNK))
        levels = list(itertools.accumulate(steps, initial=depth))
        if max(levels) > MAX_NESTING:
            raise JsonRefused(
                tr("nested more than {most} levels deep", most=MAX_NESTING),
                _line_at(text, _nth_opening(text, MAX_NESTING + 1)),
            )
        depth = levels[-1]


def _nth_opening(text: str, levels: int) -> int:
    """Where the nesting first reaches `levels` (only called once it does)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        step = _STEP.get(match.group(), 0)
        depth += step
        if depth >= levels:
            return match.start()
    return -1


def _integer(digits: str) -> int:
    if len(digits) - digits.startswith("-") > MAX_DIGITS:
        reason = tr("a number of more than {most} digits", most=MAX_DIGITS)
        raise JsonRefused(reason, found=digits[:40])
    return int(digits)


def _decimal(text: str) -> float:
    value = float(text) if len(text) <= MAX_DIGITS else math.inf
    if not math.isfinite(value):
        raise JsonRefused(tr("a number too large to read"), found=text[:40])
    return value


def _constant(name: str):
    raise JsonRefused(tr("{name} is not a number JSON allows", name=name), found=name)


def _object(pairs: list) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            reason = tr("the key {key} is given twice", key=repr(key))
            raise JsonRefused(reason, found=json.dumps(key, ensure_ascii=False), nth=2)
        out[key] = value
    return out


def _has_lone_surrogate(value) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _lone_escape_line(text: str) -> int | None:
    """The line of the first text in quotes that holds a lone surrogate."""
    for match in _QUOTED.finditer(text):
        literal = match.group()
        if _SURROGATE_ESCAPE.search(literal) and _has_lone_surrogate(json.loads(literal)):
            return _line_at(text, match.start())
    return None


def _nth_place(text: str, found: str, nth: int) -> int:
    at = -1
    for _ in range(nth):
        at = text.find(found, at + 1)
        if at < 0:
            break
    return at


def _line_of(text: str, pattern: re.Pattern) -> int | None:
    found = pattern.search(text)
    return _line_at(text, found.start()) if found else None


def _line_at(text: str, index: int) -> int | None:
    return text.count("\n", 0, index) + 1 if index >= 0 else None
