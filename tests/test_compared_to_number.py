"""`x = 2` with a whole number written on the right, compared without calling for the 2
(interpreter.compile.expressions.compared_to): the same answers, runs and odds, as any
`=` (its switch off), whatever the left side holds (a fraction, a roll's distribution)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle import assert_counted_as_run

import dsl
import interpreter.compile.expressions as expressions
from interpreter import Engine, ForcedDice

BOOK = """rulebook "Compared" { }
sheet { attribute A in 0..8 default 2 }
action act() "Act" {
  let r = 1d4
  let half = A / 4
  let s = 0
  if r = 2 { set s to s + 1 }
  if r != 3 { set s to s + 2 }
  if half = 2 { set s to s + 4 }
  result { s: s, same: A = 2, other: A != 2, roll: 1d6 = 2 }
}
"""


def _spied(monkeypatch) -> list:
    """The numbers of the comparisons compiled by compared_to."""
    made: list = []
    found = expressions.compared_to

    def spy(*args):
        made.append(args[2])
        return found(*args)

    monkeypatch.setattr(expressions, "compared_to", spy)
    return made


def _answers() -> tuple:
    engine = Engine(dsl.load_text(BOOK, "compared.rules"))  # (compiled anew)
    runs, odds = [], []
    for value in (2, 8, 3):
        sheet = engine.sheet({"A": value})
        for face in (1, 2, 3):
            runs.append(engine.run("act", sheet, {}, dice=ForcedDice([face, 2])).result)
        odds.append([engine.odds("act", sheet, {}, f).probabilities for f in ("s", "roll")])
    return runs, odds


def test_compared_to_a_number_written_on_the_right(monkeypatch):
    made = _spied(monkeypatch)
    answers = _answers()
    assert sorted(made) == [2, 2, 2, 2, 2, 3]  # (every `= 2`, `!= 2`, `!= 3`)
    monkeypatch.setattr(expressions, "COMPARED_TO_NUMBER", False)
    made.clear()
    assert _answers() == answers
    assert not made


def test_a_fraction_and_a_roll_compared_as_any_value():
    runs, odds = _answers()
    assert runs[0]["same"] is True and runs[3]["other"] is True  # (A = 2, then A = 8)
    assert [run["s"] for run in runs[3:6]] == [6, 7, 4]  # (8 / 4 = 2: its 4 added)
    assert odds[0][1] == {True: Fraction(1, 6), False: Fraction(5, 6)}


@pytest.mark.parametrize("value", [2, 8])
def test_agrees_with_every_roll(value):
    assert_counted_as_run(BOOK, {"A": value})
