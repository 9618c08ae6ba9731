"""A `set` of a local name run once per kind of world alike (interpreter.odds.alike), as a
`let` is: worlds that differ in their sheet (`gain a + b to Oro`) but not in what the value
reads (`u.puntos`) make its outcomes once, each world taking them. Answered within a small
budget only with it, and equal to every way the dice fall (issue 24: Arcana Mundi's
`set tributo to t.tributo` after a basic roll failed)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import dsl
import interpreter.odds.alike as alike
import interpreter.odds.mixing as mixing
import interpreter.odds.straight as straight
from dsl import nodes as n
from interpreter import Engine

SET = """
sheet {
  counter Oro
}
check tirada(n: int) "T" {
  roll 2d6 + n >= 8
  puntos = if success then margin else 0
}
action act() {
  let a = d6
  let b = d6
  gain a + b to Oro
  let n = d3
  let t = tirada(n)
  let p = 0
  if t.success {
    note "ok"
  } else {
    let u = tirada(n)
    set p to u.puntos
    if p > 0 {
      gain p to Oro
    }
  }
  result { p: p, oro: Oro }
}
"""
#: work units: exact from about 1,000 with the set run once per kind, 1,500 without
SMALL = 1_200


def set_odds():
    engine = Engine(dsl.load_text(SET, "set.rules"))
    return engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50)


def brute() -> dict:
    counts: Counter = Counter()
    two = list(product(range(1, 7), repeat=2))
    for a, b, n_, (t1, t2), (u1, u2) in product(range(1, 7), range(1, 7), range(1, 4), two, two):
        p = 0
        if t1 + t2 + n_ < 8:
            total = u1 + u2 + n_
            p = total - 8 if total >= 8 else 0
        counts[(p, a + b + max(p, 0))] += 1
    whole = 6 * 6 * 3 * 36 * 36
    return {k: Fraction(v, whole) for k, v in counts.items()}


def test_a_set_runs_once_per_kind_of_world_alike():
    odds = set_odds()
    assert odds.exact
    joint = brute()
    if not hasattr(odds, "fields"):  # (the whole joint, within its share of the budget)
        got = {(r.get("p"), r.get("oro")): p for r, p in odds.probabilities.items()}
        assert got == joint
        return
    for i, field in enumerate(("p", "oro")):  # (answered field by field: ByField)
        expected: Counter = Counter()
        for outcome, p in joint.items():
            expected[outcome[i]] += p
        assert dict(odds.fields[field].probabilities) == dict(expected)


def others_off(monkeypatch) -> None:
    """The mechanisms that answer this case within the budget too, the set's aside: the
    `if p > 0` after it tested and run once per kind of world alike (interpreter.odds.alike
    SWITCH), the action run whole (interpreter.odds.straight), mixed worlds
    (interpreter.odds.mixing: 1,150 units with or without the set run once per kind)."""
    monkeypatch.setattr(alike.SWITCH, "statements", False)
    monkeypatch.setattr(alike.SWITCH, "tests", False)
    monkeypatch.setattr(straight.SWITCH, "whole", False)
    monkeypatch.setattr(mixing.SWITCH, "mixed", False)


def test_without_it_the_budget_is_not_enough(monkeypatch):
    let_only = alike.alike_let

    def no_set(explorer, statements, index, *rest):
        if isinstance(statements[index].node, n.Set):
            return None
        return let_only(explorer, statements, index, *rest)

    monkeypatch.setattr(alike, "alike_let", no_set)
    others_off(monkeypatch)
    assert not set_odds().exact


def test_without_sheet_free_keys_the_budget_is_not_enough(monkeypatch):
    """The worlds differ in Oro, which `u.puntos` does not read: keyed by the sheet too,
    no two are alike."""
    monkeypatch.setattr(alike, "_reads_sheet", lambda explorer, statement: True)
    others_off(monkeypatch)  # (as above)
    assert not set_odds().exact
