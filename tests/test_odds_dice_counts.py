"""Sums of many dice counted coefficient by coefficient (Miller's recurrence for the powers
of a die's polynomial): equal to every way the dice fall, and the only way 1024d6 fits a
small budget."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import assert_counted_as_run, every_roll

import dsl
from interpreter import Engine, roll
from interpreter.bounds import cells
from interpreter.odds import distribution, expression_odds, sums
from interpreter.odds.polynomials import Budget, TooComplex, power_coefficients
from interpreter.symbols import Forms
from interpreter.values import Record


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=1, max_size=5),
    st.integers(1, 4),
    st.integers(1, 5),
)
def test_the_recurrence_counts_every_way_independent_draws_add_up(rest, first, count):
    weights = [first, *rest]  # a face of weight w: w ways to roll it; the lowest face: some
    brute: dict = {}
    for draw in itertools.product(range(len(weights)), repeat=count):
        ways = 1
        for face in draw:
            ways *= weights[face]
        brute[sum(draw)] = brute.get(sum(draw), 0) + ways
    coeffs = power_coefficients(weights, count, Budget(10**9))
    assert {k: c for k, c in enumerate(coeffs) if c} == {k: w for k, w in brute.items() if w}


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 4), st.integers(2, 6))
def test_the_recurrence_agrees_with_the_real_roller(count, sides):
    runs = every_roll(lambda dice: roll(f"{count}d{sides}", dice).total)
    coeffs = power_coefficients([1] * sides, count, Budget(10**9))
    counted = {count + k: Fraction(c, sides**count) for k, c in enumerate(coeffs)}
    assert counted == runs


def test_a_thousand_dice_are_counted_exactly_within_a_small_budget():
    # a dice term's own budget is 10**7 units (pools.DEFAULT_BUDGET): one big-integer
    # power of 1024d6's polynomial is ~3e7 of them, the recurrence ~2e5
    odds = expression_odds("1024d6")
    assert odds.exact and odds.omitted == 0
    assert odds.probability(1024) == Fraction(1, 6**1024)
    assert odds.probability(1025) == Fraction(1024, 6**1024)
    assert odds.mean == 3584
    assert odds.probability(1024 + 3) == odds.probability(6144 - 3)


def _reference_cells(value) -> int:
    """`cells` as its docstring says, walked through every time (no record remembers)."""
    if type(value) is int:
        return 1 + (value.bit_length() >> 8)
    if type(value) is str:
        return 1 + (len(value) >> 6)
    if type(value) is tuple:
        return 1 + sum(_reference_cells(item) for item in value)
    if type(value) is Record:
        inner = value._fields
        return 1 + sum(_reference_cells(k) + _reference_cells(v) for k, v in inner.items())
    return 1


_FLAT = st.one_of(st.integers(-(2**600), 2**600), st.booleans(), st.none(), st.text(max_size=140))
_VALUES = st.recursive(
    _FLAT,
    lambda inner: st.one_of(
        st.tuples(inner, inner),
        st.dictionaries(st.text(min_size=1, max_size=70), inner, max_size=4).map(Record),
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(_VALUES)
def test_records_counted_once_keep_their_size(value):
    # the sides of an opposed check are counted once and remembered (interpreter.bounds)
    wrapped = Record({"ours": value, "theirs": value, "won": True})
    expected = _reference_cells(wrapped)
    assert cells(wrapped, 10**6) == expected
    assert cells(wrapped, 10**6) == expected  # again, from what the records remember
    assert cells(Record({"again": wrapped}), 10**6) == expected + 1 + 1


# ─── a group of values kept at once ─────────────────────────────────────────


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from(["1d4", "1d3 + 1", "2d2", "1d6 - 2", "3"]), min_size=2, max_size=3),
    st.sampled_from(["kh", "kl", "dh", "dl"]),
    st.integers(1, 3),
)
def test_a_group_of_values_kept_counts_every_way_they_fall(items, mode, k):
    text = "{" + ", ".join(items) + "}" + f"{mode}{k}"
    runs = every_roll(lambda dice: roll(text, dice).total)
    odds = expression_odds(text)
    assert odds.exact and odds.omitted == 0
    assert {o: p for o, p in odds.probabilities.items()} == runs, text


@settings(max_examples=20, deadline=None)
@given(
    st.lists(st.sampled_from(["1d4", "1d3 + 1", "2d2", "1d6 - 2", "3"]), min_size=2, max_size=3),
    st.sampled_from(["max", "min"]),
)
def test_the_greatest_or_least_of_values_counts_every_way_they_fall(items, name):
    text = f"{name}({', '.join(items)})"  # counted as `{...}kh1` / `{...}kl1` is
    runs = every_roll(lambda dice: roll(text, dice).total)
    odds = expression_odds(text)
    assert odds.exact and odds.omitted == 0
    assert dict(odds.probabilities) == runs, text


def test_open_ended_values_kept_leave_out_what_each_leaves_out():
    # Savage Worlds' trait die and wild die: each explodes; the higher is kept
    odds = expression_odds("{1d8!, 1d6!}kh1")
    assert odds.exact and 0 < odds.omitted < Fraction(1, 10**9)
    # below 6 neither die has exploded: P(max = m) = P(d8 <= m) P(d6 <= m) - ...
    for m in range(1, 6):
        assert odds.probability(m) == Fraction(m * m - (m - 1) * (m - 1), 48)


def test_values_kept_at_once_fit_a_budget_their_combinations_do_not():
    # a million combinations of three d100s; counted face by face, some 1,700 units of
    # work (each split of a state counted: multiset.SPLIT_WORK)
    odds = expression_odds("{1d100, 1d100 + 1, 1d100}kh2", budget=2_000)
    assert odds.exact and odds.omitted == 0
    assert odds.probability(2) == 0  # below the least two can be: 1 and 2
    assert odds.probability(3) == Fraction(1, 10**6)  # 1, 2 and 1 alone
    assert odds.probability(201) == Fraction(1, 100) * (1 - Fraction(99, 100) ** 2)


# ─── sums of two distributions by one product ───────────────────────────────

SUMS = """
rulebook "Sums" { language "en" }
symbols a, b
die P { blank, a, 2 a + b }
die Q { b, a + b, a }
action act(x: int = 0) "Act" {
  let r = (2)dP + (x + 1)dQ
  let n = 2d4 + x
  let m = n + 1d6
  result { net: r.a - r.b, bs: r.b, m: m }
}
"""


def test_sums_by_one_product_equal_every_way_the_dice_fall(monkeypatch):
    calls = []
    for name in ("int_sums", "form_sums"):
        real = getattr(distribution, name)

        def spy(wa, wb, *more, real=real, name=name):
            found = real(wa, wb, *more)
            calls.append((name, found is not None))
            return found

        monkeypatch.setattr(distribution, name, spy)
    monkeypatch.setattr(sums, "PAIRS", 0)  # every sum by a product, however small
    assert_counted_as_run(SUMS, {})
    assert ("int_sums", True) in calls and ("form_sums", True) in calls


def test_symbol_sums_of_few_pairs_are_added_as_packed_numbers(monkeypatch):
    """Below PAIRS, two pools' symbol sums are added pair by pair, each Forms packed into
    one number (no Forms made for each pair): the same odds as every roll; past `cap`
    outcomes, too complex (as any combination)."""
    calls = []
    real = distribution.form_sums

    def spy(wa, wb, *more):
        found = real(wa, wb, *more)
        calls.append((len(wa) * len(wb) <= sums.PAIRS, found is not None))
        return found

    monkeypatch.setattr(distribution, "form_sums", spy)
    assert_counted_as_run(SUMS, {})
    assert (True, True) in calls
    two = {Forms((a, b)): 1 for a in range(3) for b in range(2)}
    with pytest.raises(TooComplex):
        real(two, two, 5)


def test_sums_by_one_product_fit_where_pairs_do_not():
    # 80 d6 summed with 80 d8: 401 × 561 pairs (some 11,000 units of the budget); one
    # product of two big numbers (some 2,000)
    engine = Engine(dsl.load_text(SUMS.replace("2d4 + x", "80d6 + x").replace("1d6", "80d8")))
    odds = engine.odds("act", engine.sheet({}), {}, "m", budget=5_000)
    assert odds.exact and odds.omitted == 0
    assert odds.probability(160) == Fraction(1, 6**80 * 8**80)
    assert odds.probability(161) == Fraction(160, 6**80 * 8**80)


def test_a_record_of_flat_records_is_counted_once_and_remembered():
    side = Record({"total": 3, "success": True})
    pair = Record({"ours": side, "theirs": side})
    assert cells(pair, 100) == 1 + 2 * (1 + (1 + 2 * (1 + 1)))
    # each side counted once (1 cell, and 2 for each name and value), then the pair
    assert side._cells == 5 and pair._cells == 13


def test_a_small_plain_sum_is_counted_by_hand_within_no_budget():
    """A plain term of few dice in an expression (`3d6` in `floor(3d6/2)`) is summed die by
    die (distribution.uniform_sum), with no Term, so that a first evaluation runs little
    code: the only way it fits a budget of nothing, and what pool_distribution counts."""
    from interpreter.dice import Die
    from interpreter.limits import DEFAULT_LIMITS
    from interpreter.odds.pools import pool_distribution
    from interpreter.odds.roller import OddsRoller

    eps = Fraction(1, 10**12)
    for sides, count in [(6, 1), (6, 3), (20, 2), ("F", 4), (100, 1), (4, 5)]:
        die = Die.of(sides)
        by_hand = OddsRoller(eps, 0, DEFAULT_LIMITS).term_distribution(die, count, ())
        counted = pool_distribution(die, count, (), eps, 10**6)
        assert by_hand.items() == counted.items()
