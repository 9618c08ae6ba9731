"""Opposed checks follow their checks' direction: roll-under sides, degrees, ties that stand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import action_outcomes, counted, marginal
from test_odds_brute_force import HEADER, LIMITS

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice
from interpreter.trace import render_text

# issue 30: both roll 3d6 under 15; ours 9 (by 6), theirs 12 (by 3): ours wins, by 3
CONTEST = """
rulebook "Contest" { }
check under(value: int) "Roll under" { roll 3d6 <= value }
opposed contest() "Contest" { roll under(15)  against under(15) }
"""


def test_a_roll_under_contest_is_won_by_the_lower_roll():
    engine = Engine(dsl.load_text(CONTEST))
    outcome = engine.run("contest", engine.sheet({}), {}, dice=ForcedDice([3, 3, 3, 4, 4, 4]))
    assert outcome.result["won"] is True and outcome.result["margin"] == 3
    assert "Contest: 9 vs 12 (margin 6 vs 3) → wins" in render_text(outcome.trace)


# GURPS 4e, p. B348, Quick Contests: "the winner is the one who succeeded by the most or
# failed by the least. [...] A tie means nobody wins." Skills differ: margins, not totals.
GURPS = """
rulebook "Quick contest" { }
sheet { skill Sword, Parry in 3..20 default 10 }
check roll_vs(skill: skill) "Roll vs" { roll 3d6 <= skill }
opposed quick(rival: skill) "Quick contest" {
  roll roll_vs(Sword)
  against roll_vs(rival)
  tie none
}
"""


def test_a_quick_contest_compares_margins_and_a_tie_stands():
    engine = Engine(dsl.load_text(GURPS))
    sheet = engine.sheet({"Sword": 14, "Parry": 10})
    # ours 12 against 14 (by 2); theirs 9 against 10 (by 1): a total of 12 beats 9
    won = engine.run("quick", sheet, {"rival": "Parry"}, dice=ForcedDice([4, 4, 4, 3, 3, 3]))
    assert won.result["won"] is True and won.result["margin"] == 1
    # ours 13 (by 1), theirs 9 (by 1): nobody wins
    tied = engine.run("quick", sheet, {"rival": "Parry"}, dice=ForcedDice([4, 4, 5, 3, 3, 3]))
    assert tied.result["tie"] is True and tied.result["won"] is False
    assert "→ tie, nobody wins" in render_text(tied.trace)


# Call of Cthulhu 7e, p. 91: "the side with the higher level of success wins"; equal
# levels, the higher skill. The degrees are declared for precedence (fumble early), and
# ranked: successes first-declared best, failures last-declared best. Without `compare`,
# degrees then margins (tested below).
COC = """
rulebook "Opposed" { }
sheet { skill Spot, Stealth in 1..99 default 50 }
check skill_roll(skill: skill) "Skill roll" {
  roll d100 <= skill
  degrees {
    critical: total = 1
    fumble: total = 100 or (skill < 50 and total >= 96)
    extreme: total <= floor(skill / 5)
    hard: total <= floor(skill / 2)
    regular: success
    failure: else
  }
}
opposed spot() "Spot" {
  roll skill_roll(Spot)
  against skill_roll(Stealth)
  compare degree, target   # equal levels: the higher skill
}
"""


@pytest.mark.parametrize(
    ("ours", "theirs", "won"),
    [
        (60, 100, True),  # a failure beats a fumble
        (100, 60, False),
        (5, 20, True),  # extreme beats hard, whatever the totals
        (30, 1, False),  # hard loses to a critical
        (45, 40, True),  # both regular (Spot 50, Stealth 45): the higher skill wins
        (99, 99, True),  # Spot 50 fails a 99, Stealth 45 fumbles it
    ],
)
def test_degrees_rank_before_margins(ours, theirs, won):
    engine = Engine(dsl.load_text(COC))
    sheet = engine.sheet({"Spot": 50, "Stealth": 45})
    outcome = engine.run("spot", sheet, {}, dice=ForcedDice([ours, theirs]))
    assert outcome.result["won"] is won


# Warhammer Fantasy Roleplay 4e, p. 153: "the one with the highest SL wins"; its SL is the
# tens of the target minus the tens of the roll. The margin is in Success Levels.
WARHAMMER = """
rulebook "Opposed test" { }
sheet { skill 'Weapon Skill' in 1..99 default 40 }
check test(value: int) "Test" {
  roll d100 <= value
  sl = floor(value / 10) - floor(total / 10)
}
opposed attack(defence: int) "Attack" {
  roll test('Weapon Skill')
  against test(defence)
  compare sl, target
  tie reroll
}
"""


def test_by_default_degrees_then_margins():
    engine = Engine(dsl.load_text(COC.replace("compare degree, target", "")))
    sheet = engine.sheet({"Spot": 50, "Stealth": 45})
    # both regular: margins 5 (50 - 45) and 4 (45 - 41); then equal margins are rerolled
    assert engine.run("spot", sheet, {}, dice=ForcedDice([45, 41])).result["won"] is True
    tied = engine.run("spot", sheet, {}, dice=ForcedDice([45, 40, 30, 20]))
    # then a regular 30 (of 50) against a hard 20 (of 45)
    assert tied.result["rerolls"] == 1 and tied.result["won"] is False
    assert tied.result["margin"] == 20 - 25  # in margins: ours by 20, theirs by 25


def test_warhammer_success_levels_are_the_margin():
    engine = Engine(dsl.load_text(WARHAMMER))
    sheet = engine.sheet({"Weapon Skill": 45})
    outcome = engine.run("attack", sheet, {"defence": 35}, dice=ForcedDice([12, 47]))
    # ours 12 against 45: +3 SL; theirs 47 against 35: -1 SL
    assert outcome.result["won"] is True and outcome.result["margin"] == 4


def test_totals_of_sides_rolled_different_ways_cannot_be_compared():
    text = CONTEST.replace("against under(15)", "against over(10)") + (
        'check over(value: int) "Roll over" { roll 3d6 >= value }'
    )
    text = text.replace('"Contest" { roll', '"Contest" { compare total  roll')
    with pytest.raises(RulebookError, match="totals cannot be compared"):
        dsl.load_text(text)
    # their margins can: each in its own direction
    dsl.load_text(text.replace("compare total", "compare margin"))


def test_roll_over_rulebooks_compare_totals_as_before():
    book = dsl.load_text(CONTEST.replace("<=", ">="))
    engine = Engine(book)
    outcome = engine.run("contest", engine.sheet({}), {}, dice=ForcedDice([3, 3, 3, 4, 4, 4]))
    assert outcome.result["won"] is False and outcome.result["margin"] == -3


@st.composite
def contests(draw):
    """An opposed check of two small checks, each rolled over or under its target."""
    ways = [draw(st.sampled_from([">=", "<=", "<", ">"])) for _ in range(2)]
    targets = [draw(st.integers(1, 4)) for _ in range(2)]
    tie = draw(st.sampled_from(["reroll", "ours", "theirs", "none"]))
    degrees = draw(st.booleans())
    compare = draw(st.sampled_from(["", "compare margin", "compare success, margin"]))
    if degrees:
        compare = draw(st.sampled_from([compare, "compare degree, total"]))
    # a die named before the roll (`let d = d4`, a natural die its field reads): each side
    # branches on it before its roll (interpreter.odds.side_paths)
    named_die = draw(st.booleans())
    checks = ""
    for i, (way, target) in enumerate(zip(ways, targets)):
        named = "degrees { top: total = 1  good: success  bad: total = 4  poor: else }"
        roll = (
            f"let d = d4\n  roll d + x {way} {target} + A\n  top = d = 4"
            if named_die
            else (f"roll d4 + x {way} {target} + A")
        )
        checks += f"""
check c{i}(x: int = 0) "C{i}" {{
  {roll}
  {named if degrees else ""}
}}"""
    if "total" in compare and len({w in ("<=", "<") for w in ways}) > 1:
        compare = "compare margin"
    return (
        HEADER
        + checks
        + f"""
opposed act() "Act" {{
  roll c0()
  against c1(B)
  {compare}
  tie {tie}
}}"""
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contests(), st.integers(0, 2), st.integers(0, 2))
def test_the_odds_agree_with_every_run(text, a, b):
    engine = Engine(dsl.load_text(text), LIMITS)
    sheet = engine.sheet({"A": a, "B": b})
    joint = action_outcomes(engine, "act", sheet)
    for field in ("won", "tie", "margin", "ours"):
        odds = engine.odds("act", sheet, {}, field)
        assert odds.exact, field
        assert counted(odds) == marginal(joint, field), (text, field)


def test_the_references_example_does_what_it_says():
    text = (Path(__file__).resolve().parent.parent / "grammar" / "README.md").read_text("utf-8")
    start = text.index("A GURPS Quick Contest")
    block = re.search(r"^```(?:rulebook)?\n(.*?)^```$", text[start:], flags=re.S | re.M).group(1)
    prelude = "rulebook \"R\" { }\nsheet { skill Sword, 'Weapon Skill' in 1..99 default 14 }\n"
    engine = Engine(dsl.load_text(prelude + block))
    sheet = engine.sheet({"Sword": 14, "Weapon Skill": 45})
    quick = engine.run("quick", sheet, {"rival": 10}, dice=ForcedDice([4, 4, 4, 3, 3, 3]))
    assert quick.result["won"] is True and quick.result["margin"] == 1
    attack = engine.run("attack", sheet, {"defence": 35}, dice=ForcedDice([12, 47]))
    assert attack.result["won"] is True and attack.result["margin"] == 4


# issue 30: `against rival.roll_under(rival_skill)` rolled the rival against the hero's skill
def reference_book(change=None):
    text = (Path(__file__).resolve().parent.parent / "grammar" / "README.md").read_text("utf-8")
    start = text.index("check bajo(valor: int)")
    block = "\n".join(line.strip() for line in text[start : text.index("```", start)].splitlines())
    if change is not None:
        block = block.replace("rival.bajo(suya)", change)
    sheet = "sheet { attribute Destreza in 1..20 default 10  skills in 0..20 default 0 }\n"
    return dsl.load_text('rulebook "R" { }\n' + sheet + block)


def read_warnings(book) -> list:
    return [str(w.message) for w in book.warnings if "sheet" in str(w.message)]


def test_a_field_read_for_another_character_is_warned_with_both_readings():
    (warned,) = [w for w in reference_book().warnings if "on this character's" in str(w.message)]
    assert "`suya` names a skill" in str(warned.message) and warned.span.text == "suya"
    named = read_warnings(reference_book("rival.bajo(Destreza)"))
    assert any("`Destreza` is this character's Destreza, not rival.Destreza" in m for m in named)
    assert not read_warnings(reference_book("rival.bajo(Destreza + 0)"))
    assert not read_warnings(reference_book("rival.bajo(rival.Destreza)"))


def test_a_parameter_naming_a_field_reads_it_on_the_other_sheet():
    book = reference_book("rival.bajo_en(suya)")
    assert not read_warnings(book)
    engine = Engine(book)
    hero = engine.sheet({"Destreza": 15, "skills": {"Sigilo": 14}})
    rival = engine.sheet({"Destreza": 5, "skills": {"Sigilo": 4}})
    dice = ForcedDice([3, 3, 3, 2, 2, 2])
    run = engine.run("vigilar", hero, {"suya": "Sigilo"}, dice=dice, targets={"rival": rival})
    assert run.result["theirs"]["target"] == 4  # the rival's Sigilo, not the hero's 14


def test_a_written_compare_is_shown_and_a_tie_on_it_says_what_tied():
    """`compare sl` (Warhammer's success levels): the line shows the sl, not only the
    totals, and a tie rolled again says the sl tied (its totals differ)."""
    text = """
    check test(skill: int) "Test" {
      let d = d100
      roll d <= skill
      sl = floor(target / 10) - floor(d / 10)
    }
    opposed contest(skill: int) "Contest" {
      roll test(skill)
      against test(skill)
      compare sl
      tie reroll
    }
    """
    engine = Engine(dsl.load_text(text, "sl.rules"))
    outcome = engine.run(
        "contest", engine.sheet({}), {"skill": 41}, dice=ForcedDice([31, 39, 14, 93])
    )
    shown = render_text(outcome.trace)
    assert "Contest: tie (sl 1 vs 1), roll again" in shown  # (31 and 39: both sl 1)
    assert "Contest: 14 vs 93 (sl 3 vs -5) → wins" in shown
    assert outcome.result["rerolls"] == 1 and outcome.result["won"] is True
