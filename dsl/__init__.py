"""The front end: rulebook text to a checked, immutable AST.

book = dsl.load("arcana_mundi")          # a path, or the name of a shipped rulebook
expr = dsl.parse_expression("4d6kh3")    # a dice expression on its own

A rulebook (the language: grammar/README.md; `rulebook fmt` writes it in one layout,
`dsl.format.format_text`):

```rulebook
roll abierta = d10 then {
  on die = 10: add d6 - 1, again while die = 6
}
table Dificultad {
  Fácil:  5
  Normal: 1
}
```
"""

from dsl.build import parse_expression
from dsl.errors import (
    CheckError,
    Diagnostic,
    RulebookError,
    RulebookInvalid,
    RulebookSyntaxError,
    Source,
    Span,
)
from dsl.load import load, load_text, resolve, shipped_rulebooks
from dsl.rulebook import Rulebook

__all__ = [
    "CheckError",
    "Diagnostic",
    "Rulebook",
    "RulebookError",
    "RulebookInvalid",
    "RulebookSyntaxError",
    "Source",
    "Span",
    "load",
    "load_text",
    "parse_expression",
    "resolve",
    "shipped_rulebooks",
]
