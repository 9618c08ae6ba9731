"""A statement's ends taken by the worlds alike and a call's by the worlds making it, merged
as they are made, and each value of a merge looked into once (issue 24):
interpreter.odds.spreading and mixing.Seen, each answering as without it and making
less, so that switching it off fails here."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import dsl
import interpreter.odds.called as called
import interpreter.odds.mixing as mixing
import interpreter.odds.spreading as spreading
from interpreter import Engine
from interpreter.odds.distribution import Dist
from interpreter.odds.worlds import World
from interpreter.values import Record

#: `if n > 1 { do bonus(n) }` over the worlds of `big` (2) and `n` (3), run once per `n`:
#: the 4 worlds of n = 2 or 3 each taking their run's 10 ends, 40, that merge on (`big`,
#: `Oro`) into 22 (Oro from 3 to 13)
SPREAD = """rulebook "Spread" { language "en" }
sheet {
  counter Oro
}
action bonus(k: int) {
  let r = d10
  gain k + r to Oro
  result { r: r }
}
action act() {
  let a = d20
  let big = a > 10
  let n = d3
  if n > 1 {
    do bonus(n)
  }
  result { oro: Oro, big: big }
}
"""


def spread_odds(monkeypatch) -> tuple:
    """(the odds of SPREAD's act, the worlds spreading made)."""
    made = _counting_worlds(monkeypatch, spreading)
    monkeypatch.setattr(called.SWITCH, "merged", False)  # (a call's worlds: made in called)
    engine = Engine(dsl.load_text(SPREAD, "spread.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, trials=50)
    return odds, made[0]


def _counting_worlds(monkeypatch, *modules) -> list:
    """[how many worlds `modules` have made since], counted as they make them."""
    made = [0]
    world = spreading.World

    def counted(*args):
        made[0] += 1
        return world(*args)

    for module in modules:
        monkeypatch.setattr(module, "World", counted)
    return made


def test_the_ends_taken_by_worlds_alike_are_merged_as_they_are_made(monkeypatch):
    odds, made = spread_odds(monkeypatch)
    expected: Counter = Counter()
    for a, n, r in product(range(1, 21), range(1, 4), range(1, 11)):
        expected[(n + r if n > 1 else 0, a > 10)] += Fraction(1, 600)
    got = {(record["oro"], record["big"]): p for record, p in odds.probabilities.items()}
    assert odds.exact and got == dict(expected)
    assert made == 22  # (only the merged worlds made)
    monkeypatch.setattr(spreading.SWITCH, "merged", False)  # every world made, then merged
    again, made = spread_odds(monkeypatch)
    assert again.probabilities == odds.probabilities and made >= 40


#: `do bonus(n)` in each of the 6 worlds of `big` and `n`, its 10 ends each, 60 worlds,
#: that merge on (`big`, `Oro`) into 2 × 13
CALLED = SPREAD.replace("  if n > 1 {\n    do bonus(n)\n  }\n", "  do bonus(n)\n")


def called_odds(monkeypatch) -> tuple:
    """(the odds of CALLED's act, the worlds made where a call's worlds are made)."""
    made = _counting_worlds(monkeypatch, spreading, called)
    engine = Engine(dsl.load_text(CALLED, "called.rules"))
    return engine.odds("act", engine.sheet({}), {}, trials=50), made[0]


def test_the_worlds_a_call_makes_are_merged_as_they_are_made(monkeypatch):
    odds, made = called_odds(monkeypatch)
    expected: Counter = Counter()
    for a, n, r in product(range(1, 21), range(1, 4), range(1, 11)):
        expected[(n + r, a > 10)] += Fraction(1, 600)
    got = {(record["oro"], record["big"]): p for record, p in odds.probabilities.items()}
    assert odds.exact and got == dict(expected)
    assert made < 2 * 13 + 6  # (the merged worlds, and the few made before the call)
    monkeypatch.setattr(called.SWITCH, "merged", False)  # every world made, then merged
    again, made = called_odds(monkeypatch)
    assert again.probabilities == odds.probabilities and made >= 60


def mixed_worlds(monkeypatch) -> tuple:
    """Twelve worlds sharing one record of four fields of which two are read, one a
    distribution: (the worlds mixed, as (a, weight), the records cut to the fields read)."""
    cuts = [0]
    cut = mixing.cut_record

    def counted(record, fields):
        cuts[0] += 1
        return cut(record, fields)

    monkeypatch.setattr(mixing, "cut_record", counted)
    shared = Record({"x": 1, "y": 2, "z": 3, "d": Dist({1: 1, 2: 1}, 2)}, "r")
    worlds = [World({"a": a % 2, "r": shared}, None, (1, 12)) for a in range(12)]
    out = mixing.mixed(worlds, ("a", "r"), ((1, ("d", "x")),), lambda state: None)
    return [(w.env["a"], Fraction(*w.weight)) for w in out], cuts[0]


def test_each_value_of_a_merge_is_looked_into_once(monkeypatch):
    out, cuts = mixed_worlds(monkeypatch)
    assert cuts == 1  # (one record, shared by the twelve worlds)
    assert out == [(0, Fraction(1, 2)), (1, Fraction(1, 2))]
    monkeypatch.setattr(mixing.SWITCH, "seen", False)  # looked into in each world
    assert mixed_worlds(monkeypatch) == (out, 12)
