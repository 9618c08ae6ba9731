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


READ_LATER = """
check simple(m: int = 0) "S" {
  roll d10 + m >= 6
}
action later() {
  let a = d6
  let c = simple(a - 3)
  let hits = 0
  if c.success and a >= 3 {
    set hits to hits + 1
  }
  if c.success {
    set hits to hits + 2
  }
  result { r: hits * 10 + a }
}
"""


def brute_later() -> dict:
    """`later`'s r for every a and d10: c.success is d10 + a - 3 >= 6."""
    found: dict = {}
    for a, d10 in product(range(1, 7), range(1, 11)):
        success = d10 + a - 3 >= 6
        hits = (1 if success and a >= 3 else 0) + (2 if success else 0)
        r = hits * 10 + a
        found[r] = found.get(r, Fraction(0)) + Fraction(1, 60)
    return found


def splits_of(monkeypatch, text: str, action: str) -> tuple:
    """(the answer for `r`, [(a condition's text, whether consumed let it split)])."""
    import interpreter.odds.explore as explore

    seen: list = []

    def watched(explorer, compiled, node, index, live_out):
        found = consumed.consumed(explorer, compiled, node, index, live_out)
        if node is not None:
            seen.append((node.branches[index][0].span.text, found is not None))
        return found

    monkeypatch.setattr(explore, "consumed", watched)
    engine = Engine(dsl.load_text(text, "later.rules"))
    answer = engine.odds(action, engine.sheet({}), {}, "r", trials=50)
    return answer, seen


def test_a_condition_whose_names_are_read_later_is_not_split(monkeypatch):
    """`if c.success and a >= 3` reads `a` and `c`, both read again after it (the next
    `if`, the result): it is run once per value it needs, each world keeping the value
    it ran with; only the last `if c.success`, whose `c` nothing reads after it, is split
    by its odds (the "names read later" guard of odds.consumed)."""
    answer, seen = splits_of(monkeypatch, READ_LATER, "later")
    assert answer.exact
    assert dict(answer.probabilities) == brute_later()
    assert ("c.success and a >= 3", False) in seen
    assert ("c.success", True) in seen


def test_the_guard_leaves_a_condition_read_once_split(monkeypatch):
    """`act`'s conditions read `c` and `d` there alone: split, guard or no guard."""
    answer, seen = splits_of(monkeypatch, CHECKS, "act")
    assert answer.exact and dict(answer.probabilities) == brute()
    assert seen and all(split for _, split in seen)
