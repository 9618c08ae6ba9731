"""A list literal holding a die (issue 24): in odds mode the distribution of its lists, made
once (interpreter.compile.lists.LIFTED), so that `without(r, [x]) + [d10]` binds its lists
in one run; and a best play's ends remembered whatever steps the world counted
(interpreter.odds.decide.ANY_STEPS). Both exact as every way the dice can fall, each cheaper
than without it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle import assert_counted_as_run, optimal_play

import dsl
from interpreter import Engine, Limits
from interpreter.compile import lists
from interpreter.odds import decide

SHAPES = [
    "let x = [d6]\n  result { x: x }",
    "let x = [2, d4] + [d4]\n  result { x: x }",
    "let x = [d4, d4]\n  result { x: x, s: sum(x) }",
    "let x = without([1, 2, 3], [d4]) + [d4]\n  result { x: x }",
    "let x = [d4, if d4 > 2 then 1 else 0]\n  result { x: x }",
    "let x = [d4] = [3]\n  result { x: x }",
    "let x = 0\n  for each d in [d4, 1] { set x to x + d }\n  result { x: x }",
    "let x = [d4 - 1]\n  let y = 6 / x[1]\n  result { y: y }",
    "let r = 2d4\n  result { top: max(r.sorted + [d4]), dice: [d4] + r.sorted }",
]


@pytest.mark.parametrize("lifted", [True, False])
@pytest.mark.parametrize("body", SHAPES)
def test_a_list_with_a_die_is_counted_as_every_run(body, lifted, monkeypatch):
    monkeypatch.setattr(lists, "LIFTED", lifted)
    assert_counted_as_run(f"action act() {{\n  {body}\n}}\n", {})


REROLL = """
action act() {
  let r = DICE
  choose reroll "Reroll one die?" {
    option no
    option each d in r.sorted
  }
  let dice = if reroll = "no" then r.sorted else without(r.sorted, [reroll]) + [d6]
  result { raises: most_sets(dice, [7]), dice: dice }
}
"""


@pytest.mark.parametrize(("lifted", "any_steps"), [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("dice", ["2d6", "3d6"])
def test_the_best_reroll_is_the_oracles(dice, lifted, any_steps, monkeypatch):
    monkeypatch.setattr(lists, "LIFTED", lifted)
    monkeypatch.setattr(decide, "ANY_STEPS", any_steps)
    engine = Engine(dsl.load_text(REROLL.replace("DICE", dice)))
    sheet = engine.sheet({})
    odds = engine.odds("act", sheet, {}, "raises", best="mean raises")
    assert odds.exact and odds.omitted == 0
    mean = sum((o * p for o, p in odds.probabilities.items()), Fraction(0))

    def run(rolled, choose):
        return engine.run("act", sheet, {}, rolled, choices=choose).result

    best = optimal_play(run, lambda result: result["raises"])
    assert mean == best == odds.goal_worth
    whole = engine.odds("act", sheet, {}, best="mean raises")  # the dice reported too
    assert whole.goal_worth == best


TEN = REROLL.replace("DICE", "3d10").replace("[d6]", "[d10]").replace("[7]", "[10]")


@pytest.mark.parametrize("switch", [None, (lists, "LIFTED"), (decide, "ANY_STEPS")])
def test_the_reroll_of_three_d10_takes_less_work(switch, monkeypatch):
    # 2,414 units of work (the 7th Sea example's `act`, with three dice); each switch off:
    # 7,858 without the literal lifted (ten runs of the `let` per option, not one), 2,648
    # with the end of a run remembered by the steps counted before it too
    if switch is not None:
        monkeypatch.setattr(*switch, False)
    engine = Engine(dsl.load_text(TEN))
    ask = {"best": "mean raises", "budget": 2_500}
    if switch is not None:
        with pytest.raises(Exception, match="budget"):
            engine.odds("act", engine.sheet({}), {}, "raises", **ask)
        return
    odds = engine.odds("act", engine.sheet({}), {}, "raises", **ask)
    assert odds.exact and odds.goal_worth == Fraction(12629, 10000)


@pytest.mark.parametrize("steps", [19, 20, 25, 29, 30, 40])
def test_the_ends_remembered_whatever_the_steps_keep_the_step_limit(steps, monkeypatch):
    # near the limit, the rerolls (more steps before the same dice) stop at it where
    # leaving the dice does not: the ends remembered from no steps are not taken there
    answers = []
    for any_steps in (True, False):
        monkeypatch.setattr(decide, "ANY_STEPS", any_steps)
        engine = Engine(dsl.load_text(REROLL.replace("DICE", "3d6")), Limits(steps_per_run=steps))
        odds = engine.odds("act", engine.sheet({}), {}, best="mean raises")
        answers.append((odds.probabilities, odds.decisions, odds.goal_worth))
    assert answers[0] == answers[1]
