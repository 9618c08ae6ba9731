"""Pools rolled again die by die, counted as compound dice (interpreter.odds.compound).

`let b = ...`, `let p = (count(b, 2..5))d6` and lets adding up counts of both (Year
Zero's push) are n copies of one compound die added up. Generated actions (a pool, dice
rolled again for some of its faces, by another pool's too, two dice for a face, dice the
world adds, dice taken back by faces (`n - count(a, 3)`), lets linear in counts, and
some that are not: products of counts, halves, a pool read after, a count that may go
below zero) must give, whole and field by field,
the distribution found by running the real engine for every sequence of dice; Year
Zero's example must be counted so within a small budget only this meets, with the same
exact fractions as the statements run one by one.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

import dsl
import interpreter.odds.compound as compound
from interpreter import Engine, Limits
from interpreter.odds.marginals import ByField

HEADER = """rulebook "Compound" {
  system "pools rolled again die by die, against brute force"
  language "en"
}

sheet {
  attribute A in 0..2
}
"""

#: the base pools: `a` always, `b` where a roll reads it
BASES = ("let a = {n}d3", "let b = (A)d2")
#: the number of dice rolled again (`p`), from the base pools' counts
AGAIN = (
    "(count(a, 1))d3",
    "(if A > 0 then count(a, 2..3) else 0)d2",
    "(2 * count(a, 3))d2",
    "(count(a, 1) + count(b, 2))d3",
    "(count(a, 1) + A)d2",
    "(count(a, 1) - count(a, 3))d2",
    "({n} - count(a, 3))d3",
    "({n} + 1 - count(a, 1) - count(a, 2))d2",
)
#: lets after it: linear in the counts, and some that are not
LETS = (
    "let x = count(a, 3) + count(p, 2)",
    "let y = if A > 1 then count(a, 1) + count(p, 1) else 0",
    "let z = count(p, 2) * 2 - count(a, 1) - A",
    "let w = x + count(p, 1)",
    "let v = count(p, 1) * A + count(b, 1)",
    "let u = count(p, 1) * count(a, 2)",
    "let h = count(p, 2) + 1 / 2",
    "let m = max(count(a, 1), count(p, 2))",
)


@st.composite
def pushed(draw):
    """(rulebook text, sheet data): `act`, a pool, dice rolled again, lets reading both."""
    size = draw(st.integers(1, 2))
    again = draw(st.sampled_from(AGAIN)).format(n=size)
    chosen = draw(st.lists(st.sampled_from(LETS), min_size=1, max_size=3, unique=True))
    if any("x +" in line for line in chosen) and LETS[0] not in chosen:
        chosen.append(LETS[0])
    chosen.sort(key=LETS.index)
    lines = [BASES[0].format(n=size)]
    if "(b" in again or any("(b" in line for line in chosen):
        lines.append(BASES[1])
    lines.append(f"let p = {again}")
    lines += chosen
    named = [line.split()[1] for line in chosen]
    fields = [f"{name}: {name}" for name in named]
    if draw(st.booleans()):
        fields.append("left: count(p, 3)")  # (a pool read after: not compound)
    lines.append(f"result {{ {', '.join(fields)} }}")
    action = "action act() {\n  " + "\n  ".join(lines) + "\n}\n"
    return HEADER + action, {"A": draw(st.integers(0, 2))}


@against_brute_force(pushed(), examples=60)
def test_compound_dice_equal_every_run(case):
    text, data = case
    assert_counted_as_run(text, data)


def test_two_pools_rolled_again_for_one_equal_every_run():
    text = (
        HEADER
        + """
action act() {
  let a = 2d3
  let b = (A)d2
  let p = (count(a, 1) + count(b, 2))d3
  let q = (2 * count(a, 3))d2
  let hits = count(a, 2) + count(p, 3) + count(q, 2) - count(b, 1)
  let ones = if A > 1 then count(p, 1) + count(q, 1) else A
  result { hits: hits, ones: ones }
}
"""
    )
    assert_counted_as_run(text, {"A": 2})


def test_dice_taken_back_by_faces_are_compound_dice_too(monkeypatch):
    """Year Zero's push worded as the dice left: `(n - count(b, 6) - count(b, 1))d6`."""
    text = """rulebook "Pushed again" { language "en" }
action tirar(dados: int) {
  let primera = (dados)d6
  let otra = (dados - count(primera, 6) - count(primera, 1))d6
  let seises = count(otra, 6) + count(primera, 6)
  let unos = count(otra, 1) + count(primera, 1)
  result { seises: seises, unos: unos }
}
"""
    engine = Engine(dsl.load_text(text, "pushed.rules"))
    fast = engine.odds("tirar", engine.sheet({}), {"dados": 12}, budget=SMALL, trials=20)
    assert fast.exact and not isinstance(fast, ByField)
    monkeypatch.setattr(compound, "COMPOUND", False)
    slow = engine.odds("tirar", engine.sheet({}), {"dados": 12}, budget=SMALL, trials=20)
    assert isinstance(slow, ByField) or not slow.exact
    walked = engine.odds("tirar", engine.sheet({}), {"dados": 5})
    monkeypatch.setattr(compound, "COMPOUND", True)
    assert (
        engine.odds("tirar", engine.sheet({}), {"dados": 5}).probabilities == walked.probabilities
    )


def test_compound_dice_in_a_loop_and_in_a_called_action_equal_every_run(monkeypatch):
    made: list = []
    found = compound._counted
    monkeypatch.setattr(compound, "_counted", lambda *a: made.append(found(*a)) or made[-1])
    looped = """
action act() {
  let total = 0
  repeat 2 times {
    let b = 1d3
    let p = (count(b, 1))d3
    let x = count(b, 3) + count(p, 3)
    set total to total + x
  }
  result { total: total }
}
"""
    called = """
action inner(n: int) {
  let b = (n)d3
  let p = (count(b, 1..2))d2
  let x = count(b, 3) + count(p, 2) + A
  result { x: x }
}
action act() {
  let w = d2
  let r = inner(w)
  let s = inner(w + 1)
  result { a: r.x, b: s.x }
}
"""
    for text in (looped, called):
        made.clear()
        assert_counted_as_run(HEADER + text, {"A": 1})
        assert made and all(worlds is not None for worlds in made)


#: Year Zero's example (base, skill and gear dice, each pushed)
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "year_zero.rules"
#: 12 base dice, 2 skill, 2 gear pushed, the whole result (the first group of the fields'
#: one exploration, within a share of the budget): 116 units as compound dice, 1,771
#: with the pushed dice rolled world by world and added (odds.summed)
SMALL = 600


def example_odds(budget: int, **params):
    engine = Engine(dsl.load(EXAMPLE))
    params = {"push": True, **params}
    return engine.odds("roll_dice", engine.sheet({}), params, budget=budget, trials=20)


def test_year_zero_is_counted_as_compound_dice(monkeypatch):
    fast = example_odds(SMALL, base=12, skill=2, gear=2)
    assert fast.exact and not isinstance(fast, ByField)
    assert sum(fast.probabilities.values()) == 1
    monkeypatch.setattr(compound, "COMPOUND", False)  # (switched off: past the budget)
    slow = example_odds(SMALL, base=12, skill=2, gear=2)
    assert isinstance(slow, ByField) or not slow.exact


def test_compound_dice_give_the_fractions_of_the_walk(monkeypatch):
    cases = ({"base": 4, "skill": 2, "gear": 1}, {"base": 3}, {"base": 2, "push": False})
    fast = [example_odds(10**6, **params) for params in cases]
    monkeypatch.setattr(compound, "COMPOUND", False)
    for params, found in zip(cases, fast):
        walked = example_odds(10**6, **params)
        assert found.exact and walked.exact
        assert found.probabilities == walked.probabilities
        assert found.omitted == walked.omitted == 0


def test_dice_past_a_terms_limit_fail_as_when_rolled(monkeypatch):
    """Where the faces may ask for more dice than a term may roll, the runs that do fail
    at the limit: counted one by one, as every run, never as compound dice."""
    text = (
        HEADER
        + """
action act() {
  let a = 2d3
  let p = (3 * count(a, 1))d2
  let x = count(a, 2) + count(p, 2)
  result { x: x }
}
"""
    )
    seen: list = []
    found = compound._worlds
    monkeypatch.setattr(compound, "_worlds", lambda *a: seen.append(found(*a)) or seen[-1])
    assert_counted_as_run(text, {"A": 0}, limits=Limits(tie_rerolls=1, dice_per_term=4))
    assert seen and all(made is None for made in seen)
