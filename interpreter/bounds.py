"""Values built at run time kept within `Limits`: digits, denominators, list and text lengths."""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from dsl.messages import tr
from interpreter.errors import LimitExceeded
from interpreter.limits import Limits
from interpreter.values import Record


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


def cells(value, cap: int) -> int:
    """The cells of a value, counted until they pass `cap`: what going through it costs
    (showing it, comparing it, adding it up) and how large it is. A cell is an item of a
    list or a record (the lists and records inside it counted through, however often
    they are held), 64 characters of a text, 77 digits of a number; anything else is one.
    """
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is int:
            count += 1 + (item.bit_length() >> 8)
        elif kind is str:
            count += 1 + (len(item) >> 6)
        elif kind is bool or item is None:
            count += 1
        elif kind is tuple or kind is list:
            count += 1
            stack.extend(item)
        elif kind is Fraction:
            count += 1 + ((item.numerator.bit_length() + item.denominator.bit_length()) >> 8)
        elif kind is Record:  # its names shown too
            found = item._cells
            if found is None:
                found = flat_cells(item)
            if found is not None:
                count += found
            else:
                count += 1
                fields = item._fields
                stack.extend(fields)
                stack.extend(fields.values())
        elif isinstance(item, Mapping):
            count += 1
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, str):  # a text for people (a Message)
            count += 1 + (len(item) >> 6)
        else:
            count += 1
        if count > cap:
            break
    return count


def flat_cells(record: Record, inner: bool = False) -> int | None:
    """The cells of a record of numbers, yes/no and texts (and, not `inner`, of records of
    those), None when a field holds anything else; remembered by the record: the sides'
    records read into every pair of an opposed check are counted once, not once a pair."""
    count = 1
    for name, value in record._fields.items():
        kind = type(value)
        if kind is int:
            count += 1 + (value.bit_length() >> 8)
        elif kind is bool or value is None:
            count += 1
        elif kind is str:
            count += 1 + (len(value) >> 6)
        elif kind is Record and not inner:
            found = value._cells
            if found is None:
                found = flat_cells(value, True)
                if found is None:
                    return None
            count += found
        else:
            return None
        count += 1 + (len(name) >> 6) if type(name) is str else 1
    record._cells = count
    return count


def bounded_value(ctx, value, span):
    """A list or record just built, within `value_size` (else LimitExceeded naming it),
    its cells counted as steps: building it went through them."""
    ctx.count(size_within(value, ctx.limits, span), span)
    return value


#: the values that hold other values: what makes one value larger than its rules
NESTED = frozenset({tuple, list, dict, Record})


def bounded_record(ctx, record: Record, span) -> Record:
    """A record just built: `bounded_value` when a field holds a list or a record (of
    numbers, yes/no and texts only, it is no larger than the rules that wrote it, each
    text within `text_length`: nothing to go through)."""
    for value in record._fields.values():
        if type(value) in NESTED:
            return bounded_value(ctx, record, span)
    return record


def size_within(value, limits: Limits, span) -> int:
    """The cells of a value built, or LimitExceeded when they are more than `value_size`."""
    size = cells(value, limits.value_size)
    if size > limits.value_size:
        raise LimitExceeded(
            tr(
                "a value of more than {value_size} cells (limit value_size)",
                value_size=limits.value_size,
            ),
            span,
            tr("a cell is an item of a list or a record, or 64 characters of a text"),
        )
    return size


def bounded_text(text: str, limits: Limits, span) -> str:
    if len(text) > limits.text_length:
        raise too_long_text(limits, span)
    return text


def too_long_text(limits: Limits, span) -> LimitExceeded:
    return LimitExceeded(
        tr(
            "a text longer than {text_length} characters (limit text_length)",
            text_length=limits.text_length,
        ),
        span,
    )


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
