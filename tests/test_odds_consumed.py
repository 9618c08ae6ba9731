"""An `if` whose condition's names nothing reads after it splits its worlds by the
condition's odds, without running it again per value (interpreter.odds.consumed):
answered within a small budget only so, and equal to every way the dice fall (issue 24:
a check's `if c.success` in a loop's body, as the count of successes written at once)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import dsl
import interpreter.odds.consumed as consumed
from interpreter import Engine

CHECKS = """
check simple(m: int = 0) "S" {
  roll d10 + m >= 6
}
action act() {
  let a = d12
  let b = d12
  let hits = a * b
  let c = simple(1)
  if c.success {
    set hits to hits + a
  } else {
    set hits to hits - b
  }
  let d = simple(2)
  if d.success and a > 3 {
    set hits to hits * 2
  }
  result { r: hits >= 60 }
}
"""
#: work units: exact in about 1,490 with the worlds split by the odds, 1,780 without
SMALL = 1_600
C, D = Fraction(6, 10), Fraction(7, 10)  # (d10 + 1 >= 6, d10 + 2 >= 6)


def odds(action: str, budget: int = 100_000):
    engine = Engine(dsl.load_text(CHECKS, "checks.rules"))
    return engine.odds(action, engine.sheet({}), {}, "r", budget=budget, trials=50)


def brute() -> dict:
    found = {True: Fraction(0), False: Fraction(0)}
    for a, b, c, d in product(range(1, 13), range(1, 13), (True, False), (True, False)):
        hits = a * b + (a if c else -b)
        if d and a > 3:
            hits *= 2
        found[hits >= 60] += Fraction(1, 144) * (C if c else 1 - C) * (D if d else 1 - D)
    return found


def test_a_condition_read_last_splits_the_worlds_by_its_odds():
    answer = odds("act", SMALL)
    assert answer.exact
    assert dict(answer.probabilities) == brute()


def test_without_it_the_budget_is_not_enough(monkeypatch):
    monkeypatch.setattr(consumed.SWITCH, "split", False)
    assert not odds("act", SMALL).exact
