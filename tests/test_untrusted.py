"""Issue 9's attacks, one test each: every one ends in the project's own error, with its place."""

from __future__ import annotations

import pytest

import dsl
from interpreter import Engine, LimitExceeded, Limits, SeededDice


def engine_of(text: str, limits: Limits | None = None) -> Engine:
    book = dsl.load_text(text, "attack.rules")
    return Engine(book, limits) if limits is not None else Engine(book)


def run(text: str, action: str, params=None, limits=None, sheet=None):
    engine = engine_of(text, limits)
    return engine.run(action, engine.sheet(sheet or {}), params or {}, SeededDice(1))


def raises_at(error_type, text, action, limit, where, **options):
    with pytest.raises(error_type, match=limit) as caught:
        run(text, action, **options)
    error = caught.value
    assert error.span is not None and error.span.location() == where, error.render()
    assert "^" in error.render()
    return error


# ─── 1. values have a size bound ────────────────────────────────────────────


def test_a_number_squared_again_and_again_stops_at_number_digits():
    text = (
        "action grow() { let a = 2  repeat 1000 times { set a to a * a }  result { big: a > 0 } }"
    )
    raises_at(LimitExceeded, text, "grow", "number_digits", "attack.rules:1:59")


def test_a_sum_doubled_again_and_again_stops_at_number_digits():
    text = "action grow() { let a = 1  repeat 1000 times { set a to a + a }  result { v: a } }"
    limits = Limits(number_digits=200)  # 2**1000 has 302 digits
    raises_at(LimitExceeded, text, "grow", "number_digits", "attack.rules:1:59", limits=limits)
    assert run(text, "grow").result["v"] == 2**1000


def test_a_fraction_whose_denominator_doubles_stops_at_denominator_digits():
    text = (
        "action grow() { let a = 3  repeat 1000 times { set a to a / 2 + 1 / a } "
        " result { big: a > 0 } }"
    )
    error = raises_at(LimitExceeded, text, "grow", "denominator_digits", "attack.rules:1:63")
    assert "round it" in error.hint


def test_a_list_joined_with_itself_stops_at_list_length():
    text = (
        "action grow() { let l = [1]  repeat 1000 times { set l to l + l }  result { n: size(l) } }"
    )
    raises_at(LimitExceeded, text, "grow", "list_length", "attack.rules:1:61")


def test_a_let_list_added_to_stops_at_list_length():
    text = "action grow() { let l = []  repeat 20 times { add 1 to l }  result { n: size(l) } }"
    raises_at(
        LimitExceeded,
        text,
        "grow",
        "list_length",
        "attack.rules:1:47",
        limits=Limits(list_length=5),
    )
    assert run(text, "grow", limits=Limits(list_length=20)).result["n"] == 20


def test_fourteen_squarings_stop_at_number_digits_before_any_printing():
    lets = " ".join(f"let a{i} = a{i - 1} * a{i - 1}" for i in range(1, 15))
    text = f"action big() {{ let a0 = 10 {lets} result {{ v: a14 }} }}"
    error = raises_at(LimitExceeded, text, "big", "number_digits", "attack.rules:1:194")
    assert "1000 digits" in error.message


def test_a_sum_of_a_list_is_bounded_too():
    text = "action s(l: list of int) { result { v: sum(l) } }"
    big = 10**999
    with pytest.raises(LimitExceeded, match="number_digits"):
        run(text, "s", {"l": [big] * 20})


def test_numbers_within_the_limits_are_exact():
    text = "action grow() { let a = 2  repeat 9 times { set a to a * a }  result { v: a } }"
    assert run(text, "grow").result["v"] == 2**512
    assert run(text, "grow", limits=Limits(number_digits=155)).result["v"] == 2**512  # 155 digits
    with pytest.raises(LimitExceeded):
        run(text, "grow", limits=Limits(number_digits=154))


def test_a_text_built_past_text_length_names_the_limit():
    text = 'action t() { let s = "ab"  repeat 30 times { set s to "{s}{s}" }  result { n: s } }'
    raises_at(LimitExceeded, text, "t", "text_length", "attack.rules:1:55")


def test_limits_refuse_negative_bounds():
    with pytest.raises(ValueError, match="number_digits"):
        Limits(number_digits=-1)
