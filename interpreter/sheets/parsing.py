"""A sheet file read once: its data, and where each of its fields is written.

An error about a field is placed at its line and column without reading the file again;
a key given twice is refused with both places.

YAML is read through libyaml's parser when PyYAML has it (the same events, several times
faster than PyYAML's own, which stays the fallback), composed here so that aliases are
refused where they are written (no billion laughs). JSON is read by the standard decoder;
the places of its members are found only when an error needs one.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from dsl.messages import tr
from dsl.unicode_text import HALF_CHARACTER, lone_surrogate
from interpreter.errors import SheetError
from interpreter.sheets.field_positions import (
    MAX_NUMBER_TEXT,
    brackets_too_deep,
    find,
    line_at,
    place,
    too_deep,
    too_deep_error,
)

if TYPE_CHECKING:
    _Loader = yaml.SafeLoader  # what _Refusing is mixed into (its host)
else:
    _Loader = object


class _Refusing(_Loader):
    """PyYAML's safe loading, refusing anchors and aliases, numbers too long to read, and
    a key given twice in one mapping (mixed into a loader: `PureLoader`, `Loader`)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, tr("aliases are not allowed"), event.start_mark
            )
        return super().compose_node(parent, index)

    def construct_yaml_int(self, node):
        if len(node.value) > MAX_NUMBER_TEXT:
            raise LongNumber(node.value[:20], node.start_mark)
        return super().construct_yaml_int(node)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:  # not a key at all: the constructor says so
                    continue
                if first is not key_node:  # (named as written: `No` is YAML 1.1's false)
                    named = key_node.value if isinstance(key_node, yaml.ScalarNode) else key
                    raise Duplicate(named, first.start_mark.index, key_node.start_mark.index)
        return super().construct_mapping(node, deep)


class PureLoader(_Refusing, yaml.SafeLoader):
    """The safe loading in pure Python (PyYAML's own reader, scanner and parser): what
    reads a sheet where PyYAML was built without libyaml."""


PureLoader.add_constructor("tag:yaml.org,2002:int", PureLoader.construct_yaml_int)

if yaml.__with_libyaml__:
    from yaml._yaml import CParser

    class _CEvents(Composer, CParser, SafeConstructor, Resolver):
        """libyaml's events (PyYAML's CSafeLoader's parser), composed and constructed in
        Python: the composer refuses an alias where it is written, and nests in Python's
        own bounded recursion (libyaml's composer recurses in C, without a bound)."""

        def __init__(self, stream):
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            Composer.__init__(self)

    class CLoader(_Refusing, _CEvents):
        """The safe loading with libyaml's reader, scanner and parser (several times
        faster than PyYAML's own): the same data, places and errors as `PureLoader`."""

    CLoader.add_constructor("tag:yaml.org,2002:int", CLoader.construct_yaml_int)
    Loader: type = CLoader
else:  # pragma: no cover - PyYAML built without libyaml (tests force it: test_sheet_yaml_loaders)
    Loader = PureLoader


class LongNumber(ValueError):
    """A number in a sheet file longer than MAX_NUMBER_TEXT digits: its first digits, and
    where it is (a YAML mark; JSON gives none, so it is found by its digits)."""

    def __init__(self, start: str, mark=None):
        super().__init__(start)
        self.mark = mark


class Duplicate(ValueError):
    """A key given twice in one mapping: the key, and the offsets of both in the text
    (None for JSON's, found afterwards)."""

    def __init__(self, key, first: int | None = None, second: int | None = None):
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


def read(text: str, text_format: str, path: str | None = None) -> tuple:
    """(data, places): a sheet file's data, and `places.locate(error)`, which places a
    SheetError about a field at the field's key and value in the text. A file that is
    not valid YAML or JSON is a SheetError placed where reading it failed."""
    half = lone_surrogate(text)
    if half is not None:  # (a file read never holds one; an app's text may)
        line, column = text.count("\n", 0, half) + 1, half - text.rfind("\n", 0, half)
        failure = SheetError(HALF_CHARACTER, path=path)
        raise failure.at(line, column, line_at(text, half))
    past = brackets_too_deep(text)
    if past is not None:  # as the parser sees the text up to that bracket
        deep = too_deep(too_deep_error(path), text[: past + 1], Loader)
        if deep is not None:
            raise deep
    try:
        if text_format == "json":
            data = json.loads(text, parse_int=_json_int, object_pairs_hook=_json_object)
            places: JsonPlaces | YamlPlaces = JsonPlaces(text)
        else:
            loader = Loader(text)
            try:
                root = loader.get_single_node()
                data = loader.construct_document(root) if root is not None else None
            finally:
                loader.dispose()
            places = YamlPlaces(text, root)
    except json.JSONDecodeError as error:
        failure = SheetError(tr("not valid JSON: {msg}", msg=error.msg), path=path)
        raise failure.at(error.lineno, error.colno, line_at(text, error.pos)) from None
    except LongNumber as error:
        raise _long_number(text, path, error) from None
    except Duplicate as error:
        raise _duplicate(text, path, error) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        escape = _lone_escape(text)
        if escape >= 0 and (mark is None or escape <= mark.index):  # libyaml refuses it so
            raise _half_character_at(text, escape, path) from None
        problem = getattr(error, "problem", None) or str(error)
        failure = SheetError(tr("not valid YAML: {problem}", problem=problem), path=path)
        raise (place(failure, text, mark) if mark else failure) from None
    except RecursionError:
        failure = too_deep_error(path)
        raise too_deep(failure, text, Loader) or failure from None
    if "\\u" in text or "\\U" in text:
        _no_lone_surrogate(data, text, path)
    return data, places


# an escaped pair (a character), or one escape of a surrogate alone: \ud800, \U0000d800
_SURROGATE_ESCAPE = re.compile(
    r"(?P<pair>\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?P<lone>\\u[dD][89a-fA-F][0-9a-fA-F]{2}|\\U0000[dD][89a-fA-F][0-9a-fA-F]{2})"
)


def _no_lone_surrogate(data, text: str, path) -> None:
    """Unless a text in the data holds a lone surrogate (an escape such as `\\ud800`: not
    a character, which no UTF-8 file holds and nothing can print): a SheetError at the
    line and column its escape is written at."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if lone_surrogate(item) is not None:
                break
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    else:
        return
    at = _lone_escape(text)
    if at < 0:
        pair = _SURROGATE_ESCAPE.search(text)
        if pair is None:
            raise SheetError(HALF_CHARACTER, path=path)
        # An escaped pair, which PyYAML's own scanner reads as two halves: refused where
        # and as libyaml refuses it (its mark: the escape's digits), the same either way.
        problem = "found invalid Unicode character escape code"
        failure = SheetError(tr("not valid YAML: {problem}", problem=problem), path=path)
        at = pair.start() + 2
        raise failure.at(
            text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), line_at(text, at)
        )
    raise _half_character_at(text, at, path)


def _lone_escape(text: str) -> int:
    """Where the first escape of a lone surrogate is written (-1: none)."""
    return next((m.start() for m in _SURROGATE_ESCAPE.finditer(text) if m.group("lone")), -1)


def _half_character_at(text: str, at: int, path) -> SheetError:
    failure = SheetError(HALF_CHARACTER, path=path)
    return failure.at(text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at), line_at(text, at))


def _json_int(digits: str) -> int:
    if len(digits) > MAX_NUMBER_TEXT:
        raise LongNumber(digits[:20])
    return int(digits)


def _json_object(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise Duplicate(key)
            seen.add(key)
    return out


def _long_number(text: str, path, error: LongNumber) -> SheetError:
    failure = SheetError(
        tr("a number of more than {max_number_text} digits", max_number_text=MAX_NUMBER_TEXT),
        path=path,
    )
    if error.mark is not None:
        return place(failure, text, error.mark)
    at = text.find(error.args[0])
    if at < 0:
        return failure
    line = text.count("\n", 0, at) + 1
    return failure.at(line, at - text.rfind("\n", 0, at), line_at(text, at), 20)


def _duplicate(text: str, path, error: Duplicate) -> SheetError:
    """The second of two same keys, with where the first is (line:column of each)."""
    first, second = error.first, error.second
    if first is None:  # JSON: the first object holding a key twice, found in the text
        found = JsonPlaces(text).duplicate()
        if found is not None:
            error.key, first, second = found
    if first is None or second is None:  # (both found, or neither)
        return SheetError(tr("the key {key} is given twice", key=_shown(error.key)), path=path)
    failure = SheetError(
        tr(
            "the key {key} is given twice: at {first} and at {second}",
            key=_shown(error.key),
            first=_line_column(text, first),
            second=_line_column(text, second),
        ),
        str(error.key),
        tr("keep one of them: a sheet says each thing once"),
        path,
    )
    line = text.count("\n", 0, second) + 1
    return failure.at(line, second - text.rfind("\n", 0, second), line_at(text, second))


def _shown(key) -> str:
    return repr(key) if isinstance(key, str) else str(key)


def _line_column(text: str, offset: int) -> str:
    return f"{text.count(chr(10), 0, offset) + 1}:{offset - text.rfind(chr(10), 0, offset)}"


class YamlPlaces:
    """Where the fields of a YAML sheet are: its composed nodes, read once."""

    def __init__(self, text: str, root):
        self.text, self.root = text, root

    def locate(self, error: SheetError) -> SheetError:
        if error.line is not None or not error.field or self.root is None:
            return error
        found = find(self.root, error.field) or find(self.root, f"skills.{error.field}")
        if found is None:
            return error
        start, end = found
        return place(error, self.text, start, end)


class JsonPlaces:
    """Where the members of a JSON sheet are, found in its text when an error asks."""

    def __init__(self, text: str):
        self.text = text

    def locate(self, error: SheetError) -> SheetError:
        if error.line is not None or not error.field:
            return error
        members = self._members()
        found = members is not None and (
            _member(members, error.field) or _member(members, f"skills.{error.field}")
        )
        if not found:
            return error
        start, end = found
        line = self.text.count("\n", 0, start) + 1
        same_line = self.text.find("\n", start, end) < 0
        width = end - start if same_line else 1
        column = start - self.text.rfind("\n", 0, start)
        return error.at(line, column, line_at(self.text, start), width)

    def duplicate(self):
        """(key, first offset, second offset) of the first key given twice, or None."""
        members = self._members()
        return None if members is None else _first_repeat(members)

    def _members(self):
        try:
            walker = _JsonWalk(self.text)
            node = walker.value(walker.skip(0))
        except (ValueError, IndexError, RecursionError):
            return None
        return node


class _JsonWalk:
    """Objects and arrays walked in the text (each scalar read by the standard decoder):
    a node is (start, end, members) with members a list of (key, key start, node) for an
    object; (start, end, None, items) for an array; (start, end, None) for a scalar."""

    _DECODER = json.JSONDecoder()

    def __init__(self, text: str):
        self.text = text

    def skip(self, i: int) -> int:
        text = self.text
        while i < len(text) and text[i] in " \t\n\r":
            i += 1
        return i

    def value(self, i: int):
        text = self.text
        if text[i] == "{":
            members: list = []
            j = self.skip(i + 1)
            if text[j] == "}":
                return (i, j + 1, members)
            while True:
                key, after = self._DECODER.raw_decode(text, j)
                colon = self.skip(after)
                if not isinstance(key, str) or text[colon] != ":":
                    raise ValueError("not a member")
                node = self.value(self.skip(colon + 1))
                members.append((key, j, node))
                j = self.skip(node[1])
                if text[j] == "}":
                    return (i, j + 1, members)
                if text[j] != ",":
                    raise ValueError("expected , or }")
                j = self.skip(j + 1)
        if text[i] == "[":
            j = self.skip(i + 1)
            items: list = []
            if text[j] == "]":
                return (i, j + 1, None, items)
            while True:
                node = self.value(j)
                items.append(node)
                j = self.skip(node[1])
                if text[j] == "]":
                    return (i, j + 1, None, items)
                if text[j] != ",":
                    raise ValueError("expected , or ]")
                j = self.skip(j + 1)
        _, end = self._DECODER.raw_decode(text, i)
        return (i, end, None)


def _member(node, path: str):
    """(key start, value end) of the member at a dotted path (a key may hold dots)."""
    rest, found = path, None
    while rest:
        members = node[2]
        if members is None:
            return found
        match = None
        for key, start, child in members:
            if (rest == key or rest.startswith(key + ".")) and (
                match is None or len(key) > len(match[0])
            ):
                match = (key, start, child)
        if match is None:
            return found
        key, start, node = match
        found = (start, node[1])
        rest = rest[len(key) + 1 :]
    return found


def _first_repeat(root):
    """(key, first offset, second offset) of the first repeated key, in text order."""
    stack = [root]
    while stack:
        node = stack.pop()
        children = node[2] if node[2] is not None else (node[3] if len(node) > 3 else [])
        if node[2] is not None:
            seen: dict = {}
            for key, start, _ in node[2]:
                if key in seen:
                    return key, seen[key], start
                seen[key] = start
            children = [child for _, _, child in node[2]]
        stack.extend(reversed(children))
    return None
