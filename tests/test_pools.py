"""Pool values: a dice term's dice as rolled, sorted, kept and dropped; counts, highest and
lowest, sets; in expressions, lets, checks, actions and named rolls; and their exact odds,
counted over multisets, against brute-force enumeration of the real roller."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import every_roll

import dsl
from benchmarks.corpus import compile_term
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, roll
from interpreter.dice import DiceTray, Die, predicate, roll_pool
from interpreter.limits import DEFAULT_LIMITS
from interpreter.odds import expression_odds, pools
from interpreter.odds.draws import enumerate_draws
from interpreter.odds.pools import pool_answers
from interpreter.pool import (
    Count,
    Failures,
    Highest,
    LargestSet,
    Lowest,
    Sets,
    Sorted,
    Successes,
    Summed,
    Total,
    face_test,
)
from interpreter.values import Range, Record


def value(text: str, dice=()):
    return roll(text, ForcedDice(dice)).total


def faces(*pairs):
    return tuple(Record({"face": f, "size": s}, kind="set") for f, s in pairs)


# ─── a real roll's fields and functions ─────────────────────────────────────


def test_the_fields_of_a_pool():
    dice = [3, 6, 1, 5, 6]
    assert value("(5d6kh3).dice", dice) == (3, 6, 1, 5, 6)
    assert value("(5d6kh3).kept", dice) == (6, 5, 6)
    assert value("(5d6kh3).dropped", dice) == (3, 1)
    assert value("(5d6kh3).sorted", dice) == (5, 6, 6)  # the kept dice, lowest first
    assert value("(5d6kh3).total", dice) == 17
    assert value("(5d6).sets", dice) == faces((6, 2), (5, 1), (3, 1), (1, 1))
    assert value("(5d6).largest_set", dice) == Record({"face": 6, "size": 2})
    assert value("(0d6).largest_set") == Record({"face": None, "size": 0})
    # a die rolled again is not among the dice; its new face is
    assert value("(3d6ro=1).dice", [1, 4, 2, 6]) == (6, 4, 2)  # the 1 rolled again: 6


def test_of_two_sets_of_one_size_the_higher_face_comes_first():
    assert value("(4d10).largest_set", [3, 8, 3, 8]) == Record({"face": 8, "size": 2})
    assert value("(4d10).sets", [3, 8, 3, 8]) == faces((8, 2), (3, 2))


def test_pool_functions():
    dice = [4, 1, 6, 6, 2]
    assert value("count(5d6, 6)", dice) == 2
    assert value("count(5d6, 5..6)", dice) == 2
    assert value("count(5d6, 5..)", dice) == 2
    assert value("count(5d6, ..2)", dice) == 2
    assert value("count(5d6, [1, 6])", dice) == 3
    assert value("count(5d6, [1, 4..5])", dice) == 2
    assert value("highest(5d6)", dice) == 6
    assert value("highest(5d6, 3)", dice) == (6, 6, 4)
    assert value("lowest(5d6)", dice) == 1
    assert value("lowest(5d6, 2)", dice) == (1, 2)
    assert value("lowest(5d6, 9)", dice) == (1, 2, 4, 6, 6)
    assert value("sum(highest(5d6, 2))", dice) == 12
    assert value("highest(0d6)") is None


def test_pool_questions_look_at_the_kept_dice():
    dice = [6, 1, 6, 3]
    assert value("count(4d6kl2, 6)", dice) == 0
    assert value("highest(4d6kl2)", dice) == 3
    assert value("count(4d6dh1, 6)", dice) == 1


def test_the_pool_functions_take_lists_too():
    assert value("highest([3, 9, 4], 2)") == (9, 4)
    assert value("lowest([3, 9, 4])") == 3
    assert value("count([1, 2, 2, 3], 2)") == 2
    assert value("count([1, 2, 2, 3], 2..)") == 3


def test_ranges_are_values():
    assert value("4 in 1..10") is True
    assert value("11 in 1..10") is False
    assert value("-3 in ..0") is True
    assert str(Range(5, None)) == "5.." and str(Range(None, 2)) == "..2"


def test_a_pool_used_as_a_number_is_its_total():
    assert value("(3d6).total + 1", [1, 2, 3]) == 7


def test_wrong_uses_are_refused_before_running():
    with pytest.raises(RulebookError, match="looks at the dice of a pool"):
        roll("count(3, 6)")
    with pytest.raises(RulebookError, match="has no field `dicee`"):
        roll("(3d6).dicee")
    with pytest.raises(RulebookError, match="counts the dice showing a face"):
        roll("count(3d6, yes)")
    with pytest.raises(RulebookError, match="highest takes should be a number"):
        roll("highest(3d6, [1])")


POOLS = """
rulebook "Pools" { system "test" }
roll blades(n: int) = (n)d6
roll five = 5d6
check action_roll(dots: int) "Action roll" {
  let r = (dots)d6
  roll highest(r)
  sixes = count(r, 6)
  outcome = if sixes >= 2 then "critical" else if highest(r) = 6 then "success"
            else if highest(r) >= 4 then "partial" else "failure"
}
action act(dots: int) {
  let c = action_roll(dots)
  result { outcome: c.outcome, top: c.total }
}
action named(n: int) {
  let r = blades(n)
  let again = (count(r, 1..3))d6
  result { top: highest(r), ones: count(r, 1) + count(again, 1), sum: r + again }
}
action five_sets() {
  let r = five
  result { width: r.largest_set.size, height: r.largest_set.face, all: r.sets }
}
action pairs() {
  let r = 3d4
  result { dice: r.dice, low: lowest(r, 2) }
}
"""


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load_text(POOLS, "pools.rules"))


def test_pools_in_checks_actions_and_named_rolls(engine):
    sheet = engine.sheet({})
    out = engine.run("act", sheet, {"dots": 3}, ForcedDice([6, 2, 6]))
    assert out.result == {"outcome": "critical", "top": 6}
    assert "3d6 [6, 2, 6]" in "\n".join(s.text for s in out.trace)
    out = engine.run("named", sheet, {"n": 3}, ForcedDice([1, 5, 2, 1, 4]))
    assert out.result == {"top": 5, "ones": 2, "sum": 8 + 5}
    out = engine.run("five_sets", sheet, {}, ForcedDice([2, 4, 4, 2, 1]))
    assert out.result["width"] == 2 and out.result["height"] == 4
    assert out.result["all"] == faces((4, 2), (2, 2), (1, 1))


def brute_force(engine, action, params):
    """The distribution of an action's result over every way its dice can fall."""
    sheet = engine.sheet({})
    return every_roll(lambda dice: engine.run(action, sheet, params, dice).result)


@pytest.mark.parametrize("dots", [1, 2, 3, 4])
def test_odds_of_a_pool_bound_by_let_are_the_brute_force_ones(engine, dots):
    odds = engine.odds("act", engine.sheet({}), {"dots": dots})
    assert odds.exact and odds.probabilities == brute_force(engine, "act", {"dots": dots})


def test_odds_of_the_sets_of_a_named_roll(engine):
    odds = engine.odds("five_sets", engine.sheet({}), {})
    assert odds.exact and odds.probabilities == brute_force(engine, "five_sets", {})


def test_odds_of_dice_in_the_order_rolled(engine):
    odds = engine.odds("pairs", engine.sheet({}), {})
    assert odds.exact and odds.probabilities == brute_force(engine, "pairs", {})


def test_odds_of_a_second_roll_sized_by_the_first():
    book = dsl.load_text(POOLS, "pools.rules")
    engine = Engine(book)
    odds = engine.odds("named", engine.sheet({}), {"n": 2})
    # the extra dice depend on the first roll: enumerate both rolls by hand
    expected: Counter = Counter()
    for first in itertools.product(range(1, 7), repeat=2):
        again = sum(1 for f in first if f <= 3)
        for second in itertools.product(range(1, 7), repeat=again):
            result = Record(
                {
                    "top": max(first),
                    "ones": first.count(1) + second.count(1),
                    "sum": sum(first) + sum(second),
                }
            )
            expected[result] += Fraction(1, 36 * 6**again)
    assert odds.exact and odds.probabilities == dict(expected)


# ─── closed forms ───────────────────────────────────────────────────────────


@pytest.mark.parametrize("n", [1, 5, 12, 20])
def test_highest_die_of_nd6_is_the_closed_form(n):
    odds = expression_odds(f"highest({n}d6)")
    assert odds.probabilities == {k: Fraction(k**n - (k - 1) ** n, 6**n) for k in range(1, 7)}


def test_blades_critical_is_the_closed_form(engine):
    n = 20
    odds = engine.odds("act", engine.sheet({}), {"dots": n}, field="outcome")
    none, one = Fraction(5, 6) ** n, n * Fraction(1, 6) * Fraction(5, 6) ** (n - 1)
    assert odds.probability("critical") == 1 - none - one
    assert odds.probability("success") == one
    assert odds.probability("failure") == Fraction(1, 2) ** n


# ─── multiset counting against the real roller, question by question ────────

QUESTIONS = [
    Total(),
    Successes(),
    Failures(),
    Sorted(),
    Sets(),
    LargestSet(),
    Highest(),
    Highest(2),
    Lowest(),
    Lowest(3),
    Summed(Highest(2)),
    Summed(Lowest(3)),
    Count(face_test(Range(4, None))),
    Count(face_test((1, Range(3, 3)))),
]


def enumerated(die, count, steps, questions):
    def run(tray):
        rolled = roll_pool(tray, die, count, steps, None, "")
        return tuple(q.of_roll(rolled) for q in questions)

    return enumerate_draws(run, DEFAULT_LIMITS)


modifiers = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["kh", "kl", "dh", "dl"]), st.integers(0, 4)).map(
            lambda m: ("keep", m[0], m[1], None)
        ),
        # rerolled once: the enumeration of a reroll until it misses would go on to the
        # roller's limit (rerolled until: test_reroll_until_is_uniform_over_the_misses)
        st.integers(1, 3).map(lambda v: ("reroll", True, predicate("<=", v), None)),
    ),
    max_size=3,
)


@settings(max_examples=60)
@given(
    sides=st.integers(2, 6),
    count=st.integers(0, 4),
    mods=modifiers,
    counted=st.sampled_from([None, ">=", "both"]),
    picked=st.lists(st.sampled_from(range(len(QUESTIONS))), min_size=1, max_size=3),
)
def test_counted_answers_equal_every_roll_enumerated(sides, count, mods, counted, picked):
    die = Die.of(sides)
    # rerolls until a face is not 1..v need a face left: keep v below the die's size
    steps = tuple(
        ("reroll", m[1], predicate("<=", min(2, sides - 1)), None) if m[0] == "reroll" else m
        for m in mods
    )
    if counted:
        steps += (("successes", predicate(">=", sides)),)
        if counted == "both":
            steps += (("failures", predicate("=", 1)),)
    rerolls = sum(1 for m in mods if m[0] == "reroll")
    assume(sides ** (count * (1 + rerolls)) <= 5000)  # every roll, enumerated, stays small
    questions = tuple(dict.fromkeys(QUESTIONS[i] for i in picked))
    try:
        counted_dist = pool_answers(die, count, steps, questions)
    except NotImplementedError:
        return  # a reroll after a keep: enumerated instead (tested below)
    expected = enumerated(die, count, steps, questions)
    assert dict(counted_dist.items()) == dict(expected.items())


@pytest.mark.parametrize("text", ["0d6", "0d6kh2rr=1", "0d6x", "0d6!!cs>=5", "0d{1,1,2}dl1"])
def test_a_pool_of_no_dice_is_answered_without_counting(text, monkeypatch):
    die, count, steps = compile_term(text)
    expected = enumerated(die, count, steps, tuple(QUESTIONS))
    monkeypatch.setattr(pools, "evaluate", None)  # (counting over multisets would fail)
    monkeypatch.setattr(pools, "exploding_answers", None)
    found = pool_answers(die, count, steps, tuple(QUESTIONS))
    assert dict(found.items()) == dict(expected.items()) and len(found.weights) == 1


def test_reroll_until_is_uniform_over_the_misses():
    die, steps = Die.of(6), (("reroll", False, predicate("<=", 2), None),)
    dist = pool_answers(die, 3, steps, (Highest(), Count(face_test(3))))
    expected = {}
    for rolled in itertools.product(range(3, 7), repeat=3):
        key = (max(rolled), rolled.count(3))
        expected[key] = expected.get(key, 0) + Fraction(1, 64)
    assert dict(dist.items()) == expected


def test_the_roller_itself_answers_like_the_questions():
    tray = DiceTray(ForcedDice([2, 5, 5, 1]), DEFAULT_LIMITS)
    rolled = roll_pool(tray, Die.of(6), 4, (("keep", "kh", 3, None),), None, "4d6kh3")
    assert Highest(2).of_roll(rolled) == (5, 5)
    assert Lowest().of_roll(rolled) == 2
    assert Count(face_test(1)).of_roll(rolled) == 0  # the 1 was dropped


TABLE = """
rulebook "Pool tables" { system "test" }
table Effect by top {
  1..3: "bad"
  4..5: "mixed"
  6: "good"
}
check bonus(skill: int) "Skill roll with a bonus die" {
  let tens = lowest(2d{0..9})
  let units = d{0..9}
  roll (if tens = 0 and units = 0 then 100 else 10 * tens + units) <= skill
}
action look(n: int) {
  let r = (n)d6
  result { effect: Effect[highest(r)], sixes: count(r, 6) }
}
"""


def test_a_pool_in_a_table_lookup_and_its_odds():
    engine = Engine(dsl.load_text(TABLE, "table.rules"))
    sheet = engine.sheet({})
    out = engine.run("look", sheet, {"n": 2}, ForcedDice([5, 2]))
    assert out.result == {"effect": "mixed", "sixes": 0}
    odds = engine.odds("look", sheet, {"n": 2})
    assert odds.probabilities == brute_force(engine, "look", {"n": 2})


def test_call_of_cthulhus_bonus_die_is_every_roll_of_three_d10s():
    engine = Engine(dsl.load_text(TABLE, "table.rules"))
    odds = engine.odds("bonus", engine.sheet({}), {"skill": 45}, field="success")
    expected: Counter = Counter()
    for a, b, units in itertools.product(range(10), repeat=3):
        tens = min(a, b)
        value = 100 if tens == 0 and units == 0 else 10 * tens + units
        expected[value <= 45] += Fraction(1, 1000)
    assert odds.probabilities == dict(expected)


def test_typed_in_dice_fill_a_pool(monkeypatch, capsys):
    import io
    from pathlib import Path

    from interpreter.cli import main

    examples = Path(__file__).resolve().parent.parent / "examples"
    monkeypatch.setattr("sys.stdin", io.StringIO("6\n3\n6\n"))
    code = main(["run", str(examples / "blades.rules"), "act", "--set", "dots=3", "--ask"])
    out = capsys.readouterr().out
    assert code == 0 and "outcome critical" in out and "3d6 [6, 3, 6]" in out
