"""`a / b` of two whole numbers in a run (`arithmetic.WHOLE_DIVISION`): divided at once, a
whole number when b divides a, else their Fraction; the same values, bounds and errors as
through a Fraction made then divided."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, SeededDice
from interpreter.compile import arithmetic
from interpreter.limits import Limits

BOOK = """
rulebook "Halves" {{
  system "division"
  language "en"
}}

action halve(a: int = 0, b: int = 1) "Halve" {{
  let q = a / b
  result {{ q: q, up: ceil((a - 23) / 3), mixed: (a / b) / 2 }}
}}
# {mark}
"""

PAIRS = [(a, b) for a in (-7, -6, 0, 1, 5, 6, 24, 30, 10**17) for b in (-4, -3, -1, 1, 2, 3, 7)]


def _answers(mark: str, limits: Limits | None = None) -> list:
    """Each pair's result (its types too) or error, of a rulebook compiled anew."""
    book = dsl.load_text(BOOK.format(mark=mark), "halves.rules")
    engine = Engine(book, limits) if limits is not None else Engine(book)
    sheet = engine.sheet({})
    out = []
    for a, b in [*PAIRS, (5, 0), (10**17 + 1, 2)]:
        try:
            result = engine.run("halve", sheet, {"a": a, "b": b}, SeededDice(1)).result
            out.append([(k, type(v).__name__, v) for k, v in result.items()])
        except RulebookError as error:
            out.append((type(error).__name__, str(error)))
    return out


@pytest.mark.parametrize("limits", [None, Limits(number_digits=6)])
def test_whole_numbers_divided_at_once_give_what_a_fraction_divided_gives(monkeypatch, limits):
    fast = _answers(f"fast{limits is None}", limits)
    monkeypatch.setattr(arithmetic, "WHOLE_DIVISION", False)
    assert _answers(f"slow{limits is None}", limits) == fast
    assert any(kind == "int" for row in fast if type(row) is list for _, kind, _ in row)
    assert any(kind == "Fraction" for row in fast if type(row) is list for _, kind, _ in row)


def test_whole_numbers_are_divided_with_no_fraction_made_of_one(monkeypatch):
    """Fails with `arithmetic.WHOLE_DIVISION` off: `Fraction(a)` is then made, then divided."""
    divided = []
    original = Fraction.__truediv__
    monkeypatch.setattr(Fraction, "__truediv__", lambda *a: divided.append(a) or original(*a))
    book = dsl.load_text(BOOK.format(mark="counted"), "halves_counted.rules")
    engine = Engine(book)
    result = engine.run("halve", engine.sheet({}), {"a": 6, "b": 3}, SeededDice(1)).result
    assert dict(result) == {"q": 2, "up": -5, "mixed": 1}
    assert divided == []
