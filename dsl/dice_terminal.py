"""The grammar's DICE terminal, read from the grammar's text without importing Lark.

The checker (is a name one the lexer would read as dice?) and the odds engine (where does
a dice term end?) need only this of the grammar; Lark costs tens of milliseconds to
import, which a warm load (the checked rulebook or the parse read back from the cache,
a house rule checked again) need not pay. `dsl.parser` uses the same functions.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources


def grammar_text() -> str:
    """The grammar's text, as the `grammar` package holds it."""
    return resources.files("grammar").joinpath("rulebook.lark").read_text(encoding="utf-8")


def reads_as_dice(word: str) -> bool:
    """Whether a word is a dice term to the lexer (`d20`, `d6x`): never a name's use."""
    return dice_pattern().fullmatch(word) is not None


def dice_end(text: str, start: int) -> int | None:
    """Where the grammar's DICE terminal, matched at `start` of `text`, ends (the lexer's
    token there: DICE has the highest priority of the terminals a term may start with),
    or None."""
    found = dice_pattern().match(text, start)
    return None if found is None else found.end()


@cache
def dice_pattern() -> re.Pattern:
    """The grammar's own DICE terminal, compiled once: read from the grammar's text as
    Lark reads it (its `\\n` a line break), without building the parser (which the checker
    would otherwise build to tell a dice term from a name; tests/test_grammar.py checks
    it is Lark's own)."""
    return re.compile(dice_terminal(grammar_text()))


#: the DICE terminal's line in the grammar: `DICE.3: /.../` (no flags)
_DICE_LINE = re.compile(r"^DICE(?:\.[0-9]+)?: */(.*)/$", re.MULTILINE)


def dice_terminal(grammar: str) -> str:
    """The regular expression of the grammar's DICE terminal, as Lark's `to_regexp`."""
    found = _DICE_LINE.search(grammar)
    if found is None:
        raise ValueError("the grammar has no DICE terminal")
    return re.sub(r"(?<!\\)((?:\\\\)*)\\n", lambda m: m.group(1) + "\n", found.group(1))
