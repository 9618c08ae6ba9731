"""most_sets: the most sets of dice each adding up to a threshold, against a brute force that
tries every way to put every die in a set (or in none); its exact odds, counted over
multisets, against every ordered roll; its refusals."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice
from interpreter.dice import Die
from interpreter.errors import EvaluationError
from interpreter.grouping import Grouping, most_sets, pairs_hold
from interpreter.odds.pools import pool_answers
from interpreter.pool import Count, Highest, MostSets, Total, face_test


@functools.lru_cache(maxsize=4096)
def sorted_brute(faces: tuple, thresholds: tuple) -> int:
    return brute_force(faces, thresholds)


def brute(faces, thresholds: tuple) -> int:
    return sorted_brute(tuple(sorted(faces)), thresholds)


def brute_force(faces: tuple, thresholds: tuple) -> int:
    """Every die in one of len(faces) sets or in none: the best count."""
    best = 0
    for places in itertools.product(range(len(faces) + 1), repeat=len(faces)):
        sums: dict = {}
        for face, place in zip(faces, places):
            if place:
                sums[place] = sums.get(place, 0) + face
        best = max(best, sum(sum(1 for t in thresholds if s >= t) for s in sums.values()))
    return best


rising = st.lists(st.integers(1, 25), min_size=1, max_size=3, unique=True).map(
    lambda ts: tuple(sorted(ts))
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-2, 12), max_size=5), rising)
def test_most_sets_is_the_best_of_every_split(faces, thresholds):
    assert most_sets(faces, thresholds) == brute(tuple(faces), thresholds)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 10), max_size=5), st.sampled_from([(10,), (10, 15), (15,), (5,)]))
def test_one_memory_for_many_pools_answers_each_alone(faces, thresholds):
    shared = Grouping(thresholds)
    for n in range(len(faces) + 1):
        part = tuple(sorted(faces[:n]))
        assert shared.best(part) == brute(part, thresholds)


def test_pairs_hold_only_for_thresholds_that_allow_them():
    assert pairs_hold((10,)) and pairs_hold((10, 15)) and pairs_hold((10, 20, 30))
    assert not pairs_hold((10, 11, 30))
    # 10, 11, 30: a pair adding up to 30 is worth 3, but two sets of 11 and 19 with it
    # were worth 4: the search finds it without the reduction
    assert most_sets([19, 11, 11, 19], (10, 11, 30)) == brute((19, 11, 11, 19), (10, 11, 30))


def test_seventh_sea_examples():
    assert most_sets([9, 1, 5, 5, 3], (10,)) == 2  # 9+1, 5+5 (3 left over)
    assert most_sets([7, 6, 4, 3], (10,)) == 2  # 7+3, 6+4: greedy 7+6 finds one
    assert most_sets([10, 5, 5, 5], (10, 15)) == 3  # 10+5 two Raises, 5+5 one
    assert most_sets([], (10,)) == 0


@pytest.mark.parametrize(
    ("sides", "count", "thresholds"),
    [(10, 1, (10,)), (10, 3, (10,)), (6, 4, (7,)), (10, 3, (10, 15)), (4, 5, (5, 7))],
)
def test_odds_over_multisets_are_those_of_every_roll(sides, count, thresholds):
    dist = pool_answers(Die.of(sides), count, (), (MostSets(thresholds),))
    counted: Counter = Counter()
    for roll in itertools.product(range(1, sides + 1), repeat=count):
        counted[(brute(roll, thresholds),)] += 1
    total = sides**count
    assert {k: Fraction(w, dist.total) for k, w in dist.weights.items()} == {
        k: Fraction(w, total) for k, w in counted.items()
    }


@settings(max_examples=30, deadline=None)
@given(
    faces=st.lists(st.integers(-1, 9), min_size=2, max_size=6),
    count=st.integers(1, 4),
    thresholds=st.sampled_from([(10,), (10, 15), (7,), (5, 8)]),
    other=st.sampled_from(["total", "highest", "fives"]),
)
def test_most_sets_asked_with_another_question_against_every_roll(faces, count, thresholds, other):
    """The walk takes a pair's faces side by side when every question takes any order
    (most_sets with a total or a count), from the lowest up otherwise (with highest)."""
    question, answer = {
        "total": (Total(), sum),
        "highest": (Highest(None), max),
        "fives": (Count(face_test(5)), lambda roll: roll.count(5)),
    }[other]
    die = Die.listing(tuple(faces))
    dist = pool_answers(die, count, (), (MostSets(thresholds), question))
    counted: Counter = Counter()
    for roll in itertools.product(faces, repeat=count):
        counted[(brute(roll, thresholds), answer(roll))] += 1
    total = len(faces) ** count
    assert {k: Fraction(w, dist.total) for k, w in dist.weights.items()} == {
        k: Fraction(w, total) for k, w in counted.items()
    }


BOOK = """
rulebook "Raises" { language "en" }
check raises(n: int, rank: int = 0) "Raises" {
  let r = (n)d10
  roll most_sets(r, if rank >= 4 then [10, 15] else 10)
}
action risk(n: int) "Risk" {
  let c = raises(n)
  result { raises: c.total, listed: most_sets([3, 7, 4], 10) }
}
"""


def test_in_a_rulebook_run_and_odds():
    engine = Engine(dsl.load_text(BOOK, "raises.rules"))
    sheet = engine.empty_sheet("risk")
    out = engine.run("risk", sheet, {"n": 4}, ForcedDice([7, 6, 4, 3]))
    assert dict(out.result) == {"raises": 2, "listed": 1}
    odds = engine.odds("raises", sheet, {"n": 3, "rank": 4}, field="total")
    counted: Counter = Counter()
    for roll in itertools.product(range(1, 11), repeat=3):
        counted[brute(roll, (10, 15))] += 1
    assert odds.probabilities == {k: Fraction(w, 1000) for k, w in counted.items()}
    assert odds.exact


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("most_sets(3d6, [10, 5])", "should rise"),
        ("most_sets(3d6, 0)", "more than 0"),
        ('most_sets(3d6, "x")', "number"),
    ],
)
def test_refused_thresholds(call, message):
    text = f'rulebook "t" {{ }}\naction a() "A" {{ result {{ x: {call} }} }}\n'
    try:
        book = dsl.load_text(text, "t.rules")
    except RulebookError as error:
        assert "most_sets" in str(error)
        return
    engine = Engine(book)
    with pytest.raises(EvaluationError, match=message):
        engine.run("a", engine.empty_sheet("a"), {}, ForcedDice([1, 2, 3]))


def test_a_pool_too_large_to_split_is_refused_not_left_running():
    faces = [1, 2, 3, 4] * 40  # no pair adds up to 10: the search would be endless
    with pytest.raises(EvaluationError, match="too many ways"):
        most_sets(faces, (10,))
