"""Loops that only add to counters (interpreter.odds.carried) against brute force.

A loop's passes that read their counters only to add to them are run once per state of
the rest, the counters carried as one joint distribution, held from one loop to the next
that adds to the same ones, and passes that leave their group as they found it added at
once. Generated actions (`repeat`, `for each`, passes counting symbols, an `if`, a check,
a `require` that stops some runs, a counter read in the body or given a fraction, where
the loop goes on pass by pass) must give, whole and field by field, the distribution
found by running the real engine for every sequence of dice; and a loop of many passes
must be answered within a small budget only the carried counters meet.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

import dsl
import interpreter.odds.carried as carried
import interpreter.odds.passes as passes
from interpreter import Engine

HEADER = """rulebook "Counters" {
  system "loops that add to counters, against brute force"
  language "en"
}

sheet {
  attribute A, B in 0..3
}

symbols success, advantage

die S { blank, success, success + advantage, 2 advantage }

check c(x: int = 0) "C" {
  roll d2 + A + x >= 3
}
"""

#: a pass's statements after its draw (`f`: a d2 or, for a symbol die, `s`): each adds
#: to a counter, or reads one (the loop then goes on pass by pass), or stops some runs
ADDING = (
    "set a to a + f",
    "set b to b - f",
    "set a to 2 * f + a",
    "if f = 2 { set a to a + 1 }",
    "if f = 1 { set b to b + {step} } else { set a to a - 1 }",
    "let r = c(f)\n    if r.success { set b to b + 1 }",
    'require f != 1 or A > 0 else "one"',
    "repeat 2 times { set b to b + 1 }",
)
READING = ("if a > 1 { set b to b + 1 }", "set a to a + 1 / 2", "set b to a + f")
SYMBOLS = ("set a to a + s.success", "set b to b + s.advantage", "set a to a - s.advantage")


@st.composite
def loops(draw):
    """(rulebook text, sheet data): `act`, one or two loops over counters a and b."""
    lines = [f"let a = {draw(st.integers(0, 1))}", "let b = A"]
    dice = 0
    for _ in range(draw(st.integers(1, 2))):
        symbols = draw(st.booleans())
        header = draw(
            st.sampled_from(["repeat {n} times", "for each k in [1, 2]", "for each k in [1, 1, 2]"])
        )
        n = draw(st.integers(1, 4 if not symbols else 2))
        header = header.format(n=n)
        passes_made = n if header.startswith("repeat") else header.count(",") + 1
        if dice + passes_made > 5:
            break
        dice += passes_made
        if symbols:
            body = ["let s = 1dS"]
            body += draw(st.lists(st.sampled_from(SYMBOLS), min_size=1, max_size=3, unique=True))
        else:
            body = ["let f = d2"]
            pool = ADDING + (READING if draw(st.booleans()) else ())
            body += draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
        step = "k" if header.startswith("for") else "1"
        text = "\n    ".join(line.replace("{step}", step) for line in body)
        lines.append(f"{header} {{\n    {text}\n  }}")
    shown = draw(st.sampled_from(["a, t: b", "a - b > 0, t: b", "b, t: a = b"]))
    lines.append(f"result {{ f: {shown} }}")
    action = "action act() {\n  " + "\n  ".join(lines) + "\n}\n"
    return HEADER + action, {"A": draw(st.integers(0, 2)), "B": 0}


@against_brute_force(loops(), examples=60)
def test_counters_carried_equal_every_run(case):
    text, data = case
    assert_counted_as_run(text, data)


REPEATED = (
    HEADER
    + """
action act(n: int = 48) {
  let hits = 0
  let misses = 0
  repeat n times {
    let r = c(0)
    if r.success { set hits to hits + 1 } else { set misses to misses + 1 }
  }
  result { hits: hits, even: hits - misses }
}
"""
)
#: work units: the carried passes need some tens; pass by pass, each of the 49 values of
#: `hits` runs every statement of every pass (a thousand runs and more)
SMALL = 300


def repeated_odds(n: int = 48):
    engine = Engine(dsl.load_text(REPEATED, "repeated.rules"))
    return engine.odds(
        "act", engine.sheet({"A": 1, "B": 0}), {"n": n}, "hits", budget=SMALL, trials=50
    )


def test_a_loop_of_many_passes_answers_within_a_small_budget(monkeypatch):
    odds = repeated_odds()
    # A = 1: d2 + 1 >= 3 on a 2, one chance in two
    assert odds.exact and odds.omitted == 0
    assert odds.probabilities[24] == Fraction(32247603683100, 2**48)
    assert sum(odds.probabilities.values()) == 1
    # switched off: no counters, the loop pass by pass over every world
    monkeypatch.setattr(passes.Passes, "loop_counters", lambda *_: ())
    assert not repeated_odds().exact


def test_passes_that_leave_their_group_alone_are_added_at_once_from_the_first(monkeypatch):
    # the pass's outcomes are found once and raised to the 48th power: no pass is run
    # over the groups one by one, not even the first nor the last
    one_by_one = []
    step = carried.carried_pass
    monkeypatch.setattr(carried, "carried_pass", lambda *a: one_by_one.append(1) or step(*a))
    odds = repeated_odds()
    assert odds.exact and odds.probabilities[24] == Fraction(32247603683100, 2**48)
    assert one_by_one == []


def test_passes_entered_alike_are_added_at_once_only_among_themselves():
    # each run of equal items added at once, and the next item's pass as it is entered
    # (once, every pass after the second was taken to be entered as the second)
    for items in ("[1, 1, 2, 2]", "[1, 1, 1, 2, 2, 2, 3]", "[3, 1, 1, 1, 2]"):
        text = HEADER + (
            f"action act() {{\n  let a = 0\n  for each i in {items} {{\n"
            "    set a to a + i * d2\n  }\n  result { f: a }\n}\n"
        )
        assert_counted_as_run(text, {"A": 0, "B": 0})


def test_counters_carried_through_a_short_loop_equal_every_run():
    assert_counted_as_run(REPEATED.replace("n: int = 48", "n: int = 5"), {"A": 1, "B": 0})


@pytest.mark.parametrize(
    "start, body",
    [
        ("0", "set a to a + 1 / 2\n    set b to b + f"),  # a fraction: pass by pass
        ("1 / 2", "set a to a + f"),  # not a whole number before the loop
        ("0", "set a to a + f\n    if a > 2 { set b to b + 1 }"),  # read: not a counter
        ("0", "set a to a + f\n    set b to b + a"),
    ],
)
def test_a_loop_that_cannot_carry_its_counters_goes_pass_by_pass(start, body):
    text = (
        HEADER
        + f"action act() {{\n  let a = {start}\n  let b = A\n  repeat 3 times {{\n"
        + f"    let f = d2\n    {body}\n  }}\n  result {{ f: a, t: b }}\n}}\n"
    )
    assert_counted_as_run(text, {"A": 0, "B": 0})


def test_counters_held_through_a_block_meet_a_loop_that_cannot_carry_them():
    # `set a to a + d2` holds `a` (the rest of the block only adds to it); the `repeat
    # ... until` carries nothing: the worlds again, one by one
    text = HEADER + (
        "action act() {\n  let a = 0\n  let f = 0\n  set a to a + d2\n"
        "  repeat 2 times until f = 2 {\n    set f to d2\n    set a to a + f\n  }\n"
        "  result { f: a, t: f }\n}\n"
    )
    assert_counted_as_run(text, {"A": 0, "B": 0})
