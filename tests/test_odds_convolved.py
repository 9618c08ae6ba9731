"""Several rolls read only through sums, counted roll by roll (interpreter.odds.convolved):
against every way the dice can fall, and a small budget only this way meets."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

import dsl
import interpreter.odds.alike as alike
import interpreter.odds.convolved as convolved
from interpreter import Engine

#: rolls in a row, then lets adding what each roll's parts give (counted roll by roll)
COUNTED = {
    "two pools counted face by face": """
action act() {
  let a = 2d3
  let b = 2d4
  let s = count(a, 2) + 2 * count(a, 3) + count(b, 4)
  let t = count(a, 1) - count(b, 1) + 3 * count(b, 3)
  result { s: s, t: t }
}
""",
    "counts named, then added, a plain die among the rolls": """
action act() {
  let a = 2d3
  let c = d2 + 1
  let b = 1d4
  let a1 = count(a, 1)
  let a3 = count(a, 3)
  let b2 = count(b, 2)
  let s = a1 + b2 + c
  let u = a3 - c
  let v = -s + 2 * u
  result { s: s, v: v }
}
""",
    "a sheet's value in the parts and in a condition": """
action act() {
  let a = 2d3
  let b = 1d4
  let s = if A > 1 then count(a, 2) + A * count(b, 2) else count(b, 1) - 1
  let w = A + count(a, 1) + b
  result { s: s, w: w }
}
""",
    "a roll after the lets counting the one before": """
action act() {
  let a = 2d3
  let a1 = count(a, 1)
  let a3 = count(a, 3)
  let w = A + 1
  let b = (2)d4
  let b4 = count(b, 4)
  let s = a1 + 2 * a3 - b4 + w
  result { s: s }
}
""",
    "names read only as terms of one sum": """
action act() {
  let a = 2d3
  let b = 1d4
  let s = count(a, 3) + count(b, 4)
  let f = count(a, 1) + 2 * count(b, 1)
  let t = count(b, 3) - A
  result { ok: s + t - f >= 1, net: s - f + t }
}
""",
    "a division in a roll's own part": """
action act() {
  let a = 2d3
  let b = 1d4
  let s = 6 / (count(a, 1) + 1) + count(b, 2)
  result { s: s }
}
""",
}

#: rolls read otherwise: a product of two rolls, a part that may fail, one roll read in
#: the other's condition (one world per joint value, as before)
NOT_COUNTED = {
    "a product of two rolls": """
action act() {
  let a = 2d3
  let b = 1d4
  let s = count(a, 1) * count(b, 1) + count(b, 2)
  result { s: s }
}
""",
    "a part that fails on some values": """
action act() {
  let a = 2d3
  let b = 1d4
  let s = 6 / count(a, 1) + count(b, 2)
  result { s: s }
}
""",
    "a roll of as many dice as the other counted": """
action act() {
  let a = 2d3
  let a1 = count(a, 1)
  let b = (a1 + 1)d2
  let s = a1 + count(b, 2)
  result { s: s }
}
""",
    "a roll in a condition of the other's part": """
action act() {
  let a = 2d3
  let b = 1d4
  let s = if count(a, 1) > 0 then count(b, 2) else 0
  result { s: s }
}
""",
}

HEADER = """sheet {
  attribute A in 0..3
}
"""


def _seen(monkeypatch) -> list:
    found = alike.convolved_run
    seen: list = []

    def spy(*args):
        answer = found(*args)
        if answer is not None:
            seen.append(answer)
        return answer

    monkeypatch.setattr(alike, "convolved_run", spy)
    return seen


@pytest.mark.parametrize("name", sorted(COUNTED))
@pytest.mark.parametrize("value", [0, 2])
def test_rolls_read_through_sums_are_counted_roll_by_roll(monkeypatch, name, value):
    seen = _seen(monkeypatch)
    assert_counted_as_run(HEADER + COUNTED[name], {"A": value})
    assert seen, "not counted roll by roll"


@pytest.mark.parametrize("name", sorted(NOT_COUNTED))
def test_rolls_read_otherwise_are_run_world_by_world(monkeypatch, name):
    seen = _seen(monkeypatch)
    assert_counted_as_run(HEADER + NOT_COUNTED[name], {"A": 1})
    assert not seen, "counted roll by roll"


#: three pools of six d6, each face counted apart and the counts added up: 462³ joint
#: values of the pools, some 400 sums
POOLS = """
action act() {
  let a = 6d6
  let b = 6d6
  let c = 6d6
  let a5 = count(a, 5)
  let a6 = count(a, 6)
  let b5 = count(b, 5)
  let b6 = count(b, 6)
  let c1 = count(c, 1)
  let c6 = count(c, 6)
  let hits = a5 + 2 * a6 + b5 + 2 * b6 - c6
  let slips = count(a, 1) + count(b, 1) + c1
  result { ok: hits >= 4 and slips < 3, net: hits - slips }
}
"""
#: some 350 units counted roll by roll; world by world, one field alone takes some 75,000
POOLS_WORK = 2000


def _pools_odds():
    engine = Engine(dsl.load_text(POOLS, "pools.rules"))
    return engine.odds("act", engine.sheet({}), {}, budget=POOLS_WORK, trials=50)


def test_pools_counted_face_by_face_are_exact_within_a_small_budget():
    assert _pools_odds().exact


def test_the_same_pools_world_by_world_pass_the_budget(monkeypatch):
    monkeypatch.setattr(convolved.SWITCH, "rolls", False)
    assert not _pools_odds().exact


@st.composite
def summed_rolls(draw):
    """(rulebook text, sheet data): two or three rolls (pools, plain dice), lets adding
    parts of them (counts, scaled, negated, in an `if` on the sheet or on a roll, a
    product of a roll by itself), some names of the world between them, and a result
    reading some of the sums whole or in one sum."""
    rng = draw(st.randoms(use_true_random=False))
    rolls = []
    lines = ["action act() {"]
    for i in range(rng.choice([2, 3])):
        if rng.random() < 0.5:
            lines.append(f"  let r{i} = {rng.choice([1, 2])}d{rng.choice([2, 3])}")
            rolls.append((f"r{i}", True))
        else:
            lines.append(f"  let r{i} = d{rng.choice([2, 3])} + {rng.choice([0, 1])}")
            rolls.append((f"r{i}", False))
        if rng.random() < 0.4:
            lines.append(f"  let w{i} = A + {i}")

    def part() -> str:
        name, pool = rng.choice(rolls)
        base = f"count({name}, {rng.choice([1, 2, 3])})" if pool else name
        times = rng.choice([1, 1, 2, -1])
        term = base if times == 1 else f"{times} * {base}" if times > 0 else f"-{base}"
        chance = rng.random()
        if chance < 0.15:
            term = f"(if A > 1 then {term} else 1)"
        elif chance < 0.2:
            term = f"(if {rng.choice(rolls)[0]} > 1 then {term} else 0)"
        elif chance < 0.25:
            term = f"{term} * {base}"
        return term

    names: list = []
    for j in range(rng.choice([1, 2, 3])):
        expr = " + ".join(part() for _ in range(rng.choice([1, 2, 3])))
        if names and rng.random() < 0.3:
            expr += f" - {rng.choice(names)}"
        lines.append(f"  let s{j} = {expr}")
        names.append(f"s{j}")
    read = rng.sample(names, min(len(names), 2))
    if len(read) == 2 and rng.random() < 0.5:
        lines.append(f"  result {{ ok: {read[0]} - {read[1]} >= 1, v: {read[0]} - {read[1]} }}")
    else:
        lines.append("  result { " + ", ".join(f"{x}: {x}" for x in read) + " }")
    lines.append("}")
    return HEADER + "\n".join(lines) + "\n", {"A": rng.choice([0, 2])}


@against_brute_force(summed_rolls(), 40)
def test_rolls_and_sums_of_them_agree_with_brute_force(case):
    text, data = case
    assert_counted_as_run(text, data)
