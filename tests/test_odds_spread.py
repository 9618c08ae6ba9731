"""An answer's mean and standard deviation as shown: exact digits at any size, no overflow.

Outcomes may have up to a thousand digits (limit number_digits). A float holds 17
significant digits and overflows past 1.8e308, so the spread is rounded from whole
numbers: shown digits are the true ones, and a 779-digit outcome still has a spread.
"""

from __future__ import annotations

import csv
import json
import math
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.cli import main
from interpreter.lsp.hover import _number as hover_number
from interpreter.odds import expression_odds
from interpreter.values import rounded


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


HUGE = """rulebook "Huge" { }

action boosted() "Boosted" {
  let r = 1d6
  choose boost "Boost?" {
    option small
    option large
  }
  result { damage: if boost = "large" then r ** 400 * 2 else r ** 400 }
}

action times(p: int = 1) "Times" {
  result { damage: 1d6 ** 400 * p }
}
"""


def test_best_play_sweeps_and_hovers_of_a_huge_mean_raise_nothing(tmp_path, capsys):
    rules = tmp_path / "huge.rules"
    rules.write_text(HUGE, encoding="utf-8")
    mean = Fraction(sum(k**400 for k in range(1, 7)), 6)  # 312 digits
    assert main(["odds", str(rules), "boosted", "--best", "mean (damage + 1)"]) == 0
    assert f"(worth {rounded(2 * mean + 1)} = {2 * mean + 1})" in capsys.readouterr().out
    out = tmp_path / "sweep.csv"
    argv = ["sweep", str(rules), "times", "--field", "damage", "--param", "p=1,2"]
    assert main([*argv, "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [Fraction(r["mean"]) for r in rows] == [mean, 2 * mean]
    assert [r["mean float"] for r in rows] == ["", ""]  # no float holds it
    third = Fraction(10**400 + 1, 3)
    assert hover_number(third, "es") == f"{'3' * 400},667 ({third})"
