"""Compiling a checked rulebook into closures: one module per construct.

compiler     the Compiler: definitions compiled once, memoised; names, places, refs
expressions  literals, names, fields, lookups, calls, built-in functions, operators
arithmetic   exact numbers, comparisons, lifting operations over unknown values
dice         dice terms and their modifiers
tables       table lookups: rows by value or by range, cells computed on lookup
statements   let, set, spend/gain/lose, require, if, match, loops, add, note, do
checks       checks and opposed checks
actions      actions, and the call frame every compiled definition enters
procedures   roll procedures (`roll x = d10 then {...}`)
"""

from __future__ import annotations

from interpreter.compile.compiler import Compiler

__all__ = ["Compiler"]
