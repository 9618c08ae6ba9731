"""Checks of symbol dice: the `symbols` declared, each `die`'s faces, and pools of them."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.errors import did_you_mean
from dsl.messages import tr

#: most symbols a rulebook may declare (each is a field of every symbol pool)
MAX_SYMBOLS = 32
#: most faces a die of symbols may have
MAX_SYMBOL_FACES = 100
NUMBER_OF_DICE = tr("the number of dice")


class SymbolChecks(CheckerHost):
    """The symbol dice's checks (part of the Checker)."""

    def collect_symbols(self, node: n.Symbols) -> None:
        for name, span in node.names:
            if name in self.symbols:
                self.error(
                    tr("the symbol `{name}` is declared twice", name=name),
                    span,
                    tr("the first is at {location}", location=self.symbols[name].location()),
                )
            elif len(self.symbols) >= MAX_SYMBOLS:
                self.error(tr("at most {most} symbols (limit MAX_SYMBOLS)", most=MAX_SYMBOLS), span)
            else:
                self.symbols[name] = span

    def def_diedef(self, node: n.DieDef) -> None:
        if not self.symbols:
            self.error(
                tr("a die of symbols needs the symbols declared first"),
                node.span,
                tr("as in: symbols success, advantage, failure, threat"),
            )
            return
        if len(node.faces) > MAX_SYMBOL_FACES:
            self.error(
                tr(
                    "a die of symbols has at most {most} faces, not {count}",
                    most=MAX_SYMBOL_FACES,
                    count=len(node.faces),
                ),
                node.span,
            )
        for face in node.faces:
            for symbol, _count, span in face.symbols:
                if symbol not in self.symbols:
                    self.error(
                        tr("`{symbol}` is not a declared symbol", symbol=symbol),
                        span,
                        did_you_mean(symbol, list(self.symbols))
                        or tr("the symbols: {names}", names=", ".join(self.symbols)),
                    )

    def ex_symboldice(self, node: n.SymbolDice, scope: Scope) -> t.Type:
        self.want(node.count, scope, t.NUMBER, NUMBER_OF_DICE)
        self.whole(node.count, NUMBER_OF_DICE)
        count = node.count
        if isinstance(count, n.Literal) and type(count.value) is int and count.value < 0:
            self.error(tr("cannot roll {how_many} dice", how_many=count.value), node.span)
        die = self.by_kind["die"].get(node.die)
        if die is None:
            dice = list(self.by_kind["die"])
            self.error(
                tr("there is no die named `{name}`", name=node.die),
                node.span,
                did_you_mean(node.die, dice)
                or (
                    tr("the dice: {names}", names=", ".join(dice))
                    if dice
                    else tr("no die is declared: declare one with `die`")
                ),
            )
            return t.ANY
        self.use(node.die)
        self.note_call(node.die)
        return self.symbol_pool_type()

    def symbol_pool_type(self) -> t.Type:
        return t.symbol_pool(list(self.symbols))

    def symbol_sum(self, left: t.Type, right: t.Type) -> t.Type | None:
        """`2dAbility + 1dDifficulty`: one pool of both, when both are pools of symbols (or
        one is, and the other's type is not known: an error said where it is made)."""
        kinds = {left.kind, right.kind}
        if "symbols" in kinds and kinds <= {"symbols", "any"}:
            return left if left.kind == "symbols" else right
        return None
