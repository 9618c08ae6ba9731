"""The Checker's host: the state every check module shares, and what each offers the others.

The checks are written as modules of methods by concern (`sheet`, `tables`,
`expressions`, ...), joined into one `Checker` (dsl.check.checker). Each of them is a
`CheckerHost`: its methods are typed against this class, which holds the shared state (made
here, in `__init__`), reports diagnostics, and declares the methods one check module calls
on another, so that mypy checks every such call against its definition (and each
definition against its declaration).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dsl import nodes as n
from dsl import types as t
from dsl.check.scope import CALL_NESTING, MAX_CALL_NESTING, Scope
from dsl.errors import Diagnostic, Span
from dsl.rulebook import Binding


class CheckerHost:
    """The state one check of a rulebook shares between its check modules."""

    def __init__(self, definitions: list):
        self.definitions = definitions
        self.diagnostics: list[Diagnostic] = []
        self.bindings: dict[int, Binding] = {}
        #: id(node) → its Type (an `effects(...)` call's: which of its targets are names)
        self.types: dict[int, t.Type | tuple[bool, ...]] = {}
        #: every top-level name: a sheet's field or a definition (nodes of many classes)
        self.globals: dict[str, Any] = {}
        self.fields: dict[str, Any] = {}
        self.groups: dict[str, n.Group] = {}
        self.derived: dict[str, n.Derived] = {}
        self.ensures: list[n.Ensure] = []
        self.symbols: dict[str, Span] = {}  # the declared symbols, in order
        self.open_skills: n.OpenSkills | None = None
        self.by_kind: dict[str, dict[str, Any]] = {
            k: {}
            for k in ("roll", "ladder", "formula", "table", "check", "opposed", "action", "die")
        }
        self.used: set[str] = set()
        #: each `let` with the scope that holds it: one never read is warned of at the end
        self.let_scopes: dict[int, tuple[Scope, n.Let]] = {}
        self.calls: dict[str, set[str]] = {}
        self.current: str | None = None  # the definition being checked (for call cycles)
        self.result_types: dict[str, t.Type] = {}
        self.done: set[str] = set()
        self.in_progress: set[str] = set()
        # How deep expressions and statements nest (whole.check_nesting): the checker's
        # depth now, where the definition being checked began, the deepest it reached;
        # each definition's own nesting, and how deep it is where it calls each callee.
        self.depth = self.base = self.deepest = 0
        self.nesting: dict[str, int] = {}
        self.sites: dict[str, dict[str, int]] = {}

    # ─── reporting ──────────────────────────────────────────────────────────

    def error(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic("error", message, span, hint))

    def warning(self, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic("warning", message, span, hint))

    def in_definition(self, name: str, check: Callable[[], object]) -> None:
        """Run `check` as the check of the definition `name` (for call cycles and nesting)."""
        if self.current is not None and self.depth > MAX_CALL_NESTING:
            return  # too deep to follow a call now: checked in its turn (and check_nesting says)
        previous, self.current = self.current, name
        saved = self.base, self.deepest, self.depth
        if previous is not None:  # a call followed: entering the callee nests deeper too
            self.depth += CALL_NESTING
        self.base = self.deepest = self.depth
        self.calls.setdefault(name, set())
        try:
            check()
        finally:
            self.nesting[name] = max(self.nesting.get(name, 0), self.deepest - self.base)
            self.current = previous
            self.base, self.deepest, self.depth = saved

    if TYPE_CHECKING:  # what one check module calls on another (defined there)
        # dsl.check.expressions
        def want(self, node: Any, scope: Scope, wanted: t.Type, what: str) -> t.Type: ...
        def expr(self, node: Any, scope: Scope) -> t.Type: ...
        def use(self, name: str) -> None: ...
        def note_call(self, name: str) -> None: ...
        def undefined(
            self,
            name: str,
            span: Span,
            scope: Scope,
            unknown: str | None = None,
            functions: bool = True,
            fallback: Any = None,
        ) -> None: ...
        def text_fits(self, node: Any, wanted: t.Type) -> None: ...
        def compared_as(self, node: Any, type_: t.Type) -> t.Type: ...
        def quote_hint(self, node: Any) -> str | None: ...
        def catalog_type(self, catalog: n.Catalog) -> t.Type: ...

        # dsl.check.definitions
        def definition(self, node: Any) -> None: ...
        def type_of(self, node: Any) -> t.Type: ...
        def not_global(self, name: str, span: Span, what: str) -> None: ...
        def not_dice(self, name: str, span: Span) -> None: ...

        # dsl.check.statements
        def block(
            self, statements: Any, scope: Scope, top: bool = False, action: Any = None
        ) -> None: ...
        def declare(self, scope: Scope, name: str, type_: t.Type, span: Span) -> None: ...
        def let_type(self, expr: Any, scope: Scope) -> t.Type: ...
        def place(self, node: Any, scope: Scope, kinds: Any) -> t.Type | None: ...

        # dsl.check.sheet
        def sheet_item(self, item: Any) -> None: ...
        def group(self, group: n.Group) -> None: ...
        def member_type(self, group: n.Group) -> t.Type: ...
        def global_named(self, node: Any, scope: Scope) -> Any: ...

        # dsl.check.tables, items, dice, symbols, effects, characters, builtin_calls
        def text_keys_fit(self, table: n.Table, keys: Any) -> None: ...
        def table_type(self, table: n.Table, depth: int) -> t.Type: ...
        def list_item(self, node: n.Index, listed: t.Type, scope: Scope) -> t.Type: ...
        def whole(self, node: Any, what: Any) -> None: ...
        def note_counted(self, node: n.Binary) -> None: ...
        def collect_symbols(self, node: n.Symbols) -> None: ...
        def symbol_sum(self, left: t.Type, right: t.Type) -> t.Type | None: ...
        def effects_item(self, item: n.Effects) -> None: ...
        def character_field(self, node: n.Field) -> t.Type: ...
        def character_param(self, param: n.Param) -> None: ...
        def builtin(self, node: n.Call, scope: Scope) -> t.Type: ...

        # dsl.check.whole, lookalikes
        def check_cycles(self) -> bool: ...
        def check_nesting(self) -> None: ...
        def check_unused(self) -> None: ...
        def check_unread_lets(self) -> None: ...
        def check_lookalikes(self) -> None: ...
