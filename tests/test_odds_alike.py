"""A let run once for the worlds alike in what it reads (interpreter.odds.alike).

`let p = (k + 6)d6` after `let a = d20 + d20 + d20`: the 58 worlds of `a` all hold the
same `k`, so the pool's 28 values are found by one run of the let, not one per world;
answered exactly within a small budget only this meets, and equal to brute force where
worlds are alike in some names and not in others.
"""

from __future__ import annotations

import pytest
from oracle import assert_counted_as_run

import dsl
import interpreter.odds.alike as alike
from interpreter import Engine

ALIKE = """rulebook "Alike" { language "en" }
action act(k: int = 0) {
  let a = d20 + d20 + d20 + 0
  let p = (k + 6)d6
  let t = if a > 5 * count(p, 6) then a - count(p, 1) else a
  result { t: t }
}
"""
#: the budget: exact from about 2,000 with the pool's let run once (most of it is `t`'s,
#: in 1,624 worlds), from about 4,000 with the pool's 29 runs in each of the 58 worlds
SMALL = 2_800


def alike_odds():
    engine = Engine(dsl.load_text(ALIKE, "alike.rules"))
    return engine.odds("act", engine.sheet({}), {}, "t", budget=SMALL, trials=50)


def test_a_let_alike_in_every_world_answers_within_a_small_budget(monkeypatch):
    odds = alike_odds()
    assert odds.exact and sum(odds.probabilities.values()) == 1
    # switched off: the let run in each world
    monkeypatch.setattr(alike, "alike_let", lambda *_: None)
    assert not alike_odds().exact


HEADER = """rulebook "Alike" { language "en" }
sheet {
  attribute A in 0..3
}
"""


@pytest.mark.parametrize(
    "lines",
    [
        # worlds alike in `n`, not in `a`: the pool once per value of `n`
        [
            "let a = d4",
            "let n = if a > 2 then 1 else 2",
            "let p = (n)d3",
            "result { t: a + count(p, 3), u: count(p, 1) }",
        ],
        # a let that stops some runs, once for the worlds alike
        [
            "let a = d3",
            "let b = d2",
            'require b + A < 3 else "no"',
            "let c = d2 + b",
            "result { t: a + c, u: c }",
        ],
        # a pool asked what another name says: that name read where it is rolled
        ["let a = d3", "let p = 2d3", "result { t: count(p, a), u: a }"],
        [
            "let a = d3",
            "let b = 2d3",
            "let p = (count(b, 3))d3",
            "let x = count(b, 1) + count(p, a)",
            "result { x: x, a: a }",
        ],
        # a sheet read, a check's record alike
        ["let a = d3", "let c = d3 + A", "let d = d2 * c", "result { t: a, u: d, v: c }"],
    ],
)
def test_lets_run_once_for_worlds_alike_equal_every_run(lines):
    action = "action act() {\n  " + "\n  ".join(lines) + "\n}\n"
    assert_counted_as_run(HEADER + action, {"A": 1})
