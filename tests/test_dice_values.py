"""Any value in any slot of a dice term (a fraction, a negative number, zero, written or
computed) gives a roll, odds, or the project's own error: never a Python exception
(`d(1.5)` was an AttributeError in the checker, `3d6kh(1.5)` a TypeError in the run)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsl.errors import RulebookError
from interpreter.dice import SeededDice
from interpreter.expression import roll
from interpreter.limits import Limits
from interpreter.odds import expression_odds

#: every slot of a term that takes a number, `{v}` where it goes
SLOTS = [
    "{v}d6",
    "d{v}",
    "{v}d{v}",
    "4d6kh{v}",
    "4d6kl{v}",
    "4d6dh{v}",
    "4d6dl{v}",
    "4d6k{v}",
    "3d6x{v}",
    "3d6x>={v}",
    "3d6xo={v}",
    "3d6!>{v}",
    "3d6!!={v}",
    "3d6!p>={v}",
    "3d6rr<={v}",
    "3d6ro={v}",
    "10d10cs>={v}",
    "10d10cf<={v}",
    "10d10cs>=6df={v}",
    "8d6min{v}",
    "8d6max{v}",
    "d{{1,2,3}}x={v}",
    "{{1d20, 1d20}}kh{v}",
    "{{4d6+3d8}}k{v}",
    "{{1d6, 2d6}}cs>={v}",
    "{{1d6, 2d6}}dl{v}",
]
#: values that are no whole number of dice, faces or kept dice; written, and computed
VALUES = ["(1.5)", "(1/2)", "(-1)", "(0)", "(-0.5)", "(3/2+1)", "(2-0.5)", "(0.0)", "(7/7)"]

LIMITS = Limits(odds_seconds=1)


def outcome(expression: str) -> str:
    """What rolling the expression gave: its total, or the kind of the project's error
    (any other exception fails the test)."""
    try:
        return str(roll(expression, SeededDice(7), LIMITS).total)
    except RulebookError as error:
        return type(error).__name__


@pytest.mark.parametrize("slot, value", list(itertools.product(SLOTS, VALUES)))
def test_any_value_in_any_slot_rolls_or_is_refused(slot, value):
    expression = slot.format(v=value)
    rolled = outcome(expression)
    try:
        odds = expression_odds(expression, limits=LIMITS, budget=20_000, trials=200)
    except RulebookError:
        odds = None
    # a term refused before it runs is refused by both: one checker says so for both
    if rolled in ("RulebookInvalid", "CheckError", "RulebookSyntaxError"):
        assert odds is None, expression


@pytest.mark.parametrize("expression", ["d(1.5)", "(1.5)d6", "4d6kh(1.5)", "{1d6, 2d6}kh(1/2)"])
def test_a_written_fraction_where_a_whole_number_goes_is_refused_at_it(expression):
    with pytest.raises(RulebookError) as caught:
        roll(expression, SeededDice(1))
    text = caught.value.render()
    assert "should be a whole number" in text
    assert "round it explicitly" in text


def test_a_negative_number_of_dice_to_keep_is_refused_where_written():
    # (it kept two of three dice, as if -1 were 2)
    with pytest.raises(RulebookError, match="cannot keep or drop -1 dice"):
        roll("3d6kh(-1)", SeededDice(1))


NUMBERS = st.one_of(
    st.integers(-3, 12).map(str),
    st.fractions(min_value=-3, max_value=12, max_denominator=4).map(lambda f: f"({f})"),
    st.decimals(min_value=-3, max_value=12, places=1).map(str),
)


@settings(max_examples=80)
@given(st.sampled_from(SLOTS), NUMBERS)
def test_generated_values_in_generated_slots(slot, number):
    outcome(slot.format(v=f"({number})"))
