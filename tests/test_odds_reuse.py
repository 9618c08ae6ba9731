"""What the odds engine keeps from one call to the next changes no answer.

The odds roller keeps the terms it counted (interpreter.odds.pools.counted_distribution),
and an action's answer makes its Fractions only when they are read: the answers must be
exactly those counted afresh, whatever was asked before and under whatever bounds.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsl
from benchmarks.corpus import compile_term
from interpreter import Engine
from interpreter.limits import DEFAULT_LIMITS
from interpreter.odds import TooComplex, expression_odds, pool_distribution
from interpreter.odds.polynomials import Budget
from interpreter.odds.pools import counted_distribution, counted_may_fail, may_fail

EPS = Fraction(1, 10**12)
LIMIT = DEFAULT_LIMITS.extra_per_die

BOOK = """
rulebook "Reuse" {
  system "reuse"
  language "en"
}
sheet {
  attribute Strength in 1..10
}
table Level by total {
  ..8: "Failure"
  9..12: "Good"
  13..: "Great"
}
check simple(modifier: int = 0) "Simple" {
  roll d10 + Strength + modifier >= 9
  level = Level[total]
}
action test(modifier: int = 0) "Test" {
  let c = simple(modifier)
  result { success: c.success, total: c.total, level: c.level }
}
"""

TERMS = ["3d6", "2d20kh1", "4d6kh3", "d6x", "10d10cs>=6df=1", "3d6rr=1", "d{1,1,2,3}"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(TERMS), st.booleans())
def test_a_kept_term_is_the_term_counted_afresh(text, net):
    die, count, steps = compile_term(text)
    fresh = pool_distribution(die, count, steps, EPS, limit=LIMIT, net=net)
    for _ in range(2):  # the first call counts it, the second finds it kept
        kept = counted_distribution(die, count, steps, EPS, Budget(10**7), LIMIT, net)
        assert kept.weights == fresh.weights and kept.total == fresh.total
    assert counted_may_fail(die, count, steps, EPS, LIMIT) == may_fail(
        die, count, steps, EPS, LIMIT
    )


def test_a_term_kept_under_a_larger_budget_is_still_refused_under_a_smaller_one():
    die, count, steps = compile_term("8d6kh4rr=1kh2")
    assert counted_distribution(die, count, steps, EPS, Budget(10**7), LIMIT).weights
    with pytest.raises(TooComplex):
        counted_distribution(die, count, steps, EPS, Budget(1000), LIMIT)


def test_an_answer_read_late_is_the_answer_read_at_once():
    engine = Engine(dsl.load_text(BOOK))
    sheet = engine.sheet({"Strength": 3})
    first = [engine.odds("test", sheet, {"modifier": m}) for m in range(-3, 4)]
    again = [engine.odds("test", sheet, {"modifier": m}).probabilities for m in range(-3, 4)]
    for odds, probabilities, m in zip(first, again, range(-3, 4)):
        assert odds.probabilities == probabilities
        assert sum(probabilities.values()) == 1
        success = sum(p for o, p in probabilities.items() if o["success"])
        assert success == Fraction(sum(1 for face in range(1, 11) if face + 3 + m >= 9), 10)


def test_expressions_asked_again_give_the_same_distribution():
    for text in ("3d6", "2d20kh1+4", "d6x", "d10+d10"):
        first = expression_odds(text).probabilities
        assert expression_odds(text).probabilities == first
