"""A roll read only through sums (interpreter.odds.summed) against brute force.

`let p = ...` followed by lets that add a part of the world to a part of the roll (Year
Zero's pushed dice: `count(b, 6) + count(pushed, 6)`) are counted by adding: run once per
world and once per value of the roll, not once per pair. Generated actions (pools pushed,
plain dice, `if`s in the sums, parts of the roll reading the world, a product, a fraction, dice
or a `require` among the lets, where they go on one by one) must give, whole and field by
field, the distribution found by running the real engine for every sequence of dice; and
pushed pools, in two wordings, must be answered within a small budget only this meets.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

import dsl
import interpreter.odds.alike as alike
import interpreter.odds.compound as compound
import interpreter.odds.forks as forks
from interpreter import Engine
from interpreter.odds.marginals import ByField


@pytest.fixture(autouse=True, scope="module")
def _no_compound_dice():
    """Compound dice (odds.compound) count many of these pools before adding would:
    switched off here, so that adding is what these tests prove."""
    compound.COMPOUND = False
    yield
    compound.COMPOUND = True


HEADER = """rulebook "Sums" {
  system "a roll read only through sums, against brute force"
  language "en"
}

sheet {
  attribute A in 0..3
}
"""

#: the roll after the first pool `b`: its count read from `b`, or plain dice
ROLLS = (
    "(count(b, 2))d3",
    "(if A > 1 then count(b, 2..3) else count(b, 1))d3",
    "d3 + count(b, 3)",
    "(A)d3",
    "(count(b, 2) - 1)d3",
)
#: lets after the roll: sums of parts of the world and of the roll, and some that are not
LETS = (
    "let x = count(b, 3) + {roll3}",
    "let y = if A > 0 then count(b, 1) + {roll1} else 0",
    "let z = {roll3} - count(b, 1) - A",
    "let w = {roll3} + {roll1} + x",
    "let v = x + (if A = 2 then {roll1} else -{roll3})",
    "let u = {roll1} + count(b, 2) * 2",
    "let t = x * {roll1}",
    "let s = {roll3} + d2",
    'require {roll1} + A < 4 else "too many ones"',
    "let q = {limit} + count(b, 1)",
    "let h = {roll3} + 1 / 2",
)


def parts(roll: str) -> tuple:
    """What a let reads of the roll: its 3s and its 1s (a pool), else the value."""
    if roll.startswith("("):
        return "count(p, 3)", "count(p, 1)", "count(p, A)"
    return "p", "(if p > 2 then 1 else 0)", "(if p > A then 1 else 0)"


@st.composite
def sums(draw):
    """(rulebook text, sheet data): `act`, a pool, a roll from it, lets reading both."""
    roll = draw(st.sampled_from(ROLLS))
    roll3, roll1, limit = parts(roll)
    chosen = draw(st.lists(st.sampled_from(LETS), min_size=1, max_size=4, unique=True))
    chosen.sort(key=LETS.index)
    reads_x = any("+ x" in line or "x +" in line or "x *" in line for line in chosen)
    if reads_x and LETS[0] not in chosen:
        chosen.insert(0, LETS[0])
    lines = [f"let b = {draw(st.integers(1, 3))}d3", f"let p = {roll}"]
    lines += [line.format(roll3=roll3, roll1=roll1, limit=limit) for line in chosen]
    named = [line.split()[1] for line in chosen if line.startswith("let ")]
    fields = ", ".join(f"{name}: {name}" for name in named) or "n: 0"
    lines.append(f"result {{ {fields} }}")
    action = "action act() {\n  " + "\n  ".join(lines) + "\n}\n"
    return HEADER + action, {"A": draw(st.integers(0, 3))}


@against_brute_force(sums(), examples=60)
def test_sums_counted_by_adding_equal_every_run(case):
    text, data = case
    assert_counted_as_run(text, data)


def test_a_pushed_pool_of_year_zero_equals_every_run():
    text = (
        HEADER
        + """
action act() {
  let b = 3d6
  let pushed_b = (count(b, 2..5))d6
  let base_successes = count(b, 6) + count(pushed_b, 6)
  let base_ones = count(b, 1) + count(pushed_b, 1)
  result { successes: base_successes, damage: base_ones }
}
"""
    )
    assert_counted_as_run(text, {"A": 0})


#: Year Zero's pushed pools in two wordings: the example's, and another with the push a
#: number of pushes given and the dice pushed named otherwise
YEAR_ZERO = """rulebook "Pushed" { language "en" }
action roll_dice(base: int, push: bool = no) {
  let b = (base)d6
  let pushed_b = (if push then count(b, 2..5) else 0)d6
  let base_successes = count(b, 6) + count(pushed_b, 6)
  let base_ones = if push then count(b, 1) + count(pushed_b, 1) else 0
  result { successes: base_successes, attribute_damage: base_ones }
}
"""
OTHER_WORDING = """rulebook "Pushed again" { language "en" }
action tirar(dados: int, empujes: int = 0) {
  let primera = (dados)d6
  let otra = (if empujes > 0 then dados - count(primera, 6) - count(primera, 1) else 0)d6
  let seises = count(otra, 6) + count(primera, 6)
  let unos = if empujes > 0 then count(otra, 1) + count(primera, 1) else 0
  result { seises: seises, unos: unos }
}
"""
#: the budget: the whole result (the joint of both fields, the first group of the one
#: exploration, within its share of the budget) of 10 dice pushed is counted within 4,536
#: units by adding, 6,851 world by world (measured when the whole result became the
#: fields' first group, odds.forks.Whole). The fields going on from where that first
#: try stopped (forks.RESUMED) leave enough to count it whole again: world by world, a
#: whole result within 4,500 units, each field within 3,000; by adding, within 1,000
SMALL = 2_500


def pushed_odds(wording: str):
    text, action, params = {
        "example": (YEAR_ZERO, "roll_dice", {"base": 10, "push": True}),
        "other": (OTHER_WORDING, "tirar", {"dados": 10, "empujes": 1}),
    }[wording]
    engine = Engine(dsl.load_text(text, "pushed.rules"))
    return engine.odds(action, engine.sheet({}), params, budget=SMALL, trials=50)


def switch_off(monkeypatch) -> None:
    """Adding switched off: in a block's statements (odds.alike) and in the fields' one
    exploration (odds.forks), where a whole result is explored."""
    monkeypatch.setattr(alike, "summed_run", lambda *_: None)
    monkeypatch.setattr(forks, "summed_run", lambda *_: None)


@pytest.mark.parametrize("wording", ["example", "other"])
def test_pushed_pools_answer_within_a_small_budget(monkeypatch, wording):
    odds = pushed_odds(wording)
    assert odds.exact and not isinstance(odds, ByField)
    assert sum(odds.probabilities.values()) == 1
    # switched off: the lets reading the roll run world by world, past the joint's share
    switch_off(monkeypatch)
    odds = pushed_odds(wording)
    assert isinstance(odds, ByField) or not odds.exact


#: the example's action, skill and gear dice too: its whole result is the first group of
#: the fields' one exploration (interpreter.odds.forks), which counts a roll read only
#: through sums by adding as a block does (the whole result within a quarter of the
#: budget). 8 base dice, 2 skill, 1 gear pushed: 1,276 units by adding, 18,991 world by
#: world (measured when forks took odds.summed up); 1,020 and 4,669 once a pool's `let`
#: made its worlds at once and ran once for the worlds alike (odds.alike.let_runs)
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "year_zero.rules"
FORKED = 2_000


def example_odds(budget: int, **params):
    engine = Engine(dsl.load(EXAMPLE))
    params = {"push": True, **params}
    return engine.odds("roll_dice", engine.sheet({}), params, budget=budget, trials=50)


def test_the_fields_one_exploration_adds_within_a_small_budget(monkeypatch):
    odds = example_odds(FORKED, base=8, skill=2, gear=1)
    assert odds.exact and not isinstance(odds, ByField)
    small = example_odds(FORKED, base=3, skill=1, gear=1)
    assert small.exact and not isinstance(small, ByField)
    # switched off: the same odds world by world, and past the small budget
    switch_off(monkeypatch)
    assert example_odds(10**6, base=3, skill=1, gear=1).probabilities == small.probabilities
    odds = example_odds(FORKED, base=8, skill=2, gear=1)
    assert isinstance(odds, ByField) or not odds.exact
