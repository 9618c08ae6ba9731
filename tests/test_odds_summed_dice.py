"""`sum(highest(r, n))` and `sum(lowest(r, n))` asked of a pool as one number (Summed):
exact against every roll, and the fast path's switch tested (issue 24: the wording of a
roll and keep must not decide whether there is an answer)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle import assert_counted_as_run

import dsl
import interpreter.compile.pools as pools
import interpreter.odds.multiset as multiset
import interpreter.odds.remembered as remembered
from interpreter import Engine
from interpreter.odds import expression_odds

#: a kept window inside the kept dice, a bound pool and a term written in place
KEPT = """
rulebook "Kept" { }
action act() "Act" {
  let d = 4d4kh3
  result { top: sum(highest(d, 2)), low: sum(lowest(d, 2)), all: d,
           inline: sum(highest(3d3, 2)) }
}
"""


def test_sums_of_the_highest_and_lowest_agree_with_every_roll():
    assert_counted_as_run(KEPT, {})


@pytest.mark.parametrize("wording", ["let k = sum(highest(d, Ring))", "let k = d"])
def test_roll_and_keep_worded_either_way_gives_one_answer(wording):
    """L5R: Ring + 2 compounding d10, the Ring highest kept; `kh(Ring)` and the sum of
    `highest(d, Ring)` are the same rule, and the same exact answer."""
    keep = "kh(Ring)" if wording.endswith("= d") else ""
    text = (
        'rulebook "L5R" { }\nsheet { counter Ring in 1..6 default 3 }\n'
        f'action act() "Roll" {{\n  let d = (Ring + 2)d10!!{keep}\n  {wording}\n'
        "  result { success: k >= 20 }\n}\n"
    )
    engine = Engine(dsl.load_text(text))
    odds = engine.odds("act", engine.sheet({}), {}, "success", budget=200_000)
    assert odds.exact and odds.omitted < 1e-12
    assert abs(odds.probability(True) - 0.717940) < 1e-6


#: four compounding d6, the two highest added up: 126 faces a die, a sum (not the
#: 126 × 126 pairs of faces) counted
FOUR = 'rulebook "S" { }\naction act() { let d = 4d6!!\n result { k: sum(highest(d, 2)) } }'


@pytest.mark.parametrize("summed", [True, False])
def test_a_sum_of_the_highest_is_one_question_within_a_small_budget(monkeypatch, summed):
    monkeypatch.setattr(pools, "SUMMED", summed)
    engine = Engine(dsl.load_text(FOUR))
    odds = engine.odds("act", engine.sheet({}), {}, "k", budget=5_000, trials=20)
    assert odds.exact is summed


@pytest.mark.parametrize("filling", [True, False])
def test_the_lowest_dice_stop_the_walk_once_seen(monkeypatch, filling):
    """`lowest(12d20, 2)`: once two dice are placed, the higher faces change nothing and
    the dice left take their weight at once (a term: about 60,000 units of work, 360,000
    without; budget 1,500 gives it 150,000)."""
    monkeypatch.setattr(multiset, "FILLING", filling)
    monkeypatch.setattr(remembered, "_counted", {})  # (a term's answers are remembered)
    odds = expression_odds("lowest(12d20, 2)", budget=1_500, trials=20)
    assert odds.exact is filling
    if filling:  # the two lowest of twelve d20 both 20: every die a 20
        assert odds.probability((20, 20)) == Fraction(1, 20**12)


#: how many dice a pool kept, read as the length of its dice: a kept pool, and an
#: exploding one (Shadowrun's glitch: more than half the dice show 1)
SIZED = """
rulebook "Sized" { }
action act() "Act" {
  let d = 4d4kh3
  let e = 6d6x
  result { kept: size(d.sorted) + size(d.kept), glitch: count(e, 1) > floor(size(e.sorted) / 2) }
}
"""


def test_the_number_of_dice_kept_agrees_with_every_roll():
    assert_counted_as_run(SIZED.replace("6d6x", "2d3"), {})


@pytest.mark.parametrize("sized", [True, False])
def test_the_length_of_a_pools_dice_is_one_count_within_a_small_budget(monkeypatch, sized):
    """`size(e.sorted)` of six exploding d6 is how many dice there are, one count: the
    whole list of them (every multiset of six chains) is past a budget the count is in."""
    monkeypatch.setattr(pools, "SIZED", sized)
    monkeypatch.setattr(remembered, "_counted", {})
    engine = Engine(dsl.load_text(SIZED))
    odds = engine.odds("act", engine.sheet({}), {}, "glitch", budget=2_000, trials=20)
    assert odds.exact is sized
    if sized:  # the same answer as the dice counted whatever their face
        counted = SIZED.replace("size(e.sorted)", "count(e, 1..)")
        other = Engine(dsl.load_text(counted))
        expected = other.odds("act", other.sheet({}), {}, "glitch")
        assert odds.probabilities == expected.probabilities
