"""Values built at run time kept within `Limits`: digits, denominators, list and text lengths."""

from __future__ import annotations

import re
from fractions import Fraction

from dsl.messages import tr
from interpreter.errors import LimitExceeded
from interpreter.limits import Limits


def bounded_number(value, limits: Limits, span):
    """`value` (an int or a Fraction just computed), or LimitExceeded naming the limit."""
    bound = limits.number_bound
    if type(value) is int:
        if abs(value) < bound:  # abs: no -bound (a big int) made each time
            return value
        raise too_long(limits, span)
    if not abs(value.numerator) < bound:
        raise too_long(limits, span)
    if value.denominator >= limits.denominator_bound:
        raise LimitExceeded(
            long_denominator(limits), span, tr("round it with floor, ceil or round")
        )
    return value


def too_long(limits: Limits, span) -> LimitExceeded:
    return LimitExceeded(long_number(limits), span)


def long_number(limits: Limits):
    return tr(
        "a number of more than {number_digits} digits (limit number_digits)",
        number_digits=limits.number_digits,
    )


def long_denominator(limits: Limits):
    return tr(
        (
            "a fraction whose denominator has more than "
            "{denominator_digits} digits (limit denominator_digits)"
        ),
        denominator_digits=limits.denominator_digits,
    )


def number_fits(value, limits: Limits) -> bool:
    """Whether an int or Fraction given from outside (a sheet, a parameter) fits."""
    if type(value) is Fraction:
        return (
            abs(value.numerator) < limits.number_bound
            and value.denominator < limits.denominator_bound
        )
    return abs(value) < limits.number_bound


def bounded_list(items: tuple, limits: Limits, span) -> tuple:
    check_length(len(items), limits, span)
    return items


def check_length(count: int, limits: Limits, span) -> None:
    """A list (or a catalog) of `count` items is within `list_length`, or LimitExceeded."""
    if count > limits.list_length:
        raise LimitExceeded(long_list(limits), span)


def long_list(limits: Limits):
    return tr(
        "a list of more than {list_length} items (limit list_length)",
        list_length=limits.list_length,
    )


def bounded_text(text: str, limits: Limits, span) -> str:
    if len(text) > limits.text_length:
        raise LimitExceeded(
            tr(
                "a text longer than {text_length} characters (limit text_length)",
                text_length=limits.text_length,
            ),
            span,
        )
    return text


# the digits 0-9 alone (`\d` would read any script's digits as these)
_NUMBER_TEXT = re.compile(
    r"(?P<sign>[+-]?)(?P<digits>[0-9]++(?:\.[0-9]*+)?|\.[0-9]++)"
    r"(?:[eE](?P<exponent>[+-]?[0-9]{1,9}))?"
    r"|[+-]?[0-9]++/[0-9]++"
)


def read_number(text: str, limits: Limits):
    """The exact number a text writes (`3`, `-1.5`, `7/2`, `1e3`), None if it writes
    none; ValueError (saying why) when it is longer than the limits allow. The text is
    measured before any arithmetic, so `1e100000000` is refused at once."""
    text = text.strip()
    match = _NUMBER_TEXT.fullmatch(text)
    if match is None:
        return None
    digits = sum(c.isdigit() for c in text)
    exponent = int(match.group("exponent") or 0)
    if digits > limits.number_digits + limits.denominator_digits or (
        abs(exponent) > limits.number_digits + limits.denominator_digits
    ):
        raise ValueError(long_number(limits))
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    if not number_fits(value, limits):
        too_long_part = abs(value.numerator) >= limits.number_bound
        raise ValueError(long_number(limits) if too_long_part else long_denominator(limits))
    return value.numerator if value.denominator == 1 else value
