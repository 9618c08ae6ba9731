"""Each remaining fast path of the odds engine has a case only it answers exactly within
a small budget, so that switching it off fails here (issue 24). The switch is the
fast path's entry point, replaced by what the general mechanism does without it."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
import interpreter.odds.compute as compute
import interpreter.odds.deferred as deferred
import interpreter.odds.explore as explore
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


#: `m.total` (two d100) only compared with `s` (three d20): kept whole for the one
#: statement reading it (deferred) and branched on the intervals of it the comparisons
#: tell apart (narrowing), not on its 200 values in each of s's 58 worlds
NARROWED = """
check tirada(x: int = 0) "T" {
  roll d100 + d100 + x
}
action act() {
  let s = d20 + d20 + d20 + 0
  let m = tirada(0)
  let primero = if m.total > s then "a" else if m.total < s then "b" else "c"
  result { primero: primero }
}
"""
#: work units: twice what the narrowed value needs (about 1,600; some 12,800 without)
NARROWED_WORK = 3_200


def narrowed_odds():
    engine = Engine(dsl.load_text(NARROWED, "narrowed.rules"))
    return engine.odds("act", engine.sheet({}), {}, "primero", budget=NARROWED_WORK, trials=50)


@pytest.mark.parametrize("switch", ["narrowing", "deferral"])
def test_a_value_only_compared_answers_within_a_small_budget(monkeypatch, switch):
    odds = narrowed_odds()
    assert odds.exact and set(odds.probabilities) == {"a", "b", "c"}
    # m.total > s: each of s's values against the two d100's (1 … 200) counted by hand
    s_ways: dict = {}
    for i in range(1, 21):
        for j in range(1, 21):
            for k in range(1, 21):
                s_ways[i + j + k] = s_ways.get(i + j + k, 0) + 1
    m_above = {v: sum(min(t - 1, 201 - t) for t in range(v + 1, 201)) for v in s_ways}
    above = sum(w * m_above[v] for v, w in s_ways.items())
    assert odds.probabilities["a"] == Fraction(above, 20**3 * 100**2)
    if switch == "narrowing":  # every value of m.total branched on
        monkeypatch.setattr(deferred.Narrowing, "of", lambda *_args: None)
    else:  # (narrowing's ground) m made a world per value by its `let`
        monkeypatch.setattr(explore, "deferrable", lambda *_args: False)
    assert not narrowed_odds().exact
