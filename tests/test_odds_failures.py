"""Where a run fails, its odds fail alike: in every field's answer, in the whole result's,
field by field; and the odds of the shapes that gave tracebacks (issue 23).

Each case is held against brute force (every sequence of dice a real run can draw), or,
where a real run cannot be asked yet, against the odds of its parts.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from oracle import PrefixDice, action_outcomes, agrees_with_brute_force, counted, marginal

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, Limits
from interpreter.odds import expression_odds
from interpreter.odds.marginals import ByField
from interpreter.odds.worlds import Failure

LIMITS = Limits(tie_rerolls=1)

SHEET = """rulebook "Failures" {
  language "en"
}

sheet {
  attribute Fuerza, Agilidad in 1..10 default 3
  group Stats = Fuerza, Agilidad
  flag C
}
"""


def engine_of(actions: str) -> Engine:
    return Engine(dsl.load_text(SHEET + actions), LIMITS)


def failures(odds) -> dict:
    return {str(o.message): p for o, p in odds.probabilities.items() if isinstance(o, Failure)}


# ─── tracebacks ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "body",
    [
        # the loop's name names a field of the group: `set s` writes it, reading s
        "let r = d3\n  for each s in Stats {\n    set s to r\n  }",
        "for each s in Stats {\n    let r = d3\n    set s to r\n  }",
        "for each s in Stats {\n    let r = d2\n    if r = 2 {\n      set s to r + 1\n    }\n  }",
    ],
)
def test_a_loop_over_a_group_setting_its_name_after_a_roll(body):
    result = "result { f: Fuerza, a: Agilidad, t: Fuerza + Agilidad }"
    engine = engine_of(f"action act() {{\n  {body}\n  {result}\n}}\n")
    agrees_with_brute_force(engine, engine.sheet({}), body)


@pytest.mark.parametrize(
    "body",
    [
        "let x = d3\n  set p to x",
        "let x = d3\n  let y = d2\n  set p to x + y",
        "let x = d3\n  if x > 1 {\n    set p to x\n  }",
    ],
)
def test_a_parameter_naming_a_field_set_to_a_roll(body):
    engine = engine_of(
        f'action act(p: attribute = "Agilidad") {{\n  {body}\n'
        "  result { a: Agilidad, f: Fuerza }\n}\n"
    )
    agrees_with_brute_force(engine, engine.sheet({}), body)


def test_a_pool_on_one_branch_and_a_die_on_the_other():
    # `r` is a pool where C holds, the die where it does not: its total, its highest die
    # and a count of it, each as a real run gives them (and the total, the odds of
    # either term written alone)
    engine = engine_of(
        "action act() {\n  let r = if C then 2d20kh1 else d20\n"
        "  result { t: r, u: r + 1, h: highest(r), n: count(r, 20) }\n}\n"
    )
    for flag, written in ((True, "2d20kh1"), (False, "d20")):
        sheet = engine.sheet({"C": flag})
        agrees_with_brute_force(engine, sheet, written)
        alone = expression_odds(written).probabilities
        assert engine.odds("act", sheet, {}, "t").probabilities == alone


# ─── a failure in one field is every field's ────────────────────────────────


def test_a_field_that_fails_stops_the_run_in_every_field():
    # the case: k2 is 1 always, but a run fails when n = 1 (k1 divides by zero)
    engine = engine_of("action act() {\n  let n = d6\n  result { k1: 6 / (n - 1), k2: 1 }\n}\n")
    sheet = engine.sheet({})
    with pytest.raises(RulebookError, match="division by zero"):
        engine.run("act", sheet, {}, dice=iter_dice(1))
    for field in ("k1", "k2", None):
        odds = engine.odds("act", sheet, {}, field)
        assert failures(odds) == {"division by zero": Fraction(1, 6)}, field
    assert engine.odds("act", sheet, {}, "k2").probability(1) == Fraction(5, 6)
    assert engine.odds("act", sheet, {}, "k1").probability(3) == Fraction(1, 6)  # n = 3
    # a field of the sheet too: the result is computed in every run that gets there
    assert failures(engine.odds("act", sheet, {}, "Fuerza")) == {"division by zero": Fraction(1, 6)}


@pytest.mark.parametrize(
    "body",
    [
        "let n = d3\n  let m = d2\n  result { a: 6 / (n - 1), b: m, c: n }",
        "let n = d3\n  result { a: m_of(n), b: n + 1 }",  # in a formula called
        "let n = d3\n  let q = 6 / (n - 2)\n  result { a: n, b: 1 }",  # a let nobody reads
        "let n = d2\n  let k = d2\n  result { a: n * k, b: 10 / (n - k), c: k }",
    ],
)
def test_failures_against_brute_force(body):
    engine = engine_of(f"formula m_of(x: int) = 12 / (x - 2)\naction act() {{\n  {body}\n}}\n")
    agrees_with_brute_force(engine, engine.sheet({}), body)


def test_a_failure_in_every_field_of_a_whole_answered_field_by_field():
    # a joint too large to list (6 x 58 x 39 outcomes): each field on its own, the
    # failure of k1 in each
    engine = engine_of(
        "action act() {\n  let n = d6\n  result { k1: 6 / (n - 1), k2: 3d20, k3: 2d20 }\n}\n"
    )
    whole = engine.odds("act", engine.sheet({}), {})
    assert isinstance(whole, ByField)
    for name, odds in whole.fields.items():
        assert failures(odds) == {"division by zero": Fraction(1, 6)}, name
    assert sum(whole.failures.values()) == Fraction(1, 6)


def test_an_expression_that_fails_on_some_rolls():
    odds = expression_odds("6 / (d6 - 1)")
    assert failures(odds) == {"division by zero": Fraction(1, 6)}
    assert odds.probability(Fraction(3, 2)) == Fraction(1, 6)
    with pytest.raises(RulebookError, match="division by zero"):
        expression_odds("d6 / 0")  # in every roll: the error itself, as a roll gives


def iter_dice(*faces):
    return PrefixDice(faces)


def test_a_value_that_is_no_dice_term_answers_its_total_alone():
    # where a pool is expected but a plain value comes (a lone die's distribution, a
    # number): its total is counted, any other question is left to sampling
    from interpreter.odds.distribution import Dist
    from interpreter.odds.polynomials import TooComplex
    from interpreter.odds.questions import value_answers
    from interpreter.pool import Highest, Total

    die = Dist.uniform(range(1, 7))
    assert value_answers(die, (Total(), Total())).weights == {(f, f): 1 for f in range(1, 7)}
    assert value_answers(4, (Total(),)).weights == {(4,): 1}
    with pytest.raises(TooComplex, match="highest"):
        value_answers(die, (Total(), Highest()))


# ─── values read from two opposed checks that may stop at the tie limit ─────

OPPOSED = """opposed o1() { roll d2  against d2 }
opposed o2() { roll d2 + 1  against d3 }
opposed big(x: int = 0) { roll d2 + x  against 1  tie ours }
opposed both() { roll o1().margin + o2().margin  against d2  tie ours }
"""


@pytest.mark.parametrize(
    "body",
    [
        # a side rolling the sum of two margins: refused ("should be a number, not Contest")
        "let r = both()\n  result { won: r.won, m: r.margin }",
        # the sum as an argument, and other ways of combining two checks: wrong, exactly
        "let m = o1().margin + o2().margin\n  let r = big(m)\n  result { won: r.won }",
        "let m = o1().margin * o2().margin\n  result { m: m }",
        "let m = o1().margin - o2().margin + o1().margin\n  result { m: m }",
        "let w = o1().won and o2().won\n  result { w: w }",
    ],
)
def test_a_value_of_two_opposed_checks_that_may_stop(body):
    engine = Engine(dsl.load_text(SHEET + OPPOSED + f"action act() {{\n  {body}\n}}\n"), LIMITS)
    agrees_with_brute_force(engine, engine.sheet({}), body)


@pytest.mark.parametrize(
    "result",
    [
        "result { v: n, w: if n = 3 then 1 / 0 else 0 }",  # a field failing on one roll
        "result { v: 6 / (n - 1) }",
    ],
)
def test_best_play_counts_a_result_that_fails_as_the_run_does(result):
    # (was: TypeError "cannot unpack non-iterable Failure object")
    engine = engine_of(f"action act() {{\n  let n = d3\n  {result}\n}}\n")
    sheet = engine.sheet({})
    joint = action_outcomes(engine, "act", sheet)
    for field in [name for name, _ in engine.rulebook.actions["act"].body[-1].fields]:
        best = engine.odds("act", sheet, {}, field, best=field)
        assert counted(best) == marginal(joint, field)
