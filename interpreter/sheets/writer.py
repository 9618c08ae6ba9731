"""A changed sheet written back into its own text: only the changed values, nothing else.

`rewrite(text, "yaml", old, new)` returns the sheet file's text with the values that
differ between `old` and `new` (plain data, as `Sheet.to_data` gives) spliced in where
they stand. Everything else — comments, key order, quoting, `yes`/`no`, flow mappings
spread over several lines, blank lines — stays byte for byte. Fields the file leaves out
(defaults) stay out unless their value changed.

YAML is spliced by position: PyYAML's composer gives every node's start and end in the
text. (A round-trip library would do too, but ruamel.yaml re-flows multi-line flow
mappings such as the shipped menecma.yaml's: more than the changed values.) A new key
goes after its mapping's last entry, in the style of its siblings; a list that grew gets
its new items after its last. JSON is spliced the same way (interpreter.sheets.json_splice).

The caller checks the result by reading it back (`Sheet` does, before anything is
written): a splice that would not give exactly the new values is never saved.
"""

from __future__ import annotations

import json

import yaml

from dsl.messages import tr
from interpreter.errors import SheetError
from interpreter.sheets import json_splice, parsing

_BOOL_WORDS = {"yes": ("yes", "no"), "true": ("true", "false"), "on": ("on", "off")}
_BOOL_WORDS.update({v[1]: v for v in list(_BOOL_WORDS.values())})
_BOOL_WORDS.update({"y": ("y", "n"), "n": ("y", "n")})


def rewrite(text: str, text_format: str, old: dict, new: dict, order=()) -> str:
    """`text` with the values that changed from `old` to `new` written in. A field the
    file did not have goes after the nearest field before it in `order` (the rulebook's
    order of fields) that the file has."""
    if old == new:
        return text
    if text_format == "json":
        return _rewrite_json(text, old, new, list(order))
    return _YamlSplicer(text, list(order)).rewrite(old, new)


def _only_changed(old, new):
    """A value for a key the file did not have: of a mapping of defaults (a resource
    kept per group, all full), only the entries that changed."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {k: v for k, v in new.items() if k not in old or old[k] != v}
    return new


def _preceding(order: list, key, present: dict[str, tuple]) -> str | None:
    """The nearest key before `key` in `order` that is in `present`, or None."""
    if key not in order:
        return None
    for candidate in reversed(order[: order.index(key)]):
        if candidate in present:
            return candidate
    return None


def render_new(data: dict, text_format: str) -> str:
    """A whole sheet file for data that has no text yet."""
    if text_format == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=4096)


# ─── JSON ───────────────────────────────────────────────────────────────────


def _rewrite_json(text: str, old: dict, new: dict, order: list) -> str:
    doc = json.loads(text)
    _patch_plain(doc, old, new)
    added = [k for k in doc if k not in json.loads(text)]
    for key in added:  # a new field beside its neighbours in the rulebook's order
        after = _preceding(order, key, doc)
        if after is not None:
            value = doc.pop(key)
            items = list(doc.items())
            position = [k for k, _ in items].index(after) + 1
            doc = dict([*items[:position], (key, value), *items[position:]])
    spliced = json_splice.splice(text, doc)
    if spliced is not None:
        return spliced
    # a file the splice cannot place values in (a key given twice): written whole, in
    # its key order and indentation
    indent = _json_indent(text)
    ascii_only = "\\u" in text and all(ord(c) < 128 for c in text)
    out = json.dumps(doc, ensure_ascii=ascii_only, indent=indent)
    return out + ("\n" if text.endswith("\n") else "")


def _json_indent(text: str):
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return None if "\n" not in text.strip() else 2


def _patch_plain(doc: dict, old: dict, new: dict) -> None:
    """Set in `doc` (the file's own data) what changed from `old` to `new`."""
    for key, value in new.items():
        if key in old and old[key] == value:
            continue
        container = _container_of(doc, key)
        current = container.get(key)
        if isinstance(value, dict) and isinstance(current, dict) and isinstance(old.get(key), dict):
            _patch_plain(current, old[key], value)
        elif key not in container:
            container[key] = _only_changed(old.get(key), value)
        else:
            container[key] = value
    for key in old:
        if key not in new:
            _container_of(doc, key).pop(key, None)


def _container_of(doc: dict, key):
    """Where the file keeps a top-level key: itself, or `skills:` for a named skill."""
    if key not in doc and isinstance(doc.get("skills"), dict) and key in doc["skills"]:
        return doc["skills"]
    return doc


# ─── YAML ───────────────────────────────────────────────────────────────────


class _YamlSplicer:
    def __init__(self, text: str, order: list):
        self.text = text
        self.order = order
        self.edits: list[tuple[int, int, str]] = []
        try:
            root = yaml.compose(text, Loader=parsing.Loader)  # libyaml's, when there
        except yaml.YAMLError as error:
            raise SheetError(
                tr("the sheet file is no longer valid YAML: {error}", error=error)
            ) from None
        if not isinstance(root, yaml.MappingNode):
            raise SheetError(tr("the sheet file is not a mapping"))
        self.root: yaml.MappingNode = root

    def rewrite(self, old: dict, new: dict) -> str:
        self.mapping(self.root, old, new, top=True)
        out = self.text
        # (from the end; of insertions at one place, the last made first: they read in
        # the order they were made)
        ordered = sorted(enumerate(self.edits), key=lambda e: (e[1][0], e[1][1], e[0]))
        for _, (start, end, replacement) in reversed(ordered):
            out = out[:start] + replacement + out[end:]
        return out

    # ── mappings ──

    def mapping(self, node: yaml.MappingNode, old: dict, new: dict, top: bool = False) -> None:
        entries = {_key_text(k): (k, v) for k, v in node.value}
        skills = entries.get("skills") if top else None
        items = list(new.items())
        if top:  # new keys at one place go in the rulebook's order of fields
            rank = {name: i for i, name in enumerate(self.order)}
            items.sort(key=lambda item: rank.get(item[0], len(rank)))
        for key, value in items:
            if key in old and old[key] == value:
                continue
            found = entries.get(str(key))
            if found is None and skills is not None and isinstance(skills[1], yaml.MappingNode):
                inner = {_key_text(k): (k, v) for k, v in skills[1].value}
                found = inner.get(str(key))
            if found is None:
                after = _preceding(self.order, key, entries) if top else None
                before = entries.get(after) if after is not None else None
                self.insert(node, key, _only_changed(old.get(key), value), before)
            else:
                self.value(found[1], old.get(key, _MISSING), value)
        for key in old:
            if key not in new and str(key) in entries:
                self.delete(node, *entries[str(key)])

    def value(self, node, old, new) -> None:
        if isinstance(node, yaml.MappingNode) and isinstance(new, dict) and isinstance(old, dict):
            kept = {_key_text(k) for k, _ in node.value} & {str(k) for k in new}
            if kept:  # edit inside the mapping; one that keeps no key is written anew
                self.mapping(node, old, new)
            else:
                self.replace(node, new)
        elif isinstance(node, yaml.SequenceNode) and isinstance(new, list):
            self.sequence(node, old if isinstance(old, list) else None, new)
        else:
            self.replace(node, new)

    def replace(self, node, value) -> None:
        if not isinstance(value, dict | list):
            like = node if isinstance(node, yaml.ScalarNode) else None
            text = _scalar(value, like, self.in_flow(node))
        elif isinstance(node, yaml.ScalarNode) or node.flow_style or not value:
            text = _flow(value)
        else:  # a block collection replaced by another: written in block style again
            text = _block(value, node.start_mark.column).lstrip(" ")
        self.edits.append((node.start_mark.index, _last_end(node), text))

    def insert(self, node: yaml.MappingNode, key, value, after=None) -> None:
        key_text = _key(str(key), node.flow_style)
        if node.flow_style:
            if node.value:
                at = node.value[-1][1].end_mark.index
                self.edits.append((at, at, f", {key_text}: {_flow(value)}"))
            else:
                at = node.start_mark.index + 1
                self.edits.append((at, at, f"{key_text}: {_flow(value)}"))
            return
        column = node.value[0][0].start_mark.column
        siblings = [v for _, v in node.value]
        if isinstance(value, dict) and value and not _has_flow(siblings, yaml.MappingNode):
            body = ":\n" + _block(value, column + 2)
        elif isinstance(value, list) and value and _has_block(siblings, yaml.SequenceNode):
            body = ":\n" + _block(value, column)
        else:
            body = ": " + (_flow(value) if isinstance(value, dict | list) else _scalar(value))
        held = self.placeholder(key_text) if node is self.root and "\n" not in body else None
        if held is not None:  # (`# Wounds: ...  # resource...`: a blank sheet's place for it)
            start, end, comment = held
            self.edits.append((start, end, key_text + body + comment))
            return
        at = self.line_end(_last_end(after[1] if after is not None else node))
        self.edits.append((at, at, "\n" + " " * column + key_text + body.rstrip("\n")))

    def placeholder(self, key_text: str) -> tuple[int, int, str] | None:
        """Where a top-level key left out stands commented, `# Wounds: ...` alone on its
        line or before a comment (as `rulebook new` writes a blank sheet's resources):
        (its line's start and end, the comment after it)."""
        text, written = self.text, f"# {key_text}: ..."
        start = 0 if text.startswith(written) else text.find("\n" + written) + 1
        if not text.startswith(written, start):  # (found nowhere: `find` gave -1, so 0)
            return None
        end = self.line_end(start)
        rest = text[start + len(written) : end]
        if rest.strip() and not rest.lstrip().startswith("#"):
            return None
        return start, end, rest.rstrip()

    def delete(self, node: yaml.MappingNode, key_node, value_node) -> None:
        if node.flow_style:
            entries = [k for k, _ in node.value]
            position = entries.index(key_node)
            if position > 0:
                start = node.value[position - 1][1].end_mark.index
                end = value_node.end_mark.index
            elif len(entries) > 1:
                start, end = key_node.start_mark.index, node.value[1][0].start_mark.index
            else:
                start, end = key_node.start_mark.index, value_node.end_mark.index
        else:
            start = self.text.rfind("\n", 0, key_node.start_mark.index) + 1
            end = self.line_end(_last_end(value_node)) + 1
        self.edits.append((start, min(end, len(self.text)), ""))

    # ── sequences ──

    def sequence(self, node: yaml.SequenceNode, old: list | None, new: list) -> None:
        if node.flow_style or not node.value or not new:
            self.edits.append((node.start_mark.index, _last_end(node), _flow(new)))
            return
        items = node.value
        dash = self.text.rfind("-", 0, items[0].start_mark.index)
        column = dash - self.text.rfind("\n", 0, dash) - 1
        if old is not None and len(new) > len(old) and new[: len(old)] == old:
            at = self.line_end(_last_end(items[-1]))
            added = "".join("\n" + " " * column + "- " + _item(v) for v in new[len(old) :])
            self.edits.append((at, at, added))
            return
        end = self.line_end(_last_end(items[-1]))
        self.edits.append((dash, end, _block(new, column).lstrip(" ").rstrip("\n")))

    # ── positions ──

    def line_end(self, index: int) -> int:
        """The end of the line `index` is on (after a trailing comment, before the newline)."""
        found = self.text.find("\n", index)
        return len(self.text) if found < 0 else found

    def in_flow(self, target) -> bool:
        def walk(node, flow: bool):
            if node is target:
                return flow
            children = []
            if isinstance(node, yaml.MappingNode):
                children = [v for _, v in node.value]
            elif isinstance(node, yaml.SequenceNode):
                children = node.value
            inner = flow or bool(getattr(node, "flow_style", False))
            for child in children:
                found = walk(child, inner)
                if found is not None:
                    return found
            return None

        return bool(walk(self.root, False))


_MISSING = object()


def _key_text(node) -> str:
    return node.value if isinstance(node, yaml.ScalarNode) else ""


def _last_end(node) -> int:
    """Where a node's own text ends (a block collection: where its last value ends)."""
    block = isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style
    if block and node.value:
        last = node.value[-1]
        return _last_end(last[1] if isinstance(last, tuple) else last)
    return node.end_mark.index


def _has_flow(nodes, kind) -> bool:
    return any(isinstance(n, kind) and n.flow_style for n in nodes)


def _has_block(nodes, kind) -> bool:
    return any(isinstance(n, kind) and not n.flow_style for n in nodes)


# ─── rendering values ───────────────────────────────────────────────────────


def _scalar(value, like=None, flow: bool = False) -> str:
    """A scalar as YAML that PyYAML reads back as exactly `value`, in the style of the
    scalar it replaces (`like`): the same quotes, the same words for yes and no."""
    if isinstance(value, bool):
        words = ("yes", "no")
        if like is not None and like.tag.endswith(":bool"):
            original = like.value
            words = _BOOL_WORDS.get(original.lower(), words)
            if original.isupper():
                words = (words[0].upper(), words[1].upper())
            elif original[:1].isupper():
                words = (words[0].title(), words[1].title())
        return words[0] if value else words[1]
    if value is None:
        return "~"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        value = str(value)
    style = like.style if like is not None and like.tag.endswith(":str") else None
    if style == '"' or not all(map(_printable, value)) or "\n" in value:
        return _double_quoted(value)
    if style != "'" and _plain_ok(value, flow):
        return value
    return "'" + value.replace("'", "''") + "'"


def _printable(char: str) -> bool:
    """A character YAML takes as it is inside quotes (no line break but the plain one)."""
    code = ord(char)
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    ) and char not in "\u2028\u2029"


def _double_quoted(text: str) -> str:
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif _printable(char):
            out.append(char)
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _plain_ok(text: str, flow: bool) -> bool:
    """Whether PyYAML reads `text`, unquoted, back as the same text where it goes."""
    if not text or text != text.strip() or "\n" in text:
        return False
    probe = f"[{text}]" if flow else f"k: {text}"
    expected = [text] if flow else {"k": text}
    return _reads_as(probe, expected)


def _key(text: str, flow: bool) -> str:
    """A mapping key: plain where PyYAML reads it back as the same text, else quoted."""
    if _plain_ok(text, flow) and _reads_as(f"{{{text}: 1}}" if flow else f"{text}: 1", {text: 1}):
        return text
    if "\n" in text or not all(map(_printable, text)):
        return _double_quoted(text)
    return "'" + text.replace("'", "''") + "'"


def _reads_as(probe: str, expected) -> bool:
    try:
        return yaml.safe_load(probe) == expected
    except yaml.YAMLError:
        return False


def _flow(value) -> str:
    if isinstance(value, dict):
        inner = ", ".join(f"{_key(str(k), True)}: {_flow(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value, None, True)


def _item(value) -> str:
    """A new block-sequence item's text after its `- `."""
    if isinstance(value, dict | list) and value:
        return _flow(value)
    return _scalar(value)


def _block(value, column: int) -> str:
    """A collection in block style, each line indented by `column`."""
    pad = " " * column
    lines = []
    if isinstance(value, dict):
        for key, item in value.items():
            key_text = _key(str(key), False)
            if isinstance(item, dict) and item:
                lines.append(f"{pad}{key_text}:\n{_block(item, column + 2).rstrip(chr(10))}")
            elif isinstance(item, list) and item:
                lines.append(f"{pad}{key_text}: {_flow(item)}")
            else:
                flat = _flow(item) if isinstance(item, dict | list) else _scalar(item)
                lines.append(f"{pad}{key_text}: {flat}")
    else:
        lines = [f"{pad}- {_item(item)}" for item in value]
    return "\n".join(lines) + "\n"
