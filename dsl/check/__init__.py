"""Static checks, run on every load: names, arity, types, tables, duplicates, cycles.

The checker resolves every name once and records, for each expression node, what it
refers to (`bindings`) and its type (`types`); the interpreter compiles from those and
never resolves a name again. Errors and warnings carry file:line:col and a caret.

One module per concern: the sheet, definitions, tables, statements, expressions, and
the whole-rulebook checks (cycles, unused definitions); `scope` holds local names and
the built-in ones, `wording` how messages name things.
"""

from __future__ import annotations

from dsl.check.checker import Checker, check_definitions
from dsl.check.scope import Scope

__all__ = ["Checker", "Scope", "check_definitions"]
