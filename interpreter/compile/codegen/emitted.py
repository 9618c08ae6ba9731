"""Generated source as it is written: its lines, its generated names, its constants.

Everything the rulebook says reaches the generated code as a constant of the namespace
the source is compiled in (`constant(value)` gives the name it is bound to, `_k1`, `_k2`,
...); the source itself is written only from this package's own fixed fragments and the
names made here (`_k…` constants, `_v…` locals, `_f…` functions). `Emitted.function`
refuses source with any other literal or name (`SAFE_WORDS`): a rulebook's text can never
become code.
"""

from __future__ import annotations

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
        "len",
        "source",
        "drawn",
        "append",
        "random_bits",
        "dice_per_evaluation",
        "faces_per_die",
        "denominator_bound",
    }
)
#: a name this package made: a constant, a local value, a function
GENERATED = re.compile(r"_[kvf][0-9]+\Z")
#: what generated source never holds: what begins a text, a comment, an escape
FORBIDDEN = re.compile(r"[\"'#\\$%@`?!;~\t]")
WORD = re.compile(r"\w+")


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
            name = self._names[key] = f"_k{len(self.namespace) + 1}"
            self.namespace[name] = value
        return name

    def temp(self) -> str:
        """A fresh local name for a value computed once."""
        self._temps += 1
        return f"_v{self._temps}"

    def source(self) -> str:
        return "\n".join(self.lines) + "\n"

    def function(self, name: str) -> tuple[Callable[..., Any], str]:
        """The function the lines define (`name`, a generated name), compiled once, and
        its source; refused (UnsafeSource) if a word of it is not the generator's own."""
        text = self.source()
        check_source(text)
        code = compile(text, "<rulebook generated>", "exec")
        scope = dict(self.namespace)
        exec(code, scope)  # the generator's own source, checked above: no rulebook text
        function = scope[name]
        assigned = [v for v in function.__code__.co_varnames if v.startswith("_k")]
        if assigned:  # a constant assigned to would be a local, unbound: a bug here
            raise UnsafeSource(f"a constant assigned to in generated source: {assigned}")
        return function, text


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
