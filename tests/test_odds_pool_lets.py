"""A `let` of a pool makes a world per value of its answers at once (OddsRoller.bind_pool).

The explorer branches on the answers to the questions the rules ask of a pool. A `let`
holding one raised the distribution of those answers, and was run again once per value
to bind it; now the distribution of the values it binds (`PoolQuestions.pool_values`)
makes the worlds at once, as a plain `let` does (`OddsRoller.bind`): one run in place of
one plus one per value, in every world, and a roll read only through sums
(interpreter.odds.summed) takes its values from the same distribution. Each case below
is answered within a budget only that meets, and the same as it is switched off.
"""

from __future__ import annotations

from pathlib import Path

import dsl
import interpreter.odds.compound as compound
from interpreter import Engine
from interpreter.odds.marginals import ByField
from interpreter.odds.roller import OddsRoller

BOOK = """
action hits(n: int) {
  let a = d8
  let r = (n)d6
  let h = count(r, 6) + a
  result { hits: h, ones: count(r, 1), mixed: count(r, 2..5) }
}
"""
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "year_zero.rules"

#: 6 dice: the whole result within 625 units with the worlds made at once, 1,291 with the
#: `let` run again per value (measured when bind_pool came)
WHOLE = 900
#: Year Zero's 8 base dice pushed: 557 units, 1,799 with each value's run (the same)
PUSHED = 1_000


def switch_off(monkeypatch) -> None:
    """The `let` of a pool run again once per value (as before bind_pool)."""
    monkeypatch.setattr(
        OddsRoller, "bind_pool", lambda self, ctx, name, values: self.resolve(values)
    )


def hits(budget: int, field=None):
    engine = Engine(dsl.load_text(BOOK, "pool.rules"))
    return engine.odds("hits", engine.sheet({}), {"n": 6}, field, budget=budget, trials=20)


def pushed(budget: int):
    engine = Engine(dsl.load(EXAMPLE))
    params = {"base": 8, "push": True}
    return engine.odds("roll_dice", engine.sheet({}), params, budget=budget, trials=20)


def answered(odds) -> bool:
    return odds.exact and not isinstance(odds, ByField)


def test_a_pool_let_makes_its_worlds_at_once(monkeypatch):
    fast = hits(WHOLE)
    assert answered(fast) and sum(fast.probabilities.values()) == 1
    switch_off(monkeypatch)
    assert not answered(hits(WHOLE))
    slow = hits(10 * WHOLE)
    assert answered(slow)
    assert slow.probabilities == fast.probabilities and slow.omitted == fast.omitted


def test_a_field_of_a_pool_let_alike(monkeypatch):
    fast = hits(WHOLE // 2, "hits")
    assert fast.exact
    switch_off(monkeypatch)
    assert not hits(WHOLE // 2, "hits").exact
    assert hits(10 * WHOLE, "hits").probabilities == fast.probabilities


def test_a_pushed_pool_takes_its_values_at_once(monkeypatch):
    monkeypatch.setattr(compound, "COMPOUND", False)  # (its dice counted apart: compound)
    fast = pushed(PUSHED)
    assert answered(fast)
    switch_off(monkeypatch)
    assert not answered(pushed(PUSHED))
    slow = pushed(10 * PUSHED)
    assert slow.probabilities == fast.probabilities and slow.omitted == fast.omitted
