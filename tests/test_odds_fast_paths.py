"""Each remaining fast path of the odds engine has a case only it answers exactly within
a small budget, so that switching it off fails here (issue 24). The switch is the
fast path's entry point, replaced by what the general mechanism does without it."""

from __future__ import annotations

from fractions import Fraction

import dsl
import interpreter.odds.compute as compute
from interpreter import Engine

#: `if flag` decided by the argument: without the settled view, a, b and c stay read
#: until the `if` (8,000 worlds times t's six); with it, nothing reads them
SETTLED = """
action act(flag: bool = no) {
  let a = d20
  let b = d20
  let c = d20
  let t = d6 + 0
  if flag {
    set t to a + b + c
  }
  result { t: t }
}
"""
#: work units: some four times what the settled view needs (about 100)
SMALL = 400


def settled_odds():
    engine = Engine(dsl.load_text(SETTLED, "settled.rules"))
    return engine.odds("act", engine.sheet({}), {}, "t", budget=SMALL, trials=50)


def test_the_ifs_the_arguments_settle_answer_within_a_small_budget(monkeypatch):
    odds = settled_odds()
    assert odds.exact and odds.probabilities == {v: Fraction(1, 6) for v in range(1, 7)}
    # switched off: the body as compiled, every `if` tested in every world
    monkeypatch.setattr(compute, "settled_body", lambda _c, compiled, _x, _a: compiled.body)
    assert not settled_odds().exact
