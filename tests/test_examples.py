"""The example rulebooks (examples/*.rules): each game's exact odds, as the engine counts
them, against closed forms or against every roll enumerated here by hand; and a worked
roll of each with forced dice."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from math import comb, floor
from pathlib import Path

import pytest

import dsl
from interpreter import Engine, ForcedDice
from interpreter.values import Record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def engine_of(name: str) -> Engine:
    return Engine(dsl.load(EXAMPLES / f"{name}.rules"))


def odds(name: str, action: str, field=None, **params):
    engine = engine_of(name)
    found = engine.odds(action, engine.sheet({}), params, field)
    assert found.exact
    return found


def close(found, expected: dict) -> None:
    """Exact, up to the mass an open-ended roll leaves out (below 1e-12)."""
    assert set(found.probabilities) == set(expected)
    for outcome, p in expected.items():
        assert abs(found.probability(outcome) - p) <= found.omitted, outcome
    assert found.omitted < Fraction(1, 10**12)


def enumerate_faces(sides: list) -> dict:
    """Every roll of dice of these sizes, each with its probability."""
    weight = Fraction(1)
    for s in sides:
        weight /= s
    return {faces: weight for faces in itertools.product(*(range(1, s + 1) for s in sides))}


def tally(rolls: dict, outcome) -> dict:
    out: Counter = Counter()
    for faces, p in rolls.items():
        out[outcome(faces)] += p
    return dict(out)


def test_every_example_loads_without_a_warning():
    for path in sorted(EXAMPLES.glob("*.rules")):
        book = dsl.load(path)
        assert not book.warnings, path.name


# ─── Blades in the Dark ─────────────────────────────────────────────────────


@pytest.mark.parametrize("dots", [1, 2, 3, 4, 6, 10, 20])
def test_blades_action_roll_is_its_closed_form(dots):
    n = dots
    none = Fraction(5, 6) ** n
    one = n * Fraction(1, 6) * Fraction(5, 6) ** (n - 1)
    failure = Fraction(1, 2) ** n
    expected = {"critical": 1 - none - one, "success": one, "partial": none - failure}
    expected["failure"] = failure
    expected = {k: v for k, v in expected.items() if v}
    assert odds("blades", "act", "outcome", dots=dots).probabilities == expected


def test_blades_with_no_dots_takes_the_lower_of_two():
    expected = {"success": Fraction(1, 36), "partial": Fraction(1, 4) - Fraction(1, 36)}
    expected["failure"] = Fraction(3, 4)
    assert odds("blades", "act", "outcome", dots=0).probabilities == expected


def test_blades_resistance_costs_six_minus_the_highest():
    rolls = enumerate_faces([6, 6, 6])
    expected = tally(rolls, lambda f: -1 if f.count(6) >= 2 else 6 - max(f))
    assert odds("blades", "resist", "stress", rating=3).probabilities == expected


def test_blades_worked_roll():
    engine = engine_of("blades")
    out = engine.run("act", engine.sheet({}), {"dots": 3}, ForcedDice([6, 2, 6]))
    assert out.result == {"outcome": "critical", "highest": 6}


# ─── Year Zero ──────────────────────────────────────────────────────────────


def year_zero(base: int, skill: int, gear: int, push: bool) -> dict:
    """Each die on its own: (success, a 1 that damages) with its chance, then all added."""
    s = Fraction(1, 6)
    if push:
        kept = {(1, 0): s + s * Fraction(4, 6), (0, 1): s + s * Fraction(4, 6)}  # 6 / 1
        kept[(0, 0)] = 1 - sum(kept.values())
        skill_die = {(1, 0): s + Fraction(5, 6) * s}
        skill_die[(0, 0)] = 1 - skill_die[(1, 0)]
    else:
        kept = {(1, 0): s, (0, 0): 1 - s}
        skill_die = dict(kept)
    out = {(0, 0, 0): Fraction(1)}
    for kind, number in (("base", base), ("skill", skill), ("gear", gear)):
        die = skill_die if kind == "skill" else kept
        for _ in range(number):
            new: Counter = Counter()
            for (succ, dmg, gdmg), p in out.items():
                for (hit, one), q in die.items():
                    key = (succ + hit, dmg + (one if kind == "base" else 0))
                    new[(*key, gdmg + (one if kind == "gear" else 0))] += p * q
            out = dict(new)
    return {
        Record({"successes": a, "attribute_damage": b, "gear_damage": c}): p
        for (a, b, c), p in out.items()
    }


@pytest.mark.parametrize(
    ("base", "skill", "gear", "push"),
    [(3, 2, 2, False), (3, 2, 2, True), (1, 0, 0, True), (0, 2, 0, True), (5, 3, 2, True)],
)
def test_year_zero_roll_and_push_are_exact(base, skill, gear, push):
    found = odds("year_zero", "roll_dice", base=base, skill=skill, gear=gear, push=push)
    assert found.probabilities == year_zero(base, skill, gear, push)


def test_year_zero_worked_push():
    engine = engine_of("year_zero")
    # base 6, 1, 3; skill 1; gear 4; pushed: base 3 → 1, skill 1 → 6, gear 4 → 6
    dice = [6, 1, 3, 1, 4, 1, 6, 6]
    out = engine.run(
        "roll_dice",
        engine.sheet({}),
        {"base": 3, "skill": 1, "gear": 1, "push": True},
        ForcedDice(dice),
    )
    assert out.result == {"successes": 3, "attribute_damage": 2, "gear_damage": 0}


# ─── One-Roll Engine ────────────────────────────────────────────────────────


def widest(faces: tuple) -> tuple:
    counts = Counter(faces)
    return max((size, face) for face, size in counts.items())


@pytest.mark.parametrize("dice", [1, 3, 5])
def test_one_roll_sets_are_every_roll_enumerated(dice):
    rolls = enumerate_faces([10] * dice)

    def outcome(faces):
        width, height = widest(faces)
        return Record({"width": width, "height": height, "success": width >= 2 and height >= 4})

    assert odds("one_roll", "act", dice=dice, difficulty=4).probabilities == tally(rolls, outcome)


def test_one_roll_no_set_of_ten_dice_is_the_closed_form():
    # all ten dice different: 10! / 10^10
    found = odds("one_roll", "act", "width", dice=10)
    assert found.probability(1) == Fraction(3628800, 10**10)


# ─── Shadowrun ──────────────────────────────────────────────────────────────


@pytest.mark.parametrize(("pool", "threshold"), [(1, 1), (4, 2), (9, 3), (20, 6)])
def test_shadowrun_hits_and_glitches_are_the_multinomial(pool, threshold):
    hit, one, other = Fraction(1, 3), Fraction(1, 6), Fraction(1, 2)
    expected: Counter = Counter()
    for h in range(pool + 1):
        for o in range(pool - h + 1):
            p = comb(pool, h) * comb(pool - h, o) * hit**h * one**o * other ** (pool - h - o)
            glitch, success = 2 * o > pool, h >= threshold
            if glitch and h == 0:
                outcome = "critical glitch"
            elif glitch:
                outcome = "success, glitch" if success else "glitch"
            else:
                outcome = "success" if success else "failure"
            expected[Record({"outcome": outcome})] += p
    assert odds("shadowrun", "act", pool=pool, threshold=threshold).probabilities == dict(expected)


# ─── Cortex ─────────────────────────────────────────────────────────────────


def test_cortex_total_and_effect_die_are_every_roll_enumerated():
    sizes = (8, 6, 10)

    def outcome(faces):
        values = [0 if f == 1 else f for f in faces]
        left = min(values)
        effect = 4 if left == 0 else max(s for s, v in zip(sizes, values) if v == left)
        total = sum(values) - left
        return Record({"success": total >= 7, "effect": effect, "hitches": faces.count(1)})

    found = odds("cortex", "act", attribute=8, skill=6, distinction=10)
    assert found.probabilities == tally(enumerate_faces(list(sizes)), outcome)


# ─── Vampire V5 ─────────────────────────────────────────────────────────────


def test_vampire_criticals_and_hunger_are_every_roll_enumerated():
    pool, hunger, difficulty = 5, 2, 3

    def outcome(faces):
        normal, hungry = faces[: pool - hunger], faces[pool - hunger :]
        tens = faces.count(10)
        successes = sum(1 for f in faces if f >= 6) + 2 * (tens // 2)
        success = successes >= difficulty
        if success and tens >= 2 and 10 in hungry:
            return Record({"outcome": "messy critical"})
        if success and tens >= 2:
            return Record({"outcome": "critical"})
        if not success and 1 in hungry:
            return Record({"outcome": "bestial failure"})
        assert normal is not None
        return Record({"outcome": "success" if success else "failure"})

    found = odds("vampire", "act", pool=pool, hunger=hunger, difficulty=difficulty)
    assert found.probabilities == tally(enumerate_faces([10] * pool), outcome)


# ─── Savage Worlds ──────────────────────────────────────────────────────────


def at_least(sides: int, value: int) -> Fraction:
    """P(an acing die of `sides` faces totals `value` or more)."""
    if value <= 1:
        return Fraction(1)
    if value <= sides - 1:
        return Fraction(sides - value + 1, sides)
    return Fraction(1, sides) * at_least(sides, value - sides)


@pytest.mark.parametrize(("die", "modifier"), [(4, 0), (8, 0), (6, 2), (12, -2)])
def test_savage_worlds_trait_test_is_its_closed_form(die, modifier):
    def below(value):  # P(max(trait, wild) + modifier < value)
        return (1 - at_least(die, value - modifier)) * (1 - at_least(6, value - modifier))

    critical = Fraction(1, die * 6)
    failure = below(4) - critical
    raise_ = 1 - below(8)
    expected = {
        Record({"outcome": "critical failure"}): critical,
        Record({"outcome": "failure"}): failure,
        Record({"outcome": "success"}): below(8) - below(4),
        Record({"outcome": "raise"}): raise_,
    }
    close(
        odds("savage_worlds", "act", die=die, modifier=modifier),
        {k: v for k, v in expected.items() if v},
    )


def test_savage_worlds_in_roll20_notation_is_the_same_test():
    ours = odds("savage_worlds", "act", die=8)
    roll20 = odds("savage_worlds", "act_roll20", "success", die=8)
    failing = sum(p for o, p in ours.probabilities.items() if "failure" in o["outcome"])
    assert abs(roll20.probability(False) - failing) <= roll20.omitted + ours.omitted
    assert floor(float(roll20.probability(False)) * 16 + 0.5) == 3  # 3/16
