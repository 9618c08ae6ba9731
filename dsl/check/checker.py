"""The Checker: every static check, run on every load; the checked Rulebook it gives."""

from __future__ import annotations

import functools

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
from dsl.check.host import CheckerHost
from dsl.check.items import ItemChecks
from dsl.check.lookalikes import LookalikeChecks
from dsl.check.pools import PoolChecks
from dsl.check.scope import Scope
from dsl.check.sheet import SheetChecks
from dsl.check.statements import StatementChecks
from dsl.check.symbols import SymbolChecks
from dsl.check.tables import TableChecks
from dsl.check.whole import WholeChecks
from dsl.errors import TOO_DEEP, CheckError, RulebookInvalid
from dsl.functions import FUNCTIONS
from dsl.messages import tr
from dsl.rulebook import Rulebook


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
    CheckerHost,
):
    """Every static check of a rulebook; `run()` fills `diagnostics`, `bindings`, `types`."""

    # ─── the whole rulebook ─────────────────────────────────────────────────

    def run(self) -> None:
        self.collect()
        for item in self.fields.values():
            self.sheet_item(item)
        for group in self.groups.values():
            self.group(group)
        for derived in self.derived.values():
            self.in_definition(derived.name, functools.partial(self.expr, derived.expr, Scope()))
        for ensure in self.ensures:
            self.want(ensure.condition, Scope(), t.BOOL, tr("an `ensure` condition"))
        for definition in self.definitions:
            if not isinstance(definition, n.Sheet | n.Symbols):
                self.in_definition(definition.name, functools.partial(self.definition, definition))
        if not self.check_cycles():
            self.check_nesting()
        self.check_unused()
        self.check_unread_lets()
        self.check_lookalikes()
        self.diagnostics.sort(
            key=lambda d: (d.span.source.name, d.span.start) if d.span else ("", 0)
        )

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
