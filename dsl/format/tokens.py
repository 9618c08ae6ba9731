"""A rulebook's every token, comments included, each with the part it plays in the tree.

The parse tree keeps the named tokens (names, numbers, texts, dice, operators); the
grammar's literal words and punctuation (`let`, `(`, `{`, ...) are left out of it, and
comments are ignored by the grammar. Both are read back from the text between the tree's
tokens, which holds nothing else: so the stream is exactly the lexer's, with each token's
owner (the rule it belongs to) and role (a call's `(`, a block's `{`, a unary `-`, ...).
"""

from __future__ import annotations

import re
from typing import Any

import attrs
from lark import Token

from dsl.parser import ParsedTree

# Between two tokens of the tree there are only spaces, comments and the grammar's
# anonymous literals: keywords (words) and punctuation (`**` is the only one of two).
_GAP = re.compile(r"(?P<comment>#[^\n]*)|(?P<space>\s+)|(?P<word>[^\W\d]\w*)|\*\*|[^\s\w#]")

#: rules whose `(` follows a name with no space: a call, a parameter list
CALL_OPENERS = frozenset(("call", "param_list", "character_call"))
#: rules whose `[` follows what it indexes with no space
INDEX_OPENERS = frozenset(("index", "resource_key"))


@attrs.define
class Tok:
    """One token: its text and where it is, its kind, the rule it belongs to, its role."""

    text: str
    start: int
    end: int
    kind: str  # a terminal's name (NAME, DICE, ...), "word" for a keyword, or the punctuation
    owner: ParsedTree | None
    depth: int  # how deep its owner is in the tree (for choosing where to break a line)
    role: str = ""  # "call" (a call's or parameter list's `(`), "index", "group", "unary"
    item: bool = False  # it starts an item of a `{ ... }` (a statement, an entry, a field)
    entry: bool = False  # it starts a table's row (for aligning the rows' columns)
    key_colon: bool = False  # the `:` after a table entry's key
    line: int = 0  # the 0-based line it is on


@attrs.define
class Comment:
    """A `# ...` comment: its text and the 0-based line it is on."""

    text: str
    start: int
    line: int


def stream(text: str, tree: ParsedTree) -> tuple[list[Tok], list[Comment]]:
    """The tokens of `text` in order, and its comments, from its parse tree `tree`."""
    tokens: list[Tok] = []
    comments: list[Comment] = []
    _walk(text, tree, tokens, comments)
    starts = _line_starts(text)
    line = 0
    for token in tokens:
        while line + 1 < len(starts) and starts[line + 1] <= token.start:
            line += 1
        token.line = line
    line = 0
    for comment in comments:
        while line + 1 < len(starts) and starts[line + 1] <= comment.start:
            line += 1
        comment.line = line
    return tokens, comments


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _walk(text: str, root: ParsedTree, tokens: list[Tok], comments: list[Comment]) -> None:
    """The tree's tokens and the gaps' ones, in text order (iterative: trees may be deep)."""
    if root.start is None:  # nothing but comments and spaces
        _gap(text, 0, len(text), None, 0, tokens, comments)
        return
    # Work items, popped from the end: ("gap", start, end, owner, depth, role),
    # ("token", token, owner, depth), ("node", tree, depth) and ("item", is_entry): the
    # next token starts an item of a `{ ... }` (or the file).
    work: list[tuple] = [("gap", root.end, len(text), None, 0, "")]
    work += [("node", root, 1), ("gap", 0, root.start, None, 0, "")]
    item: str | None = None
    while work:
        entry = work.pop()
        kind = entry[0]
        if kind == "item":
            item = entry[1]
            continue
        first = len(tokens)
        if kind == "gap":
            _, start, end, owner, depth, role = entry
            _gap(text, start, end, owner, depth, tokens, comments, role)
        elif kind == "token":
            _, token, owner, depth = entry
            tokens.append(Tok(str(token), token.start_pos, token.end_pos, token.type, owner, depth))
        else:
            work.extend(reversed(_opened(text, entry[1], entry[2])))
        if item is not None and len(tokens) > first:
            tokens[first].item = True
            tokens[first].entry = item == "entry"
            item = None


def _opened(text: str, node: ParsedTree, depth: int) -> list[tuple]:
    """The work items of one node's text, in order: its gaps, tokens and children."""
    every: list[Any] = node.children  # tokens and ParsedTrees, both with their positions
    children = [c for c in every if c is not None and c.start_pos is not None]
    brace = _opening_brace(text, node, children) if node.data != "rulebook" else -1
    out: list[tuple] = []
    position = node.start
    for child in children:
        out.append(("gap", position, child.start_pos, node, depth, ""))
        if brace is not None and child.start_pos > brace:
            row = node.data == "table" and getattr(child, "data", None) == "entry"
            out.append(("item", "entry" if row else "item"))
        if isinstance(child, Token):
            out.append(("token", child, node, depth))
        else:
            if child.start > child.start_pos:  # grouping parentheses
                out.append(("gap", child.start_pos, child.start, child, depth + 1, "group"))
            out.append(("node", child, depth + 1))
            if child.end < child.end_pos:
                out.append(("gap", child.end, child.end_pos, child, depth + 1, "group"))
        position = child.end_pos
    out.append(("gap", position, node.end, node, depth, ""))
    return out


def _opening_brace(text: str, node: ParsedTree, children: list) -> int | None:
    """Where the `{` that opens a node's items is, if the node has one of its own."""
    position = node.start
    for child in children:
        start, end = child.start_pos, child.end_pos
        found = text.find("{", position, start)
        if found >= 0 and _is_punctuation(text, position, found):
            return found
        position = end
    found = text.find("{", position, node.end)
    if found >= 0 and _is_punctuation(text, position, found):
        return found
    return None


def _is_punctuation(text: str, start: int | None, found: int) -> bool:
    """Whether the `{` at `found`, in a gap from `start`, is not inside a comment."""
    line_start = text.rfind("\n", start, found) + 1
    return "#" not in text[max(start or 0, line_start) : found]


def _gap(text, start, end, owner, depth, tokens, comments, role: str = "") -> None:
    """The keywords, punctuation and comments between two of the tree's tokens."""
    for found in _GAP.finditer(text, start, end):
        kind = found.lastgroup
        if kind == "space":
            continue
        if kind == "comment":
            comments.append(Comment(found.group(), found.start(), 0))
            continue
        word = found.group()
        token = Tok(word, found.start(), found.end(), "word" if kind else word, owner, depth)
        data = owner.data if owner is not None else None
        if role == "group":
            token.role = "group"
        elif word == "(" and data in CALL_OPENERS:
            token.role = "call"
        elif word == "[" and data in INDEX_OPENERS:
            token.role = "index"
        elif word in ("-", "+") and data not in ("die_face",):  # binary ones are ADD_OP: a literal
            token.role = "unary"  # sign is a unary one (but the `+` joining a face's symbols)
        elif word == ":" and data == "entry":
            token.key_colon = True
        tokens.append(token)
