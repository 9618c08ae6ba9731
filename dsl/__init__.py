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

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

#: where each public name lives: imported on first use (`import dsl` alone costs nothing, so
#: that `rulebook roll d20` and `rulebook --help` never build the parser or the checker)
_EXPORTS = {
    "parse_expression": "dsl.build",
    "CheckError": "dsl.errors",
    "Diagnostic": "dsl.errors",
    "RulebookError": "dsl.errors",
    "RulebookInvalid": "dsl.errors",
    "RulebookSyntaxError": "dsl.errors",
    "Source": "dsl.errors",
    "Span": "dsl.errors",
    "load": "dsl.load",
    "load_text": "dsl.load",
    "resolve": "dsl.load",
    "shipped_rulebooks": "dsl.load",
    "Rulebook": "dsl.rulebook",
}

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


def __getattr__(name: str):
    """A public name, imported from its module the first time it is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dsl' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(ModuleType):
    """The package `dsl`, whose `load` stays the function `dsl.load.load` when the module
    of the same name is imported (Python sets a package's attribute to each submodule it
    imports)."""

    def __setattr__(self, name: str, value) -> None:
        if name == "load" and isinstance(value, ModuleType):
            value = value.load
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
