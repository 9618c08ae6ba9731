"""The Compiler's host: the state every compiling part shares, and what each offers the others.

The compiler is written as parts by construct (`expressions`, `dice`, `tables`,
`statements`, ...), joined into one `Compiler` (interpreter.compile.compiler). Each part
is a `CompilerHost`: it is typed against this class, which holds the shared state (made
here, in `__init__`), and declares the methods one part calls on another, so that mypy
checks every such call against its definition (and each definition against its
declaration).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from dsl import nodes as n
from dsl import types as t
from dsl.build.walk import is_number
from dsl.rulebook import Rulebook

F = TypeVar("F", bound=Callable[..., Any])


def with_parts(function: F, **parts: object) -> F:
    """`function` (a compiled closure) carrying `parts` as attributes: what the odds
    engine reads of a compiled statement to run it a step at a time (an `if`'s
    `branches`, a loop's `body`, a `let`'s `value`: docs/architecture.md, the seam)."""
    vars(function).update(parts)
    return function


class CompilerHost:
    """The state a compiler of one rulebook shares between its parts."""

    def __init__(self, rulebook: Rulebook):
        self.book = rulebook
        self.bindings = rulebook.bindings
        self.types = rulebook.types
        self.compiled: dict[tuple, Any] = {}
        self.reads: list[dict] = []  # what the callable being compiled reads, innermost last
        self.bodies: list = []  # the text of the callable being compiled, innermost last
        self.symbol_terms, self.symbol_sums = self.symbol_forms()
        skills = rulebook.open_skills
        self.open_default: n.Number = 0
        if skills is not None:
            if isinstance(skills.default, n.Literal) and is_number(skills.default.value):
                self.open_default = skills.default.value
            elif skills.range.low is not None:
                self.open_default = skills.range.low

    def type_of(self, node: object) -> t.Type:
        return self.types.get(id(node), t.ANY)

    def changes_nothing(self, node: object) -> bool:
        """Whether evaluating an expression leaves the sheet as it was: it calls no action,
        and no opposed check that rerolls its ties (one may be tied at the limit and stop
        the run): the odds engine may skip it when nothing reads its value."""
        for item in n.walk(node):
            if isinstance(item, n.Call):
                binding = self.bindings.get(id(item))
                if binding is None:
                    continue
                if binding.kind == "action":
                    return False
                if binding.kind == "opposed" and self.book.opposed[binding.name].tie == "reroll":
                    return False
        return True

    def memo(self, key: tuple, build: Callable[[], Any]) -> Any:
        found = self.compiled.get(key)
        if found is None:
            found = build()
            self.compiled[key] = found
        return found

    if TYPE_CHECKING:  # what one part calls on another (defined there)
        # interpreter.compile.compiler
        def expr(self, node): ...
        def statement(self, node): ...
        def ref(self, node): ...
        def value_or_ref(self, node, wanted: t.Type): ...
        def naming(self, node): ...
        def derived(self, name: str): ...
        def formula(self, name: str): ...
        def check(self, name: str): ...
        def opposed(self, name: str): ...
        def action(self, name: str): ...
        def roll_definition(self, name: str): ...
        def callable_of(self, binding): ...
        def resource_bound(self, ctx, place, which: str): ...

        # interpreter.compile.costs
        def cost(self, node) -> int: ...
        def statement_cost(self, node) -> int: ...

        # interpreter.compile.expressions, items, dice, tables, symbols
        def arguments(self, node: n.Call, params) -> tuple: ...
        def roll_object(self, node): ...
        def ex_index(self, node: n.Index, wanted: frozenset | None = None, lazy: bool = False): ...
        def list_item(self, node: n.Index): ...
        def dice(self, node: n.Dice): ...
        def modifier(self, modifier): ...
        def table(self, name: str): ...
        def symbol_forms(self) -> tuple[dict, dict]: ...
        def symbol_sum(self, node, original): ...

        # interpreter.compile.pools
        def is_pool(self, node) -> bool: ...
        def pool_field(self, node: n.Field): ...
        def let_pool(self, node: n.Let): ...
        def set_pool(self, node: n.Set): ...
        def roll_group(self, node: n.RollGroup): ...

        # interpreter.compile.statements, characters
        def block(self, statements) -> tuple: ...
        def written(self, place_node): ...
        def place_bounds(self): ...
        def st_change(self, node: n.Change): ...
        def character_field(self, node: n.Field): ...
