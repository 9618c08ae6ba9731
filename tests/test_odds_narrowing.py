"""A deferred value only compared, branched on intervals of its values: against brute force.

`let t = d4 + d2` then `let x = if t > r then ... else if t < r then ... else ...`: the
statement reads `t` only in comparisons, so it runs over intervals of t's sorted values
narrowed at each comparison, not once per value (interpreter.odds.deferred). For
generated actions (two rolls compared three ways, ladders of comparisons, `and`/`or`,
nested ifs, the value on either side, compared with a literal, a sheet name, a
distribution, a text; a check's record read through a field; a value compared and also
read exactly, which is counted value by value), the odds must equal every sequence of
dice run for real.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st
from oracle import against_brute_force, agrees_with_brute_force, assert_counted_as_run
from test_odds_brute_force import HEADER, LIMITS

import dsl
from interpreter import Engine
from interpreter.odds.deferred import narrowing_of

DEFINITIONS = """
check c(x: int = 0) "C" {
  roll d3 + x >= 3
  level = Level[total]
}
"""

#: the value kept whole (t) and how a comparison reads it (T)
VALUES = (
    ("d4 + d2", "t"),
    ("d3 - A + d2", "t"),
    ("c(A)", "t.total"),
    ("c(B)", "t.level"),  # a text: counted value by value
    ("c(1)", "t.success"),  # yes or no: the same
)
#: what it is compared with (S)
OTHERS = ("r", "r + 1", "2", "A", "B + r")
#: the statement reading it (T: the value, S: the other side)
LADDERS = (
    'if T > S then "up" else if T < S then "down" else "even"',
    "if T >= S then 1 else 0",
    'if T = S then "same" else if T != S + 1 then "far" else "next"',
    'if S < T then "a" else if S = T then "b" else "c"',
    "if T > 1 and T <= S then 1 else if T > 4 or T = 0 then 2 else 3",
    "if T > S then (if T > S + 2 then 3 else 2) else (if T < 1 then 0 else 1)",
    'if T > d2 then "win" else "lose"',
    'if d2 < T then "win" else "lose"',
    "if T > S then T else 0",  # read exactly as well: not narrowed
    "T <= S",
    'if 3 <= T then "high" else "low"',
)


@st.composite
def compared_actions(draw):
    value, t = draw(st.sampled_from(VALUES))
    ladder = draw(st.sampled_from(LADDERS))
    other = draw(st.sampled_from(OTHERS))
    if t.endswith(("level", "success")):
        ladder = draw(st.sampled_from(("if T = S then 1 else 2", "if T != S then 1 else 0")))
        other = '"mid"' if t.endswith("level") else "yes"
    body = [f"let r = d{draw(st.sampled_from([2, 3]))} + B"]
    before = draw(st.sampled_from(["", "set B to d2", "set A to A + 1"]))
    if before:
        body.append(before)
    body.append(f"let t = {value}")
    body.append("let x = " + ladder.replace("T", t).replace("S", other))
    results = ["x: x"]
    if draw(st.booleans()):
        results.append("r: r")  # read later too: r's worlds, each compared
    body.append(f"result {{ {', '.join(results)} }}")
    text = HEADER + DEFINITIONS + "action act() {\n  " + "\n  ".join(body) + "\n}\n"
    return text, {"A": draw(st.integers(0, 3)), "B": draw(st.integers(0, 3))}


@against_brute_force(compared_actions(), 80)
def test_a_value_only_compared_equals_brute_force(case):
    assert_counted_as_run(*case)


def ladder(left: str, op: str, right: str) -> str:
    return (
        "action act() {\n  let r = d3 + B\n  let t = d4 + d2\n"
        f"  let x = if {left} {op} {right} then 1 else if t > r + 1 then 2 else 3\n"
        "  result { x: x, r: r }\n}\n"
    )


def test_every_comparison_on_either_side_equals_brute_force():
    # Each operator with the value on the left and on the right, then a second rung:
    # every cut of the interval (at, below, above the other side's value) is a world.
    for op in (">", ">=", "<", "<=", "=", "!="):
        for left, right in (("t", "r"), ("r", "t"), ("t", "4"), ("4", "t")):
            text = HEADER + DEFINITIONS + ladder(left, op, right)
            engine = Engine(dsl.load_text(text), LIMITS)
            agrees_with_brute_force(engine, engine.sheet({"A": 0, "B": 1}), text)


def expression(text: str):
    return dsl.parse_expression(text)


def test_which_statements_are_narrowed():
    # One path, only compared, the other side known (or evaluated after it)
    assert narrowing_of(expression("if t > r then 1 else if t < r then 2 else 3"), "t") == (
        (),
        frozenset(),
    )
    assert narrowing_of(expression("r < t"), "t") == ((), frozenset({"r"}))
    assert narrowing_of(expression("t > d2"), "t") == ((), frozenset())
    # read otherwise, compared with itself, or after a value evaluated first
    assert narrowing_of(expression("if t > r then t else 0"), "t") is None
    assert narrowing_of(expression("t > t"), "t") is None
    assert narrowing_of(expression("d2 < t"), "t") is None
    assert narrowing_of(expression('t = "x"'), "t") is None
    assert narrowing_of(expression("t.total > r or t.success"), "t") is None
    assert narrowing_of(expression("t.total > r and t.bono < 3"), "t") is None
    assert narrowing_of(expression("t.total > 1 and r.x.y <= t.total"), "t") == (
        ("total",),
        frozenset({"r"}),
    )


def test_a_ladder_over_many_values_equals_counting_the_faces():
    # 3d10 against 3d10 + 1, three ways: the first kept as worlds, the second narrowed.
    text = (
        HEADER
        + """
action act() {
  let r = d10 + d10 + d10
  let t = d10 + d10 + d10 + B
  let x = if t > r then "up" else if t < r then "down" else "even"
  result { x: x }
}
"""
    )
    engine = Engine(dsl.load_text(text))
    odds = engine.odds("act", engine.sheet({"A": 0, "B": 1}), {}, "x")
    assert odds.exact and odds.omitted == 0
    ways: dict = {}
    for i in range(1, 11):
        for j in range(1, 11):
            for k in range(1, 11):
                ways[i + j + k] = ways.get(i + j + k, 0) + 1
    up = sum(ways[a] * ways[b] for a in ways for b in ways if a + 1 > b)
    even = sum(ways[a] * ways[b] for a in ways for b in ways if a + 1 == b)
    assert odds.probability("up") * 10**6 == up
    assert odds.probability("even") * 10**6 == even
    assert odds.probability("down") * 10**6 == 10**6 - up - even


def test_an_open_roll_narrowed_keeps_what_it_leaves_out_once():
    # An exploding die has no last value: the mass past the cut is left out once (where
    # the value was bound), not again in the narrowed worlds; the same odds as the
    # statement counted value by value (`t + 0` is not a comparison of t itself).
    def odds_of(t: str):
        text = HEADER + (
            "action act() {\n  let r = d6 + d6\n  let t = d6x + B\n"
            f'  let x = if {t} > r then "up" else if {t} < r then "down" else "even"\n'
            "  result { x: x }\n}\n"
        )
        engine = Engine(dsl.load_text(text))
        return engine.odds("act", engine.sheet({"A": 0, "B": 1}), {}, "x")

    narrowed, each = odds_of("t"), odds_of("t + 0")
    assert narrowed.exact and 0 < narrowed.omitted < Fraction(1, 10**12)
    assert sum(narrowed.probabilities.values()) + narrowed.omitted == 1
    for outcome in ("up", "down", "even"):
        gap = abs(narrowed.probability(outcome) - each.probability(outcome))
        assert gap <= narrowed.omitted + each.omitted
