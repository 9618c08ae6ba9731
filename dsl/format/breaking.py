"""Breaking a line too long to read: where, and only when the pieces then fit.

A line is broken between two statements written side by side in a block, after a comma
or before an operator (`+`, `and`, `>=`, `then`, `else`, ...), the outermost first: fewest
brackets open, then between statements, then the shallowest in the tree (`a * b + c`
breaks before the `+`), then as far right as still fits; the rest is laid out again the
same way. A line that no break brings within the width (a long text) is left whole.
"""

from __future__ import annotations

from dsl.format.layout import State, indent_of, lay_out
from dsl.format.tokens import Tok

#: tokens a line may have for breaking to be tried: a longer line is left as written
MAX_TOKENS = 400

_OPERATORS = frozenset(("ADD_OP", "MUL_OP", "COMPARE"))
# A literal that is an operator in the rule that owns it.
_OWNED_OPERATORS = {
    "=": ("equal",),
    "**": ("power",),
    "|": ("enum_type",),
    "and": ("and_",),
    "or": ("or_",),
    "in": ("in_",),
    "then": ("if_expr",),
    "else": ("if_expr", "require", "ensure"),
}


def broken(tokens: list[Tok], state: State, indent: int, pads: tuple, width: int):
    """The line's pieces, each within `width`, and the state after the last; or None.
    `pads` are a table row's (see `lay_out`): they go to the first piece."""
    if len(tokens) > MAX_TOKENS:
        return None
    points = _break_points(tokens)
    pieces: list[str] = []
    start = 0
    pad, body = pads
    while True:
        rest = tokens[start:]
        code, ends, after = lay_out(rest, state, indent, pad, body)
        if len(code) <= width:
            pieces.append(code)
            return pieces, after
        chosen = _choose(points, start, ends, width)
        if chosen is None:
            return None
        code, _, state = lay_out(tokens[start:chosen], state, indent, pad, body)
        pieces.append(code)
        start, pad, body = chosen, 0, (0, 0)
        indent = indent_of(tokens[start:], state)


def _choose(points: list[tuple[tuple, int]], start: int, ends: list[int], width: int):
    """The break that leaves the longest first piece within the width, among the
    outermost ones that leave any."""
    fitting = [
        (cost, -index)
        for cost, index in points
        if start < index < start + len(ends) and ends[index - start - 1] <= width
    ]
    if not fitting:
        return None
    return -min(fitting)[1]


def _break_points(tokens: list[Tok]) -> list[tuple[tuple, int]]:
    """(cost, index) of every place the line may break before tokens[index]."""
    points = []
    depth = 0
    for index, token in enumerate(tokens):
        if index and token.item and tokens[index - 1].kind != "{":
            # statements side by side in a block: between two, before anything inside one
            points.append(((depth, -1), index))
        elif index and _breaks_before(tokens[index - 1], token):
            before = tokens[index - 1]
            owner = before if before.kind == "," else token
            points.append(((depth, owner.depth), index))
        if token.kind in ("(", "[", "{"):
            depth += 1
        elif token.kind in (")", "]", "}"):
            depth -= 1
    return points


def _breaks_before(before: Tok, token: Tok) -> bool:
    if before.kind == ",":
        return token.kind not in (")", "]", "}")
    if before.kind in ("(", "[", "{") or before.role == "unary":
        return False
    if token.kind in _OPERATORS:
        return True
    owners = _OWNED_OPERATORS.get(token.text)
    return owners is not None and token.owner is not None and token.owner.data in owners
