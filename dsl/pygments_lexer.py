"""A Pygments lexer for rulebooks, registered as `rulebook` (the docs' code blocks).

Its dice, ranges and numbers are the grammar's own terminals, read from
grammar/rulebook.lark, and so are its keywords: what the docs highlight as a dice term
is what the parser reads as one. The package registers it with Pygments through the
`pygments.lexers` entry point (pyproject.toml), so ```` ```rulebook ```` blocks in the
API reference (pdoc) and anywhere Pygments renders are highlighted.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import ClassVar

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text

_GRAMMAR = resources.files("grammar").joinpath("rulebook.lark").read_text(encoding="utf-8")


def _terminal(name: str) -> str:
    """A terminal's regular expression, as the grammar writes it (`NAME.3: /.../`)."""
    found = re.search(rf"^{name}(?:\.\d+)?: /(.*)/$", _GRAMMAR, re.MULTILINE)
    if found is None:
        raise LookupError(f"the grammar has no terminal {name}")
    return found.group(1)


#: every keyword of the grammar (its quoted words)
KEYWORDS = sorted(set(re.findall(r'"([a-z]+)"', _GRAMMAR)), key=lambda w: (-len(w), w))
CONSTANTS = ("true", "false", "yes", "no", "none")
OPERATOR_WORDS = ("and", "or", "not", "in")
DEFINITIONS = ("table", "check", "action", "formula", "roll", "ladder", "opposed", "die")


class RulebookLexer(RegexLexer):
    """The rulebook language (grammar/README.md)."""

    name = "Rulebook"
    aliases: ClassVar = ["rulebook", "rules"]
    filenames: ClassVar = ["*.rules"]
    mimetypes: ClassVar = ["text/x-rulebook"]

    tokens: ClassVar = {
        "root": [
            (r"\s+", Text.Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (r"'[^'\n]+'", Name.Variable),
            (_terminal("GROUP"), Number.Dice),
            (_terminal("DICE"), Number.Dice),
            (_terminal("RANGE"), Number),
            (_terminal("NEG_KEY"), Number),
            (_terminal("NUMBER"), Number),
            (
                rf"\b({'|'.join(DEFINITIONS)})(\s+)([^\W\d]\w*)",
                bygroups(Keyword.Declaration, Text.Whitespace, Name.Function),
            ),
            (words(CONSTANTS, prefix=r"\b", suffix=r"\b"), Keyword.Constant),
            (words(OPERATOR_WORDS, prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(tuple(KEYWORDS), prefix=r"\b", suffix=r"\b"), Keyword),
            (r"[^\W\d]\w*", Name),
            (r">=|<=|!=|\*\*|[-+*/%<>=|]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
        ],
        "string": [
            (r'"', String.Double, "#pop"),
            (r"\\.", String.Escape),
            (r"\{", String.Interpol, "interpolation"),
            (r'[^"\\{\n]+', String.Double),
            (r"\n", Text.Whitespace, "#pop"),
        ],
        "interpolation": [
            (r"\}", String.Interpol, "#pop"),
            (r"\{", String.Interpol, "#push"),
            (r"'[^'\n]+'", Name.Variable),
            (r"\d+(?:\.\d+)?", Number),
            (r"[^\W\d]\w*", Name),
            (r"\s+", Text.Whitespace),
            (r"[^{}\w\s']+", Operator),
        ],
    }
