"""docs/recipes.md: every recipe is a whole rulebook that loads and runs, with the numbers
its game's rules give; every command the page shows prints the lines shown."""

from __future__ import annotations

import itertools
import re
import shlex
from fractions import Fraction
from pathlib import Path

import pytest

import dsl
from interpreter import Engine, ForcedDice, render_text
from interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "recipes.md"


def sections() -> dict:
    """{title: [code block, ...]} of the page."""
    out = {}
    for part in PAGE.read_text(encoding="utf-8").split("\n## ")[1:]:
        title, _, body = part.partition("\n")
        out[title.strip()] = re.findall(r"^```(?:rulebook)?\n(.*?)^```$", body, flags=re.S | re.M)
    return out


def recipe(title: str) -> Engine:
    """The section's rulebook (its one block that is not a command), loaded."""
    (text,) = [b for b in sections()[title] if not b.startswith("$ ")]
    book = dsl.load_text(text, "recipe.rules")
    # a recipe is a piece of a game: a check nothing calls yet is no fault of it
    assert [w for w in book.warnings if "is never used" not in w.message] == [], title
    return Engine(book)


def commands() -> list:
    """(title, argv, the output lines shown) of every command on the page."""
    out = []
    for title, blocks in sections().items():
        for block in (b for b in blocks if b.startswith("$ ")):
            for chunk in re.split(r"^(?=\$ )", block, flags=re.M)[1:]:
                lines = chunk.splitlines()
                command = lines.pop(0)
                while command.endswith("\\"):
                    command = command[:-1] + " " + lines.pop(0).strip()
                argv = shlex.split(command[2:])
                assert argv[0] == "rulebook"
                out.append((title, argv[1:], lines))
    return out


def test_every_section_has_a_recipe_and_a_command():
    found = sections()
    assert list(found) == [
        "Advantage and disadvantage",
        "Critical hits",
        "Degrees of success",
        "Exploding pools",
        "Spending a resource after the roll",
        "Best play that weighs a cost",
        "Opposed checks between characters",
        "Roll-under contests",
        "Dice pools against a number",
        "Symbol dice",
        "Choosing among the dice",
    ]
    assert {title for title, _, _ in commands()} == set(found)


@pytest.mark.parametrize(("title", "argv", "shown"), commands(), ids=lambda v: str(v)[:40])
def test_every_command_prints_what_the_page_shows(title, argv, shown, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(argv) == 0
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    for line in shown:
        assert line.rstrip() in printed, (title, line)


def test_advantage_keeps_the_higher_of_two_d20():
    engine = recipe("Advantage and disadvantage")
    sheet = engine.sheet({})  # Bonus 5: against 15, a 10 or more
    chance = {
        how: engine.odds(
            "attack_roll", sheet, {"ac": 15, "how": how}, field="success"
        ).probabilities[True]
        for how in ("normal", "advantage", "disadvantage")
    }
    assert chance == {
        "normal": Fraction(11, 20),
        "advantage": 1 - Fraction(9, 20) ** 2,
        "disadvantage": Fraction(11, 20) ** 2,
    }
    params = {"ac": 15, "how": "advantage"}
    out = engine.run_check("attack_roll", sheet, params, ForcedDice([3, 17]))
    assert (out.result["total"], out.result["success"]) == (22, True)


def test_a_natural_20_is_a_critical_and_a_natural_1_misses():
    engine = recipe("Critical hits")
    hero, goblin = engine.sheet({}), engine.sheet({"Armor Class": 15})
    out = engine.run("attack", hero, {"target": goblin}, ForcedDice([20, 5, 3]))
    assert dict(out.result) == {"degree": "critical", "damage": 5 + 3 + 3}
    assert out.sheets["target"]["Hit Points"] == 0
    assert "→ critical" in render_text(out.trace)
    strong = engine.sheet({"Bonus": 20})
    out = engine.run(
        "attack", strong, {"target": engine.sheet({"Armor Class": 5})}, ForcedDice([1])
    )
    assert dict(out.result) == {"degree": "miss", "damage": 0}
    params = {"ac": 5}
    odds = engine.odds("attack_roll", strong, params, field="success")
    assert odds.probabilities == {False: Fraction(1, 20), True: Fraction(19, 20)}
    # a natural 20 (2d8 + 3, 12 on average) or 10..19 (d8 + 3, 7.5) against 15
    damage = engine.odds("attack", hero, {"target": goblin}, field="damage")
    assert damage.mean == Fraction(1, 20) * 12 + Fraction(10, 20) * Fraction(15, 2)


def test_degrees_of_three_games():
    engine = recipe("Degrees of success")
    sheet = engine.sheet({"skills": {"Spot Hidden": 45, "Athletics": 2}})
    odds = engine.odds("skill_roll", sheet, {"skill": "Spot Hidden"}, field="degree")
    assert odds.probabilities == {
        "critical": Fraction(1, 100),  # 01
        "extreme": Fraction(8, 100),  # 02..09
        "hard": Fraction(13, 100),  # 10..22
        "regular": Fraction(23, 100),  # 23..45
        "failure": Fraction(50, 100),  # 46..95
        "fumble": Fraction(5, 100),  # 96..100, the skill being under 50
    }
    params = {"skill": "Athletics", "opposition": 2}
    tie = engine.run_check("overcome", sheet, params, ForcedDice([0, 0, 0, 0])).result
    assert (tie["degree"], tie["success"]) == ("tie", False)
    odds = engine.odds("overcome", sheet, params, field="degree")
    assert odds.probabilities == {  # 4dF: 19 ways of 81 to roll 0, 5 to roll 3 or more
        "fail": Fraction(31, 81),
        "tie": Fraction(19, 81),
        "succeed": Fraction(26, 81),
        "succeed with style": Fraction(5, 81),
    }
    odds = engine.odds("roll_plus", sheet, {"stat": 1}, field="degree")
    assert odds.probabilities == {
        "strong hit": Fraction(10, 36),  # 2d6 of 9 or more
        "weak hit": Fraction(16, 36),  # 6, 7 or 8
        "miss": Fraction(10, 36),
    }


def test_an_exploding_pool_counts_the_extra_dice():
    engine = recipe("Exploding pools")
    sheet = engine.sheet({})
    # one d10: no success 7/10, one 2/10 (an 8 or a 9), and a 10 is one more die
    no_hit, one_hit = Fraction(7, 10), Fraction(2, 10) + Fraction(1, 10) * Fraction(7, 10)
    odds = engine.odds("hits", sheet, {"pool": 3}, field="success")
    expected = no_hit**3 + 3 * no_hit**2 * one_hit  # fewer than two of three dice
    assert abs(odds.probability(False) - expected) <= odds.omitted < Fraction(1, 10**12)
    out = engine.run_check("hits", sheet, {"pool": 3}, ForcedDice([10, 3, 8, 2]))
    assert (out.result["total"], out.result["success"]) == (2, True)  # 10 (2 → no), 8
    blades = engine.odds("action_roll", sheet, {"dice": 2}, field="degree")
    assert blades.probabilities == {
        "critical": Fraction(1, 36),
        "full success": Fraction(10, 36),
        "partial success": Fraction(16, 36),
        "bad outcome": Fraction(9, 36),
    }


def test_luck_is_spent_point_for_point_after_the_roll():
    engine = recipe("Spending a resource after the roll")
    poor = engine.sheet({"skills": {"Spot Hidden": 45}, "Luck": 10})
    params = {"skill": "Spot Hidden"}
    out = engine.run("roll_with_luck", poor, params, ForcedDice([52]), choices={"luck": "yes"})
    assert out.result["success"] is True
    assert [(c.path, c.before, c.after) for c in out.changes] == [("Luck", 10, 3)]
    best = engine.odds("roll_with_luck", poor, params, field="success", best="success")
    assert best.probabilities[True] == Fraction(55, 100)  # 45, and ten points of Luck
    rich = engine.sheet({"skills": {"Spot Hidden": 45}, "Luck": 60})
    best = engine.odds("roll_with_luck", rich, params, field="success", best="success")
    assert best.probabilities[True] == Fraction(95, 100)  # all but the fumbles, 96..100
    keep = engine.odds("roll_with_luck", rich, params, field="success", choices={"luck": "no"})
    assert keep.probabilities[True] == Fraction(45, 100)


def test_an_opposed_check_between_two_sheets_and_the_rivals_choice():
    engine = recipe("Opposed checks between characters")
    strong, rival = engine.sheet({"Strength": 3}), engine.sheet({"Strength": 2})
    out = engine.run("challenge", strong, {"rival": rival}, ForcedDice([4, 2]),
                     choices={"answer": "strain on"})  # fmt: skip
    assert out.result["won"] is True and out.choices[0].by == "rival"
    assert out.sheets["rival"]["Harm"] == 1 and out.changes == ()
    # d6 + 3 against d6 + 2, ties rolled again: 21 ways to win and 10 to lose, of 31
    odds = engine.odds("challenge", strong, {"rival": rival}, field="won",
                       choices={"answer": "give in"})  # fmt: skip
    assert abs(odds.probability(True) - Fraction(21, 31)) <= odds.omitted < Fraction(1, 10**12)


def test_a_roll_under_contest_is_won_by_the_better_margin():
    """GURPS 4e, p. B348: both roll 3d6 under their skill; the larger margin wins, and a
    tie stands. Counted pair by pair of totals, as the page says."""
    engine = recipe("Roll-under contests")
    sheet = engine.sheet({})  # Stealth 12
    totals: dict = {}
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                totals[a + b + c] = totals.get(a + b + c, 0) + Fraction(1, 216)
    for guard in (8, 10, 12, 15):
        won = sum(p * q for x, p in totals.items() for y, q in totals.items() if 12 - x > guard - y)
        tie = sum(
            p * q for x, p in totals.items() for y, q in totals.items() if 12 - x == guard - y
        )
        assert engine.odds("sneak_past", sheet, {"guard": guard}, "unseen").probabilities == {
            True: won,
            False: 1 - won,
        }
        assert (
            engine.odds("sneak_past", sheet, {"guard": guard}, "stalemate").probabilities[True]
            == tie
        )
    out = engine.run("sneak_past", sheet, {"guard": 10}, dice=ForcedDice([4, 4, 4, 3, 3, 3]))
    assert out.result == {"unseen": False, "by": -1, "stalemate": False}
    assert "Quick contest: 12 vs 9 (margin 0 vs 1) → loses" in render_text(out.trace)


def test_dice_are_counted_against_numbers_the_sheet_names():
    engine = recipe("Dice pools against a number")
    sheet = engine.sheet({"Focus": 3})  # target 6 + 7 = 13
    out = engine.run_check("test", sheet, {"bought": 1}, ForcedDice([3, 12, 20]))
    assert (out.result["total"], out.result["complications"]) == (3, 1)
    odds = engine.odds("test", sheet, {"difficulty": 3, "bought": 1}, field="success")
    # a die: two successes 3 in 20, one 10 in 20, none 7 in 20; three dice, 3 or more
    per_die = {2: Fraction(3, 20), 1: Fraction(10, 20), 0: Fraction(7, 20)}
    three = sum(
        per_die[a] * per_die[b] * per_die[c]
        for a, b, c in itertools.product(per_die, repeat=3)
        if a + b + c >= 3
    )
    assert odds.probabilities[True] == three == Fraction(1823, 4000)


def test_symbol_dice_cancel_and_count_exactly():
    engine = recipe("Symbol dice")
    sheet = engine.sheet({})
    # a success and a Triumph (which counts as one as well), nothing against them
    dice = ForcedDice(["success + advantage", "triumph"])
    out = engine.run("skill", sheet, {"green": 1, "yellow": 1, "purple": 0}, dice)
    assert (out.result["total"], out.result["advantage"], out.result["triumph"]) == (2, 1, 1)
    # 3 successes (a Triumph among them) against 3 failures; no advantage against 3 threats
    dice = ForcedDice(["2 success", "triumph", "2 failure", "failure + threat", "2 threat"])
    out = engine.run("skill", sheet, {"green": 1, "yellow": 1, "purple": 3}, dice)
    assert (out.result["success"], out.result["advantage"]) == (False, -3)
    assert "3dDifficulty [failure+failure, failure+threat, threat+threat]" in render_text(out.trace)
    # exact: every ordered roll of one Ability, one Proficiency and two Difficulty dice
    faces = {
        "A": ["", "s", "s", "ss", "a", "a", "sa", "aa"],
        "P": ["", "s", "s", "ss", "ss", "a", "sa", "sa", "sa", "aa", "aa", "t"],
        "D": ["", "f", "ff", "h", "h", "h", "hh", "fh"],
    }
    wins = rolls = 0
    for roll in itertools.product(faces["A"], faces["P"], faces["D"], faces["D"]):
        shown = "".join(roll)
        rolls += 1
        wins += shown.count("s") + shown.count("t") - shown.count("f") >= 1
    odds = engine.odds("skill", sheet, {"green": 1, "yellow": 1, "purple": 2}, field="success")
    assert odds.probabilities[True] == Fraction(wins, rolls)


def test_raises_are_the_best_grouping_and_the_best_die_is_rerolled():
    engine = recipe("Choosing among the dice")
    expert = engine.sheet({"Finesse": 1, "Weaponry": 4})  # five d10, sets of 15 count twice
    params = {"trait": "Finesse", "skill": "Weaponry"}
    out = engine.run_check("risk", expert, params, ForcedDice([10, 5, 5, 5, 1]))
    assert out.result["total"] == 3  # 10 + 5 (two Raises), 5 + 5 (one): a greedy 10 alone, 2
    two = engine.sheet({"Finesse": 2, "Weaponry": 0})
    odds = engine.odds("risk", two, {"trait": "Finesse", "skill": "Weaponry"}, field="total")
    pairs = [(a, b) for a in range(1, 11) for b in range(1, 11)]
    raises = [(a >= 10) + (b >= 10) if a >= 10 or b >= 10 else int(a + b >= 10) for a, b in pairs]
    assert odds.probabilities == {k: Fraction(raises.count(k), 100) for k in set(raises)}
    rank3 = engine.sheet({"Wits": 1, "Weaponry": 3})  # four dice, one rerolled
    params = {"trait": "Wits", "skill": "Weaponry"}
    out = engine.run("act", rank3, params, ForcedDice([9, 6, 2, 2, 1]), choices={"reroll": 6})
    assert dict(out.result) == {"raises": 1, "dice": (2, 2, 9, 1)}
    best = engine.odds("act", rank3, params, field="raises", best="mean raises")
    plain = engine.odds("act", rank3, params, field="raises", choices={"reroll": "no"})
    assert best.exact and best.mean > plain.mean


def test_momentum_is_burned_only_where_it_is_worth_what_is_lost():
    """The recipe is Ironsworn's file, and its best play is the one found by hand."""
    title = "Best play that weighs a cost"
    (text,) = [b for b in sections()[title] if not b.startswith("$ ")]
    assert text == (ROOT / "examples/games/ironsworn.rules").read_text(encoding="utf-8")
    engine = recipe(title)
    sheet = engine.sheet({"Iron": 3, "Momentum": 8})
    odds = engine.odds("face_danger", sheet, {"stat": "Iron"}, field="rank",
                       best="mean rank + left(Momentum)/3")  # fmt: skip
    # by hand: burn when the rank it adds is worth more than the momentum it costs
    worth, burned = Fraction(0), Fraction(0)

    def value(score, momentum, challenge):
        rank = sum(score > c for c in challenge)
        after = momentum + {2: 1, 1: -1, 0: 0}[rank]
        return rank + Fraction(max(-6, min(10, after)), 3)

    for d6, c1, c2 in itertools.product(range(1, 7), range(1, 11), range(1, 11)):
        score = min(10, d6 + 3)
        keep = value(score, 8, (c1, c2))
        burn = value(8, 2, (c1, c2)) if score < 8 else keep
        worth += max(keep, burn) / 600
        burned += Fraction(burn > keep, 600)
    assert odds.goal_worth == worth
    assert odds.decisions[("burn", "yes")] == burned
