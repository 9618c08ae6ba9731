"""An answer's mean and standard deviation as shown: exact digits at any size, no overflow.

Outcomes may have up to a thousand digits (limit number_digits). A float holds 17
significant digits and overflows past 1.8e308, so the spread is rounded from whole
numbers: shown digits are the true ones, and a 779-digit outcome still has a spread.
"""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.cli import main
from interpreter.odds import expression_odds


def _true_spread(faces: list[Fraction]) -> tuple[Decimal, Decimal]:
    """The mean (a half to even) and the standard deviation (a half up) of equally
    likely faces, to 4 decimals, by Decimal arithmetic at 3,000 digits."""
    mean = sum(faces) / len(faces)
    variance = sum((f - mean) ** 2 for f in faces) / len(faces)
    with localcontext() as context:
        context.prec = 3000
        root = (Decimal(variance.numerator) / Decimal(variance.denominator)).sqrt()
        shown_mean = Decimal(mean.numerator) / Decimal(mean.denominator)
        four = Decimal("0.0001")
        return shown_mean.quantize(four), root.quantize(four, rounding=ROUND_HALF_UP)


def test_the_mean_of_a_hundred_digit_outcome_shows_its_true_digits(capsys):
    # a float showed ...069164409192448.0000, its last 60 digits made up
    mean, stdev = _true_spread([Fraction(k**100) for k in range(1, 7)])
    assert main(["odds", "d6 ** 100"]) == 0
    shown = capsys.readouterr().out
    assert f"mean {mean}, standard deviation {stdev}" in shown
    assert str(mean).endswith("349024459.1667")


def test_a_seven_hundred_digit_outcome_has_a_spread_in_text_and_json(capsys):
    # 6 ** 1000 has 779 digits: past a float's range, it raised OverflowError before
    mean, stdev = _true_spread([Fraction(k**1000) for k in range(1, 7)])
    assert main(["odds", "d6 ** 1000"]) == 0
    assert f"mean {mean}, standard deviation {stdev}" in capsys.readouterr().out
    assert main(["odds", "d6 ** 1000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert Fraction(data["mean"]) == Fraction(sum(k**1000 for k in range(1, 7)), 6)  # exact
    assert abs(data["stdev"] - stdev) <= 1  # the whole number nearest (JSON has no infinity)
    assert expression_odds("d6 ** 1000").stdev == math.inf


def test_spanish_writes_the_spread_with_decimal_commas(capsys):
    assert main(["--lang", "es", "odds", "d6 / 7"]) == 0
    assert "media 0,5000, desviación típica 0,2440" in capsys.readouterr().out


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 12),
    st.integers(-(10**40), 10**40),
    st.integers(1, 9),
    st.integers(-(10**40), 10**40),
)
def test_the_spread_is_the_true_spread_rounded(sides, times, over, plus):
    odds = expression_odds(f"d{sides} * {times} / {over} + {plus}")
    faces = [Fraction(k * times, over) + plus for k in range(1, sides + 1)]
    assert odds.spread() == _true_spread(faces)
