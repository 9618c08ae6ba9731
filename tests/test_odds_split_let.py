"""Exact odds of `let x = if c then action(...) else ...` against brute force.

The odds engine explores such a let (or `set x to` one) as
`if c { let x = action(...) } else { let x = ... }`
(the worlds split on c, the called action stepped through statement by statement, as
`let x = action(...)` is): for generated actions (nested if expressions, a `require`
failing inside the called action, a called action that writes the sheet, a rerolling
loop, a call inside the called action), the distribution must equal, fraction for
fraction, the one found by running the real engine for every sequence of dice.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import strategies as st
from oracle import (
    action_outcomes,
    against_brute_force,
    assert_counted_as_run,
    counted,
)
from test_odds_brute_force import LIMITS

import dsl
from interpreter import Engine

HEADER = """rulebook "Generated" {
  system "if expressions calling actions, against brute force"
  language "en"
}

sheet {
  attribute A, B in 0..9
}

check c(x: int = 0) "C" {
  roll d2 + A + x >= 3
}
"""

#: what the called action `pick` may do before its result, in this order when drawn
PICK_STEPS = (
    'require r != 2 else "two"',  # a failure inside the called action
    "set B to B + 1",  # the called action writes the sheet
    "repeat 2 times until r != 1 { set r to d3 }",  # a draw made again
    "let y = if r > 2 then leaf(r) else none",  # a call inside the called action
)


@st.composite
def splits(draw):
    """(rulebook text, sheet): an action binding the result of an if expression whose
    branches call actions, nested, reading the record (or none) later."""
    leaf_writes = draw(st.booleans())
    leaf = "action leaf(x: int = 0) {\n  let r = d2 + x\n"
    leaf += "  set A to A + 1\n" if leaf_writes else ""
    leaf += "  result { v: r, s: B }\n}\n"
    steps = [s for s in PICK_STEPS if draw(st.booleans())]
    value = "if y = none then r else y.v" if PICK_STEPS[3] in steps else "r"
    pick = (
        "action pick(x: int = 0) {\n  let r = d3 + x\n  "
        + "\n  ".join(steps)
        + f"\n  result {{ v: {value}, s: B }}\n}}\n"
    )
    conditions = ["g.success", "A > 1", "d2 = 1"]
    condition = draw(st.sampled_from(conditions))
    inner = draw(st.sampled_from(conditions))
    called = draw(st.sampled_from(["pick(1)", "leaf(0)"]))
    otherwise = draw(
        st.sampled_from(
            [
                "none",
                "pick(0)",
                f"if {inner} then leaf(1) else none",
                f"if {inner} then none else pick(2)",
                f"if {inner} then pick(0) else if B > 0 then leaf(2) else none",
            ]
        )
    )
    body = ["let g = c(0)", f"let x = if {condition} then {called} else {otherwise}"]
    if draw(st.booleans()):  # given anew, or kept: a `set` of one
        body.append(f"set x to if {inner} then leaf(B) else x")
    fields = {"f": "if x = none then 0 else x.v", "b": "B"}
    if draw(st.booleans()):  # a second one, after the sheet the first may have written
        body.append("let z = if B > 0 then leaf(B) else pick(A)")
        fields["z"] = "z.s + z.v"
    if draw(st.booleans()):
        fields["s"] = "if x = none then 9 else x.s"
    result = ", ".join(f"{k}: {v}" for k, v in fields.items())
    act = "action act() {\n  " + "\n  ".join(body) + f"\n  result {{ {result} }}\n}}\n"
    sheet = {"A": draw(st.integers(0, 2)), "B": draw(st.integers(0, 1))}
    return HEADER + leaf + pick + act, sheet


@against_brute_force(splits(), 40)
def test_an_if_expression_calling_actions_equals_brute_force(case):
    assert_counted_as_run(*case)


def test_each_branch_and_the_failure_inside_are_where_brute_force_puts_them():
    # A fixed case of the above, its numbers also worked out by hand: g succeeds on
    # d2 + 1 >= 3; then pick(1) fails when r = d3 + 1 is 2, else writes B; when g fails,
    # leaf(0) half the time (d2 = 1), else none.
    text = (
        HEADER
        + """
action leaf(x: int = 0) {
  let r = d2 + x
  result { v: r, s: B }
}
action pick(x: int = 0) {
  let r = d3 + x
  require r != 2 else "two"
  set B to B + 1
  result { v: r, s: B }
}
action act() {
  let g = c(0)
  let x = if g.success then pick(1) else if d2 = 1 then leaf(0) else none
  result { f: if x = none then 0 else x.v, b: B }
}
"""
    )
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": 1, "B": 0})
    joint = action_outcomes(engine, "act", sheet)
    odds = counted(engine.odds("act", sheet, {}))
    assert odds == joint
    by_hand = {
        ("fails", "two"): Fraction(1, 6),  # g: d2 = 2 (1/2); pick: the d3 shows 1 (1/3)
        (3, 1): Fraction(1, 6),  # the d3 shows 2: r = 3, B written
        (4, 1): Fraction(1, 6),
        (1, 0): Fraction(1, 8),  # g fails (1/2), d2 = 1 (1/2), leaf's d2 shows 1 (1/2)
        (2, 0): Fraction(1, 8),
        (0, 0): Fraction(1, 4),  # g fails, d2 = 2: none
    }
    assert {(k if isinstance(k, tuple) else (k["f"], k["b"])): p for k, p in odds.items()} == (
        by_hand
    )


@pytest.mark.parametrize(
    "binding",
    [
        "let x = if g.success then sum_of_six() else none",
        "let x = none\n  set x to if g.success then sum_of_six() else x",
        "let x = if A > 5 then none else if g.success then sum_of_six() else none",
    ],
)
def test_the_called_action_is_stepped_through_not_run_once_per_world(binding):
    # Six d6 summed one pass at a time: stepped through, the worlds are merged after each
    # pass (at most 31 sums); run whole inside the if expression, every sequence of the
    # six dice (46,656) is a run of its own. Within a budget far below the latter: exact.
    text = (
        HEADER
        + """
action sum_of_six() {
  let t = 0
  repeat 6 times { set t to t + d6 }
  result { t: t }
}
action act() {
  let g = c(0)
  BINDING
  result { t: if x = none then 0 else x.t }
}
""".replace("BINDING", binding)
    )
    engine = Engine(dsl.load_text(text))
    sheet = engine.sheet({"A": 1, "B": 0})
    odds = engine.odds("act", sheet, {}, budget=5_000)
    assert odds.exact and odds.omitted == 0
    assert odds.probability(0) == odds.probability(6) * 2 * 6**6
    assert sum(odds.probabilities.values()) == 1
