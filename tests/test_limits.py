"""The roller and the odds engine agree at the roller's limit (extra_per_die).

A die that would explode or be rerolled more often, or a roll procedure that would go on
longer, makes the real roller fail; the odds engine counts that failure as an outcome of
its own, with its exact chance, and never lists what the roller cannot reach. Each
modifier is tested at a small limit against every sequence of draws of the real roller,
and the issue's cases at the default limit against their closed forms."""

from __future__ import annotations

from fractions import Fraction

import attrs
import pytest

import dsl
from interpreter import Engine, Limits, SeededDice, roll
from interpreter.errors import ChainTooLong
from interpreter.odds import Failure, expression_odds


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("1d4x", 2),  # explode on the top face
        ("2d3x>=2", 2),
        ("1d4x=1", 3),
        ("2d3xo", 0),  # once, but the limit allows no extra die at all
        ("1d4rr<=2", 2),  # reroll while
        ("1d3rr>=2", 3),
        ("2d3ro=1", 0),
        ("2d3ro=1", 1),
        ("3d3x>=2kh2", 2),  # explosions, then keeps
        ("2d3rr=1kh1", 1),  # rerolls, then keeps
        ("3d3kh2x", 1),  # keeps, then explosions of the kept dice only
        ("2d3x>=2cs>=3", 2),  # explosions counted as successes
        ("2d4x=4rr=1", 2),  # two chains, one after the other
        ("1d4!", 2),  # Roll20's spellings: explode on the top face
        ("2d3!>2", 1),  # ... on 2 or more (Roll20's > is >=)
        ("1d4!!", 2),  # compounding: the chain adds to one die
        ("1d3!!>2", 1),
        ("1d4!p", 2),  # penetrating: each extra die one less
        ("2d3!p>2", 1),
        ("2d4min3x=3", 2),  # a die raised by min explodes
        ("{1d3x+1, 1d3}kh1", 1),  # a group whose roll may fail
    ],
)
def test_each_modifier_at_its_limit_is_what_the_roller_does(every_draw, text, limit):
    limits = attrs.evolve(Limits(), extra_per_die=limit)
    odds = expression_odds(text, limits=limits)
    expected = every_draw(text, limits)
    assert odds.exact and odds.omitted == 0
    assert odds.probabilities == expected, text
    once_within = "o" in text and limit >= 1  # one extra die is within any limit but 0
    assert any(isinstance(o, Failure) for o in expected) != once_within


def test_a_reroll_past_the_default_limit_fails_as_often_as_the_roller_does():
    odds = expression_odds("1d20rr<20")
    failing = Fraction(19, 20) ** 101  # the die and its 100 rerolls all below 20
    message = "a die was rerolled more than 100 times (limit extra_per_die)"
    assert odds.probabilities == {20: 1 - failing, Failure(message): failing}
    # and the roller: 20,000 seeds fail about 112 times
    fails = 0
    for seed in range(20_000):
        try:
            roll("1d20rr<20", SeededDice(seed))
        except ChainTooLong:
            fails += 1
    expected = 20_000 * float(failing)
    assert abs(fails - expected) < 4 * (expected**0.5)


def test_explosions_never_go_past_what_the_roller_can_reach():
    odds = expression_odds("d10x>=2")
    failing = Fraction(9, 10) ** 101
    assert odds.probability(Failure("a die exploded more than 100 times (limit extra_per_die)"))
    assert (
        odds.probabilities[Failure("a die exploded more than 100 times (limit extra_per_die)")]
        == failing
    )
    totals = [o for o in odds.probabilities if not isinstance(o, Failure)]
    assert max(totals) <= 10 * 101  # at most 101 dice: the die and its 100 extras
    assert sum(odds.probabilities.values()) == 1


def test_a_limit_below_epsilon_is_not_counted():
    # a d6 rerolled while it shows 1 fails with (1/6)^101: far below epsilon
    odds = expression_odds("1d6rr=1")
    assert odds.probabilities == {f: Fraction(1, 5) for f in range(2, 7)}


PROCEDURE = """
rulebook "Open" { system "test" }
roll open = d4 then {
  on die = 4: add d4, again while die >= 3
}
"""


@pytest.mark.parametrize("limit", [0, 1, 2, 3])
def test_a_roll_procedure_at_the_limit(every_draw, limit):
    limits = attrs.evolve(Limits(), extra_per_die=limit)
    engine = Engine(dsl.load_text(PROCEDURE, "open.rules"), limits)
    sheet = engine.sheet({})
    odds = engine.odds("open", sheet, {})
    procedure = engine.compiler.roll_definition("open")

    def run(roller):
        return procedure.call(engine.context(roller, sheet), ()).total

    expected = every_draw(run, limits)
    assert odds.exact and odds.probabilities == expected


def test_the_pool_questions_of_a_term_that_may_fail(every_draw):
    limits = attrs.evolve(Limits(), extra_per_die=2)
    odds = expression_odds("count(3d4rr<=2, 3)", limits=limits)
    expected = every_draw("count(3d4rr<=2, 3)", limits)
    assert odds.probabilities == expected
