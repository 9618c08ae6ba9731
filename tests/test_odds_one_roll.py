"""A pass that rolls one value, then nothing, run once per value (interpreter.odds.one_roll),
and a pass over a pool's dice run once per face: against every way the dice can fall,
and taken where it should be (switched off, the explorer's statements answer)."""

from __future__ import annotations

import pytest
from oracle import assert_counted_as_run

import dsl
import interpreter.odds.carried as carried
import interpreter.odds.one_roll as one_roll
import interpreter.odds.passes as passes
from interpreter import Engine

HEADER = """sheet {
  attribute A in 0..3
  counter B in 0..9 default 0
}

symbols hit, crit, miss

die Glyph { blank, hit, hit, 2 hit, crit, hit + miss }
"""

#: passes that roll one value (a symbol die, a plain die, a record's fields), then add
ROLLED = {
    "a symbol die's fields, added into counters read in one sum": """
action act() {
  let hits = 0
  let crits = 0
  let misses = 0
  repeat A + 1 times {
    let g = 1dGlyph
    set hits to hits + g.hit
    set crits to crits + g.crit
    set misses to misses + g.miss
  }
  result { ok: hits + crits - misses >= 2 }
}
""",
    "a plain die, tested, two counters read apart": """
action act() {
  let high = 0
  let total = 0
  repeat 3 times {
    let r = 1d6
    if r >= 5 { set high to high + 1 }
    set total to total + (r - A)
  }
  result { high: high, total: total }
}
""",
    "a let of the die, then a let of what it gives": """
action act() {
  let net = 0
  repeat 2 times {
    let r = 1d4 + A
    let k = if r > 3 then 2 else 0
    set net to net + (k - 1)
  }
  result { net: net }
}
""",
}

#: a pass that writes the sheet (each world its own copy of it)
ROLLED["a pass writing the sheet"] = """
action act() {
  let hits = 0
  repeat 2 times {
    let r = 1d4
    if r = 4 { set B to B + 1 }
    set hits to hits + r
  }
  result { hits: hits, b: B }
}
"""

#: passes this does not take whole: a second roll, a failure, a die held unrolled
OTHERS = {
    "a second roll in the pass": """
action act() {
  let net = 0
  repeat 2 times {
    let r = 1d4
    set net to net + r + 1d2
  }
  result { net: net }
}
""",
    "a pass that may fail": """
action act() {
  let net = 0
  repeat 2 times {
    let r = 1d6
    require r + A > 1 else "too low"
    set net to net + r
  }
  result { net: net }
}
""",
}

#: a pool's dice, each tested, the counters added to (no roll in the pass)
DRAWN = """
action act() {
  let hits = 0
  let slips = 0
  let p = (A + 1)d6
  for each d in p.dice {
    if d = 6 { set hits to hits + 2 }
    if d >= 4 { set hits to hits + 1 }
    if d = 1 { set slips to slips + 1 }
  }
  result { net: hits - slips, ok: hits > slips }
}
"""


#: the same, writing the sheet where a die shows 6
DRAWN_WRITES = DRAWN.replace(
    "if d = 6 { set hits to hits + 2 }", "if d = 6 { set hits to hits + 2  set B to B + 1 }"
).replace("ok: hits > slips", "ok: hits > slips, b: B")


def _answered(monkeypatch, name: str) -> list:
    """The passes `name` (one_roll_ends or still_ends) answered, as passes.py calls it."""
    found = getattr(passes, name)
    seen: list = []

    def spy(*args):
        answer = found(*args)
        if answer is not None:
            seen.append(len(answer))
        return answer

    monkeypatch.setattr(passes, name, spy)
    return seen


@pytest.mark.parametrize("name", sorted(ROLLED))
@pytest.mark.parametrize("value", [0, 2])
def test_a_pass_rolling_one_value_runs_once_per_value(monkeypatch, name, value):
    seen = _answered(monkeypatch, "one_roll_ends")
    assert_counted_as_run(HEADER + ROLLED[name], {"A": value})
    assert seen, "not run once per value"


@pytest.mark.parametrize("name", sorted(ROLLED))
def test_switched_off_the_explorer_answers_alike(monkeypatch, name):
    monkeypatch.setattr(one_roll.SWITCH, "rolled", False)
    seen = _answered(monkeypatch, "one_roll_ends")
    assert_counted_as_run(HEADER + ROLLED[name], {"A": 1})
    assert not seen


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_passes_that_roll_more_or_fail_are_explored(monkeypatch, name):
    seen = _answered(monkeypatch, "one_roll_ends")
    assert_counted_as_run(HEADER + OTHERS[name], {"A": 0})
    assert not seen, "taken whole, though it rolls again or fails"


@pytest.mark.parametrize("value", [0, 2])
@pytest.mark.parametrize("text", [DRAWN, DRAWN_WRITES])
def test_a_pass_over_a_pools_dice_runs_once_per_face(monkeypatch, value, text):
    monkeypatch.setattr(one_roll.SWITCH, "faces", False)  # (through its worlds)
    seen = _answered(monkeypatch, "still_ends")
    assert_counted_as_run(HEADER + text, {"A": value})
    assert seen and max(seen) == 6, "not run once per face"


def test_a_pass_over_a_pools_dice_switched_off(monkeypatch):
    monkeypatch.setattr(one_roll.SWITCH, "drawn", False)
    seen = _answered(monkeypatch, "still_ends")
    faces = _faced(monkeypatch)
    assert_counted_as_run(HEADER + DRAWN, {"A": 1})
    assert not seen and not any(type(answer) is list for answer in faces)


def _faced(monkeypatch) -> list:
    """What face_outcomes answered, as passes.py calls it."""
    found = passes.face_outcomes
    seen: list = []

    def spy(*args):
        answer = found(*args)
        seen.append(answer)
        return answer

    monkeypatch.setattr(passes, "face_outcomes", spy)
    return seen


#: passes over a pool's dice that face_outcomes does not answer whole, and what it
#: answers: a failure (its worlds explored), a counter that is no whole number (False:
#: the loop pass by pass)
FACED_OTHERS = {
    "a pass that may fail": DRAWN.replace(
        "if d = 1 {", 'require d + A > 2 else "too low"\n    if d = 1 {'
    ),
    "a counter not a whole number": DRAWN.replace("hits + 1 }", "hits + d / 4 }"),
}
FACED_ANSWERS = {"a pass that may fail": one_roll.EXPLORE, "a counter not a whole number": False}


@pytest.mark.parametrize("value", [0, 2])
def test_a_pass_writing_no_sheet_runs_once_per_face_making_no_world(monkeypatch, value):
    seen = _answered(monkeypatch, "still_ends")
    faces = _faced(monkeypatch)
    assert_counted_as_run(HEADER + DRAWN, {"A": value})
    # (a d6 whose faces add (0, 0), (1, 0), (1, 0), (1, 0), (3, 0) less (0, 1): 4 outcomes)
    answered = [len(answer) for answer in faces if type(answer) is list]
    assert answered and set(answered) == {4}
    assert not seen, "its worlds made"


def test_a_pass_writing_the_sheet_makes_its_worlds(monkeypatch):
    seen = _answered(monkeypatch, "still_ends")
    faces = _faced(monkeypatch)
    assert_counted_as_run(HEADER + DRAWN_WRITES, {"A": 1})
    assert seen and not any(type(answer) is list for answer in faces)


@pytest.mark.parametrize("name", sorted(FACED_OTHERS))
def test_passes_over_faces_that_fail_or_leave_fractions_are_explored(monkeypatch, name):
    faces = _faced(monkeypatch)
    assert_counted_as_run(HEADER + FACED_OTHERS[name], {"A": 1})
    assert FACED_ANSWERS[name] in faces and not any(type(answer) is list for answer in faces)


@pytest.mark.parametrize("text", [DRAWN, *FACED_OTHERS.values()])
def test_faces_switched_off_the_same_answer_and_work(monkeypatch, text):
    engine = Engine(dsl.load_text(HEADER + text, "drawn.rules"))

    def answer():
        odds = engine.odds("act", engine.sheet({"A": 1}), {}, "net")
        return odds.probabilities, odds.exact, odds.work

    on = answer()
    monkeypatch.setattr(one_roll.SWITCH, "faces", False)
    assert answer() == on


def _mixed_sources(monkeypatch) -> list:
    """How many outcomes each pass mixed into the groups (carried._mixed's sources)."""
    found = carried._mixed
    sizes: list = []

    def spy(explorer, env, state, steps, sources):
        sizes.append(len(sources))
        return found(explorer, env, state, steps, sources)

    monkeypatch.setattr(carried, "_mixed", spy)
    return sizes


def _drawn_odds():
    engine = Engine(dsl.load_text(HEADER + DRAWN, "drawn.rules"))
    return engine.odds("act", engine.sheet({"A": 0}), {}, "net")


def test_ends_alike_are_mixed_once(monkeypatch):
    # a d6 whose faces add (0, 0), (1, 0), (1, 0), (1, 0), (3, 0) less (0, 1): 4 outcomes
    sizes = _mixed_sources(monkeypatch)
    merged = _drawn_odds().probabilities
    assert sizes and max(sizes) == 4
    monkeypatch.setattr(carried.MERGED, "on", False)
    sizes.clear()
    assert _drawn_odds().probabilities == merged
    assert max(sizes) == 6
