"""What completing at a place offers.

Keywords, names in scope, sheet fields; a table's rows after `Tabla[`, a record's fields
after `.`, a call's parameters and their choices inside `f(`."""

from __future__ import annotations

import re

import attrs

from dsl import nodes as n
from dsl.check.scope import CHECK_NAMES, ROLL_NAMES
from dsl.functions import FUNCTIONS
from dsl.parser import keywords
from interpreter.lsp.analysis import Analysis, analyse, last_checked, last_parsed
from interpreter.lsp.index import LOCAL_KINDS

#: most items one completion offers
MOST = 400

# (each begins where a word begins, and takes what it takes for good: a search of a long
# line is linear, not a scan of the rest of a word from each of its letters)
_PREFIX = re.compile(r"(?<![\w'])[\w']*+$")
_INDEXED = re.compile(r"((?<!\w)\w++|'[^'\n]++')\s*+\[\s*+\"?$")
_CALLED = re.compile(r"((?<!\w)\w++|'[^'\n]++')\s*+\($")
_WORD = re.compile(r"[^\W\d]\w*")


def completions(text: str, path: str, offset: int) -> dict:
    """{start, end, items: [{label, kind, detail, insert}]}: what may be written at
    `offset`, replacing the word being typed (start..end)."""
    before = text[:offset]
    typed = _PREFIX.search(before)  # (it matches, if only nothing)
    prefix = typed.group() if typed else ""
    start = offset - len(prefix)
    analysis = _parsed(text, path, offset)
    head = before[:start]
    items: list[dict] = []
    if head.endswith("."):
        items = _fields(analysis)
    elif (indexed := _INDEXED.search(head)) is not None:
        items = _rows(analysis, _unquote(indexed.group(1)))
    else:
        call = _open_call(head)
        if call is not None:
            items = _arguments(analysis, call)
        items += _names(analysis, offset) + _keywords()
    seen, out = set(), []
    folded = prefix.strip("'").casefold()
    for item in items:
        if item["label"] in seen or not item["label"].casefold().startswith(folded):
            continue
        seen.add(item["label"])
        out.append(item)
    return {"start": start, "end": offset, "items": out[:MOST]}


def _parsed(text: str, path: str, offset: int) -> Analysis:
    """The analysis of the text; when the line being typed keeps it from parsing, of the
    text without that line (blanked: offsets stay) and with its open brackets closed at
    the end; else the last version that parsed. Its rulebook, if it does not check, is
    the last version's that did."""
    analysis = analyse(text, path)
    if analysis.index.tree is None:
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = text.find("\n", offset)
        line_end = len(text) if line_end < 0 else line_end
        blanked = text[:line_start] + " " * (line_end - line_start) + text[line_end:]
        analysis = analyse(blanked + _closers(blanked), path)
    last = last_parsed(path)
    if analysis.index.tree is None and last is not None:
        analysis = attrs.evolve(analysis, index=last)
    if analysis.book is None:
        analysis = attrs.evolve(analysis, book=last_checked(path))
    return analysis


_SKIPPED = re.compile(r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"|\'[^\'\n]*+\'|#[^\n]*+')
_PAIRS = {"(": ")", "[": "]", "{": "}"}


def _closers(text: str) -> str:
    """What closes the brackets left open in `text` (texts and comments aside)."""
    stack: list[str] = []
    for char in _SKIPPED.sub("", text):
        if char in _PAIRS:
            stack.append(_PAIRS[char])
        elif char in ")]}" and stack and stack[-1] == char:
            stack.pop()
    return "\n" + "".join(reversed(stack)) if stack else ""


def _item(label: str, kind: str, detail: str = "", insert: str | None = None) -> dict:
    return {"label": label, "kind": kind, "detail": detail, "insert": insert or _written(label)}


def _written(name: str) -> str:
    """A name as it is written: 'quoted' unless it is one plain word."""
    plain = _WORD.fullmatch(name) and name not in keywords()[1]
    return name if plain else f"'{name}'"


def _unquote(name: str) -> str:
    return name[1:-1] if name.startswith("'") else name


def _keywords() -> list[dict]:
    return [_item(word, "keyword") for word in sorted(keywords()[0])]


def _names(analysis: Analysis, offset: int) -> list[dict]:
    """Locals of the definition the place is in, then the rulebook's names, then the
    built-in functions and names."""
    index = analysis.index
    out = []
    for site in index.sites:
        inside = site.kind in LOCAL_KINDS and site.outer[0] <= offset <= site.outer[1]
        if inside and (site.kind in ("parameter", "key") or site.start < offset):
            out.append(_item(site.name, "variable", site.kind))
    book = analysis.book
    for name, site in index.definitions().items():
        out.append(_item(name, _kind(site.kind), site.kind))
    if book is not None:
        for name, field in book.fields.items():
            out.append(_item(name, "field", n.kind_of(field)))
        for table, kind in (
            (book.groups, "group"),
            (book.derived, "derived"),
            (book.tables, "table"),
            (book.checks, "check"),
            (book.opposed, "opposed"),
            (book.actions, "action"),
            (book.formulas, "formula"),
            (book.rolls, "roll"),
            (book.ladders, "ladder"),
        ):
            out.extend(_item(name, _kind(kind), kind) for name in table)
    out += [_item(name, "function", "built-in") for name in FUNCTIONS]
    out += [_item(name, "variable", "built-in") for name in {**CHECK_NAMES, **ROLL_NAMES}]
    return out


def _kind(kind: str) -> str:
    if kind in ("formula", "check", "opposed", "action", "roll"):
        return "function"
    if kind in ("table", "ladder", "group", "catalog"):
        return "class"
    return "field"


def _fields(analysis: Analysis) -> list[dict]:
    """After a `.`: the fields records of this rulebook have (a check's, a table's
    cells', a catalog's), and a character's sheet fields."""
    out = [_item(name, "property", "field") for name in sorted(analysis.index.fields)]
    out += [_item(name, "property", "check") for name in CHECK_NAMES]
    if analysis.book is not None:
        out += [_item(name, "field", "sheet") for name in analysis.book.fields]
    return out


def _rows(analysis: Analysis, name: str) -> list[dict]:
    """After `Tabla[`: the keys of its rows (a ladder's steps, a group's members)."""
    book = analysis.book
    choices = book.choices_of(name) if book is not None else None
    return [_item(str(c), "enum", name, _quoted(c)) for c in choices or ()]


def _quoted(value) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _open_call(head: str) -> str | None:
    """The name of the call whose parentheses are still open before the place, if any."""
    depth = 0
    for position in range(len(head) - 1, max(-1, len(head) - 2000), -1):
        char = head[position]
        if char == ")":
            depth += 1
        elif char == "(":
            if depth == 0:
                found = _CALLED.search(head[: position + 1])
                return _unquote(found.group(1)) if found else None
            depth -= 1
        elif char in "{}\n" and depth == 0 and char != "\n":
            return None
    return None


def _arguments(analysis: Analysis, name: str) -> list[dict]:
    """Inside `f(`: its parameters (as `name: `), and the values each may take."""
    book = analysis.book
    if book is None:
        return []
    definition = book.definition(name)
    out = []
    for param in getattr(definition, "params", ()):
        out.append(_item(param.name, "variable", "parameter", f"{_written(param.name)}: "))
        type_ = param.type
        if isinstance(type_, n.EnumType):
            choices = list(type_.choices)
        else:
            choices = book.choices_of(getattr(type_, "name", "")) or []
        out += [_item(str(c), "enum", param.name, _quoted(c)) for c in choices]
    return out
