"""Compiling pools of symbol dice (`2dAbility + 1dDifficulty`): rolled through ctx.roller."""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compile.arithmetic import as_whole
from interpreter.compile.codegen import SWITCH
from interpreter.compile.host import CompilerHost
from interpreter.compile.symbol_forms import BUILT_IN, built_in_cuts, find_forms, sums_read_once
from interpreter.errors import EvaluationError
from interpreter.runtime import Unknown, lift
from interpreter.symbols import Forms, SymbolDie, symbols_parts
from interpreter.trace import Step, new_step

NUMBER_OF_DICE = tr("the number of dice")


class SymbolTerms(CompilerHost):
    """How the Compiler turns `2dBoost` into a closure rolling it (part of the Compiler)."""

    def symbol_die(self, name: str) -> SymbolDie:
        """The die a `die` definition declares, made once."""
        key = ("die", name)
        die = self.compiled.get(key)
        if die is None:
            die = self.compiled[key] = SymbolDie.of(self.book.dice[name], self.book.symbols)
        return die

    def symbol_forms(self) -> tuple[dict, dict]:
        """The sums of symbols each definition reads of its pools (symbol_forms)."""
        terms: dict = {}
        sums: dict = {}
        book = self.book
        if not book.dice:
            return terms, sums
        for table in (book.checks, book.opposed, book.actions, book.formulas, book.rolls):
            for definition in table.values():
                found = find_forms(definition, self.bindings, self.types, book.symbols)
                terms.update(found[0])
                sums.update(found[1])
        return terms, sums

    def form_cuts(self, name: str, field) -> dict:
        """The forms a check's pools are counted by when only `field` is asked of it
        (symbol_forms.built_in_cuts; {} when that field needs them all)."""
        if field not in BUILT_IN or name not in self.book.checks:
            return {}
        check = self.book.checks[name]
        if field in {own for own, _ in check.fields}:
            return {}
        key = ("form cuts", name)
        found = self.compiled.get(key)
        if found is None:
            found = self.compiled[key] = built_in_cuts(check, self.symbol_terms, self.symbol_sums)
        return found

    def note_read_once(self, check: n.Check) -> None:
        """Note the `let`s of a check's pools each of whose sums is read once, and what
        their values read (symbol_forms.sums_read_once): `once_forms`."""
        if self.symbol_sums:
            self.once_forms.update(sums_read_once(check, self.symbol_terms, self.symbol_sums))

    def symbol_sum(self, node, original):
        """A sum of symbols read of a pool: from its form, where the odds counted forms."""
        name, k, constant = self.symbol_sums[id(node)]

        def from_form(forms):
            return forms.values[k] + constant if type(forms) is Forms else None

        def read(ctx):
            value = ctx.env.get(name)
            if type(value) is Forms:
                return value.values[k] + constant
            if isinstance(value, Unknown):  # (a form the same in every outcome: its value)
                found = lift(from_form, value)
                return found.certain() if isinstance(found, Unknown) else found
            return original(ctx)

        return read

    def ex_symboldice(self, node: n.SymbolDice):
        projection = self.symbol_terms.get(id(node))
        die = self.symbol_die(node.die)
        count, span = self.expr(node.count), node.span
        literal = isinstance(node.count, n.Literal)
        label = node.label or span.text

        def roll(ctx):
            how_many = count(ctx)
            if type(how_many) is not int:
                how_many = as_whole(ctx, how_many, span, NUMBER_OF_DICE)
            if how_many < 0:
                raise EvaluationError(tr("cannot roll {how_many} dice", how_many=how_many), span)
            record, names = ctx.roller.symbols(die, how_many, span, projection)
            trace = ctx.trace
            if names is not None and trace is not None and not ctx.quiet and trace.wants():
                shown = label if literal else f"{label} = {how_many}d{die.label}"
                origin = ctx.roller.source.origin
                bounded = trace.length if trace.most is not None else None  # (`Trace.append`)
                step = new_step(Step)
                made = (shown, names, record, span, ctx.depth, origin, bounded)
                if SWITCH.lazy_steps:  # (its words written when read: `Step._m`)
                    step._m = (symbols_parts, *made)
                else:
                    step._r = symbols_parts(*made)
                list.append(trace, step)
            return record

        return roll
