"""The canonical layout of a rulebook's lines: indentation, spacing, aligned columns.

The author's line breaks are kept (docs/formatting.md): each source line is laid out
again from its tokens, and only a line too long to read is broken (`dsl.format.breaking`).
"""

from __future__ import annotations

from typing import Protocol

import attrs

from dsl.format.spacing import spacing
from dsl.format.tokens import Comment, Tok

#: columns a line may take before it is broken (where a break makes it fit)
WIDTH = 100
#: spaces per level of `{ ... }`
INDENT = 2
#: spaces a line that goes on with its statement (or inside a `(` that ends its line) adds
CONTINUATION = 2

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())


@attrs.frozen
class Frame:
    """An open bracket: the indentation it is measured from (for a `{`, that of the
    statement it belongs to; for `(` and `[`, that of its line), the column its contents
    align to (None when it ends its line: then they are indented under it), and the
    statement's indentation outside it (restored when it closes)."""

    kind: str
    line_indent: int
    align: int | None
    outer: int = 0

    def inside(self) -> int:
        """The indentation of a line that starts inside it."""
        if self.align is not None:
            return self.align
        return self.line_indent + (INDENT if self.kind == "{" else CONTINUATION)


@attrs.frozen
class State:
    """Where the layout is: the open brackets, the indentation of the statement being
    written, the token before, and the indentation of the last `{` closed (for `} else`)."""

    stack: tuple = (Frame("{", -INDENT, None),)
    statement: int = 0
    previous: Tok | None = None
    closed: int = 0


class Aligned(Protocol):
    """Table rows laid out together (dsl.format.rows.Run): their columns decided once."""

    decided: bool

    def decide(self, indent: int, width: int) -> None: ...


@attrs.define
class Line:
    """One source line: its tokens, its comment, and what layout decided for it."""

    tokens: list[Tok]
    comment: Comment | None
    pad: int = 0  # spaces after a table row's key, so that the values align
    body: tuple[int, int] = (0, 0)  # (index of the `{` of the row's cell, spaces before it)
    run: Aligned | None = None  # the table rows it is aligned with


def lines_of(text: str, tokens: list[Tok], comments: list[Comment]) -> list[Line]:
    """The source lines with their tokens and comments (a blank line has neither)."""
    count = text.count("\n") + 1
    lines = [Line([], None) for _ in range(count)]
    for token in tokens:
        lines[token.line].tokens.append(token)
    for comment in comments:
        lines[comment.line].comment = comment
    return lines


def indent_of(tokens: list[Tok], state: State) -> int:
    """The indentation of a line that starts with `tokens[0]`, where the layout is `state`."""
    first = tokens[0]
    frame = state.stack[-1]
    if first.kind in _CLOSERS:
        return max(0, frame.line_indent)
    previous = state.previous
    if first.text == "else" and first.kind == "word" and previous and previous.kind == "}":
        return state.closed
    if frame.kind == "{":
        base = max(0, frame.inside())
        return base if first.item else base + CONTINUATION
    return frame.inside()


def starts_statement(tokens: list[Tok]) -> bool:
    """Whether a line starting with these tokens sets the statement's indentation."""
    return tokens[0].item or tokens[0].kind == "}"


def lay_out(tokens: list[Tok], state: State, indent: int, pad: int = 0, body=(0, 0)):
    """One line's code from its tokens, at `indent`, from `state`: (the code, the column
    where each token ends, the state after it). `pad` spaces go before the third token
    (a table row's value), `body[1]` before the token at `body[0]` (its cell's `{`)."""
    stack = state.stack
    statement = indent if starts_statement(tokens) else state.statement
    closed = state.closed
    parts = [" " * indent]
    ends: list[int] = []
    column = indent
    opened: int | None = None  # a frame opened just before: the next token aligns it
    before = None
    for index, token in enumerate(tokens):
        space = spacing(before, token)
        if pad and index == 2:  # after the key and its colon, the row's value
            space += " " * pad
        if index == body[0] and index:
            space += " " * body[1]
        if opened is not None:
            stack = (*stack[:opened], attrs.evolve(stack[opened], align=column + len(space)))
            opened = None
        parts.append(space)
        parts.append(token.text)
        column += len(space) + len(token.text)
        ends.append(column)
        if token.kind in _OPENERS:
            base = statement if token.kind == "{" else indent
            stack = (*stack, Frame(token.kind, base, None, statement))
            opened = len(stack) - 1
            if token.kind == "{":
                statement = base
        elif token.kind in _CLOSERS and len(stack) > 1:
            closed = max(0, stack[-1].line_indent)
            statement = stack[-1].outer
            stack = stack[:-1]
        before = token
    after = State(stack, statement, tokens[-1] if tokens else state.previous, closed)
    return "".join(parts), ends, after
