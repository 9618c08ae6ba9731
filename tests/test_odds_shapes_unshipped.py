"""Each shape the odds engine still recognises fires on rules nobody shipped (issue 24).

For each remaining fast path (`deferred` and its narrowing, `riders`, `decide`, `linear`,
`summed`), two or three small rulebooks written here, in words no shipped game uses: the
fast path's entry point, watched, must have taken the case (not fallen back to the
general mechanism), and the answer must equal every way the dice can fall, run through
the real engine. tests/test_odds_fast_paths.py, test_odds_linear.py and
test_odds_summed.py hold the small-budget cases that fail when each is switched off;
`marginals.both_sides` is seen on a rulebook of the tests' own in test_odds_joint_tries.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle import assert_counted_as_run, optimal_play

import dsl
import interpreter.odds.alike as alike
import interpreter.odds.best_play as best_play
import interpreter.odds.carried as carried
import interpreter.odds.compound as compound
import interpreter.odds.convolved as convolved
import interpreter.odds.deferred as deferred
import interpreter.odds.explore as explore
import interpreter.odds.passes as passes
from interpreter import Engine


def watched(monkeypatch, module, name: str, fired=bool) -> list:
    """Replace `module.name` by the same function noting each answer `fired` holds for."""
    found = getattr(module, name)
    seen: list = []

    def spy(*args, **named):
        answer = found(*args, **named)
        if fired(answer):
            seen.append(answer)
        return answer

    monkeypatch.setattr(module, name, spy)
    return seen


#: a value read by the next statement alone, that statement reading it otherwise than
#: by comparing (deferred, not narrowed); worlds differ before it in what it does not read
DEFERRED = {
    "bonus to a check": """
check golpe(extra: int) "Golpe" {
  roll d4 + extra >= 5
}
action act() {
  let w = d3
  let extra = d2 + d2
  let g = golpe(extra)
  result { w: w, g: g.success }
}
""",
    "kept above zero": """
action act() {
  let w = d2
  let spread = d3 - d3
  let score = if spread > 0 then spread * 2 else 0
  result { w: w, score: score }
}
""",
}


@pytest.mark.parametrize("name", sorted(DEFERRED))
def test_a_value_read_by_the_next_statement_alone_is_deferred(monkeypatch, name):
    seen = watched(monkeypatch, explore, "deferrable")
    assert_counted_as_run(DEFERRED[name], {})
    assert seen, "not deferred"


#: a value only compared by the next statement (with a known value, a literal, `=`)
NARROWED = {
    "ladder against another roll": """
action act() {
  let b = d6
  let a = d4 + d4
  let verdict = if a >= b + 2 then "big" else if a > b then "small" else "none"
  result { verdict: verdict }
}
""",
    "a check's total in bands": """
check busca(x: int = 0) "Busca" {
  roll d6 + d4 + x >= 6
}
action act() {
  let r = busca(1)
  let band = if r.total >= 9 then 2 else if r.total >= 6 then 1 else 0
  result { band: band }
}
""",
    "equal or not": """
action act() {
  let y = d3
  let x = d4 + d2
  let same = if x = y + 1 then "tie" else if x != 6 then "no" else "six"
  result { same: same }
}
""",
}


@pytest.mark.parametrize("name", sorted(NARROWED))
def test_a_value_only_compared_is_narrowed(monkeypatch, name):
    seen = watched(monkeypatch, deferred.Narrowing, "of", lambda found: found is not None)
    assert_counted_as_run(NARROWED[name], {})
    assert seen, "not narrowed"


#: a record's field read once past what still runs (the result), the rest of the record
#: read by the statements between
RIDING = {
    "a total past a loop": """
check olfato(x: int = 0) "Olfato" {
  roll d6 + d6 + x >= 8
}
action act() {
  let s = olfato(0)
  let k = 0
  repeat 3 times {
    if s.success or d2 = 2 { set k to k + 1 }
  }
  result { total: s.total, k: k }
}
""",
    "a margin past an if": """
check salto(x: int = 0) "Salto" {
  roll d4 + d4 + x >= 5
}
action act() {
  let j = salto(0)
  let herida = 0
  if not j.success { set herida to d3 }
  result { margen: j.margin, herida: herida }
}
""",
}


@pytest.mark.parametrize("name", sorted(RIDING))
def test_a_field_read_once_rides(monkeypatch, name):
    seen = watched(monkeypatch, passes, "rider_of", lambda found: found is not None)
    assert_counted_as_run(RIDING[name], {})
    assert seen, "no field rode"


#: counters given by one `let` each, only added to, read only as terms of one sum
COUNTERS = {
    "hits less misses": """
action act() {
  let hits = 0
  let misses = 0
  repeat 3 times {
    set hits to hits + (if d3 = 3 then 1 else 0)
    set misses to misses + (if d3 = 1 then 1 else 0)
  }
  result { net: hits - misses }
}
""",
    "gains and losses of one die": """
action act() {
  let plus = 0
  let loss = 0
  repeat 3 times {
    let f = d4
    set plus to plus + (if f = 4 then 2 else 0)
    set loss to loss + (if f = 1 then 1 else 0)
  }
  result { ok: plus - loss + 1 >= 2 }
}
""",
}


@pytest.mark.parametrize("name", sorted(COUNTERS))
def test_counters_read_in_one_sum_are_carried_as_it(monkeypatch, name):
    seen = watched(monkeypatch, carried, "projection", lambda found: found is not None)
    assert_counted_as_run(COUNTERS[name], {})
    assert seen, "the counters were not carried as their sum"


#: a roll the lets after it read only through sums of a part of the world and of it
SUMMED = {
    "plain dice": """
action act() {
  let a = d4
  let b = d4 + 0
  let s = a + b
  let d = a - b
  result { s: s, d: d }
}
""",
    "a pool redrawn": """
action act() {
  let hand = 3d4
  let again = (count(hand, 1))d4
  let fours = count(hand, 4) + count(again, 4)
  result { fours: fours }
}
""",
    "an if in the sum": """
action act() {
  let w = d3
  let r = d6 + 0
  let score = if w > 1 then w + r else r - 1
  result { score: score }
}
""",
}


@pytest.mark.parametrize("name", sorted(SUMMED))
def test_a_roll_read_only_through_sums_is_counted_by_adding(monkeypatch, name):
    monkeypatch.setattr(compound, "COMPOUND", False)  # (a pool redrawn: compound dice first)
    monkeypatch.setattr(convolved.SWITCH, "rolls", False)  # (plain dice: two rolls in a row)
    seen = watched(monkeypatch, alike, "summed_run", lambda found: found is not None)
    assert_counted_as_run(SUMMED[name], {})
    assert seen, "not counted by adding"


#: a choice of the action's own body, made once per situation over merged worlds
DECIDED = {
    "roll again or stand": """
action act() {
  let s = d4 + d4
  choose more "Again?" {
    option stand
    option again { set s to s + d4 }
  }
  result { ok: s >= 6 and s <= 9 }
}
""",
    "two choices in a row": """
action act() {
  let s = d3 + 0
  choose first "First?" {
    option low { set s to s + d2 }
    option high { set s to s + d4 }
  }
  choose second "Second?" {
    option keep
    option swap { set s to 7 - s }
  }
  result { ok: s = 4 }
}
""",
}


@pytest.mark.parametrize("name", sorted(DECIDED))
def test_the_best_play_is_decided_over_merged_worlds(monkeypatch, name):
    searched: list = []
    found = best_play.WorldSearch

    class Watched(found):
        def outcomes(self):
            answer = super().outcomes()
            searched.append(answer)
            return answer

    monkeypatch.setattr(best_play, "WorldSearch", Watched)
    engine = Engine(dsl.load_text(DECIDED[name], "decided.rules"))
    sheet = engine.sheet({})
    odds = engine.odds("act", sheet, {}, "ok", best="ok")
    assert searched, "not decided over merged worlds"

    def run(dice, choose):
        return engine.run("act", sheet, {}, dice, choices=choose)

    best = optimal_play(run, lambda outcome: int(outcome is not None and outcome.result["ok"]))
    assert odds.exact and odds.probabilities.get(True, Fraction(0)) == best
