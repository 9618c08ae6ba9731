"""A row of `set`s that call no action run as one statement in each world, the worlds
merged once after the last (interpreter.odds.fused): answered within a small budget only
with it, and equal to every way the dice fall (issue 24: a die's symbols added one by
one cost as the dice rolled at once)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import dsl
import interpreter.odds.fused as fused
from interpreter import Engine
from interpreter.odds.worlds import Failure

ROW = """
sheet {
  counter Oro
}
action act() {
  let a = d12
  let b = d12
  let s = 0
  let t = 0
  let u = 0
  set s to a * b
  set t to a * a - b
  note "idle between them"
  set u to b * b - a
  gain u + 12 to Oro
  result { r: s + t + Oro >= 100 }
}
"""
#: work units: exact in about 290 with the row run as one, about 580 without
SMALL = 420


def row_odds():
    engine = Engine(dsl.load_text(ROW, "row.rules"))
    return engine.odds("act", engine.sheet({}), {}, "r", budget=SMALL, trials=50)


def brute() -> dict:
    counts: Counter = Counter()
    for a, b in product(range(1, 13), repeat=2):
        counts[a * b + a * a - b + b * b - a + 12 >= 100] += 1
    return {k: Fraction(v, 144) for k, v in counts.items()}


def test_a_row_of_sets_runs_as_one():
    odds = row_odds()
    assert odds.exact
    assert dict(odds.probabilities) == brute()


def test_without_it_the_budget_is_not_enough(monkeypatch):
    monkeypatch.setattr(fused.SWITCH, "fused", False)
    assert not row_odds().exact


FAILS = """
action act() {
  let a = d6
  let b = d6
  let s = 0
  let t = 0
  set s to a - b
  set t to 12 / s
  set s to s + t
  result { r: s }
}
"""


def test_a_run_that_fails_in_the_row_fails_as_one_by_one(monkeypatch):
    """`12 / s` where a = b stops the run at the second `set`: the same answer, failures
    included, with the row run as one or one by one."""
    answers = []
    for on in (True, False):
        monkeypatch.setattr(fused.SWITCH, "fused", on)
        engine = Engine(dsl.load_text(FAILS, "fails.rules"))
        odds = engine.odds("act", engine.sheet({}), {}, "r")
        assert odds.exact
        answers.append(dict(odds.probabilities))
    assert answers[0] == answers[1]
    assert any(isinstance(outcome, Failure) for outcome in answers[0])


#: a die's faces added to two counters pass by pass, the row of `set`s ending the pass
PASSES = """
action act(n: int) {
  let s = 0
  let t = 0
  repeat n times {
    let f = d6
    set s to s + f
    set t to t + (if f = 6 then 1 else 0)
  }
  result { r: s + 10 * t }
}
"""


def test_a_row_ending_a_pass_leaves_its_worlds_to_the_pass_to_key(monkeypatch):
    """The pass's outcomes are keyed by odds.carried (Passes.ends): the row that ends
    the pass merges none of them first (fused.SWITCH.unmerged), the same answer. (A
    pass that rolls one value, then nothing, runs once per value, odds.one_roll: off
    here, so that the pass's statements are explored.)"""
    from interpreter.odds import one_roll
    from interpreter.odds.explore import Explorer

    monkeypatch.setattr(one_roll.SWITCH, "rolled", False)

    merges = []
    merge = Explorer.merge

    def counted(self, worlds, live):
        merges.append(len(worlds) if type(worlds) is list else 0)
        return merge(self, worlds, live)

    monkeypatch.setattr(Explorer, "merge", counted)

    def answer() -> dict:
        engine = Engine(dsl.load_text(PASSES, "passes.rules"))
        odds = engine.odds("act", engine.sheet({}), {"n": 2}, "r")
        assert odds.exact
        return dict(odds.probabilities)

    counts: Counter = Counter()
    for a, b in product(range(1, 7), repeat=2):
        counts[a + b + 10 * ((a == 6) + (b == 6))] += 1
    expected = {k: Fraction(v, 36) for k, v in counts.items()}
    assert answer() == expected
    unmerged = sum(merges)
    merges.clear()
    monkeypatch.setattr(fused.SWITCH, "unmerged", False)  # (the row's six worlds merged)
    assert answer() == expected
    assert sum(merges) > unmerged
