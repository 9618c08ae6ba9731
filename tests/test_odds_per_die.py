"""Pools read only as sums of their answers (interpreter.odds.per_die): each value's part a
sum of products, dice alike added die by die; against every way the dice can fall, and a
small budget only this way meets."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

import dsl
import interpreter.odds.convolved as convolved
import interpreter.odds.per_die as per_die
from interpreter import Engine

HEADER = """sheet {
  attribute A in 0..3
}
"""

#: pools read as sums of their answers (die by die, or each joint answer by the numbers)
LINEAR = {
    "three pools counted face by face, the counts added into sums": """
action act() {
  let a = 3d3
  let b = 2d4
  let c = (A)d2
  let a2 = count(a, 2)
  let a3 = count(a, 3)
  let b4 = count(b, 4)
  let s = a2 + 2 * a3 + b4 - count(c, 2)
  let f = count(a, 1) + count(b, 1..2) + A * count(c, 1)
  result { ok: s - f >= 1, net: s - f }
}
""",
    "a total, a test read of the sheet, a name times a count": """
action act() {
  let a = 3d4
  let b = 2d3
  let s = a.total - count(b, A) + A * count(a, 4)
  let t = -count(b, 3) + 2 * a.total - s
  result { s: s, t: t }
}
""",
    "a pool that keeps some: its joint answers, by the numbers": """
action act() {
  let a = 3d3kh2
  let b = 2d4
  let s = count(a, 3) + a.total - count(b, 4)
  result { s: s }
}
""",
    "a pool rerolling its ones: each die alone": """
action act() {
  let a = 3d3ro1
  let b = 2d3
  let s = count(a, 3) - count(b, 1) + a.total
  result { s: s }
}
""",
    "a test that is no number (a range the action makes): the lets run": """
action act() {
  let r = A..3
  let a = 3d3
  let b = 2d2
  let s = count(a, r) + count(b, 1)
  result { s: s }
}
""",
    "a 0-die pool, a 1-die pool": """
action act() {
  let a = 0d3
  let b = 1d4
  let c = 2d2
  let s = count(a, 2) + count(b, 1..2) - 2 * count(c, 2)
  result { s: s }
}
""",
}

#: read otherwise: a product of two counts of one pool, a condition on a count, a
#: multiplier computed, a name of the world that is not whole (each value's lets run,
#: as convolved does, or world by world)
NOT_LINEAR = {
    "a name of the world that is not whole": """
action act() {
  let h = A / 2
  let a = 2d3
  let b = 2d2
  let s = h * count(a, 2) + count(b, 1)
  result { s: s }
}
""",
    "a product of two counts of one pool": """
action act() {
  let a = 3d3
  let b = 2d2
  let s = count(a, 1) * count(a, 2) + count(b, 1)
  result { s: s }
}
""",
    "a condition on a count": """
action act() {
  let a = 3d3
  let b = 2d2
  let s = (if count(a, 1) > 0 then 1 else 0) + count(b, 1)
  result { s: s }
}
""",
    "a multiplier computed": """
action act() {
  let a = 3d3
  let b = 2d2
  let s = (A + 1) * count(a, 1) + count(b, 1)
  result { s: s }
}
""",
}


def _seen(monkeypatch) -> list:
    found = convolved.pool_shifts
    seen: list = []

    def spy(*args):
        answer = found(*args)
        if answer is not None:
            seen.append(args[2])  # (the pool's name)
        return answer

    monkeypatch.setattr(convolved, "pool_shifts", spy)
    return seen


@pytest.mark.parametrize("name", sorted(LINEAR))
@pytest.mark.parametrize("value", [0, 1, 3])
def test_pools_read_as_sums_of_answers_are_counted_so(monkeypatch, name, value):
    seen = _seen(monkeypatch)
    assert_counted_as_run(HEADER + LINEAR[name], {"A": value})
    assert seen, "not counted by the pools' answers"


@pytest.mark.parametrize("name", sorted(NOT_LINEAR))
def test_pools_read_otherwise_run_their_lets_per_value(monkeypatch, name):
    seen = _seen(monkeypatch)
    assert_counted_as_run(HEADER + NOT_LINEAR[name], {"A": 1})
    assert "a" not in seen, "counted by the pools' answers"


#: three pools of eight d6, each face but one counted, the counts added up: 792 joint
#: answers of each pool, each a run of the lets value by value
POOLS = """
action act() {
  let a = 8d6
  let b = 8d6
  let c = 8d6
  let a2 = count(a, 2)
  let a3 = count(a, 3)
  let a4 = count(a, 4)
  let a5 = count(a, 5)
  let a6 = count(a, 6)
  let b5 = count(b, 5)
  let b6 = count(b, 6)
  let c1 = count(c, 1)
  let c2 = count(c, 2)
  let hits = a5 + 2 * a6 + b5 + 2 * b6 - c1 - a2
  let slips = a3 + a4 + count(b, 1) + c2
  result { ok: hits - slips >= 2, net: hits - slips }
}
"""
#: some 50 units so; value by value some 1,500 (and more than 2,000 of budget)
POOLS_WORK = 300


def _pools_odds():
    engine = Engine(dsl.load_text(POOLS, "pools.rules"))
    return engine.odds("act", engine.sheet({}), {}, budget=POOLS_WORK, trials=50)


def test_pools_read_as_sums_are_exact_within_a_small_budget():
    assert _pools_odds().exact


def test_the_same_pools_value_by_value_pass_the_budget(monkeypatch):
    monkeypatch.setattr(per_die.SWITCH, "dice", False)
    assert not _pools_odds().exact


@st.composite
def linear_pools(draw):
    """(rulebook text, sheet data): two or three pools (some keeping, some rerolling),
    lets adding counts and totals of them (scaled by numbers or a name of the sheet, a
    test read of the sheet, negated), sometimes a product or condition of one pool, and
    a result reading some sums whole or in one sum."""
    rng = draw(st.randoms(use_true_random=False))
    pools = []
    lines = ["action act() {"]
    for i in range(rng.choice([2, 3])):
        size = rng.choice([2, 3])
        count = rng.choice(["1", "2", "3", "(A)"])
        modifier = rng.choice(["", "", "", "ro1", "kh1"])
        lines.append(f"  let p{i} = {count}d{size}{modifier}")
        pools.append(f"p{i}")

    def part() -> str:
        pool = rng.choice(pools)
        chance = rng.random()
        if chance < 0.15:
            base = f"{pool}.total"
        elif chance < 0.25:
            base = f"count({pool}, A)"
        elif chance < 0.3:
            base = f"count({pool}, 1..2)"
        else:
            base = f"count({pool}, {rng.choice([1, 2, 3])})"
        chance = rng.random()
        if chance < 0.15:
            return f"A * {base}"
        if chance < 0.3:
            return f"{rng.choice([2, -1, 3])} * {base}"
        if chance < 0.35:
            return f"-{base}"
        if chance < 0.4:
            return f"{base} * {base}"
        if chance < 0.45:
            return f"(if {base} > 1 then 1 else 0)"
        return base

    names: list = []
    for j in range(rng.choice([1, 2, 3])):
        expr = " + ".join(part() for _ in range(rng.choice([1, 2, 3])))
        if names and rng.random() < 0.4:
            expr += f" - {rng.choice(names)}"
        lines.append(f"  let s{j} = {expr}")
        names.append(f"s{j}")
    read = rng.sample(names, min(len(names), 2))
    if len(read) == 2 and rng.random() < 0.5:
        lines.append(f"  result {{ ok: {read[0]} - {read[1]} >= 1, v: {read[0]} - {read[1]} }}")
    else:
        lines.append("  result { " + ", ".join(f"{x}: {x}" for x in read) + " }")
    lines.append("}")
    return HEADER + "\n".join(lines) + "\n", {"A": rng.choice([0, 1, 2, 3])}


@against_brute_force(linear_pools(), 60)
def test_pools_read_as_sums_agree_with_brute_force(case):
    text, data = case
    assert_counted_as_run(text, data)
