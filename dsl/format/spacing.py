"""The space between two tokens of a line: none, one, or two between statements."""

from __future__ import annotations

from dsl.format.tokens import Tok

_NO_SPACE_BEFORE = frozenset((",", ":", ")", "]", "."))


def spacing(before: Tok | None, token: Tok) -> str:
    """The space written between two tokens of a line: none or one (two between items
    of a block written on one line, `{ gain 2 to Stress  set bonus to 1 }`)."""
    if before is None:
        return ""
    if token.kind in _NO_SPACE_BEFORE or before.kind in ("(", "[", "."):
        return ""
    if before.role == "unary":
        return " " if token.kind == "RANGE" else ""  # `- 2..5` is not the range `-2..5`
    if token.kind == "(" and token.role == "call":
        return " " if before.text == "d" else ""  # `d (x)`, a call: `d(x)` is dice
    if token.item and before.kind not in ("{", ","):  # statements side by side
        return "  "
    if token.kind == "[" and token.role == "index":
        return " " if before.kind in ("DICE", "GROUP") else ""  # `2d6[x]` is a label
    return " "
