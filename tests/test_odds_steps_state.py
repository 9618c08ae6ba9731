"""The steps a run has counted are part of each world (issue 24): a called action whose
static step bound passes the limit, but whose runs all stop far below it, is explored
statement by statement (its worlds merged), not run whole in every world; one whose runs
do pass the limit still fails where the run does (tests/test_odds_idle_failures.py)."""

from __future__ import annotations

import dsl
from interpreter import Engine, Limits, SeededDice
from interpreter.odds.steps import StepBounds

LIMITS = Limits(steps_per_run=1_000)
#: a sum of seven dice (whole: 6**7 runs; merged statement by statement: a few hundred
#: worlds), then a roll made again until it is not a 1, at most 100 times (statically,
#: past the limit; in every run that is not too unlikely to follow, far below it)
TEXT = """
action otro() {
  let t = d6 + 0
  set t to t + d6
  set t to t + d6
  set t to t + d6
  set t to t + d6
  set t to t + d6
  set t to t + d6
  let loc = d10
  repeat 100 times until loc > 1 {
    set loc to d10
  }
  result { t: t, loc: loc }
}
action act() {
  let a = otro()
  result { t: a.t, loc: a.loc }
}
"""
#: work units: far below what running the call whole in its world takes (6**7 runs)
BUDGET = 20_000


def test_a_call_past_its_static_step_bound_is_explored_step_by_step():
    engine = Engine(dsl.load_text(TEXT, "steps.rules"), LIMITS)
    sheet = engine.sheet({})
    bound = StepBounds(engine.compiler, LIMITS).most(engine.rulebook.actions["otro"])
    assert bound > LIMITS.steps_per_run  # the case of issue 24: statically, it may pass
    assert engine.run("act", sheet, {}, SeededDice(3)).steps < LIMITS.steps_per_run // 4
    loc = engine.odds("act", sheet, {}, "loc", budget=BUDGET)
    assert loc.exact
    assert set(loc.probabilities) == set(range(2, 11))
    assert len(set(loc.probabilities.values())) == 1  # each face but 1 alike
    assert sum(loc.probabilities.values()) + loc.omitted == 1
    t = engine.odds("act", sheet, {}, "t", budget=BUDGET)
    assert t.exact and set(t.probabilities) == set(range(7, 43))
    # 7d6: one way to 7, seven to 8, 28 to 9 (each less the loop's tail left out)
    ways = t.probabilities[7]
    assert abs(t.probabilities[8] / ways - 7) < 1e-9 and abs(t.probabilities[9] / ways - 28) < 1e-9
    assert abs(t.probabilities[7] * 6**7 - 1) <= t.omitted * 6**7
