"""Lark parse tree to AST nodes (dsl.nodes), with source spans on every node.

The walk is iterative, so a long expression cannot exhaust Python's stack here, and the
depth of every expression is bounded (MAX_DEPTH) so that later stages cannot either.
Parts that the grammar keeps inside one token are parsed here: the counts, sides and
values of a dice term (`(Areté)d10cs>=(dif)`) and the `{...}` parts of a text.
"""

from __future__ import annotations

import gc
from typing import Any

from lark import Token

from dsl import nodes as n
from dsl.build.definitions import Definitions
from dsl.build.dice import DiceTerms
from dsl.build.expressions import Expressions
from dsl.build.statements import Statements
from dsl.build.walk import MAX_DEPTH
from dsl.errors import Source
from dsl.parser import check_nesting, dice_end, parse_tree, reads_as_dice
from dsl.plain_dice import read_expression


class Builder(Definitions, Statements, Expressions, DiceTerms):
    """Builds nodes from a parse tree: one method per grammar rule, `_rule(span, *children)`."""


def parse_expression(text: str, name: str = "<expression>") -> Any:
    """Parse a dice expression such as `4d6kh3 + 2` into an AST node.

    A text that is one dice term and nothing else (`4d6kh3`, `10d10cs>=6df=1`: most of
    what is rolled) is the grammar's DICE token alone: it is built from that token as the
    parser would, without the parser's cost (tests/test_grammar.py checks they agree). A
    small expression of plain dice and numbers (`floor(3d6/2)`, `max(1d20, 1d20)`) is read
    by `dsl.plain_dice.read_expression` (tests/test_plain_dice.py checks it reads as the
    parser): the parser's lexer, built state by state as it meets them, is most of a
    first parse's cost. Its dice terms may have any modifiers (`3d6x + 1`), each built
    from its DICE token as the parser's builder builds it."""
    source = Source(name, text)
    builder = Builder(source)
    if reads_as_dice(text):
        check_nesting(text, source)
        return builder.dice_token(Token("DICE", text, 0, 1, 1, 1, len(text) + 1, len(text)))
    small = read_expression(text, name, source, 0, builder.dice_at(0), dice_end)
    if small is not None:
        return small
    return Builder(source).build(parse_tree(text, source, "expression"))


def parse_rulebook_file(text: str, name: str) -> n.RulebookFile:
    """Parse one rulebook file (a house rule is merged with its base later)."""
    source = Source(name, text)
    # Parsing makes many objects and frees none: the cycle collector would walk them all
    # again and again, and make a long file's parse quadratic. It runs afterwards.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return Builder(source).build(parse_tree(text, source, "rulebook"))
    finally:
        if collecting:
            gc.enable()


__all__ = ["MAX_DEPTH", "Builder", "parse_expression", "parse_rulebook_file"]
