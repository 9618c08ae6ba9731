"""A range with both ends gives its whole numbers to `for each` and `option each`, in a
run and in the odds; an open end, a fraction and a range longer than a list may be are
said as the project's errors (a fraction once raised Python's TypeError)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, EvaluationError, ForcedDice, LimitExceeded

BOOK = """
rulebook "Ranges" { language "en" }

action dice_in_turn(n: int = 3) "Dice in turn" {
  let total = 0
  for each i in 1..n { set total to total + i * d4 }
  result { total: total }
}

action halves(n: int = 5) "Halves" {
  let high = n / 2
  let seen = []
  for each i in 1..high { set seen to seen + [i] }
  choose pick "Which?" {
    option each k in 1..high
  }
  result { seen: seen, pick: pick }
}

action open_end(n: int = 3) "Open" {
  let r = ..n
  let passes = 0
  for each i in r { set passes to passes + 1 }
  result { passes: passes }
}
"""


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load_text(BOOK, "ranges.rules"))


def test_a_loop_over_a_range_runs_once_per_whole_number(engine):
    outcome = engine.run("dice_in_turn", engine.sheet({}), {"n": 3}, ForcedDice([4, 1, 2]))
    assert outcome.result["total"] == 1 * 4 + 2 * 1 + 3 * 2
    empty = engine.run("dice_in_turn", engine.sheet({}), {"n": 0}, ForcedDice([]))
    assert empty.result["total"] == 0


def test_a_loop_over_a_range_has_exact_odds(engine):
    odds = engine.odds("dice_in_turn", engine.sheet({}), {"n": 2}, "total")
    by_total: dict = {}
    for first in range(1, 5):
        for second in range(1, 5):
            total = first + 2 * second
            by_total[total] = by_total.get(total, 0) + Fraction(1, 16)
    assert odds.exact and odds.probabilities == by_total


def test_a_fraction_end_gives_the_whole_numbers_within(engine):
    outcome = engine.run("halves", engine.sheet({}), {"n": 5}, ForcedDice([]), choices={"pick": 2})
    assert outcome.result["seen"] == (1, 2) and outcome.result["pick"] == 2


def test_an_open_end_is_refused_before_the_run():
    text = BOOK.replace("let r = ..n\n  let passes = 0\n  for each i in r", "for each i in ..n")
    with pytest.raises(RulebookError, match=r"goes over a range with both ends \(1\.\.n\)"):
        dsl.load_text(text, "open.rules")


def test_an_option_each_over_an_open_range_is_refused_before_the_run():
    text = 'rulebook "O" { }\naction a() {\n  choose c "?" {\n    option each k in 2..\n  }\n}\n'
    with pytest.raises(RulebookError, match=r"offers a range with both ends \(1\.\.n\)"):
        dsl.load_text(text, "open.rules")


def test_an_open_end_met_in_the_run_is_an_evaluation_error(engine):
    with pytest.raises(EvaluationError, match=r"a list or a range with both ends, not \.\.3"):
        engine.run("open_end", engine.sheet({}), {"n": 3}, ForcedDice([]))


def test_a_range_longer_than_a_list_may_be_is_a_limit(engine):
    with pytest.raises(LimitExceeded, match="a range of more than 10000 whole numbers"):
        engine.run("dice_in_turn", engine.sheet({}), {"n": 10**9}, ForcedDice([]))
