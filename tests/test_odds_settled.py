"""Ifs whose conditions the action's arguments decide, against brute force.

An `if` whose condition the action's parameters decide (`if r.won and objetivo != none`
with no target given) takes the same way in every world: the explorer tests it in each,
what its untaken branches read kept until then (issue 24: no view cut to the branches
taken). Generated actions (conditions mixing parameters, rolled values and an opposed
check that may stop at its tie limit; parameters given again in the body; `and`, `or`,
`not`, else-if branches) are checked against every sequence of dice a run can draw: the
whole result and each field.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, agrees_with_brute_force, assert_counted_as_run
from test_odds_brute_force import HEADER, LIMITS

import dsl
from interpreter import Engine
from interpreter.dice import ForcedDice
from interpreter.errors import LimitExceeded

DEFINITIONS = """
check c(x: int = 0) "C" {
  roll d2 + A + x >= 3
  level = Level[total]
}
opposed o(y: int = 0) "O" {
  roll c(y)
  against d2 + B
  compare total
  tie reroll
}
"""

#: parts of a condition: parameters (`flag`, `k`), a rolled value, an opposed check's
#: verdict, and an opposed check called in the condition itself (it may stop the run)
PARTS = ("flag", "not flag", "k > 0", "k = 1", "1 + k >= 2", "r.won", "p > 1", "o(k).won")


@st.composite
def conditions(draw, depth=0):
    if depth >= 2 or draw(st.booleans()):
        return draw(st.sampled_from(PARTS))
    left, right = draw(conditions(depth + 1)), draw(conditions(depth + 1))
    shapes = ["{} and {}", "{} or {}", "not ({} and {})", "({}) or not ({})"]
    shape = draw(st.sampled_from(shapes))
    return shape.format(left, right)


@st.composite
def settled_actions(draw):
    flag = draw(st.sampled_from(["yes", "no"]))
    k = draw(st.integers(0, 2))
    body = ["let p = d2", "let r = o(0)", "let acc = 0"]
    if draw(st.booleans()):  # a parameter given a value again: no longer a constant
        body.append(draw(st.sampled_from(["set k to p", "set flag to p > 1"])))
    branches = [draw(conditions()) for _ in range(draw(st.integers(1, 2)))]
    reads = ["r.ours.total + d2", "p", "1", "r.theirs.total"]
    text = f"if {branches[0]} {{ set acc to acc + {draw(st.sampled_from(reads))} }}"
    for condition in branches[1:]:
        text += f" else if {condition} {{ set acc to acc - {draw(st.sampled_from(reads))} }}"
    if draw(st.booleans()):
        text += " else { set acc to acc + 5 }"
    body.append(text)
    result = draw(st.sampled_from(["acc: acc, p: p", "acc: acc", "p: p, won: r.won"]))
    action = (
        f"action act(k: int = {k}, flag: bool = {flag}) {{\n  "
        + "\n  ".join(body)
        + f"\n  result {{ {result} }}\n}}\n"
    )
    sheet = {"A": draw(st.integers(0, 2)), "B": draw(st.integers(0, 1))}
    return HEADER + DEFINITIONS + action, sheet


@against_brute_force(settled_actions(), 80)
def test_ifs_settled_by_the_arguments_equal_brute_force(case):
    assert_counted_as_run(*case)


def action_text(condition: str, before: str = "", otherwise: str = "") -> str:
    return (
        HEADER
        + DEFINITIONS
        + f"""
action act(k: int = 0, flag: bool = no) {{
  let p = d2
  let r = o(0)
  let acc = 0
  {before}
  if {condition} {{ set acc to acc + r.ours.total + d2 }} {otherwise}
  result {{ acc: acc, won: r.won }}
}}
"""
    )


@pytest.mark.parametrize(
    "condition, before, otherwise",
    [
        ("r.won and flag", "", ""),  # never taken
        ("flag and r.won", "", ""),
        ("r.won and k > 0", "", "else { set acc to 1 }"),  # the else alone
        ("not flag or r.won", "", ""),  # always taken
        ("r.won and flag", "set flag to p > 1", ""),  # flag given again
        ("o(k).won and flag", "", ""),  # the left part may stop the run
        ("p > 1 and r.won", "", ""),  # nothing the arguments decide
    ],
)
def test_ifs_the_arguments_decide_equal_brute_force(condition, before, otherwise):
    text = action_text(condition, before, otherwise)
    engine = Engine(dsl.load_text(text), LIMITS)
    agrees_with_brute_force(engine, engine.sheet({"A": 1, "B": 0}), text)


def test_a_left_part_past_the_bound_on_numbers_is_not_skipped():
    """`p * p > 0 and q != none`: with no q the right part alone would settle it, but a
    run evaluates the left first, and with p this large it stops there (past the bound
    on numbers): the odds stop there too, as a run does."""
    text = (
        HEADER
        + """
action act(p: int = 0, q: int = none) {
  let x = d2 + 0
  if p * p > 0 and q != none {
    set x to x + 1
  }
  result { x: x }
}
"""
    )
    engine = Engine(dsl.load_text(text), attrs.evolve(LIMITS, number_digits=6))
    sheet = engine.sheet({"A": 0, "B": 0})
    with pytest.raises(LimitExceeded):
        engine.run("act", sheet, {"p": 10**4}, dice=ForcedDice([1]))
    with pytest.raises(LimitExceeded):  # every run stops there: the error itself
        engine.odds("act", sheet, {"p": 10**4})
    assert engine.odds("act", sheet, {"p": 10}).exact  # (a product within the bound)
