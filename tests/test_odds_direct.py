"""A block that rolls nothing run whole in each world (interpreter.odds.direct): the same
odds as every roll, with its switch on or off, and within a budget only it fits."""

from __future__ import annotations

import pytest
from oracle import assert_counted_as_run

import dsl
import interpreter.odds.direct as direct
from interpreter import Engine, Limits

HEADER = 'rulebook "Blocks" { }\nsheet { attribute A in 0..3 default 2 }\n'


def act(body: str, result: str) -> str:
    return HEADER + f'action act() "Act" {{\n  {body}\n  result {{ {result} }}\n}}\n'


#: blocks that roll nothing: a pass's `if`s (one with `else if` and an `if` inside, a
#: name nobody reads set, a `require` that fails some runs); an `if`'s block over the
#: worlds of a roll, reading the sheet and binding a name it reads; a pass reading a
#: die drawn before the loop
BODIES = [
    (
        "let r = 3d3\n  let s = 0\n  let unread = 0\n  for each d in r.dice {\n"
        "    if d = 1 { set s to s + 1  set unread to unread + 2 }\n"
        "    else if d = 2 { if s > 0 { set s to s - 1 } }\n"
        '    require s < 3 else "too many"\n    set unread to unread + d\n  }',
        "s: s",
    ),
    (
        "let c = 1d6\n  let t = 0\n  if c >= 3 {\n"
        "    let x = c * A\n    set t to x + 1\n    if x > 8 { set t to t - c }\n  }",
        "t: t",
    ),
    (
        "let r = 2d4\n  let t = d3\n  let s = 0\n  for each d in r.dice {\n"
        "    if d >= t { set s to s + 1 }\n    if d = 4 { set s to s + t }\n  }",
        "s: s, t: t",
    ),
]


@pytest.mark.parametrize("body, result", BODIES)
@pytest.mark.parametrize("switch", [True, False])
def test_a_block_run_whole_agrees_with_every_roll(monkeypatch, body, result, switch):
    monkeypatch.setattr(direct.SWITCH, "on", switch)
    assert_counted_as_run(act(body, result), {"A": 2})


#: blocks that count more steps where a die shows 3 (its `if`'s block run whole): past
#: the limit in some runs, inside the block or as the next is entered
COUNTED = (
    "let s = 0\n  let a = d3\n  if a = 3 { set s to s + 1  set s to s + 1  set s to s + 1 }\n"
    "  let b = d3\n  if b = 3 { set s to s + 1  set s to s + 1  set s to s + 1 }\n"
    "  if a = b { set s to s + 10 }"
)


@pytest.mark.parametrize("switch", [True, False])
@pytest.mark.parametrize("steps", [20, 24, 28, 32])
def test_a_block_run_whole_stops_where_a_run_passes_the_step_limit(monkeypatch, switch, steps):
    """Some runs pass the limit (an outcome of its own), as a real run does, the blocks
    run whole or not; a run past it as a block is entered (its statements' own steps
    counted there, none after) stops there too (Explorer.explore)."""
    monkeypatch.setattr(direct.SWITCH, "on", switch)
    limits = Limits(tie_rerolls=1, steps_per_run=steps)
    assert_counted_as_run(act(COUNTED, "s: s"), {}, limits=limits)


def test_a_pass_of_many_ifs_is_run_whole_within_a_small_budget(monkeypatch):
    """Twenty `if d = k` over a d20's faces: a run each face, not a run each face and
    `if` (46 units against 426 statement by statement, measured 2026-12-07)."""
    ifs = "  ".join(f"if d = {k} {{ set s to s + {k % 3} }}" for k in range(1, 21))
    text = act(f"let r = 3d20\n  let s = 0\n  for each d in r.dice {{ {ifs} }}", "s: s")
    answers = {}
    for switch in (True, False):
        monkeypatch.setattr(direct.SWITCH, "on", switch)
        engine = Engine(dsl.load_text(text))
        odds = engine.odds("act", engine.sheet({}), {}, "s", budget=150, trials=20)
        assert odds.exact is switch
        answers[switch] = engine.odds("act", engine.sheet({}), {}, "s").probabilities
    assert answers[True] == answers[False]
