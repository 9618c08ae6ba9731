"""Where in a sheet file a field is written: sheet errors point at their line and column."""

from __future__ import annotations

import re

import yaml

from dsl.messages import tr
from interpreter.errors import SheetError

#: digits a number in a sheet file may have before it is even read (Python's own bound on
#: turning text into an int; `Limits.number_digits` then applies to what was read)
MAX_NUMBER_TEXT = 4300
#: lists and mappings nested in one another that an error about nesting counts up to: a
#: sheet is a few levels deep, and one nested past what Python's stack reads is refused
#: at the line where its nesting passes this
MAX_SHEET_NESTING = 100


def too_deep_error(path) -> SheetError:
    return SheetError(tr("nested more than {most} levels deep", most=MAX_SHEET_NESTING), path=path)


def too_deep(error: SheetError, text: str, loader) -> SheetError | None:
    """The error placed where the nesting first passes MAX_SHEET_NESTING, found from the
    parser's events (reading them does not recurse; building the data does); None if it
    never passes it."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader):  # JSON is YAML too
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_SHEET_NESTING:
                    return place(error, text, event.start_mark)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    return None


def brackets_too_deep(text: str) -> int | None:
    """Where a `[` or `{` opens a level past MAX_SHEET_NESTING, counting the text's
    brackets outside quoted scalars and comments (None if none does). A cheap first look:
    the YAML reader takes time growing with the square of such nesting, so the parser
    then confirms it on the text up to that bracket alone (a bracket inside a plain
    scalar may be counted here, which that confirmation sets right)."""
    if text.count("[") + text.count("{") <= MAX_SHEET_NESTING:  # the common case, at once
        return None
    depth = 0
    quote_ends = -1  # inside a quoted scalar up to here
    for found in _SPECIAL.finditer(text):
        at, char = found.start(), found.group()
        if at < quote_ends:
            continue
        before = text[at - 1] if at else "\n"
        if char in "\"'":
            if before in " \t\n[{,:":
                end = _QUOTE_END[char].match(text, at + 1)
                quote_ends = len(text) if end is None else end.end()
        elif char == "#":
            if before in " \t\n":
                line_end = text.find("\n", at)
                quote_ends = len(text) if line_end < 0 else line_end
        elif char in "[{":
            depth += 1
            if depth > MAX_SHEET_NESTING:
                return at
        else:
            depth = max(depth - 1, 0)
    return None


_SPECIAL = re.compile(r"[\[\]{}\"'#]")
#: the end of a quoted scalar: `"` with backslash escapes, `'` with doubled quotes
_QUOTE_END = {
    '"': re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL),
    "'": re.compile(r"[^']*+(?:''[^']*+)*+'"),
}


def place(error: SheetError, text: str, start, end=None) -> SheetError:
    """The error at a parser's mark (and up to another one, on the same line)."""
    width = 1
    if end is not None and end.line == start.line:
        width = max(1, end.column - start.column)
    return error.at(start.line + 1, start.column + 1, line_at(text, start.index), width)


def line_at(text: str, offset: int) -> str:
    """The line of `text` that holds `offset` (found from it, not by splitting the text)."""
    offset = max(0, min(offset, len(text)))
    end = text.find("\n", offset)
    return text[text.rfind("\n", 0, offset) + 1 : end if end >= 0 else len(text)]


def find(node, path: str):
    """(start, end) marks of the key and value at a dotted path (`dinamis.Virtus`,
    `Núminas.Grito Báquico.grado`; a key may itself hold dots), or None."""
    rest = path
    found = None
    while rest:
        if not isinstance(node, yaml.MappingNode):
            return found
        match = None
        for key, value in node.value:
            name = str(key.value)
            longer = match is None or len(name) > len(str(match[0].value))
            if (rest == name or rest.startswith(name + ".")) and longer:
                match = (key, value)
        if match is None:
            return found
        key, node = match
        found = (key.start_mark, node.end_mark)
        rest = rest[len(str(key.value)) + 1 :]
    return found
