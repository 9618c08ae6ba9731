"""A table's rows written one a line, aligned in columns.

Their values start in one column and their cells' `{` in another, unless aligning would
push a row that fits past the width."""

from __future__ import annotations

import itertools

import attrs

from dsl.format.layout import Line
from dsl.format.spacing import spacing
from dsl.format.tokens import Tok


@attrs.define
class Row:
    """A row's line and its widths: of its key, of its value before its cell's `{` (and
    that `{`'s index, 0 if none), of its code unaligned (indentation left out)."""

    line: Line
    key: int
    value: int
    brace: int
    natural: int


@attrs.define
class Run:
    """Rows of one table on consecutive lines (a blank line ends a run)."""

    rows: list[Row] = attrs.Factory(list)
    decided: bool = False

    def decide(self, indent: int, width: int) -> None:
        """Set the rows' padding, now that their indentation is known: the values and the
        cells aligned; else the values only; else nothing, whichever first leaves every
        row that fits unaligned within the width."""
        self.decided = True
        keys = max(row.key for row in self.rows)
        values = max((row.value for row in self.rows if row.brace), default=0)
        fitting = [row for row in self.rows if indent + row.natural <= width]
        for bodies in (True, False):
            if all(
                indent + row.natural + _pads(row, keys, values, bodies) <= width for row in fitting
            ):
                for row in self.rows:
                    row.line.pad = keys - row.key
                    if bodies and row.brace:
                        row.line.body = (row.brace, values - row.value)
                return


def _pads(row: Row, keys: int, values: int, bodies: bool) -> int:
    return keys - row.key + (values - row.value if bodies and row.brace else 0)


def find_runs(lines: list[Line]) -> None:
    """Give each line that holds a table row (its key first) the run it belongs to."""
    stack = [0]
    runs: dict[int, Run] = {}
    for line in lines:
        tokens = line.tokens
        if not tokens:
            if line.comment is None:
                runs.clear()
            continue
        first = tokens[0]
        if first.item:
            if first.entry and len(tokens) > 2 and tokens[1].key_colon:
                brace, value = _cell_body(tokens)
                row = Row(line, len(first.text), value, brace, _width(tokens))
                line.run = runs.setdefault(stack[-1], Run())
                line.run.rows.append(row)
            else:
                runs.pop(stack[-1], None)
        for token in tokens:
            if token.kind in ("(", "{", "["):
                stack.append(id(token))
            elif token.kind in (")", "}", "]") and len(stack) > 1:
                runs.pop(stack.pop(), None)


def _width(tokens: list[Tok]) -> int:
    """The width of tokens laid out on one line, with no indentation and no padding."""
    width = sum(len(t.text) for t in tokens)
    return width + sum(len(spacing(a, b)) for a, b in itertools.pairwise(tokens))


def _cell_body(tokens: list[Tok]) -> tuple[int, int]:
    """(the index of the `{` of a row's cell body on its line, or 0; the width of the
    value before it)."""
    for index in range(3, len(tokens)):
        token = tokens[index]
        if token.kind == "{" and token.owner is not None and token.owner.data == "cell_body":
            return index, _width(tokens[2:index])
    return 0, 0
