"""The best play's bounds (issue 24): counted work decides whether it finishes, whatever the
clock says, and `--budget` and `--timeout` govern it both ways (a bound raised lets it
finish, not only a bound lowered stops it), over worlds (a `choose` of the body itself,
interpreter.odds.decide) and run by run (a `choose` in a loop, interpreter.odds.best_play).

Each book's EDGE is the work its best play takes (units: interpreter.odds.roller): with
that budget it is exact, with one unit less it is refused, naming `--budget`."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from interpreter import Engine
from interpreter.cli import main
from interpreter.errors import EvaluationError
from interpreter.odds import budget, decide
from interpreter.odds.compute import BUDGET

LOOP = """
sheet { resource Might max 30 }
action lift() {
  let t = 0
  repeat 2 times {
    let r = d6 + 0
    choose effort "Effort?" {
      option 0
      option 1 cost 1 from Might { set r to r + 2 }
    }
    set t to t + r
  }
  result { success: t >= 9 }
}
"""

TOP = """
sheet { resource Might max 30 }
action lift() {
  let r = 2d6 + 0
  choose effort "Effort?" {
    option 0
    option 1 cost 1 from Might { set r to r + d6 }
  }
  let s = r + d6
  result { success: s >= 12 }
}
"""

GOAL = "success - spent(Might)/10"

#: (book, the work its best play takes, its chance of success, over worlds or not)
CASES = {
    "loop": (LOOP, 235, Fraction(5, 6), False),
    "top": (TOP, 297, Fraction(493, 648), True),
}


def best(text: str, budget: int, **options):
    engine = Engine(dsl.load_text(text))
    sheet = engine.sheet({"Might": 30})
    return engine.odds("lift", sheet, {}, "success", best=GOAL, budget=budget, **options)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("step", [0.0, 0.001])
def test_counted_work_decides_whatever_the_clock(case, step, counted_clock, monkeypatch):
    # a clock that never moves, or one that moves at each look: the same answer, the same
    # edge (a clock is only the safety stop)
    text, edge, success, over_worlds = CASES[case]
    counted_clock.step = step
    searched = []  # the search over worlds answered (else it gave way to the run by run)
    outcomes = decide.WorldSearch.outcomes

    def answered(self):
        found = outcomes(self)
        searched.append(1)
        return found

    monkeypatch.setattr(decide.WorldSearch, "outcomes", answered)
    odds = best(text, edge)
    assert odds.exact and odds.probabilities[True] == success
    with pytest.raises(EvaluationError, match="more work than the budget") as refused:
        best(text, edge - 1)
    hint = str(refused.value.hint)  # (as a Python caller writes it: the CLI's is below)
    assert "budget=N" in hint and "--" not in hint and "seconds=" not in hint
    assert bool(searched) == over_worlds


@pytest.mark.parametrize("case", CASES)
def test_the_budget_governs_best_play_both_ways(case, tmp_path, capsys):
    text, edge, _, _ = CASES[case]
    path = tmp_path / "lift.rules"
    path.write_text(text, encoding="utf-8")
    argv = ["odds", str(path), "lift", "--field", "success", "--best", GOAL]
    assert main([*argv, "--budget", str(edge)]) == 0
    assert "choosing the best for" in capsys.readouterr().out
    assert main([*argv, "--budget", str(edge - 1)]) == 4
    assert "--budget N" in capsys.readouterr().err


@pytest.mark.parametrize("case", CASES)
def test_the_timeout_governs_best_play_both_ways(case, tmp_path, capsys, counted_clock):
    # every look at the clock a second: the safety stop of the default budget
    # (interpreter.odds.budget: 30 s) stops it (the hint names --timeout), and --timeout
    # 1000 lets it finish, exactly
    text, edge, success, _ = CASES[case]
    counted_clock.step = 1.0
    path = tmp_path / "lift.rules"
    path.write_text(text, encoding="utf-8")
    argv = ["odds", str(path), "lift", "--field", "success", "--best", GOAL]
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert "--timeout SECONDS" in err and "--budget" not in err
    assert main([*argv, "--timeout", "1000"]) == 0
    assert "(exact" in capsys.readouterr().out
    # (the case does take more looks than the default allows)
    assert edge * counted_clock.step > BUDGET * budget.SAFETY_SECONDS_PER_UNIT
    assert best(text, edge, seconds=1000).probabilities[True] == success


REROLL = """
action act() {
  let r = 3d10
  choose reroll "Reroll one die?" {
    option no
    option each d in r.sorted
  }
  let dice = if reroll = "no" then r.sorted else without(r.sorted, [reroll]) + [d10]
  result { raises: most_sets(dice, [10]) }
}
"""


def reroll_odds(budget: int):
    engine = Engine(dsl.load_text(REROLL))
    return engine.odds("act", engine.sheet({}), {}, "raises", best="mean raises", budget=budget)


def test_the_options_that_come_to_the_same_dice_end_once():
    # a die rerolled out of one pool or out of another, the same dice left: the run's end
    # is the same, run once (decide.ENDS): 2,414 units of work so, 7,907 without
    odds = reroll_odds(10_000)
    assert odds.exact and odds.goal_worth == Fraction(12629, 10000)


@pytest.mark.parametrize("ends", [True, False])
def test_the_ends_remembered_change_no_answer(ends, monkeypatch):
    monkeypatch.setattr(decide, "ENDS", ends)
    odds = reroll_odds(10**5)
    assert odds.exact and odds.goal_worth == Fraction(12629, 10000)
