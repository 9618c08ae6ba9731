"""The Compiler: a checked rulebook's definitions compiled once into closures.

Every expression becomes a function of one argument, the run's `Context`
(interpreter.runtime). The checker has already resolved every name (`rulebook.bindings`)
and typed every node (`rulebook.types`), so nothing is looked up by name while running.

The Compiler is assembled from one part per construct, each in its own module:
expressions, dice terms, tables, statements; checks, opposed checks, actions and roll
procedures compile into the objects of their own modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dsl import nodes as n
from dsl import types as t
from dsl.bounded import Bounded
from dsl.rulebook import Rulebook, names_a_field
from interpreter.compile.actions import CompiledAction, too_deep
from interpreter.compile.builtin_functions import BUILTINS
from interpreter.compile.characters import Characters, on_sheet_of
from interpreter.compile.checks import CompiledCheck, CompiledOpposed
from interpreter.compile.choose import Choices
from interpreter.compile.codegen import SWITCH, safely
from interpreter.compile.codegen.emit_steps import generated_formula
from interpreter.compile.codegen.emit_values import records_nothing
from interpreter.compile.codegen.traced import generated_traced_formula
from interpreter.compile.costs import Costs, charged
from interpreter.compile.dice import DiceTerms
from interpreter.compile.effects import LastingEffects
from interpreter.compile.expressions import Expressions
from interpreter.compile.host import CompilerHost
from interpreter.compile.items import Items
from interpreter.compile.pools import PoolValues, RollGroups
from interpreter.compile.procedures import Procedure
from interpreter.compile.statements import Statements
from interpreter.compile.symbols import SymbolTerms
from interpreter.compile.tables import Tables
from interpreter.compiled import Shape, Statement
from interpreter.runtime import count_past_bound, known
from interpreter.state import Elsewhere, place_text


class Compiler(
    Costs,
    Expressions,
    Items,
    DiceTerms,
    PoolValues,
    RollGroups,
    SymbolTerms,
    Tables,
    Statements,
    LastingEffects,
    Characters,
    Choices,
    CompilerHost,
):
    """Compiles a checked rulebook's definitions into closures, each once."""

    @classmethod
    def of(cls, rulebook: Rulebook) -> Compiler:
        """The compiler of a rulebook, made once and kept while it is among the rulebooks
        compiled last (`COMPILED_TEXT` characters of their texts)."""
        return _COMPILERS.of(rulebook, cls)

    # ─── expressions, by node class ─────────────────────────────────────────

    def expr(self, node):
        """A closure computing the node's value (reading the sheet through any ref)."""
        handler = _EXPRESSIONS[type(node)]
        if self.symbol_sums and id(node) in self.symbol_sums:  # a sum the odds count
            return self.symbol_sum(node, handler(self, node))
        return handler(self, node)

    def statement(self, node) -> Statement:
        """One statement compiled (interpreter.compiled): its run, its node, its own steps
        (interpreter.compile.costs) and its shape, what the odds engine may do with it."""
        made = _STATEMENTS[type(node)](self, node)
        if type(made) is Statement:
            return made
        return Statement(made, node, self.statement_cost(node))

    def shaped(self, node, run, shape: Shape) -> Statement:
        """A statement compiled with a shape the odds engine reads (interpreter.compiled)."""
        return Statement(run, node, self.statement_cost(node), shape)

    def ref(self, node):
        """A closure computing the place a ref-typed node names (a field, or (family, key))."""
        if isinstance(node, n.Literal):
            value = node.value
            return lambda ctx: value
        if isinstance(node, n.Name):
            binding = self.bindings[id(node)]
            if binding.kind == "field":
                name = binding.name
                return lambda ctx: name
            if binding.kind == "group":
                members = self.book.groups[binding.name].members
                return lambda ctx: members
            name = node.name
            return lambda ctx: ctx.env[name]
        if isinstance(node, n.Index) and self.bindings[id(node)].kind == "family":
            family = self.bindings[id(node)].name
            key_fn = (
                self.ref(node.keys[0])
                if self.type_of(node.keys[0]).kind == "ref"
                else self.expr(node.keys[0])
            )
            return lambda ctx: (family, known(ctx, key_fn(ctx)))
        if isinstance(node, n.Field):
            binding = self.bindings.get(id(node))
            if binding is not None and binding.kind == "character_field":
                return self.character_place(node)
            subject = self.expr(node.subject)
            name = node.name
            return lambda ctx: subject(ctx).get(name)
        if isinstance(node, n.IfExpr):
            condition, then, otherwise = (
                self.expr(node.condition),
                charged(self.ref(node.then), self.cost(node.then), node.then.span),
                charged(self.ref(node.otherwise), self.cost(node.otherwise), node.otherwise.span),
            )
            return lambda ctx: then(ctx) if condition(ctx) else otherwise(ctx)
        if (
            isinstance(node, n.Call)
            and self.bindings[id(node)].kind == "builtin"
            and (named := BUILTINS[node.function].place) is not None
        ):  # `default(atributo_rival, atributo)`: a place the call names
            return named(self, node)
        return self.expr(node)

    def value_or_ref(self, node, wanted: t.Type):
        return self.ref(node) if wanted.kind == "ref" else self.expr(node)

    def naming(self, node):
        """The name of the field a value names (`atributo` → "Fuerza"), else its value.
        Used where a name is what a person means: texts, table keys, `in`."""
        type_ = self.type_of(node)
        if type_.kind == "ref" and names_a_field(node, self.bindings):
            place = self.ref(node)
            return lambda ctx: place_text(p) if (p := place(ctx)) is not None else None
        if type_.kind == "list" and type_.item is not None and type_.item.kind == "ref":
            return self.ref(node)  # a group: its members' names
        return self.expr(node)

    def derived(self, name: str):
        def build():
            expr = self.book.derived[name].expr
            body, steps, span = self.expr(expr), self.cost(expr), expr.span

            def derived(ctx):
                ctx.count(steps, span)
                saved, ctx.env = ctx.env, {}
                try:
                    return body(ctx)
                finally:
                    ctx.env = saved

            return derived

        return self.memo(("derived", name), build)

    # ─── definitions ────────────────────────────────────────────────────────

    def formula(self, name: str):
        def build():
            formula = self.book.formulas[name]
            names = tuple(p.name for p in formula.params)
            body = self.expr(formula.body)
            steps = self.cost(formula.body)  # the body's, counted once per call

            runs = 0  # untraced real calls through the closure (codegen: SWITCH.after)
            quiet = None  # whether it records no step (a traced call may run it generated)

            def call(ctx, args, span=None):
                nonlocal runs, quiet
                trace = ctx.trace
                if (
                    not ctx.roller.lifts
                    and SWITCH.generated
                    and (trace is None or SWITCH.traced_formulas)
                ):
                    if runs < SWITCH.after:
                        runs += 1
                    else:
                        if trace is not None and quiet is None:
                            quiet = records_nothing(self, name)
                        # (traced: the same function, if it records no step; else its own)
                        if trace is None or quiet:
                            fast = self.generated_formula(name)
                        else:
                            fast = self.generated_traced_formula(name)
                        if fast:
                            return fast[0](ctx, args, span)
                counted = ctx.steps + steps
                ctx.steps = counted
                if counted > ctx.step_bound:
                    count_past_bound(ctx, span or formula.span)
                if ctx.calls >= ctx.limits.call_depth:  # formulas count, as checks do
                    raise too_deep(ctx, span)
                if ctx.roller.lifts:
                    args = tuple(known(ctx, a) for a in args)
                saved, ctx.env = ctx.env, dict(zip(names, args))
                ctx.calls += 1
                try:
                    return body(ctx)
                finally:
                    ctx.env = saved
                    ctx.calls -= 1

            return call

        return self.memo(("formula", name), build)

    def generated_formula(self, name: str):
        """(the function an untraced real call of a formula runs, its source), made once
        (codegen); False where none can be made."""

        def build():
            formula = self.book.formulas[name]
            made = safely(generated_formula, self, formula, self.cost(formula.body), too_deep)
            return made if made is not None else False

        return self.memo(("generated formula", name), build)

    def generated_traced_formula(self, name: str):
        """(the function a traced real call of a formula runs, its source: its steps
        recorded as its closures record them), made once (codegen.traced); False where
        none can be made."""

        def build():
            formula, cost = self.book.formulas[name], self.cost(self.book.formulas[name].body)
            made = safely(generated_traced_formula, self, formula, cost, too_deep)
            return made if made is not None else False

        return self.memo(("generated traced formula", name), build)

    def check(self, name: str):
        return self.memo(("check", name), lambda: CompiledCheck(self, self.book.checks[name]))

    def opposed(self, name: str):
        return self.memo(("opposed", name), lambda: CompiledOpposed(self, self.book.opposed[name]))

    def action(self, name: str):
        return self.memo(("action", name), lambda: CompiledAction(self, self.book.actions[name]))

    def roll_definition(self, name: str):
        return self.memo(("roll", name), lambda: Procedure(self, self.book.rolls[name]))

    def callable_of(self, binding):
        """A called definition as one kind of closure: f(ctx, args, span) → its value."""
        name = binding.name
        if binding.kind == "formula":
            body = self.formula(name)
            return body
        if binding.kind == "roll":
            procedure = self.roll_definition(name)
            return lambda ctx, args, span: procedure.call(ctx, args).total
        kinds = {"check": self.check, "opposed": self.opposed, "action": self.action}
        return kinds[binding.kind](name)

    def resource_bound(self, ctx, place, which: str):
        if type(place) is Elsewhere:  # computed on that character's sheet
            return on_sheet_of(
                ctx, place.character, lambda ctx: self.resource_bound(ctx, place.place, which)
            )
        name, key = (place, None) if type(place) is str else place
        memo = ("bound", name, which)
        bound = self.compiled.get(memo)  # (`memo`, without a closure made at every call)
        if bound is None:
            resource = self.book.fields[name]
            bound = self.memo(memo, lambda: self._bound(resource, which))
        return bound(ctx, key)

    def _bound(self, resource: n.Resource, which: str):
        expr = resource.maximum if which == "max" else resource.minimum
        if expr is None:
            return lambda ctx, key: 0
        body, steps, span = self.expr(expr), self.cost(expr), expr.span
        var = resource.key_var

        def bound(ctx, key):
            ctx.count(steps, span)
            saved, ctx.env = ctx.env, ({var: key} if var else {})
            try:
                return body(ctx)
            finally:
                ctx.env = saved

        return bound


#: characters of rulebook text whose compilers are kept (each holds the closures it made)
COMPILED_TEXT = 1_000_000
_COMPILERS = Bounded(COMPILED_TEXT, count=64)

#: each expression node's handler, by the node's class
_EXPRESSIONS: dict[type, Callable[..., Any]] = {
    n.Literal: Compiler.ex_literal,
    n.Text: Compiler.ex_text,
    n.Name: Compiler.ex_name,
    n.Field: Compiler.ex_field,
    n.Index: Compiler.ex_index,
    n.Call: Compiler.ex_call,
    n.CharacterCall: Compiler.ex_charactercall,
    n.Unary: Compiler.ex_unary,
    n.Binary: Compiler.ex_binary,
    n.IfExpr: Compiler.ex_ifexpr,
    n.ListLiteral: Compiler.ex_listliteral,
    n.Dice: Compiler.ex_dice,
    n.Range: Compiler.range_value,
    n.RangeOf: Compiler.range_of,
    n.RollGroup: Compiler.ex_rollgroup,
    n.SymbolDice: Compiler.ex_symboldice,
}
#: each statement node's handler, by the node's class
_STATEMENTS: dict[type, Callable[..., Any]] = {
    n.Let: Compiler.st_let,
    n.Set: Compiler.st_set,
    n.Change: Compiler.st_change,
    n.Require: Compiler.st_require,
    n.If: Compiler.st_if,
    n.Match: Compiler.st_match,
    n.ForEach: Compiler.st_foreach,
    n.Repeat: Compiler.st_repeat,
    n.Note: Compiler.st_note,
    n.Do: Compiler.st_do,
    n.Add: Compiler.st_add,
    n.Choose: Compiler.st_choose,
    n.Effect: Compiler.st_effect,
    n.PassTime: Compiler.st_passtime,
    n.EndEffect: Compiler.st_endeffect,
}
