"""Properties of dice expressions, over expressions generated to follow the grammar.

- the total lies between a minimum and a maximum computed here, from the text's
  structure, independently of the roller (interval arithmetic over the terms);
- forced dice reproduce a roll exactly, and the same seed gives the same roll;
- arbitrary text never raises anything but the project's own errors.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import assume, given
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from interpreter import ForcedDice, SeededDice, roll
from interpreter.values import Range, Record

COMPARISONS = [">=", ">", "<=", "<", "="]


# ─── expressions with their bounds ──────────────────────────────────────────


@st.composite
def terms(draw):
    """A dice term (no explosions: their sum is unbounded) and its [min, max]."""
    count = draw(st.integers(0, 6))
    sides = draw(st.sampled_from([1, 2, 3, 4, 6, 8, 10, 12, 20, "F", "%"]))
    faces = (-1, 1) if sides == "F" else (1, 100 if sides == "%" else sides)
    die_low, high_face = faces
    low_face = die_low
    text = f"{count}d{sides}"
    kept = count
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["kh", "kl", "dh", "dl", "ro", "rr"]))
        if kind in ("ro", "rr"):
            # reroll the die's lowest face (never every face, so the roll ends); a later
            # reroll draws from the whole die again, so only the last one decides
            if high_face == die_low:
                continue
            text += f"{kind}={die_low}"
            low_face = die_low + 1 if kind == "rr" else die_low
        else:
            k = draw(st.integers(0, 7))
            text += f"{kind}{k}"
            kept = min(k, kept) if kind in ("kh", "kl") else max(0, kept - k)
    if draw(st.booleans()):
        op = draw(st.sampled_from(COMPARISONS))
        value = draw(st.integers(low_face - 1, high_face + 1))
        text += f"cs{op}{value}"
        if draw(st.booleans()):
            text += f"df={low_face}"
            return text, (-kept, kept)
        return text, (0, kept)
    return text, (kept * low_face, kept * high_face)


@st.composite
def expressions(draw, depth=0):
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        if draw(st.booleans()):
            n = draw(st.integers(-20, 20))
            return (f"({n})" if n < 0 else str(n)), (n, n)
        return draw(terms())
    kind = draw(
        st.sampled_from(
            ["+", "-", "*", "/", "neg", "floor", "ceil", "round", "abs", "min", "max", "paren"]
        )
    )
    a, (alo, ahi) = draw(expressions(depth=depth + 1))
    if kind in ("neg", "floor", "ceil", "round", "abs", "paren"):
        if kind == "neg":
            return f"-({a})", (-ahi, -alo)
        if kind == "paren":
            return f"({a})", (alo, ahi)
        if kind == "abs":
            low = 0 if alo <= 0 <= ahi else min(abs(alo), abs(ahi))
            return f"abs({a})", (low, max(abs(alo), abs(ahi)))
        function = {
            "floor": math.floor,
            "ceil": math.ceil,
            "round": lambda x: (
                math.floor(x + Fraction(1, 2)) if x >= 0 else -math.floor(-x + Fraction(1, 2))
            ),
        }[kind]
        return f"{kind}({a})", (function(Fraction(alo)), function(Fraction(ahi)))
    if kind == "/":
        d = draw(st.integers(1, 6))
        return f"({a}) / {d}", (Fraction(alo, d), Fraction(ahi, d))
    b, (blo, bhi) = draw(expressions(depth=depth + 1))
    if kind == "+":
        return f"{a} + {b}", (alo + blo, ahi + bhi)
    if kind == "-":
        return f"{a} - ({b})", (alo - bhi, ahi - blo)
    if kind == "*":
        products = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return f"({a}) * ({b})", (min(products), max(products))
    if kind == "min":
        return f"min({a}, {b})", (min(alo, blo), min(ahi, bhi))
    return f"max({a}, {b})", (max(alo, blo), max(ahi, bhi))


@given(expressions(), st.integers(0, 2**32))
def test_total_lies_within_bounds_computed_from_the_text(case, seed):
    text, (low, high) = case
    result = roll(text, SeededDice(seed))
    assert low <= result.total <= high, (text, result.detail)


@given(expressions(), st.integers(0, 2**32))
def test_forced_dice_reproduce_a_roll_exactly(case, seed):
    text, _ = case
    first = roll(text, SeededDice(seed))
    again = roll(text, ForcedDice(first.dice))
    assert (again.total, again.dice, again.detail) == (first.total, first.dice, first.detail)
    assert again.origin == "forced"


@given(expressions(), st.integers(0, 2**32))
def test_the_same_seed_gives_the_same_roll(case, seed):
    text, _ = case
    a, b = roll(text, SeededDice(seed)), roll(text, SeededDice(seed))
    assert (a.total, a.dice, a.detail) == (b.total, b.dice, b.detail)


@given(st.integers(1, 6), st.integers(2, 12), st.integers(0, 2**32))
def test_exploding_dice_replay_and_stay_within_the_chain_limit(count, sides, seed):
    text = f"{count}d{sides}x"
    first = roll(text, SeededDice(seed))
    assert first.total >= count
    again = roll(text, ForcedDice(first.dice))
    assert again.total == first.total and again.detail == first.detail


# ─── arbitrary text ─────────────────────────────────────────────────────────

_PIECES = [
    "d",
    "6",
    "2",
    "d%",
    "dF",
    "kh",
    "kl",
    "x",
    "xo",
    "rr",
    "ro",
    "cs",
    "df",
    ">=",
    "<=",
    "=",
    "<",
    ">",
    "(",
    ")",
    "+",
    "-",
    "*",
    "/",
    " ",
    "1",
    "0",
    "floor",
    "max",
    ",",
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    "a",
    "if",
    "then",
    "else",
    ".",
    "..",
    "in",
    "let",
    "\n",
    "#",
    "é",
    "10",
    "100000",
]


@given(
    st.one_of(st.text(max_size=60), st.lists(st.sampled_from(_PIECES), max_size=25).map("".join))
)
def test_any_expression_text_raises_only_project_errors(text):
    try:
        result = roll(text, SeededDice(1))
    except RulebookError as error:
        assert error.exit_code in (3, 4)
        assert error.render()
        return
    # what `roll` promises: a number, yes/no, a list, a record, a range, or none (the
    # highest die of no dice: `highest(0d6)`)
    total = result.total
    assert total is None or isinstance(total, bool | int | Fraction | tuple | Record | Range)


_RULEBOOK_PIECES = [
    "rulebook",
    '"T"',
    "{",
    "}",
    "sheet",
    "attribute",
    "A",
    "in",
    "1..10",
    "table",
    "T",
    "by",
    "x",
    ":",
    "1",
    "..",
    "-2",
    "check",
    "c",
    "(",
    ")",
    "roll",
    "d10",
    "+",
    ">=",
    "9",
    "action",
    "a",
    "let",
    "=",
    "result",
    "spend",
    "from",
    "if",
    "else",
    "match",
    "case",
    "repeat",
    "times",
    "for",
    "each",
    "\n",
    " ",
    ",",
    "'q n'",
    "note",
    '"t {x}"',
    "x",
    "A",
]


@given(
    st.one_of(
        st.text(max_size=80), st.lists(st.sampled_from(_RULEBOOK_PIECES), max_size=40).map(" ".join)
    )
)
def test_any_rulebook_text_raises_only_project_errors(text):
    try:
        dsl.load_text(text, "<fuzz>")
    except RulebookError as error:
        assert error.render()


@given(expressions())
def test_expressions_keep_exact_fractions(case):
    text, _ = case
    total = roll(text, SeededDice(3)).total
    assume(not isinstance(total, bool))
    assert type(total) in (int, Fraction)
