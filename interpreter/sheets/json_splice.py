"""A JSON sheet's text with only the changed values spliced in: the rest stays byte for byte.

`splice(text, new)` finds where every member of the file's objects stands (the standard
decoder reads each key and scalar; this module only walks objects and arrays), then
writes in what differs from `new`: a changed value in place, in the style of the value it
replaces (a one-line array stays on one line), a new member after its neighbour with the
indentation of its siblings, a removed member with its comma. A file it cannot read so
(a key given twice) gives None: the caller writes the whole document instead.
"""

from __future__ import annotations

import json

import attrs

_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


@attrs.frozen
class Member:
    key_start: int
    node: Node


@attrs.frozen
class Node:
    start: int
    end: int
    members: dict | None = None  # key → Member, for an object


def splice(text: str, new: dict) -> str | None:
    """`text` (a JSON object) with the values that differ from `new` written in."""
    ascii_only = "\\u" in text and text.isascii()
    try:
        root = _value(text, _skip(text, 0))
        old = json.loads(text)
    except (ValueError, IndexError):
        return None
    if root.members is None:
        return None
    edits: list[tuple[int, int, str]] = []
    _Splicer(text, edits, ascii_only).object(root, old, new)
    out = text
    for start, end, replacement in sorted(edits, reverse=True):
        out = out[:start] + replacement + out[end:]
    # the same values, in the same order, or the caller writes the whole document
    return out if _same(json.loads(out), new) else None


def _same(a, b) -> bool:
    """Equal as JSON says it (`1` is not `true`, key order counts), not as Python does."""
    return json.dumps(a) == json.dumps(b)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _SPACE:
        i += 1
    return i


def _value(text: str, i: int) -> Node:
    if text[i] == "{":
        return _object(text, i)
    if text[i] == "[":
        j = _skip(text, i + 1)
        if text[j] == "]":
            return Node(i, j + 1)
        while True:
            j = _skip(text, _value(text, j).end)
            if text[j] == "]":
                return Node(i, j + 1)
            if text[j] != ",":
                raise ValueError("expected , or ]")
            j = _skip(text, j + 1)
    _, end = _DECODER.raw_decode(text, i)
    return Node(i, end)


def _object(text: str, i: int) -> Node:
    members: dict = {}
    j = _skip(text, i + 1)
    if text[j] == "}":
        return Node(i, j + 1, members)
    while True:
        key, after = _DECODER.raw_decode(text, j)
        colon = _skip(text, after)
        if not isinstance(key, str) or text[colon] != ":" or key in members:
            raise ValueError("not a member, or a key given twice")
        node = _value(text, _skip(text, colon + 1))
        members[key] = Member(j, node)
        j = _skip(text, node.end)
        if text[j] == "}":
            return Node(i, j + 1, members)
        if text[j] != ",":
            raise ValueError("expected , or }")
        j = _skip(text, j + 1)


class _Splicer:
    def __init__(self, text: str, edits: list, ascii_only: bool):
        self.text, self.edits, self.ascii_only = text, edits, ascii_only

    def object(self, node: Node, old: dict, new: dict) -> None:
        members = node.members
        if members is None:  # (an object's node has its members)
            raise AssertionError("an object spliced from a node that is not one")
        keys = list(members)
        kept = [k for k in keys if k in new]
        if not kept:  # nothing of it stays: the whole object, in the file's style
            self.edits.append((node.start, node.end, self.render(new, node)))
            return
        last = keys.index(kept[-1])
        for i, key in enumerate(keys[:last]):
            if key not in new:  # `"k": v,` up to the next member
                self.edits.append((members[key].key_start, members[keys[i + 1]].key_start, ""))
        if last + 1 < len(keys):  # the members after the last kept one, with their commas
            self.edits.append((members[kept[-1]].node.end, members[keys[-1]].node.end, ""))
        indent = self.indent_of(members[kept[0]])
        gap = f"\n{indent}" if indent is not None else self.comma()[1:]
        order = list(new)
        added: dict = {}  # the member a new one goes after (None: before the first) → texts
        for key, value in new.items():
            if key not in members:
                before = [k for k in order[: order.index(key)] if k in members]
                text = f"{self.string(key)}{self.colon()}{self.render(value, None, indent)}"
                added.setdefault(before[-1] if before else None, []).append(text)
            elif not _same(old[key], value):
                child = members[key].node
                if child.members is not None and isinstance(value, dict) and value:
                    self.object(child, old[key], value)
                else:
                    self.edits.append((child.start, child.end, self.render(value, child)))
        for after, texts in added.items():
            if after is None:
                at = members[kept[0]].key_start
                self.edits.append((at, at, "".join(f"{t},{gap}" for t in texts)))
            else:
                at = members[after].node.end
                self.edits.append((at, at, "".join(f",{gap}{t}" for t in texts)))

    def indent_of(self, member: Member) -> str | None:
        """The indentation of an object's members (its member's line), None when the
        object is on one line."""
        line_start = self.text.rfind("\n", 0, member.key_start) + 1
        lead = self.text[line_start : member.key_start]
        return lead if lead.strip() == "" else None

    def colon(self) -> str:
        """The file's `:` between a key and its value (`": "` unless it writes `":"`)."""
        return ":" if '":' in self.text and '": ' not in self.text else ": "

    def comma(self) -> str:
        """The file's `,` between items on one line (`", "` unless it writes `","`)."""
        return (
            "," if "," in self.text and ", " not in self.text and ",\n" not in self.text else ", "
        )

    def string(self, value: str) -> str:
        return json.dumps(value, ensure_ascii=self.ascii_only)

    def render(self, value, like: Node | None, indent: str | None = None) -> str:
        """A value in the style of the one it replaces: on one line if that was."""
        if not isinstance(value, dict | list) or not value:
            return json.dumps(value, ensure_ascii=self.ascii_only)
        if like is not None:
            replaced = self.text[like.start : like.end]
            line_start = self.text.rfind("\n", 0, like.start) + 1
            lead = self.text[line_start : like.start]
            indent = lead[: len(lead) - len(lead.lstrip())] if "\n" in replaced else None
        if indent is None:
            separators = (self.comma(), self.colon())
            return json.dumps(value, ensure_ascii=self.ascii_only, separators=separators)
        step = self.step()
        inner = json.dumps(
            value, ensure_ascii=self.ascii_only, indent=step, separators=(",", self.colon())
        )
        return inner.replace("\n", "\n" + indent)

    def step(self) -> str:
        """One level of the file's indentation (that of its first indented line)."""
        for line in self.text.splitlines()[1:]:
            stripped = line.lstrip(" \t")
            if stripped and len(stripped) < len(line):
                return line[: len(line) - len(stripped)]
        return "  "
