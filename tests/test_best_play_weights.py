"""The best play over worlds keeps its tables of outcomes in whole-number weights
(interpreter.odds.decide.WEIGHTS): Fractions are made once per outcome at the end, not per
outcome of every option of every world; the answers the same as with Fractions throughout
and as the search run by run."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from interpreter import Engine
from interpreter.odds import decide

# a die rerolled, with a goal on a field, its mean, and an expression of the sheet
REROLL = """
sheet { resource Luck max 5 }
action act() {
  let r = 3d6
  choose reroll "Reroll one die?" {
    option no
    option each d in r.sorted cost 1 from Luck
  }
  let dice = if reroll = "no" then r.sorted else without(r.sorted, [reroll]) + [d6]
  let t = sum(dice)
  result { high: t >= 13, total: t }
}
"""
GOALS = ["high", "mean total", "total=12", "mean total/2 + left(Luck)"]


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load_text(REROLL, "weights.rules"))


def answer(engine, goal, field="total", **kwargs):
    odds = engine.odds("act", engine.sheet({"Luck": 2}), {}, field, best=goal, **kwargs)
    assert odds.exact
    return odds.probabilities, odds.decisions, odds.goal_worth


def test_the_search_makes_a_fraction_per_outcome_only(engine, monkeypatch):
    # 3d6 sorted: 56 worlds at the choice, up to 4 options each, 6 ends per reroll; with
    # WEIGHTS off a Fraction is made per world's weight and per end (hundreds)
    made = []

    def counted(weight):
        made.append(weight)
        return Fraction(*weight)

    ends = []
    outcomes = decide.WorldSearch.outcomes

    def kept(self):
        found = outcomes(self)
        ends.append(len(found))
        return found

    monkeypatch.setattr(decide, "fraction", counted)
    monkeypatch.setattr(decide.WorldSearch, "outcomes", kept)
    answer(engine, "mean total", field=None)
    assert ends == [len(made)] and len(made) < 60  # (field, goal, choices made): 49


@pytest.mark.parametrize("goal", GOALS)
def test_weights_and_fractions_and_runs_agree(engine, monkeypatch, goal):
    weighed = answer(engine, goal)
    monkeypatch.setattr(decide, "WEIGHTS", False)
    assert answer(engine, goal) == weighed

    def nested(self):
        raise decide.Nested

    monkeypatch.setattr(decide.WorldSearch, "outcomes", nested)  # run by run
    assert answer(engine, goal, budget=10**6) == weighed
