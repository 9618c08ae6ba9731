"""Dice expressions on their own (`rulebook roll 4d6kh3`): compiled once by text, rolled."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from dsl import plain_dice
from dsl.errors import TOO_DEEP, Source, Span
from dsl.messages import tr
from interpreter.dice import DiceSource, Die, SeededDice
from interpreter.errors import EvaluationError, LimitExceeded
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.roll_steps import faces_text
from interpreter.runtime import Context, Roller

if TYPE_CHECKING:  # (imported when first compiled: `rulebook roll` starts without it)
    from dsl.rulebook import Rulebook
from interpreter.values import Range, Record, is_number, show


@attrs.frozen
class RollResult:
    """A dice expression's total, every face drawn in order, and each term's faces."""

    expression: str
    total: object
    dice: tuple
    origin: str
    terms: tuple  # of (start, end, PoolRoll): where each term sits in the text

    @property
    def detail(self) -> str:
        """`4d6kh3 [6, 5, 3, ~~1~~] = 14`: each term with its faces, then the total."""
        text, pieces, last = self.expression, [], 0
        for start, end, pool in sorted(self.terms, key=lambda term: term[0]):
            if start < last:  # the same term rolled again (cannot happen in one expression)
                continue
            pieces.append(text[last:end])
            pieces.append(" " + faces_text(pool))
            last = end
        pieces.append(text[last:])
        return f"{''.join(pieces)} = {show(self.total)}"


class ExpressionCache:
    """Compiled dice expressions by text, so that rolling one again costs no parsing."""

    def __init__(self, size: int = 512):
        self.size = size
        self.cache: dict = {}
        self.warnings: dict = {}  # the checker's warnings, by text (a spelling read otherwise)
        self.empty: Rulebook | None = None  # the empty rulebook the compiler stands on, made once

    def compile(self, text: str):
        found = self.cache.get(text)
        if found is not None:
            return found
        # the whole front end and the compiler, imported when an expression needs them
        # (plain dice never do: `roll`)
        from dsl.build import parse_expression
        from dsl.check import Checker, Scope, check_definitions
        from dsl.errors import RulebookInvalid
        from interpreter.compile import Compiler
        from interpreter.compile.costs import charged

        node = parse_expression(text)
        if self.empty is None:
            self.empty = check_definitions(None, [], "<expression>")
        checker = Checker([])
        checker.expr(node, Scope())
        if any(d.severity == "error" for d in checker.diagnostics):
            raise RulebookInvalid(checker.diagnostics)
        # The expression's names and types are all the compiler reads of a rulebook's
        # bindings and types: given to it, over the empty rulebook (no copy of it made).
        compiler = Compiler(self.empty)
        compiler.bindings, compiler.types = checker.bindings, checker.types
        # counted as a block is: what it always evaluates, when it runs (its branches,
        # as they are taken)
        found = (node, charged(compiler.expr(node), compiler.cost(node), node.span))
        if len(self.cache) >= self.size:
            oldest = next(iter(self.cache))
            del self.cache[oldest]
            self.warnings.pop(oldest, None)
        self.cache[text] = found
        self.warnings[text] = tuple(d for d in checker.diagnostics if d.severity == "warning")
        return found


#: compiled dice expressions, by their text (shared by rolls and odds)
EXPRESSIONS = ExpressionCache()


class TermRecorder(Roller):
    """A roller that also notes where in the text each term it rolls was written."""

    __slots__ = ("terms",)

    def __init__(self, source: DiceSource, limits: Limits):
        super().__init__(source, limits)
        self.terms: list = []

    def pool(self, die, count, steps, span, label):
        result = super().pool(die, count, steps, span, label)
        self.terms.append((span.start, span.end, result))
        return result

    def face(self, die, span):
        return self.pool(die, 1, (), span, span.text).total


def roll(
    expression: str, dice: DiceSource | None = None, limits: Limits = DEFAULT_LIMITS
) -> RollResult:
    """Roll a dice expression such as `4d6kh3 + 2`; raise a RulebookError if it is bad."""
    if limits is DEFAULT_LIMITS:
        terms = plain_dice.read(expression)
        if terms is not None:
            return roll_plain(expression, terms, dice if dice is not None else SeededDice())
    try:
        node, value = compile_expression(expression)
        source = dice if dice is not None else SeededDice()
        roller = TermRecorder(source, limits)
        total = value(Context(roller, limits))
    except RecursionError:
        raise LimitExceeded(TOO_DEEP) from None
    if not (is_number(total) or total is None or isinstance(total, bool | tuple | Record | Range)):
        raise EvaluationError(
            tr("the expression gives {total}, not a number, a list or a record", total=total),
            node.span,
        )
    source.finish()
    return RollResult(expression, total, tuple(roller.drawn), source.origin, tuple(roller.terms))


def roll_plain(expression: str, terms: tuple, source: DiceSource) -> RollResult:
    """A plain dice expression (`dsl.plain_dice.read`'s terms) rolled as the compiled
    expression rolls it: each term in order through the same roller, the same dice, the
    same result (tests/test_plain_dice.py compares them), without the parser, the
    checker or the compiler. Within the default limits: its dice are at most
    MAX_TERMS * 999, its faces 9999."""
    roller = TermRecorder(source, DEFAULT_LIMITS)
    text = Source("<expression>", expression)
    total = 0
    for sign, start, end, value in terms:
        if type(value) is not int:
            count, sides, mode, k, at = value
            span = Span(text, start, end)
            steps: tuple = ()
            if mode is not None:
                steps = (("keep", mode, 1 if k is None else k, Span(text, at, end)),)
            value = roller.pool(Die.of(sides), count or 1, steps, span, span.text).total
        total += sign * value
    source.finish()
    return RollResult(expression, total, tuple(roller.drawn), source.origin, tuple(roller.terms))


def compile_expression(text: str) -> tuple:
    """(node, closure) for a dice expression: parsed, checked and compiled once per text."""
    return EXPRESSIONS.compile(text)


def expression_warnings(text: str) -> tuple:
    """The checker's warnings about a dice expression: a modifier that changes nothing, a
    spelling another dice roller reads otherwise (`10d10>=6` counts dice in Roll20).
    Plain dice have none (`dsl.plain_dice`)."""
    if plain_dice.read(text) is not None:
        return ()
    EXPRESSIONS.compile(text)
    return EXPRESSIONS.warnings.get(text, ())
