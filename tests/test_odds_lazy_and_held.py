"""Two more fast paths, each with a case only it answers within a small budget (issue 24:
switching it off fails here), and a let's worlds charged to the budget as they are made.

- A value read once later stays a distribution past its `let` (interpreter.odds.roller:
  `Letting.once`), combined where it is read as a dice term written there would be.
- A block's statements held where the rest of the block only adds to some names
  (`Passes.held_run`): each statement run once per state of the rest, the counters mixed.
- A `let` run once per kind of world alike (interpreter.odds.alike) charges the worlds it
  makes as it makes them: past the budget it stops there, not after making millions.
"""

from __future__ import annotations

from fractions import Fraction

import dsl
import interpreter.odds.explore as explore
import interpreter.odds.passes as passes
import interpreter.odds.spreading as spreading
from interpreter import Engine
from interpreter.odds.roller import Letting

#: three sums of two d40, each read once, by the result: kept whole, combined there (79
#: values each); branched on, 79³ worlds
ONCE = """
action act() {
  let a = d40 + d40
  let b = d40 + d40
  let c = d40 + d40
  result { t: a + b - c }
}
"""
#: work units: twice what the values kept whole need (under 800; past 1,600 without)
ONCE_WORK = 1_600


def once_odds():
    engine = Engine(dsl.load_text(ONCE, "once.rules"))
    return engine.odds("act", engine.sheet({}), {}, "t", budget=ONCE_WORK, trials=20)


def _convolved(left: dict, right: dict, sign: int = 1) -> dict:
    out: dict = {}
    for x, p in left.items():
        for y, q in right.items():
            out[x + sign * y] = out.get(x + sign * y, 0) + p * q
    return out


def test_values_read_once_answer_within_a_small_budget(monkeypatch):
    odds = once_odds()
    die = {face: Fraction(1, 40) for face in range(1, 41)}
    pair = _convolved(die, die)
    assert odds.exact and odds.probabilities == _convolved(_convolved(pair, pair), pair, -1)
    # switched off: every `let` branched on, a world per value
    monkeypatch.setattr(
        explore,
        "Letting",
        lambda name, live, depth, _once, *rest: Letting(name, live, depth, False, *rest),
    )
    assert not once_odds().exact


#: 24 statements each adding to `hits`, in the worlds of `w` (20): held, each statement
#: runs once per value of `w`; else once per pair of `w` and `hits`
HELD = (
    "action act() {\n  let w = d20 + 0\n  let hits = 0\n"
    + "".join(f"  set hits to hits + (if d6 + {i % 3} > 4 then 1 else 0)\n" for i in range(24))
    + "  result { ok: hits >= w }\n}\n"
)
#: work units: twice what the held statements need (under 400; past 800 without)
HELD_WORK = 800


def held_odds():
    engine = Engine(dsl.load_text(HELD, "held.rules"))
    return engine.odds("act", engine.sheet({}), {}, "ok", budget=HELD_WORK, trials=20)


def test_statements_held_through_a_block_answer_within_a_small_budget(monkeypatch):
    odds = held_odds()
    hits = {0: Fraction(1)}  # statement i: a hit on d6 + i % 3 > 4
    for i in range(24):
        p = Fraction(2 + i % 3, 6)
        hits = _convolved(hits, {1: p, 0: 1 - p})
    ok = sum(q * Fraction(min(k, 20), 20) for k, q in hits.items())
    assert odds.exact and odds.probabilities[True] == ok
    # switched off: each statement in every world of w and hits
    monkeypatch.setattr(passes.Passes, "held_run", lambda *_args: None)
    assert not held_odds().exact


#: each sum read twice by the result: branched on; the third let makes 199³ worlds
PAIRED = """
action act() {
  let a = d100 + d100
  let b = d100 + d100
  let c = d100 + d100
  result { t: (a + b - c) * (a - b + c) }
}
"""


class Made(Exception):
    """More worlds made than the budget pays for."""


def test_a_lets_worlds_are_charged_as_they_are_made(monkeypatch):
    budget = 1_000
    most = (budget + 2) * spreading.ALIKE_WORLDS_PER_WORK + 200  # (and one world's ends past it)
    made = [0]
    world = spreading.World  # (the worlds a let run once for worlds alike makes)

    def counted(*args):
        made[0] += 1
        if made[0] > most:
            raise Made()
        return world(*args)

    monkeypatch.setattr(spreading, "World", counted)
    engine = Engine(dsl.load_text(PAIRED, "paired.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, "t", budget=budget, trials=5)
    assert not odds.exact and made[0] > budget  # (the let's worlds were being made)
