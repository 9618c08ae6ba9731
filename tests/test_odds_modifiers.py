"""Modifiers only added to a check's roll: `roll 3d20 + a + b` called with a and b from
two distributions (a sacrificium's and a caerimonia's points added to a basic roll, say).

Worlds differ in a and b, but the check's records read neither: only the roll's total
does, so the roll moved by a + b is one distribution per place, charged once
(Dist.lift through order.moved, not once per pair of a and b), and the records are
remembered by what the target and the fields read (odds.roller.record_env, not by every
argument). Each answers the case within a small budget only with the other; equal to
the values counted by hand. Likewise two such totals compared (`golpe > parada`, an
attack against a defence, each moved by its own world's modifier): counted once per two
shapes and the gap between them (order.compared_already), charged once.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil

import pytest

import dsl
import interpreter.odds.distribution as distribution
import interpreter.odds.mixing as mixing
import interpreter.odds.roller as roller
from interpreter import Engine
from interpreter.odds.roller import hashable

MODIFIERS = """rulebook "Modifiers" { language "en" }
check tirada(a: int = 0, b: int = 0) "T" {
  roll 3d20 + a + b >= 40
  puntos = ceil(abs(margin) / 5)
}
action act() {
  let x = d20
  let y = d20
  let c = tirada(x, y)
  result { puntos: c.puntos, exito: c.success }
}
"""
#: the budget: exact from about 800 units with both, from 1,400 (every argument in the
#: records' key) or 2,000 (each pair's roll made and charged anew) without one
SMALL = 1_000


def modifier_odds():
    engine = Engine(dsl.load_text(MODIFIERS, "modifiers.rules"))
    return engine.odds("act", engine.sheet({}), {}, "puntos", budget=SMALL, trials=50)


def by_hand() -> dict:
    sums: dict = {}
    for i in range(1, 21):
        for j in range(1, 21):
            for k in range(1, 21):
                sums[i + j + k] = sums.get(i + j + k, 0) + 1
    ways: dict = {}
    for x in range(1, 21):
        for y in range(1, 21):
            for total, w in sums.items():
                points = ceil(abs(total + x + y - 40) / 5)
                ways[points] = ways.get(points, 0) + w
    return {points: Fraction(w, 20**5) for points, w in ways.items()}


def test_modifiers_added_to_a_roll_answer_within_a_small_budget():
    odds = modifier_odds()
    assert odds.exact
    assert dict(odds.probabilities) == by_hand()


@pytest.mark.parametrize("switch", ["moved", "record key"])
def test_either_switched_off_the_budget_is_not_enough(monkeypatch, switch):
    if switch == "moved":  # the roll moved by each pair made and charged anew
        monkeypatch.setattr(distribution, "_moved", lambda *_args: None)
    else:  # the records remembered by every argument
        monkeypatch.setattr(
            roller,
            "record_env",
            lambda _check, env: tuple(sorted((k, hashable(v)) for k, v in env.items())),
        )
    # (worlds mixed, interpreter.odds.mixing, answer this case within the budget without
    # the records' key: switched off with it)
    monkeypatch.setattr(mixing.SWITCH, "mixed", False)
    assert not modifier_odds().exact


DUEL = """rulebook "Duel" { language "en" }
check ataque(a: int = 0) "A" {
  roll 3d20 + a
}
check defensa(b: int = 0) "D" {
  roll 3d20 + b
}
action duel() {
  let x = d20
  let y = d20
  let golpe = 0
  let parada = 0
  if x > 2 {
    let at = ataque(x)
    let de = defensa(y)
    set golpe to at.total
    set parada to de.total
  }
  let toca = golpe > parada
  result { toca: toca }
}
"""
#: exact from about 2,300 units with the comparison found again, 4,200 without
DUEL_WORK = 3_000


def duel_odds():
    engine = Engine(dsl.load_text(DUEL, "duel.rules"))
    return engine.odds("duel", engine.sheet({}), {}, "toca", budget=DUEL_WORK, trials=50)


def test_two_moved_totals_compared_answer_within_a_small_budget(monkeypatch):
    sums: dict = {}
    for i in range(1, 21):
        for j in range(1, 21):
            for k in range(1, 21):
                sums[i + j + k] = sums.get(i + j + k, 0) + 1
    gaps: dict = {}  # the attack's 3d20 less the defence's
    for s1, w1 in sums.items():
        for s2, w2 in sums.items():
            gaps[s1 - s2] = gaps.get(s1 - s2, 0) + w1 * w2
    hits = sum(w for x in range(3, 21) for y in range(1, 21) for g, w in gaps.items() if g > y - x)
    odds = duel_odds()
    assert odds.exact
    assert odds.probabilities[True] == Fraction(hits, 20**2 * 20**6)
    monkeypatch.setattr(distribution, "compared_already", lambda *_args: None)
    # (the worlds of each x and y mixed, interpreter.odds.mixing, need no comparison
    # found again: switched off with it)
    monkeypatch.setattr(mixing.SWITCH, "mixed", False)
    assert not duel_odds().exact
