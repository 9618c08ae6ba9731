"""What the odds engine keeps from one call to the next changes no answer.

The odds roller keeps the terms it counted (interpreter.odds.remembered.counted_distribution),
and an action's answer makes its Fractions only when they are read: the answers must be
exactly those counted afresh, whatever was asked before and under whatever bounds.
"""

from __future__ import annotations

from fractions import Fraction

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsl
from benchmarks.corpus import compile_term
from dsl.errors import RulebookError
from interpreter import Engine
from interpreter.expression import compile_expression
from interpreter.limits import DEFAULT_LIMITS
from interpreter.odds import TooComplex, compute, expression_odds, pool_distribution, pools
from interpreter.odds.budget import Deadline
from interpreter.odds.compute import BUDGET, at_once, by_worlds
from interpreter.odds.plain import plain_distribution
from interpreter.odds.polynomials import Budget
from interpreter.odds.pools import may_fail
from interpreter.odds.remembered import counted_answers, counted_distribution, counted_may_fail
from interpreter.pool import Count, Highest, LargestSet, Sorted, face_test

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


ASKED = [
    (Count(face_test(6)), Count(face_test(1))),
    (Highest(), Sorted()),
    (LargestSet(),),
]


@pytest.mark.parametrize("text", ["3d6", "4d6kh3", "d6x", "5d10cs>=6", "0d6"])
@pytest.mark.parametrize("questions", ASKED)
def test_kept_answers_are_the_answers_counted_afresh(text, questions, monkeypatch):
    die, count, steps = compile_term(text)
    fresh = pools.pool_answers(die, count, steps, questions, EPS, Budget(10**7), LIMIT)
    first = counted_answers(die, count, steps, questions, EPS, Budget(10**7), LIMIT)
    monkeypatch.setattr(pools, "pool_answers", None)  # the second call finds it kept
    kept = counted_answers(die, count, steps, questions, EPS, Budget(10**7), LIMIT)
    assert kept is first
    assert kept.weights == fresh.weights and kept.total == fresh.total


def test_answers_kept_under_a_larger_budget_are_still_refused_under_a_smaller_one():
    die, count, steps = compile_term("10d10")
    assert counted_answers(die, count, steps, (LargestSet(),), EPS, Budget(10**7), LIMIT).weights
    with pytest.raises(TooComplex):
        counted_answers(die, count, steps, (LargestSet(),), EPS, Budget(1000), LIMIT)


def test_a_pool_asked_again_by_another_computation_is_not_counted_again(monkeypatch):
    book = dsl.load_text(POOLED)
    engine = Engine(book)
    first = engine.odds("act", engine.sheet({}), {"dice": 7}).probabilities
    monkeypatch.setattr(pools, "pool_answers", None)  # (counting it again would fail)
    engine = Engine(book)
    assert engine.odds("act", engine.sheet({}), {"dice": 7}).probabilities == first
    assert sum(first.values()) == 1


def test_a_term_with_a_computed_modifier_is_not_counted_again(monkeypatch):
    # the modifier's test is a new function each time the term is made: the term is kept
    # by what its modifiers do (remembered.steps_key), not by the functions themselves
    book = dsl.load_text(COMPUTED)
    engine = Engine(book)
    first = engine.odds("act", engine.sheet({}), {"n": 7, "t": 6}).probabilities
    monkeypatch.setattr(pools, "pool_distribution", None)  # (counting it again would fail)
    engine = Engine(book)
    assert engine.odds("act", engine.sheet({}), {"n": 7, "t": 6}).probabilities == first
    assert sum(first.values()) == 1


def test_a_terms_modifiers_are_keyed_once_for_its_pool_failure_and_distribution(monkeypatch):
    # its tests are run on every face once, not once per thing asked of the term
    from interpreter.odds import remembered

    made = []
    real = remembered._tests_key
    monkeypatch.setattr(
        remembered, "_tests_key", lambda die, steps: made.append(1) or real(die, steps)
    )
    remembered._last_keyed[0] = None
    expression_odds("d100rr<5cs>=50")
    assert len(made) == 1


COMPUTED = """
rulebook "Computed" {
  system "computed"
  language "en"
}
action act(n: int, t: int) "Act" {
  let hits = (n)d10cs>=(t + 1)
  result { hits: hits }
}
"""

POOLED = """
rulebook "Pooled" {
  system "pooled"
  language "en"
}
action act(dice: int) "Act" {
  let r = (dice)d6
  result { sixes: count(r, 6), ones: count(r, 1), best: highest(r) }
}
"""


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


# ─── an expression counted in one run, without the explorer ─────────────────

TERM_TEXTS = st.sampled_from(
    ["d6", "3d6", "2d20kh1", "4d6kh3", "d6x", "4dF", "d%", "3d6rr=1", "6d10cs>7", "2d6x>=5"]
)
PARTS = st.one_of(TERM_TEXTS, st.integers(-3, 12).map(str))
EXPRESSIONS = st.one_of(
    PARTS,
    st.tuples(PARTS, st.sampled_from(["+", "-", "*", ">=", "<", "max"]), PARTS).map(
        lambda t: f"max({t[0]}, {t[2]})" if t[1] == "max" else f"{t[0]} {t[1]} {t[2]}"
    ),
    st.tuples(st.integers(2, 5), st.sampled_from(["d4", "2d3", "d6x", "d{0,1,1}"])).map(
        lambda t: f"({t[1]})d{t[0]}"
    ),  # the count is a roll: the run branches on it
    st.sampled_from(["d0", "0d6", "d6x=1x=2x=3x=4x=5x=6", "1000001d6", "d6 / 0", "d4d6"]),
)


def _outcome(compute):
    try:
        found = compute()
    except RulebookError as error:
        return ("refused", type(error).__name__, str(error))
    except TooComplex:
        return "too complex"
    if found is None:
        return None
    total = found.total
    return {o: Fraction(w, total) for o, w in found.weights.items()}


@settings(max_examples=80, deadline=None)
@given(EXPRESSIONS)
def test_one_run_gives_what_the_explorer_gives(text):
    limits = DEFAULT_LIMITS
    try:
        _node, value = compile_expression(text)
    except RulebookError:
        return  # refused before counting, the same for both
    once = _outcome(lambda: at_once(value, EPS, BUDGET, limits, Deadline(60)))
    worlds = _outcome(lambda: by_worlds(value, EPS, BUDGET, limits, Deadline(60)))
    if once is not None:  # None: it branches, and the explorer answers it
        assert once == worlds, text
    first, again = (_answer(lambda: expression_odds(text).probabilities) for _ in range(2))
    assert first == again, text  # and asked again (the terms kept): the same


def _answer(compute):
    try:
        return compute()
    except RulebookError as error:
        return ("refused", type(error).__name__, str(error))


def test_a_plain_term_is_counted_in_one_run_and_a_branching_one_by_worlds():
    def once(text):
        return at_once(compile_expression(text)[1], EPS, BUDGET, DEFAULT_LIMITS, Deadline(60))

    four = once("4d6kh3 + 2")  # 13 on the three highest of 4d6: 172 of the 1296 rolls
    assert four.weights[15] == 172 and four.total == 1296
    assert once("(d4)d6") is None


# ─── plain dice straight from the text ──────────────────────────────────────

PLAIN_TEXTS = st.one_of(
    st.builds(
        lambda count, sides: f"{count}d{sides}",
        st.sampled_from(["", "1", "2", "3", "5", "12", "0", "01", "100", "10001"]),
        st.sampled_from(["1", "2", "4", "6", "7", "20", "%", "100", "0", "06", "1001", "F", "f"]),
    ),
    st.sampled_from(["d6 ", " 3d6", "3D6", "3d6+0", "d-6", "-d6", "3d6x", "d"]),
    st.builds(
        lambda count, sides, modifier: f"{count}d{sides}{modifier}",
        st.sampled_from(["", "1", "2", "3", "5", "12", "100"]),
        st.sampled_from(["2", "6", "10", "20", "%", "F"]),
        st.sampled_from(
            [
                *("kh", "kh1", "kl2", "dh1", "dl3", "kh0", "kh02", "k1", "KH1", "kh12", "dl1000"),
                *("cs>7", "cs>=6df=1", "cs=1df=-1", "cs<=2df>=9", "cs>=06", "cs>=-1", "cs6"),
                *("cs>=0", "cs>6df=-0", "cs>3x", "cs>=5cf<2", "cs>=5df", "kh1x", "cs=1dl1"),
                *("ro=1", "rr<=2", "rr>=1", "ro<3kh3", "rr=1dl1", "rr>1cs>=5", "ro1", "rr=-1"),
                *("k", "k2", "d", "d1", "ro=1d2", "dx"),
                *("kh3cs>=6", "dl1cs>=5df=1", "kcs>7", "ro=1kh2cs>=4", "cs>=6kh3", "kh4cs=1"),
            ]
        ),
    ),
    st.builds(  # counts and faces worked out from parentheses
        lambda count, sides, modifier: f"{count}d{sides}{modifier}",
        st.sampled_from(["", "(2+1)", "(3-3)", "(1-2)", "(2*3-1)", "(02+1)", "(99*99)", "(2 +1)"]),
        st.sampled_from(["(3*2)", "(1-1)", "(2-3)", "(5000*2)", "F", "(1+0)", "(6)"]),
        st.sampled_from(["", "kh1", "ro=1", "cs>=4df=1", "x"]),
    ),
)
LIMITS = st.sampled_from(
    [
        DEFAULT_LIMITS,
        attrs.evolve(DEFAULT_LIMITS, dice_per_term=3, faces_per_die=20, odds_outcomes=30),
        attrs.evolve(DEFAULT_LIMITS, dice_per_evaluation=2),
    ]
)


def _general(text, limits):
    """expression_odds without the plain path: the parser, checker, compiler, explorer."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compute, "plain_distribution", lambda *args: None)
        return _answered(text, limits)


def _answered(text, limits):
    try:
        odds = expression_odds(text, limits=limits, trials=50, seconds=5)
    except RulebookError as error:
        return ("refused", type(error).__name__, str(error))
    return (odds.exact, odds.probabilities if odds.exact else None, odds.omitted)


@settings(max_examples=150, deadline=None)
@given(PLAIN_TEXTS, LIMITS)
def test_plain_dice_are_what_the_general_path_gives(text, limits):
    assert _answered(text, limits) == _general(text, limits), text


def test_plain_dice_are_read_without_the_parser():
    plain = plain_distribution("3d6", EPS, DEFAULT_LIMITS, Deadline(60))
    assert plain.weights[10] == 27 and plain.total == 216
    assert plain_distribution("d%", EPS, DEFAULT_LIMITS, Deadline(60)).total == 100
    fudge = plain_distribution("4dF", EPS, DEFAULT_LIMITS, Deadline(60))
    assert fudge.weights[0] == 19 and fudge.weights[-4] == 1 and fudge.total == 81
    kept = plain_distribution("2d20kh1", EPS, DEFAULT_LIMITS, Deadline(60))
    assert kept.probability(20) == Fraction(39, 400)
    worked_out = plain_distribution("(2+1)d(3*2)", EPS, DEFAULT_LIMITS, Deadline(60))
    assert worked_out.weights[10] == 27 and worked_out.total == 216  # 3d6
    rerolled = plain_distribution("4d6ro=1", EPS, DEFAULT_LIMITS, Deadline(60))
    assert rerolled.probability(4) == Fraction(1, 36**4)  # a 1, then a 1 again: each die
    kept_hits = plain_distribution("5d10kh3cs>=6", EPS, DEFAULT_LIMITS, Deadline(60))
    assert kept_hits.probability(0) == Fraction(1, 32)  # no 6 or more among the 5
    net = plain_distribution("4dFcs=1df=-1", EPS, DEFAULT_LIMITS, Deadline(60))
    assert net.probability(4) == Fraction(1, 81) and net.probability(0) == Fraction(19, 81)
    for other in ("4d6kh3x", "0d6", "d0", "03d6", "d6kh1", "2d6kh2", "2d6cs"):
        assert plain_distribution(other, EPS, DEFAULT_LIMITS, Deadline(60)) is None
