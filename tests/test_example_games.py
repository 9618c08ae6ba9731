"""Six games a new user writes from the README and the reference (examples/games/): D&D
5e, Fate Core, Blades in the Dark, Call of Cthulhu 7e, Powered by the Apocalypse and
Genesys, each without a workaround. Their rules' own numbers, with forced dice and exact odds."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

import dsl
from interpreter import Engine, ForcedDice, render_text

GAMES = Path(__file__).resolve().parent.parent / "examples" / "games"
FUDGE4 = {-4: 1, -3: 4, -2: 10, -1: 16, 0: 19, 1: 16, 2: 10, 3: 4, 4: 1}  # 4dF, over 81


def game(name: str):
    engine = Engine(dsl.load(GAMES / f"{name}.rules"))
    return engine, lambda who: engine.load_sheet(GAMES / "characters" / f"{who}.yaml")


@pytest.mark.parametrize(
    "name",
    ["dnd5e", "fate", "blades_in_the_dark", "cthulhu", "pbta", "genesys", "seventh_sea"],
)
def test_every_game_loads_without_a_warning(name):
    assert dsl.load(GAMES / f"{name}.rules").warnings == ()


# ─── D&D 5e ─────────────────────────────────────────────────────────────────


def test_dnd_a_natural_20_crits_and_doubles_the_damage_dice():
    engine, sheet = game("dnd5e")
    fighter, goblin = sheet("fighter"), sheet("goblin")
    out = engine.run("attack", fighter, {"target": goblin}, ForcedDice([20, 5, 3]))
    assert (out.result["degree"], out.result["damage"]) == ("critical", 5 + 3 + 3)
    assert out.characters[0].after["Hit Points"] == 0
    assert "Attack roll: natural 20 + bonus 6 = 26 vs 15 → critical" in render_text(out.trace)
    miss = engine.run("attack", fighter, {"target": goblin}, ForcedDice([1]))
    assert miss.result["degree"] == "miss" and miss.characters[0].changes == ()


def test_dnd_the_odds_of_hitting_are_the_rules_not_the_arithmetic():
    engine, sheet = game("dnd5e")
    odds = engine.odds("attack_roll", engine.sheet({}), {"bonus": 20, "ac": 5}, field="success")
    assert odds.probabilities == {False: Fraction(1, 20), True: Fraction(19, 20)}
    fighter, goblin = sheet("fighter"), sheet("goblin")
    # +6 against AC 15: a 9 or more hits; with advantage, the higher of two d20
    odds = engine.odds("attack", fighter, {"target": goblin, "how": "advantage"}, field="degree")
    assert odds.probabilities == {
        "critical": Fraction(39, 400),
        "hit": Fraction(297, 400),
        "miss": Fraction(64, 400),
    }


def test_dnd_the_target_rolls_its_own_save():
    engine, sheet = game("dnd5e")
    fighter, goblin = sheet("fighter"), sheet("goblin")
    # 8d6 = 28; the goblin's save: d20 11 + Dex +2 = 13 < 15, the full damage
    out = engine.run(
        "fireball", fighter, {"target": goblin}, ForcedDice([4, 4, 3, 3, 4, 4, 3, 3, 11])
    )
    assert dict(out.result) == {"saved": False, "damage": 28, "hit_points": 0}
    odds = engine.odds("fireball", fighter, {"target": goblin}, field="damage")
    assert odds.mean == Fraction(223, 10)  # 0.6 × 28 + 0.4 × E[floor(8d6 / 2)]


# ─── Fate Core ──────────────────────────────────────────────────────────────


def test_fate_the_four_outcomes_and_the_best_invoke():
    engine, sheet = game("fate")
    hero = sheet("hero")  # Athletics 2, 3 fate points; Fair (+2) opposition
    plain = engine.odds(
        "overcome", hero, {"skill": "Athletics"}, field="outcome", choices={"invoke": "no"}
    )
    assert plain.probabilities == {
        "fail": Fraction(31, 81),
        "tie": Fraction(19, 81),
        "succeed": Fraction(26, 81),
        "succeed with style": Fraction(5, 81),
    }
    style = engine.odds("overcome", hero, {"skill": "Athletics"}, field="outcome",
                        best="outcome=succeed with style")  # fmt: skip
    # invoking is worth it when it reaches +3: a roll of +1 or +2 (16 + 10 of 81 ways)
    assert style.probabilities["succeed with style"] == Fraction(5 + 16 + 10, 81)


def test_fate_an_attack_marks_the_targets_stress_and_consequences():
    engine, sheet = game("fate")
    hero, thug = sheet("hero"), sheet("thug")
    # The defence is rolled first (it is the attack's opposition): the thug's Athletics 1 +
    # [-1, 0, 0, 0] = 0; then Fight 4 + [1, 1, 0, 0] = 6. No invoke: 6 shifts, 1 into
    # stress, a consequence of 5.
    out = engine.run("attack", hero, {"target": thug}, ForcedDice([-1, 0, 0, 0, 1, 1, 0, 0]),
                     choices={"invoke": "no"})  # fmt: skip
    assert (out.result["outcome"], out.result["hit"]) == ("succeed with style", 6)
    assert out.characters[0].after["Consequences"] == ("a consequence of 5",)


# ─── Blades in the Dark ─────────────────────────────────────────────────────


def test_blades_the_action_roll_reads_the_highest_die_and_two_sixes():
    engine, sheet = game("blades_in_the_dark")
    cutter = sheet("cutter")  # Skirmish 2
    odds = engine.odds("act", cutter, {"action": "Skirmish"}, field="outcome",
                       choices={"extra": "none", "resist": "no"})  # fmt: skip
    assert odds.probabilities == {
        "critical": Fraction(1, 36),
        "full success": Fraction(10, 36),
        "partial success": Fraction(16, 36),
        "bad outcome": Fraction(9, 36),
    }
    zero = engine.odds("action_roll", engine.sheet({}), {"dice": 0}, field="degree")
    assert "critical" not in zero.probabilities  # two dice, the lowest, no critical
    assert zero.probabilities["full success"] == Fraction(1, 36)


def test_blades_push_then_resist_costs_stress():
    engine, sheet = game("blades_in_the_dark")
    cutter = sheet("cutter")  # Stress 3; Prowess 3 (Prowl, Skirmish, Wreck)
    out = engine.run("act", cutter, {"action": "Skirmish"}, ForcedDice([3, 5, 1, 4, 3, 2]),
                     choices={"extra": "push", "resist": "yes"})  # fmt: skip
    # push: +2 stress; 3d6 [3, 5, 1] a partial; resisting with Prowess 3d6 [4, 3, 2]: 6 - 4
    assert dict(out.result) == {
        "outcome": "partial success",
        "highest": 5,
        "resisted": True,
        "stress": 3 + 2 + 2,
    }
    best = engine.odds("act", cutter, {"action": "Skirmish"}, field="outcome",
                       best="outcome=full success", choices={"resist": "no"})  # fmt: skip
    assert best.decisions[("extra", "push")] == 1  # +1d is always worth it for a 6


def test_blades_a_devils_bargain_is_the_extra_die_without_the_stress():
    engine, sheet = game("blades_in_the_dark")
    cutter = sheet("cutter")  # Skirmish 2, Stress 3
    params = {"action": "Skirmish"}
    out = engine.run("act", cutter, params, ForcedDice([2, 6, 3]),
                     choices={"extra": "bargain"})  # fmt: skip
    assert dict(out.result) == {"outcome": "full success", "highest": 6, "resisted": False,
                                "stress": 3}  # fmt: skip
    assert "the GM names the devil's bargain" in render_text(out.trace)
    # three dice: a 6 among them 1 - (5/6)^3; two 6s or more, 16 of 216 rolls
    odds = engine.odds("act", cutter, params, field="outcome",
                       choices={"extra": "bargain", "resist": "no"})  # fmt: skip
    assert odds.probabilities["critical"] == Fraction(16, 216)
    assert odds.probabilities["full success"] == 1 - Fraction(125, 216) - Fraction(16, 216)
    assert odds.probabilities["bad outcome"] == Fraction(27, 216)
    # pushing gives the same dice, for 2 stress: the mean stress tells them apart
    push = engine.odds("act", cutter, params, field="stress",
                       choices={"extra": "push", "resist": "no"})  # fmt: skip
    assert push.probabilities == {5: Fraction(1)}


# ─── Call of Cthulhu 7e ─────────────────────────────────────────────────────


def cthulhu_degree(roll: int, skill: int) -> str:
    """The rules' table of a percentile roll, by hand."""
    if roll == 1:
        return "critical"
    if roll == 100 or (skill < 50 and roll >= 96):
        return "fumble"
    if roll <= skill // 5:
        return "extreme"
    if roll <= skill // 2:
        return "hard"
    return "regular" if roll <= skill else "failure"


def cthulhu_rolls(extra: int) -> dict:
    """Every percentile roll with `extra` bonus (or, below 0, penalty) dice, by hand: each
    tens die makes a roll with the units die (00 and 0 are 100), the best (worst) is kept."""
    n = 1 + abs(extra)
    rolls: dict = {}
    for tens in itertools.product(range(10), repeat=n):
        for unit in range(10):
            made = [100 if (t, unit) == (0, 0) else 10 * t + unit for t in tens]
            kept = min(made) if extra >= 0 else max(made)
            rolls[kept] = rolls.get(kept, 0) + Fraction(1, 10 ** (n + 1))
    return rolls


@pytest.mark.parametrize("extra", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("skill", ["Spot Hidden", "Library Use"])  # 45 and 70
def test_cthulhu_six_degrees_from_one_percentile_roll(extra, skill):
    engine, sheet = game("cthulhu")
    harvey = sheet("investigator")
    value = harvey.get(skill)
    odds = engine.odds("skill_roll", harvey, {"skill": skill, "extra": extra}, field="degree")
    expected: dict = {}
    for roll, p in cthulhu_rolls(extra).items():
        degree = cthulhu_degree(roll, value)
        expected[degree] = expected.get(degree, 0) + p
    assert odds.probabilities == expected


def test_cthulhu_a_bonus_die_keeps_the_best_roll_of_a_units_zero():
    engine, sheet = game("cthulhu")
    harvey = sheet("investigator")  # Spot Hidden 45
    params = {"skill": "Spot Hidden", "extra": 1}
    # tens [0, 3], units 0: 100 or 30, and the bonus die keeps the 30
    assert engine.run("skill_roll", harvey, params, ForcedDice([0, 3, 0])).result["total"] == 30
    params["extra"] = -1  # a penalty die keeps the 100: a fumble
    out = engine.run("skill_roll", harvey, params, ForcedDice([0, 3, 0]))
    assert (out.result["total"], out.result["degree"]) == (100, "fumble")


def test_cthulhu_luck_is_spent_after_seeing_the_roll():
    engine, sheet = game("cthulhu")
    harvey = sheet("investigator")  # Luck 60
    out = engine.run("roll_with_luck", harvey, {"skill": "Spot Hidden"}, ForcedDice([5, 2]),
                     choices={"luck": "yes"})  # fmt: skip
    assert dict(out.result) == {"success": True, "degree": "regular"}
    assert [(c.path, c.before, c.after) for c in out.changes] == [("Luck", 60, 53)]
    pushed = engine.odds("push", harvey, {"skill": "Spot Hidden"}, field="success",
                         best="success")  # fmt: skip
    assert pushed.probabilities[True] == Fraction(45, 100) + Fraction(50, 100) * Fraction(45, 100)


def test_cthulhu_an_opposed_roll_between_two_sheets():
    engine, sheet = game("cthulhu")
    harvey, cultist = sheet("investigator"), sheet("cultist")  # Fighting 40 against 50
    params = {"rival": cultist, "skill": "Fighting"}
    out = engine.run("opposed_roll", harvey, params, ForcedDice([0, 5, 3, 4]))
    # 05 (extreme for 40: 8 or under) against 34 (regular for 50)
    assert dict(out.result) == {"won": True, "mine": "extreme", "theirs": "regular"}
    # both fail (a failure against a fumble): neither wins
    out = engine.run("opposed_roll", harvey, params, ForcedDice([7, 7, 0, 0]))
    assert dict(out.result) == {"won": False, "mine": "failure", "theirs": "fumble"}
    # the same level: the higher skill wins, and the cultist's is higher
    out = engine.run("opposed_roll", harvey, params, ForcedDice([3, 0, 4, 0]))
    assert dict(out.result) == {"won": False, "mine": "regular", "theirs": "regular"}

    # the exact chance of winning, every pair of rolls by hand
    def level(degree: str) -> int:
        return ["fumble", "failure", "regular", "hard", "extreme", "critical"].index(degree)

    expected = Fraction(0)
    for mine in range(1, 101):
        for theirs in range(1, 101):
            a, b = level(cthulhu_degree(mine, 40)), level(cthulhu_degree(theirs, 50))
            expected += Fraction(1, 10000) * (a > 1 and a > b)  # ties go to the cultist's 50
    odds = engine.odds("opposed_roll", harvey, params, field="won")
    assert odds.probabilities[True] == expected


# ─── Powered by the Apocalypse ──────────────────────────────────────────────


def test_pbta_three_bands_and_a_cost_chosen_on_a_weak_hit():
    engine, sheet = game("pbta")
    driver = sheet("driver")  # Cool +2
    odds = engine.odds("roll_plus", driver, {"stat": "Cool"}, field="degree")
    assert odds.probabilities == {
        "strong hit": Fraction(15, 36),  # 2d6 of 8 or more
        "weak hit": Fraction(15, 36),  # 5, 6 or 7
        "miss": Fraction(6, 36),
    }
    out = engine.run("act_under_fire", driver, {}, ForcedDice([3, 2]),
                     choices={"cost": "a hard bargain"})  # fmt: skip
    assert dict(out.result) == {"outcome": "weak hit", "did_it": True}
    assert [(c.path, c.after) for c in out.changes] == [("Harm", 1)]


def test_pbta_the_target_of_a_move_chooses_against_you():
    engine, sheet = game("pbta")
    driver, boss = sheet("driver"), sheet("gang_boss")
    out = engine.run("go_aggro", driver, {"target": boss}, ForcedDice([4, 5]),
                     choices={"answer": "cave"})  # fmt: skip
    assert out.result["caved"] is True and out.choices[0].by == "target"
    best = engine.odds("go_aggro", driver, {"target": boss}, field="caved", best="caved")
    assert best.probabilities == {False: Fraction(1)}  # it never caves when it can choose


# ─── Genesys ────────────────────────────────────────────────────────────────


def test_genesys_a_pool_of_symbols_cancels_and_counts_its_triumphs():
    # "Each failure cancels one success ... Each threat cancels one advantage"; a Triumph
    # counts as a success as well, and stays (Genesys Core Rulebook, Interpreting the Pool)
    engine, sheet = game("genesys")
    pilot = sheet("pilot")  # Agility 3, Piloting 2: 2 Proficiency, 1 Ability
    params = {"characteristic": "Agility", "skill": "Piloting", "difficulty": "Hard"}
    dice = ["2 advantage", "triumph", "2 success", "failure + threat", "2 threat", "failure"]
    out = engine.run("attempt", pilot, {**params, "upgrades": 1}, ForcedDice(dice))
    # 3 successes (one a Triumph) against 2 failures; 2 advantages against 3 threats
    assert dict(out.result) == {
        "success": True,
        "net": 1,
        "advantage": -1,
        "triumph": 1,
        "despair": 0,
    }
    text = render_text(out.trace)
    assert "(yellow)dProficiency = 2dProficiency [triumph, success+success]" in text
    assert "= 2dDifficulty [failure+threat, threat+threat] = failure 1, threat 3" in text
    assert "(red)dChallenge = 1dChallenge [failure] = failure 1 (forced)" in text
    # Two threats left over cost a point of strain.
    out = engine.run(
        "attempt", pilot, params, ForcedDice(["blank", "blank", "blank"] + ["2 threat"] * 3)
    )
    assert out.result["advantage"] == -6 and [(c.path, c.after) for c in out.changes] == [
        ("Strain", 1)
    ]
    # 2 Proficiency and 1 Ability against 2 Difficulty: 6455 rolls in 9216 succeed
    # (every ordered roll of the 12 × 12 × 8 × 8 × 8 faces, counted apart)
    odds = engine.odds("skill_check", pilot, {"characteristic": "Agility", "skill": "Piloting"},
                       field="success")  # fmt: skip
    assert odds.probabilities[True] == Fraction(6455, 9216)


# ─── 7th Sea, second edition ───────────────────────────────────────────────


def test_seventh_sea_raises_are_the_best_grouping_of_the_dice():
    engine, sheet = game("seventh_sea")
    valentina = sheet("swashbuckler")  # Finesse 3, Weaponry 3, Athletics 4
    params = {"trait": "Finesse", "skill": "Weaponry"}
    # 7, 6, 4, 3, 2, 1: 7 + 3, 6 + 4, 2 + 1 left over: two Raises (7 + 6 first finds one)
    out = engine.run("attempt", valentina, params, ForcedDice([7, 6, 4, 3, 2, 1]))
    assert out.result["raises"] == 2
    # Athletics 4: a set of 15 is two Raises: 9 + 6 (two), 5 + 5 + 3 + 2 (two), 1 left;
    # sets of 10 alone would make three (9 + 1, 6 + 3 + 2... 5 + 5)
    athletics = {"trait": "Finesse", "skill": "Athletics"}
    out = engine.run("attempt", valentina, athletics, ForcedDice([9, 6, 5, 5, 3, 2, 1]))
    assert out.result["raises"] == 4
    # rank 3: the player rerolls the die of their choice (the 2, which became an 8)
    out = engine.run(
        "act", valentina, params, ForcedDice([9, 6, 5, 3, 2, 1, 8]), choices={"reroll": 2}
    )
    assert dict(out.result) == {"raises": 3, "dice": (1, 3, 5, 6, 9, 8)}
