"""Generated source as it is written: its lines, its generated names, its constants.

Everything the rulebook says reaches the generated code as a constant of the namespace
the source is compiled in (`constant(value)` gives the name it is bound to, `_k1`, `_k2`,
...); the source itself is written only from this package's own fixed fragments and the
names made here (`_k…` constants, `_v…` locals, `_f…` functions). `Emitted.function`
refuses source with any other literal or name (`SAFE_WORDS`): a rulebook's text can never
become code. The source checked is then compiled with its whole numbers, texts, yes/no
and none read as the code's own constants, not from the namespace (`FOLD_CONSTANTS`), and
a limit read more than once read into a local once (`HOIST_LIMITS`).
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Callable
from typing import Any

#: the names the fixed fragments use (besides Python's keywords and generated names)
SAFE_WORDS = frozenset(
    {
        "ctx",
        "env",
        "args",
        "span",
        "saved",
        "type",
        "int",
        "abs",
        "dict",
        "zip",
        "range",
        "steps",
        "step_bound",
        "limits",
        "number_bound",
        "call_depth",
        "calls",
        "depth",
        "trace",
        "state",
        "values",
        "read",
        "roller",
        "face",
        "capture",
        "open_default",
        "total",
        "force",
        "get",
        "call",
        "_fields",
        "_hash",
        "_cells",
        "_shown",
        "_whole",
        "kind",
        "len",
        "source",
        "drawn",
        "append",
        "random_bits",
        "dice_per_evaluation",
        "faces_per_die",
        "denominator_bound",
        "quiet",
        "flat",
        "ValueError",
        "TypeError",
    }
)
#: a name this package made: a constant, a local value, a function
GENERATED = re.compile(r"_[kvf][0-9]+\Z")
#: what generated source never holds: what begins a text, a comment, an escape, a mark
#: the emitter writes and replaces (`lean_frames.LIFT`)
FORBIDDEN = re.compile(r"[\"'#\\$%@`?!;~\t\x00-\x08]")
WORD = re.compile(r"\w+")

#: the source checked is compiled with each generated constant of these types written as
#: a constant of the code (LOAD_CONST: no lookup in the namespace); False: every one read
#: from the namespace by its name
FOLD_CONSTANTS = True
FOLDED = frozenset({int, str, bool, type(None)})
#: a limit read as `limits.<name>` more than once in a function is read once, into a
#: local of that name (`Limits` cannot change: one run's are the same throughout)
HOIST_LIMITS = True
HOISTED = ("number_bound", "call_depth", "dice_per_evaluation", "faces_per_die")
#: the line every generated function reads its limits with, at its first level
LIMITS_LINE = "    limits = ctx.limits"


class UnsafeSource(AssertionError):
    """Generated source with a word that is not the generator's own (a bug here)."""


class Emitted:
    """One function's source, written line by line, and the constants it reads."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.level = 0
        self.namespace: dict[str, Any] = {}
        self._names: dict[Any, str] = {}  # a constant's name, by its value's identity or value
        self._temps = 0
        self._made = 0

    def line(self, text: str) -> None:
        self.lines.append("    " * self.level + text)

    def constant(self, value: Any) -> str:
        """The name the generated code reads `value` by (the same name for the same
        value: whole numbers, texts and None by value, everything else by identity)."""
        key: Any = (type(value), value) if type(value) in (int, str, bool) else ("id", id(value))
        if value is None:
            key = ("none",)
        name = self._names.get(key)
        if name is None:
            self._made += 1  # (a count of its own: a constant forgotten frees no name)
            name = self._names[key] = f"_k{self._made}"
            self.namespace[name] = value
        return name

    def forget(self, name: str) -> None:
        """A constant no line reads any more (a count merged into another) left out of the
        namespace."""
        if name in WORD.findall(self.source()):
            return
        del self.namespace[name]
        self._names = {key: made for key, made in self._names.items() if made != name}

    def temp(self) -> str:
        """A fresh local name for a value computed once."""
        self._temps += 1
        return f"_v{self._temps}"

    def source(self) -> str:
        return "\n".join(self.lines) + "\n"

    def function(self, name: str) -> tuple[Callable[..., Any], str]:
        """The function the lines define (`name`, a generated name), compiled once, and
        its source; refused (UnsafeSource) if a word of it is not the generator's own."""
        if HOIST_LIMITS:
            self.lines = hoisted(self.lines)
        text = self.source()
        check_source(text)
        if FOLD_CONSTANTS:  # (the checked source, its names of constants made literals)
            tree = Folded(self.namespace).visit(ast.parse(text, "<rulebook generated>"))
            code = compile(tree, "<rulebook generated>", "exec")
        else:
            code = compile(text, "<rulebook generated>", "exec")
        scope = dict(self.namespace)
        exec(code, scope)  # the generator's own source, checked above: no rulebook text
        function = scope[name]
        assigned = [v for v in function.__code__.co_varnames if v.startswith("_k")]
        if assigned:  # a constant assigned to would be a local, unbound: a bug here
            raise UnsafeSource(f"a constant assigned to in generated source: {assigned}")
        return function, text


class Folded(ast.NodeTransformer):
    """A generated constant read by its name, of a type in FOLDED: that value itself
    (where Python takes a literal without a warning: not called, indexed, looked into or
    tested for identity)."""

    def __init__(self, namespace: dict[str, Any]):
        self.namespace = namespace

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        if any(type(op) in (ast.Is, ast.IsNot) for op in node.ops):
            return node  # (an identity test of a literal is Python's warning: left as read)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node.args = [self.visit(arg) for arg in node.args]  # (what is called, as read)
        node.keywords = [self.visit(keyword) for keyword in node.keywords]
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        node.slice = self.visit(node.slice)  # (what is indexed, as read)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        return node  # (an attribute of a constant, read as written)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if type(node.ctx) is ast.Load and node.id in self.namespace:
            value = self.namespace[node.id]
            if type(value) in FOLDED:
                return ast.copy_location(ast.Constant(value), node)
        return node


def hoisted(lines: list[str]) -> list[str]:
    """The lines with each limit of HOISTED read more than once after `LIMITS_LINE` read
    there once, into a local of its name (the lines as they are without that line)."""
    if LIMITS_LINE not in lines:
        return lines
    at = lines.index(LIMITS_LINE) + 1
    text = "\n".join(lines[at:])
    read = [name for name in HOISTED if text.count(f"limits.{name}") > 1]
    if not read:
        return lines
    for name in read:
        text = re.sub(rf"\blimits\.{name}\b", name, text)
    first = [f"    {name} = limits.{name}" for name in read]
    return [*lines[:at], *first, *text.split("\n")]


def check_source(text: str) -> None:
    """Refuse source holding a literal, a comment or a name that is not the generator's
    own: ASCII without quotes, backslashes or `#` (so no string and no comment), and
    every word a keyword, one of SAFE_WORDS or a generated name (so no number either:
    a word that starts with a digit is refused)."""
    if not text.isascii():
        raise UnsafeSource("generated source that is not ASCII")
    found = FORBIDDEN.search(text)
    if found is not None:
        raise UnsafeSource(f"unexpected in generated source: {found.group()!r}")
    for word in set(WORD.findall(text)):
        if not (keyword.iskeyword(word) or word in SAFE_WORDS or GENERATED.match(word)):
            raise UnsafeSource(f"a word the generator did not make: {word!r}")
