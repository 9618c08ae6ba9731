"""A resource's bound that divides without rounding is warned about (`/` is exact:
`max T / 10 * 2` gives a Toughness of 38 a maximum of 38/5 wounds)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from interpreter import Engine


def _warnings(bound: str) -> list:
    text = f"sheet {{\n  attribute T in 1..100\n  resource Wounds max {bound}\n}}\n"
    return list(dsl.load_text(text, "w.rules").warnings)


@pytest.mark.parametrize("bound", ["T / 10 * 2", "(T + 1) / 3", "7 / 2 + T", "max(T / 4, 2)"])
def test_a_bound_that_may_hold_a_fraction_is_warned(bound):
    (warning,) = _warnings(bound)
    assert "`/` is exact: Wounds may hold a fraction" in warning.message
    assert "floor(...)" in warning.hint
    assert warning.span.end - warning.span.start == 1  # (at the `/`)


@pytest.mark.parametrize(
    "bound", ["floor(T / 10) * 2", "ceil(T / 3)", "round(T / 2) + 1", "10 / 2 + T", "T * 2"]
)
def test_a_rounded_or_whole_bound_is_not(bound):
    assert _warnings(bound) == []


def test_the_fraction_the_warning_is_about():
    text = "sheet {\n  attribute T in 1..100\n  resource Wounds max T / 10 * 2\n}\n"
    engine = Engine(dsl.load_text(text, "w.rules"))
    assert engine.sheet({"T": 38}).values["Wounds"] == Fraction(38, 5)


@pytest.mark.parametrize(
    ("statement", "column"),
    [("lose n + S / 10 - T / 10 from Wounds", 14), ("gain n / 2 to Wounds", 10)],
)
def test_an_amount_that_may_be_a_fraction_is_warned_at_its_first_slash(statement, column):
    """`lose net + S / 10 from Wounds` stops a run with 17/10 to lose: warned at the
    first `/` written, once."""
    text = (
        "sheet {\n  attribute S, T in 1..100\n  resource Wounds max 20\n}\n"
        f"action a(n: int) {{\n  {statement}\n}}\n"
    )
    (warning,) = dsl.load_text(text, "w.rules").warnings
    assert "may be a fraction, which stops the run" in warning.message
    assert (warning.span.line, warning.span.column) == (6, column)
    rounded = statement.replace("S / 10", "floor(S / 10)").replace("T / 10", "floor(T / 10)")
    assert not dsl.load_text(
        text.replace(statement, rounded.replace("n / 2", "ceil(n / 2)")), "w.rules"
    ).warnings
