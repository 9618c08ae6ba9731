"""Outcomes a check defines itself: its own `success`, named degrees, a named die.

D&D 5e's natural 20 and natural 1, Call of Cthulhu's six degrees, Fate's tie: the trace,
`success`, the odds and `describe` all say what the author defined."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from interpreter import Engine, ForcedDice, render_text
from interpreter.describe import describe

ATTACK = """
rulebook "5e" { }
check attack(bonus: int, ac: int) "Attack" {
  let die = d20                      # the die, named: its face is `die` below
  roll die + bonus >= ac
  success = die = 20 or (die != 1 and total >= target)
  degrees {
    critical: die = 20
    hit: success
    miss: else
  }
}
action swing(bonus: int = 5, ac: int = 15) {
  let a = attack(bonus, ac)
  result { hit: a.success, degree: a.degree }
}
"""

CTHULHU = """
rulebook "CoC" { }
check skill(value: int) "Skill roll" {
  roll d100 <= value
  degrees {
    critical: total = 1
    fumble: total = 100 or (value < 50 and total >= 96)
    extreme: total <= floor(value / 5)
    hard: total <= floor(value / 2)
    regular: success
    failure: else
  }
}
"""

FATE = """
rulebook "Fate" { }
check overcome(skill: int, difficulty: int) "Overcome" {
  roll 4dF + skill > difficulty
  shifts = total - target
  degrees {
    "success with style": shifts >= 3
    success: shifts >= 1
    tie: shifts = 0
    failure: else
  }
}
"""


def engine_of(text: str) -> Engine:
    return Engine(dsl.load_text(text, "outcomes.rules"))


def test_a_natural_twenty_hits_whatever_the_armour():
    engine = engine_of(ATTACK)
    sheet = engine.sheet({})
    out = engine.run("swing", sheet, {"bonus": 0, "ac": 30}, ForcedDice([20]))
    assert dict(out.result) == {"hit": True, "degree": "critical"}
    out = engine.run("swing", sheet, {"bonus": 20, "ac": 5}, ForcedDice([1]))
    assert dict(out.result) == {"hit": False, "degree": "miss"}


def test_the_trace_says_the_authors_verdict():
    engine = engine_of(ATTACK)
    out = engine.run("swing", engine.sheet({}), {"bonus": 20, "ac": 5}, ForcedDice([1]))
    text = render_text(out.trace)
    assert "Attack: die [1] + bonus 20 = 21 vs 5 → miss" in text
    assert "success" not in text
    sheet, params = engine.sheet({}), {"bonus": 2, "ac": 25}
    record = engine.run_check("attack", sheet, params, ForcedDice([20])).result
    assert record["success"] is True and record["margin"] == -3  # the margin stays the roll's


def test_the_odds_of_success_are_the_authors():
    # +20 against 5: only a natural 1 misses, which the built-in comparison never sees
    engine = engine_of(ATTACK)
    odds = engine.odds("attack", engine.sheet({}), {"bonus": 20, "ac": 5}, field="success")
    assert odds.probabilities == {False: Fraction(1, 20), True: Fraction(19, 20)}
    odds = engine.odds("swing", engine.sheet({}), {"bonus": 0, "ac": 30}, field="degree")
    assert odds.probabilities == {"critical": Fraction(1, 20), "miss": Fraction(19, 20)}


@pytest.mark.parametrize("bonus, ac", [(5, 15), (0, 21), (12, 2), (3, 13)])
def test_exact_odds_of_the_degrees_are_every_way_the_die_falls(bonus, ac, exhaustive):
    engine = engine_of(ATTACK)
    sheet = engine.sheet({})
    params = {"bonus": bonus, "ac": ac}
    brute = exhaustive(lambda dice: engine.run("swing", sheet, params, dice).result["degree"])
    assert engine.odds("swing", sheet, params, field="degree").probabilities == brute


def test_call_of_cthulhu_has_six_degrees():
    engine = engine_of(CTHULHU)
    sheet = engine.sheet({})
    seen = {
        face: engine.run_check("skill", sheet, {"value": 45}, ForcedDice([face])).result["degree"]
        for face in (1, 9, 10, 22, 23, 45, 46, 95, 96, 100)
    }
    assert seen == {
        1: "critical",
        9: "extreme",
        10: "hard",
        22: "hard",
        23: "regular",
        45: "regular",
        46: "failure",
        95: "failure",
        96: "fumble",
        100: "fumble",
    }
    odds = engine.odds("skill", sheet, {"value": 45}, field="degree").probabilities
    assert odds == {
        "critical": Fraction(1, 100),
        "extreme": Fraction(8, 100),
        "hard": Fraction(13, 100),
        "regular": Fraction(23, 100),
        "failure": Fraction(50, 100),
        "fumble": Fraction(5, 100),
    }


def test_in_fate_a_tie_is_neither_success_nor_failure():
    engine = engine_of(FATE)
    sheet = engine.sheet({})
    params = {"skill": 2, "difficulty": 2}
    record = engine.run_check("overcome", sheet, params, ForcedDice([0] * 4)).result
    assert record["degree"] == "tie" and record["success"] is False
    odds = engine.odds("overcome", sheet, {"skill": 2, "difficulty": 2}, field="degree")
    # 4dF: P(sum = 0) = 19/81, P(sum >= 3) = 5/81, P(1..2) = 26/81
    assert odds.probabilities == {
        "failure": Fraction(31, 81),
        "tie": Fraction(19, 81),
        "success": Fraction(26, 81),
        "success with style": Fraction(5, 81),
    }


def test_describe_gives_the_authors_success_and_degrees():
    info = describe(engine_of(ATTACK).rulebook)
    (check,) = info["checks"]
    assert check["success"] == "die = 20 or (die != 1 and total >= target)"
    assert check["degrees"] == ["critical", "hit", "miss"]
    assert check["fields"] == ["success", "degree"]


def test_a_degree_is_one_of_its_labels_to_the_checker():
    with pytest.raises(dsl.RulebookInvalid) as caught:
        dsl.load_text(
            FATE + 'action a() { let o = overcome(1, 2)\n result { x: o.degree = "tei" } }', "f"
        )
    assert '"tei" is not one of the choices here' in str(caught.value)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("roll d6 >= 3\n total = 2", "`total` is a built-in field; choose another name"),
        ("roll d6 >= 3\n success = 2", "`success` is yes/no, not number"),
        ("roll d6 >= 3\n success = yes\n success = no", "the field `success` is defined twice"),
        ("roll d6\n degrees { a: total > 3 }\n degree = 1", "the field `degree` is defined twice"),
    ],
)
def test_what_a_check_may_not_define(body, message):
    with pytest.raises(dsl.RulebookInvalid) as caught:
        dsl.load_text(f"check c() {{ {body} }}", "c.rules")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("degrees { a: yes }\n roll d6", "a check's degrees come after its `roll`"),
        ("roll d6\n degrees { a: else\n b: yes }", "`else` is the last degree"),
        ("roll d6\n degrees { a: yes\n a: no }", "the degree `a` is listed twice"),
        ("roll d6\n degrees { a: yes }\n degrees { b: yes }", "a check has one `degrees` block"),
    ],
)
def test_how_degrees_are_written(body, message):
    with pytest.raises(dsl.RulebookSyntaxError, match=message):
        dsl.load_text(f"check c() {{ {body} }}", "c.rules")


def test_without_an_else_no_degree_is_none():
    engine = engine_of("check c() { roll d6\n degrees { high: total >= 5 } }")
    assert engine.run_check("c", engine.sheet({}), {}, ForcedDice([2])).result["degree"] is None
    assert engine.run_check("c", engine.sheet({}), {}, ForcedDice([6])).result["degree"] == "high"


def test_a_field_read_by_name_after_the_check_sees_the_named_die():
    # the named die is part of the check: its odds are its own, not the first world's
    engine = engine_of("check c() { let d = d20\n roll d4 >= 3\n crit = d = 20 }")
    odds = engine.odds("c", engine.sheet({}), {}, field="crit")
    assert odds.probabilities == {False: Fraction(19, 20), True: Fraction(1, 20)}


def test_a_name_that_reads_as_dice_is_refused():
    with pytest.raises(dsl.RulebookInvalid) as caught:
        dsl.load_text("check c() { let d20 = d20\n roll d20 + 1 }", "c.rules")
    assert "`d20` reads as dice wherever a value goes; choose another name" in str(caught.value)
