"""A sweep's grid: the values of each varied input, read from text, and their product."""

from __future__ import annotations

import itertools
import re

from dsl.errors import did_you_mean
from dsl.messages import tr
from interpreter.errors import ParameterError

#: most values one input of a sweep may take (a range `1..N` included)
MAX_AXIS_VALUES = 10_000
#: the word that asks for every choice of a parameter
ALL = "all"

_RANGE = re.compile(r"\s*(-?[0-9]{1,9})\s*\.\.\s*(-?[0-9]{1,9})\s*")
_WHOLE = re.compile(r"\s*-?[0-9]{1,18}\s*")


def values_of(text: str, option: str, name: str) -> list | str:
    """The values `text` gives an input: `1..5` (whole numbers, both ends included), a
    list `a,b,c` (whole numbers read as numbers), or ALL (its choices, found later)."""
    if text.strip() == ALL:
        return ALL
    ranged = _RANGE.fullmatch(text)
    if ranged is not None:
        low, high = int(ranged[1]), int(ranged[2])
        if high < low or high - low + 1 > MAX_AXIS_VALUES:
            raise ParameterError(
                tr(
                    "{option} {name}={text}: a range goes up, from LOW to HIGH, "
                    "with at most {most} values",
                    option=option,
                    name=name,
                    text=text,
                    most=MAX_AXIS_VALUES,
                )
            )
        return list(range(low, high + 1))
    items = [item.strip() for item in text.split(",")]
    if not all(items) or len(items) > MAX_AXIS_VALUES:
        raise ParameterError(
            tr(
                "{option} {name}={text}: write a range LOW..HIGH, a list a,b,c or `all`",
                option=option,
                name=name,
                text=text,
            )
        )
    return [int(item) if _WHOLE.fullmatch(item) else item for item in items]


def pairs_of(pairs: list[str], option: str) -> dict:
    """`NAME=VALUES` options (`--param skill=1..5`, `--vary Fuerza=1..10`) by name."""
    out: dict = {}
    for pair in pairs:
        name, equals, text = pair.partition("=")
        name = name.strip()
        if not equals or not name or not text.strip():
            raise ParameterError(
                tr("{option} {pair}: write NAME=VALUES", option=option, pair=repr(pair))
            )
        out[name] = values_of(text, option, name)
    return out


def unknown(name: str, option: str, valid, what: str) -> ParameterError:
    """An input that names nothing varied: the names that would be valid, the closest first."""
    valid = [str(v) for v in valid]  # (a bool parameter's choices are False and True)
    return ParameterError(
        tr(
            "{option} {name}: not {what}; valid: {valid}",
            option=option,
            name=name,
            what=what,
            valid=", ".join(valid) if valid else "-",
        ),
        None,
        did_you_mean(name, valid),
    )


def product(axes: dict) -> list[dict]:
    """Every combination of the axes' values (name → values), the last varying fastest."""
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*axes.values())]
