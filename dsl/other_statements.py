"""Other languages' ways to write a statement, said as we write it where the parser meets them.

`set x = 2`, `let x := 3`, `elif`, `return`, `;`, a list built with `for` inside it."""

from __future__ import annotations

from dsl.messages import tr

_EXAMPLE = tr("as in {example}")


def other_statement(found: str, expected: frozenset) -> tuple | None:
    """(message, hint) for another language's way to write a statement, met where the
    parser expected one of `expected` (its terminals' names); None if it is not one."""
    if found == "=" and "TO" in expected:  # `set hp = hp - 1`
        return tr("a `set` takes its new value after `to`"), _EXAMPLE.fill(example="set x to 2")
    if found == ":" and expected == {"EQUAL"}:  # `let x := 3`
        return tr("a `let` names its value with `=`"), _EXAMPLE.fill(example="let x = 3")
    if found == "then" and expected == {"LBRACE"}:  # `if c then { ... }`
        return (
            tr("an `if` statement's block follows its condition, with no `then`"),
            tr(
                "as in {example}; `then` is for a value: {value}",
                example="if c.success { ... }",
                value="if c.success then 2 else 1",
            ),
        )
    if found in ("elif", "elsif", "elseif") and "ELSE" in expected:
        return (
            tr("`{word}` is written `else if` here", word=found),
            _EXAMPLE.fill(example="if a { ... } else if b { ... }"),
        )
    if found == "return" and "LET" in expected:  # (where a statement goes)
        return (
            tr("an action gives its values in its `result`"),
            _EXAMPLE.fill(example="result { hit: c.success }"),
        )
    if found == ";":
        return tr("a statement ends with its line, without `;`"), None
    if found in ("}", ",") and expected == {"COLON"}:  # `result { hit }`: a shorthand
        return (
            tr("a field's name is followed by `:` and its value"),
            _EXAMPLE.fill(example="result { hit: hit }"),
        )
    if found == "if" and {"OPTION", "DOT"} <= expected:  # `option x cost 1 from Luck if c`
        return (
            tr("an option's condition comes before its cost"),
            _EXAMPLE.fill(example="option burn if r < 12 cost 2 from Luck"),
        )
    if found == "for" and "RSQB" in expected:  # `[x for x in xs if x > 3]`: Python's
        return (
            tr("a list is not built with `for` inside its brackets"),
            tr(
                "count its items with {count}, add the dice over 3 with {summed}, or go "
                "through it in an action: {loop}",
                count="count(xs, 4..)",
                summed="sum(highest(r, count(r, 4..)))",
                loop="for each x in xs { ... }",
            ),
        )
    return None
