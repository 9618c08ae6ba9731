"""Counters read only within one sum (interpreter.odds.linear), carried as that sum alone.

The sums are found over an action's whole body and result: a counter read otherwise, given
a value again, or read in two different sums is left as it was. Generated actions
(counters added to in loops, read in sums, signs, other terms, plain reads) must give the
distribution found by running the real engine for every sequence of dice; and counters of
many passes read as one sum must be answered within a small budget only the sums meet.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

import dsl
import interpreter.odds.carried as carried
from interpreter import Engine
from interpreter.odds.linear import projection, sums_read

HEADER = """rulebook "Sums" {
  system "counters read as sums, against brute force"
  language "en"
}

sheet {
  attribute A in 0..3
}

symbols success, advantage, failure

die S { blank, success, success + advantage, failure }
"""


def action_of(body: str):
    book = dsl.load_text(HEADER + "action act() {\n" + body + "\n}\n", "sums.rules")
    return book.actions["act"]


def test_counters_read_in_one_sum_are_found():
    found = sums_read(
        action_of(
            "  let s = 0\n  let f = 0\n  let t = 0\n  repeat 2 times {\n    let d = 1dS\n"
            "    set s to s + d.success\n    set f to f + d.failure\n    set t to d.advantage + t\n"
            "  }\n  result { ok: s - f + t >= 1, net: 1 + t - (f - s) }"
        )
    )
    key = (("f", 1), ("s", -1), ("t", -1))
    assert found == {"s": key, "f": key, "t": key}


def test_counters_read_otherwise_are_left_as_they_are():
    loop = (
        "  repeat 2 times {\n    let d = 1dS\n"
        "    set s to s + d.success\n    set f to f + d.failure\n  }\n"
    )
    start = "  let s = 0\n  let f = 0\n"
    assert sums_read(action_of(start + loop + "  result { a: s - f, b: s }")) == {}
    assert sums_read(action_of(start + loop + "  result { a: s - f, b: s + f }")) == {}
    assert sums_read(action_of(start + loop + "  set s to 0\n  result { a: s - f }")) == {}
    assert sums_read(action_of(start + loop + "  result { a: s - f + s }")) == {}
    assert sums_read(action_of(start + loop + "  result { a: 2 * s - f }")) == {}
    assert sums_read(action_of(start + loop + '  result { a: s - f, t: "net {s}" }')) == {}
    reads = "  repeat 2 times {\n    set s to s + f\n  }\n"
    assert sums_read(action_of(start + loop + reads + "  result { a: s - f }")) == {}
    assert sums_read(action_of(start + loop + "  result { a: s - f }")) != {}


def test_a_projection_keeps_each_sum_in_its_first_counter():
    sums = {"a": (("a", 1), ("b", -1)), "b": (("a", 1), ("b", -1))}
    project = projection(sums, ("a", "b", "c"))
    assert project is not None
    assert project((3, 5, 7)) == (-2, 0, 7)
    assert projection(sums, ("a", "c")) is None


TERMS = ("s", "f", "t", "A", "1")
BODIES = (
    "set s to s + d.success",
    "set f to f + d.failure",
    "set t to t + d.advantage",
    "set t to t - d.failure",
    "if d.success > 0 { set f to f + 1 }",
    "set s to 2 * d.advantage + s",
)


@st.composite
def summed(draw):
    """(rulebook text, sheet data): `act`, loops adding to s, f and t, read in sums."""
    lines = ["let s = 0", "let f = A", "let t = 1"]
    passes = 0
    for _ in range(draw(st.integers(1, 2))):
        n = draw(st.integers(1, 2))
        if passes + n > 3:
            break
        passes += n
        body = ["let d = 1dS"]
        body += draw(st.lists(st.sampled_from(BODIES), min_size=1, max_size=3, unique=True))
        lines.append(f"repeat {n} times {{\n    " + "\n    ".join(body) + "\n  }")
    terms = draw(st.lists(st.sampled_from(TERMS), min_size=2, max_size=4, unique=True))
    signs = draw(st.lists(st.sampled_from("+-"), min_size=len(terms), max_size=len(terms)))
    total = " ".join(f"{sign} {term}" for sign, term in zip(signs, terms))
    total = total[2:] if total[0] == "+" else "0 " + total
    fields = [f"net: {total}", f"won: {total} >= 1"]
    if draw(st.booleans()):  # a counter read on its own too: no sum then
        fields.append(f"alone: {draw(st.sampled_from(['s', 'f', 't']))}")
    lines.append("result { " + ", ".join(fields) + " }")
    action = "action act() {\n  " + "\n  ".join(lines) + "\n}\n"
    return HEADER + action, {"A": draw(st.integers(0, 2))}


@against_brute_force(summed(), examples=40)
def test_counters_read_as_sums_equal_every_run(case):
    text, data = case
    assert_counted_as_run(text, data)


MANY = (
    HEADER
    + """
action act(n: int = 12) {
  let s = 0
  let a = 0
  let f = 0
  repeat n times {
    let d = 1dS
    set s to s + d.success
    set a to a + d.advantage
    set f to f + d.failure
  }
  repeat n times {
    let d = 1dS
    set f to f + d.success
    set a to a + d.advantage
  }
  result { net: s + a - f }
}
"""
)
#: work units: the one sum carried needs some tens; its three counters' joint, hundreds of
#: values mixed each pass, many times more
SMALL = 200


def many_odds():
    engine = Engine(dsl.load_text(MANY, "many.rules"))
    return engine.odds("act", engine.sheet({"A": 0}), {}, "net", budget=SMALL, trials=50)


def test_counters_read_as_one_sum_answer_within_a_small_budget(monkeypatch):
    odds = many_odds()
    assert odds.exact and odds.omitted == 0
    assert sum(odds.probabilities.values()) == 1
    # net = s + a - f: a die of the first loop adds 2 at most (`success + advantage`, one
    # face in four), one of the second 0 at most (three faces in four)
    assert odds.probabilities[24] == Fraction(3**12, 4**24)
    # switched off: the three counters' joint carried
    monkeypatch.setattr(carried, "projection", lambda *_: None)
    assert not many_odds().exact


def test_the_short_many_equals_every_run():
    assert_counted_as_run(MANY.replace("n: int = 12", "n: int = 2"), {"A": 0})
