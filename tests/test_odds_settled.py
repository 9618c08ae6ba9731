"""Branches the arguments settle (interpreter.odds.settled), against brute force.

An `if` whose condition the action's parameters decide (`if r.won and objetivo != none`
with no target given) is cut down, before the body is explored, to the branches some
world can take. Generated actions (conditions mixing parameters, rolled values and an
opposed check that may stop at its tie limit; parameters given again in the body;
`and`, `or`, `not`, else-if branches) are checked against every sequence of dice a run
can draw: the whole result and each field.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, agrees_with_brute_force, assert_counted_as_run
from test_odds_brute_force import HEADER, LIMITS

import dsl
from interpreter import Engine
from interpreter.compiled import never_run
from interpreter.dice import ForcedDice
from interpreter.errors import LimitExceeded
from interpreter.odds.settled import settled_body

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
    "condition, before, otherwise, kept",
    [
        ("r.won and flag", "", "", None),  # never taken: gone
        ("flag and r.won", "", "", None),
        ("r.won and k > 0", "", "else { set acc to 1 }", ()),  # the else alone
        ("not flag or r.won", "", "", "always"),  # always taken
        ("r.won and flag", "set flag to p > 1", "", "all"),  # flag given again: not settled
        ("o(k).won and flag", "", "", "all"),  # the left part may stop the run: kept
        ("p > 1 and r.won", "", "", "all"),  # nothing the arguments decide
    ],
)
def test_what_the_arguments_settle_and_what_they_do_not(condition, before, otherwise, kept):
    text = action_text(condition, before, otherwise)
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": 1, "B": 0})
    compiled = engine.compiler.action("act")
    body = settled_body(engine.compiler, compiled, engine.context(None, sheet), (0, False))
    ifs = [s for s in body if type(s.node).__name__ == "If"]
    if kept is None:
        assert ifs == [] and len(body) == len(compiled.body) - 1
    elif kept == "all":
        assert body is compiled.body
    elif kept == "always":
        assert len(ifs) == 1 and ifs[0].run is never_run and ifs[0].shape.branches == ()
        assert len(ifs[0].shape.otherwise) == 1  # the branch's body, in every world
    else:
        assert len(ifs) == 1 and ifs[0].run is never_run and ifs[0].shape.branches == kept
    agrees_with_brute_force(engine, sheet, text)


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
