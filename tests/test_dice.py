"""Dice: every notation form with forced dice, the three sources, and the limits."""

from __future__ import annotations

from fractions import Fraction

import pytest

from interpreter import (
    DiceError,
    EvaluationError,
    ForcedDice,
    LimitExceeded,
    Limits,
    SeededDice,
    TypedDice,
    roll,
)


def forced(expression, *faces, **kw):
    return roll(expression, ForcedDice(faces), **kw)


@pytest.mark.parametrize(
    "expression, faces, total, detail",
    [
        ("d6", [4], 4, "d6 [4] = 4"),
        ("3d6", [1, 2, 3], 6, "3d6 [1, 2, 3] = 6"),
        ("d%", [73], 73, "d% [73] = 73"),
        ("4dF", [-1, 0, 1, 1], 1, "4dF [-1, 0, 1, 1] = 1"),
        ("4d6kh3", [6, 5, 3, 1], 14, "4d6kh3 [6, 5, 3, ~~1~~] = 14"),
        ("4d6k", [2, 6, 5, 6], 6, "4d6k [~~2~~, 6, ~~5~~, ~~6~~] = 6"),
        ("4d6kl2", [6, 5, 3, 1], 4, "4d6kl2 [~~6~~, ~~5~~, 3, 1] = 4"),
        ("4d6dh1", [6, 5, 3, 1], 9, "4d6dh1 [~~6~~, 5, 3, 1] = 9"),
        ("4d6dl1", [6, 5, 3, 1], 14, "4d6dl1 [6, 5, 3, ~~1~~] = 14"),
        ("3d6x", [6, 2, 3, 4], 15, "3d6x [6!, 4, 2, 3] = 15"),
        ("2d6x", [6, 6, 1, 2], 15, "2d6x [6!, 1, 6!, 2] = 15"),
        ("2d6x>=5", [5, 2, 1], 8, "2d6x>=5 [5!, 1, 2] = 8"),
        ("2d6xo", [6, 6, 6, 6], 24, "2d6xo [6!, 6, 6!, 6] = 24"),
        ("2d6rr<=2", [1, 2, 5, 3], 8, "2d6rr<=2 [~~1~~, 5, ~~2~~, 3] = 8"),
        ("2d6rr<=2", [1, 4, 2, 1, 6], 10, "2d6rr<=2 [~~1~~, ~~2~~, ~~1~~, 6, 4] = 10"),
        ("2d6ro=1", [1, 3, 1], 4, "2d6ro=1 [~~1~~, 1, 3] = 4"),
        (
            "10d10cs>=6df=1",
            [6, 7, 1, 1, 2, 3, 10, 9, 5, 1],
            1,
            "10d10cs>=6df=1 [6, 7, 1, 1, 2, 3, 10, 9, 5, 1] = 1",
        ),
        ("5d10cs>7", [8, 7, 10, 2, 9], 3, "5d10cs>7 [8, 7, 10, 2, 9] = 3"),
        (
            "8d6x=6kh3",
            [6, 1, 2, 3, 4, 5, 6, 2, 1, 3],
            17,
            "8d6x=6kh3 [6!, ~~1~~, ~~1~~, ~~2~~, ~~3~~, ~~4~~, 5, 6!, ~~3~~, ~~2~~] = 17",
        ),
    ],
)
def test_notation_with_forced_dice(expression, faces, total, detail):
    result = forced(expression, *faces)
    assert result.total == total
    assert list(result.dice) == faces
    assert result.detail == detail


def test_explosion_chains_are_drawn_die_by_die():
    # 2d6x with 6, 6 then 6, 1, 2: the first die's chain (6 → 6 → 1) comes before the
    # second die's extra (6 → 2).
    result = forced("2d6x", 6, 6, 6, 1, 2)
    assert result.detail == "2d6x [6!, 6!, 1, 6!, 2] = 21"


def test_arithmetic_is_exact():
    assert forced("(2+1)d6 / 2", 1, 2, 4).total == Fraction(7, 2)
    assert forced("d6 * 3 - 2", 5).total == 13
    assert forced("-d6 + 10", 4).total == 6
    assert forced("floor(d6 / 4) + ceil(d6 / 4)", 5, 5).total == 3


@pytest.mark.parametrize(
    "expression, total",
    [
        ("round(5 / 2)", 3),
        ("round(-5 / 2)", -3),
        ("round(7 / 3)", 2),
        ("abs(-4)", 4),
        ("min(3, 1, 2)", 1),
        ("max(3, 1, 2)", 3),
        ("floor(-7 / 2)", -4),
        ("ceil(-7 / 2)", -3),
    ],
)
def test_functions(expression, total):
    assert roll(expression, ForcedDice([])).total == total


def test_counts_and_faces_may_be_expressions():
    assert forced("(1+2)d(2*3)", 1, 2, 6).total == 9
    assert forced("4d6kh(1+1)", 1, 2, 3, 4).total == 7


def test_seeded_dice_repeat_exactly():
    first = roll("10d10 + 4d6kh3", SeededDice(42))
    again = roll("10d10 + 4d6kh3", SeededDice(42))
    assert (first.total, first.dice, first.detail) == (again.total, again.dice, again.detail)
    assert roll("10d10", SeededDice(43)).dice != first.dice[:10]


def test_seeded_dice_are_the_documented_generator():
    # MT19937 read through getrandbits with rejection sampling (dice.py's docstring).
    import random

    bits = random.Random(7).getrandbits
    expected = []
    while len(expected) < 5:
        r = bits(3)
        if r < 6:
            expected.append(r + 1)
    assert list(roll("5d6", SeededDice(7)).dice) == expected


def test_forced_dice_name_what_is_wrong():
    with pytest.raises(DiceError, match="forced value 1 is 7, which is not a face of d6"):
        forced("d6", 7)
    with pytest.raises(DiceError, match=r"die 3 \(d6\) is needed, but only 2"):
        forced("3d6", 1, 2)
    with pytest.raises(DiceError, match=r"1 forced value left over.*value 3 \(5\)"):
        forced("2d6", 1, 2, 5)
    with pytest.raises(DiceError, match="not a face of dF"):
        forced("dF", 2)
    with pytest.raises(DiceError) as caught:  # a d100's 00, a d10's 0: typed 100 and 10
        forced("d100", 0)
    assert caught.value.hint == "the d100's 0 is typed 100"
    with pytest.raises(DiceError) as caught:
        forced("d6", 0)
    assert caught.value.hint is None


def test_typed_dice_are_asked_for_in_draw_order():
    asked = []

    def ask(die, position):
        asked.append((die.label, position))
        return {1: 6, 2: 3, 3: 2}[position]

    result = roll("2d6x", TypedDice(ask))
    assert asked == [("d6", 1), ("d6", 2), ("d6", 3)]
    assert result.total == 11 and result.origin == "typed"
    with pytest.raises(DiceError, match="9 is not a face of d6"):
        roll("d6", TypedDice(lambda die, position: 9))


def test_a_billion_dice_fail_at_once():
    with pytest.raises(LimitExceeded, match="dice_per_term") as error:
        roll("1000000000d6", SeededDice(1))
    assert error.value.span.text == "1000000000d6"
    assert error.value.exit_code == 4


def test_limits_an_app_chooses():
    tight = Limits(dice_per_term=5, extra_per_die=2, dice_per_evaluation=8)
    with pytest.raises(LimitExceeded, match="dice_per_term"):
        roll("6d6", SeededDice(1), tight)
    with pytest.raises(LimitExceeded, match="extra_per_die"):
        roll("d6x", ForcedDice([6, 6, 6, 1]), tight)
    with pytest.raises(LimitExceeded, match="dice_per_evaluation"):
        roll("5d6 + 5d6", SeededDice(1), tight)
    assert roll("d6x", ForcedDice([6, 6, 1]), tight).total == 13


def test_a_condition_every_face_meets_would_never_end():
    with pytest.raises(EvaluationError, match="would never end"):
        roll("d6x>=1", SeededDice(1))
    with pytest.raises(EvaluationError, match="would never end"):
        roll("d6rr<7", SeededDice(1))
    assert roll("d1xo", ForcedDice([1, 1])).total == 2  # once is fine


def test_negative_and_fractional_counts_are_refused():
    with pytest.raises(EvaluationError, match="cannot roll -1 dice"):
        roll("(0-1)d6", SeededDice(1))
    with pytest.raises(EvaluationError, match="whole number"):
        roll("(3/2)d6", SeededDice(1))
    with pytest.raises(EvaluationError, match="division by zero") as error:
        roll("d6 / (d6 - d6)", ForcedDice([1, 2, 2]))
    assert error.value.span.text == "/"


def test_zero_dice_and_one_face():
    assert roll("0d6", ForcedDice([])).total == 0
    assert roll("3d1", ForcedDice([1, 1, 1])).total == 3
