"""The Checker: every static check, run on every load; the checked Rulebook it gives."""

from __future__ import annotations

from dsl import nodes as n
from dsl import suggest
from dsl import types as t
from dsl.check.builtin_calls import FunctionChecks
from dsl.check.characters import CharacterChecks
from dsl.check.choices import ChoiceChecks
from dsl.check.definitions import DefinitionChecks
from dsl.check.dice import DiceChecks
from dsl.check.effects import EffectChecks
from dsl.check.expressions import ExpressionChecks
from dsl.check.items import ItemChecks
from dsl.check.lookalikes import LookalikeChecks
from dsl.check.pools import PoolChecks
from dsl.check.scope import CALL_NESTING, MAX_CALL_NESTING, Scope
from dsl.check.sheet import SheetChecks
from dsl.check.statements import StatementChecks
from dsl.check.symbols import SymbolChecks
from dsl.check.tables import TableChecks
from dsl.check.whole import WholeChecks
from dsl.errors import TOO_DEEP, CheckError, Diagnostic, RulebookInvalid, Span
from dsl.functions import FUNCTIONS
from dsl.messages import tr
from dsl.rulebook import Binding, Rulebook


def check_definitions(
    header: n.Header | None, definitions: list, path: str, changes=(), base=None
) -> Rulebook:
    """Check merged definitions; raise RulebookInvalid on any error, else the Rulebook."""
    checker = Checker(definitions)
    try:
        with suggest.budget():  # every hint of this check together, in bounded work
            checker.run()
    except RecursionError:  # the static bounds keep well within the stack; an app deep in
        raise CheckError(TOO_DEEP, None) from None  # its own may still run out: say so
    errors = [d for d in checker.diagnostics if d.severity == "error"]
    if errors:
        raise RulebookInvalid(checker.diagnostics)
    fields = dict(header.fields) if header else {}
    return Rulebook(
        title=header.title if header else path,
        header=fields,
        path=path,
        fields=checker.fields,
        open_skills=checker.open_skills,
        groups=checker.groups,
        derived=checker.derived,
        ensures=tuple(checker.ensures),
        rolls=checker.by_kind["roll"],
        ladders=checker.by_kind["ladder"],
        formulas=checker.by_kind["formula"],
        tables=checker.by_kind["table"],
        checks=checker.by_kind["check"],
        opposed=checker.by_kind["opposed"],
        actions=checker.by_kind["action"],
        dice=checker.by_kind["die"],
        symbol_declarations=tuple(d for d in definitions if isinstance(d, n.Symbols)),
        bindings=checker.bindings,
        types=checker.types,
        warnings=tuple(checker.diagnostics),
        changes=tuple(changes),
        base=base,
    )


class Checker(
    SheetChecks,
    DefinitionChecks,
    TableChecks,
    StatementChecks,
    EffectChecks,
    ExpressionChecks,
    FunctionChecks,
    ItemChecks,
    DiceChecks,
    SymbolChecks,
    CharacterChecks,
    ChoiceChecks,
    WholeChecks,
    LookalikeChecks,
    PoolChecks,
):
    """Every static check of a rulebook; `run()` fills `diagnostics`, `bindings`, `types`."""

    def __init__(self, definitions: list):
        self.definitions = definitions
        self.diagnostics: list[Diagnostic] = []
        self.bindings: dict[int, Binding] = {}
        self.types: dict[int, t.Type] = {}
        self.globals: dict[str, object] = {}
        self.fields: dict[str, object] = {}
        self.groups: dict[str, n.Group] = {}
        self.derived: dict[str, n.Derived] = {}
        self.ensures: list[n.Ensure] = []
        self.symbols: dict = {}  # the declared symbols, in order: name → Span
        self.open_skills: n.OpenSkills | None = None
        self.by_kind: dict[str, dict] = {
            k: {}
            for k in ("roll", "ladder", "formula", "table", "check", "opposed", "action", "die")
        }
        self.used: set[str] = set()
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

    # ─── the whole rulebook ─────────────────────────────────────────────────

    def run(self) -> None:
        self.collect()
        for item in self.fields.values():
            self.sheet_item(item)
        for group in self.groups.values():
            self.group(group)
        for derived in self.derived.values():
            self.in_definition(derived.name, lambda d=derived: self.expr(d.expr, Scope()))
        for ensure in self.ensures:
            self.want(ensure.condition, Scope(), t.BOOL, tr("an `ensure` condition"))
        for definition in self.definitions:
            if not isinstance(definition, n.Sheet | n.Symbols):
                self.in_definition(definition.name, lambda d=definition: self.definition(d))
        if not self.check_cycles():
            self.check_nesting()
        self.check_unused()
        self.check_lookalikes()
        self.diagnostics.sort(
            key=lambda d: (d.span.source.name, d.span.start) if d.span else ("", 0)
        )

    def in_definition(self, name: str, check) -> None:
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

    def collect(self) -> None:
        """Every top-level name, once: sheet fields and definitions share one namespace."""
        for definition in self.definitions:
            items = definition.items if isinstance(definition, n.Sheet) else (definition,)
            for item in items:
                if isinstance(item, n.OpenSkills):
                    if self.open_skills is not None:
                        self.error(tr("the open skill list is declared twice"), item.span)
                    self.open_skills = item
                    continue
                if isinstance(item, n.Ensure):
                    self.ensures.append(item)
                    continue
                if isinstance(item, n.Symbols):
                    self.collect_symbols(item)
                    continue
                name = item.name
                if name in FUNCTIONS:
                    self.error(
                        tr("`{name}` is a built-in function; choose another name", name=name),
                        item.span,
                    )
                    continue
                if name in self.globals:
                    first = self.globals[name]
                    self.error(
                        tr("`{name}` is defined twice", name=name),
                        item.span,
                        tr("the first definition is at {location}", location=first.span.location()),
                    )
                    continue
                self.globals[name] = item
                if isinstance(item, n.Group):
                    self.groups[name] = item
                elif isinstance(item, n.Derived):
                    self.derived[name] = item
                elif isinstance(
                    item,
                    n.RollDef
                    | n.Ladder
                    | n.Formula
                    | n.Table
                    | n.Check
                    | n.Opposed
                    | n.Action
                    | n.DieDef,
                ):
                    self.by_kind[n.kind_of(item)][name] = item
                else:
                    self.fields[name] = item
