"""A named roll with its own procedure asked of its dice (`r.dice[1]`, `count(r, 4)`,
`highest(r)`): counted exactly by walking every way the procedure's dice can fall, as a
real run rolls them, and equal to brute force. (Cyberpunk RED's critical, `let d =
check_die  critical = d.dice[1] = 10`, was sampled: only a named roll's total was
counted.)"""

from __future__ import annotations

import itertools

import pytest
from oracle import agrees_with_brute_force

import dsl
from interpreter import Engine, Limits

#: roll procedures whose dice are finite (brute force lists every sequence)
PROCEDURES = {
    "once": "d4 then {\n  on die = 4: add d4\n  on die = 1: subtract d4\n}",
    "pool": "2d3 then {\n  on die >= 5: add d3\n}",
    "kept": "3d3kh2 then {\n  on die = 6: add d2\n}",
}
#: what the action asks of the roll, besides its total
ASKED = {
    "first": "r.dice[1]",
    "count": "count(r, 3)",
    "highest": "highest(r)",
    "listed": "r.dice",
}


@pytest.mark.parametrize(("procedure", "asked"), itertools.product(PROCEDURES, ASKED))
def test_a_procedures_dice_are_counted_as_brute_force_finds_them(procedure, asked):
    text = f"""rulebook "Chains" {{ language "en" }}
sheet {{ attribute A in 0..3 }}
roll chained = {PROCEDURES[procedure]}
action act() "Act" {{
  let r = chained
  result {{ total: r + A, asked: {ASKED[asked]} }}
}}
"""
    engine = Engine(dsl.load_text(text, "chains.rules"))
    agrees_with_brute_force(engine, engine.sheet({"A": 1}), f"{procedure} {asked}")


def test_a_checks_term_held_by_a_let_is_counted_with_its_first_die():
    text = """rulebook "Crit" { language "en" }
roll check_die = d6 then {
  on die = 6: add d6
  on die = 1: subtract d6
}
check c(bonus: int = 2) "C" {
  let d = check_die
  roll d + bonus > 6
  critical = d.dice[1] = 6
}
action act() "Act" {
  let k = c()
  result { success: k.success, critical: k.critical, total: k.total }
}
"""
    engine = Engine(dsl.load_text(text, "crit.rules"))
    agrees_with_brute_force(engine, engine.sheet({}))


def test_an_exploding_chain_asked_of_its_first_die_is_exact():
    """`again while`: the chain is followed until what is left is below the epsilon."""
    text = """rulebook "Open" { language "en" }
roll open = d6 then { on die = 6: add d6, again while die = 6 }
action act() "Act" {
  let r = open
  result { first: r.dice[1], big: r >= 12 }
}
"""
    engine = Engine(dsl.load_text(text, "open.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, "first")
    assert odds.exact and odds.probabilities == {face: pytest.approx(1 / 6) for face in range(1, 7)}
    big = engine.odds("act", engine.sheet({}), {}, "big")
    assert big.exact and abs(float(big.probabilities[True]) - 1 / 36) < 1e-9  # (6, then 6+)


def test_walking_a_procedure_counts_no_steps_of_the_run():
    """The walk runs the procedure once per way its dice fall: those runs' steps are no
    run's. They were added to the world's count, so a limit no real run comes near
    (200 steps) sent the answer to sampling."""
    text = """rulebook "Crit" { language "en" }
roll check_die = d6 then {
  on die = 6: add d6, again while die = 6
  on die = 1: subtract d6
}
action act() "Act" {
  let d = check_die
  let k = d.dice[1]
  result { crit: k = 6, total: d }
}
"""
    engine = Engine(dsl.load_text(text, "crit.rules"), Limits(steps_per_run=200))
    odds = engine.odds("act", engine.sheet({}), {}, "crit")
    assert odds.exact and abs(float(odds.probabilities[True]) - 1 / 6) < 1e-9
