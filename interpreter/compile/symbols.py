"""Compiling pools of symbol dice (`2dAbility + 1dDifficulty`): rolled through ctx.roller."""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.compile.arithmetic import as_whole
from interpreter.errors import EvaluationError
from interpreter.symbols import SymbolDie, symbols_step

NUMBER_OF_DICE = tr("the number of dice")


class SymbolTerms:
    """How the Compiler turns `2dBoost` into a closure rolling it (part of the Compiler)."""

    def symbol_die(self, name: str) -> SymbolDie:
        """The die a `die` definition declares, made once."""
        key = ("die", name)
        die = self.compiled.get(key)
        if die is None:
            die = self.compiled[key] = SymbolDie.of(self.book.dice[name], self.book.symbols)
        return die

    def ex_symboldice(self, node: n.SymbolDice):
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
            record, names = ctx.roller.symbols(die, how_many, span)
            if names is not None and ctx.trace is not None and not ctx.quiet:
                if ctx.trace.wants():
                    shown = label if literal else f"{label} = {how_many}d{die.label}"
                    origin = ctx.roller.source.origin
                    ctx.trace.append(symbols_step(shown, names, record, span, ctx.depth, origin))
            return record

        return roll
