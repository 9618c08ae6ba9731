"""A row of `if`s testing one name against whole numbers, run by a lookup of its value
(interpreter.odds.switched): the same odds as every roll, switched on or off, under step
limits that stop runs inside the row; switched on, no test of the row evaluated."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from oracle import against_brute_force, assert_counted_as_run

import dsl
import interpreter.compile.expressions as expressions
import interpreter.odds.switched as switched
from interpreter import Engine, Limits

HEADER = 'rulebook "Rows" { }\nsheet { attribute A in 0..3 default 2 }\n'


def act(body: str, result: str) -> str:
    return HEADER + f'action act() "Act" {{\n  {body}\n  result {{ {result} }}\n}}\n'


#: rows of `if`s: over a pool's dice (`2 = d` written either way, a number tested twice,
#: `else if` and `else`, an `if` inside, a `require` failing some runs); over a die's
#: value bound by a `let`, read again after the row; a row whose block sets the name it
#: tests (then `if` by `if`); a row over a name that may hold a fraction (`d4 / 2`)
ROWS = [
    (
        "let r = 3d4\n  let s = 0\n  let t = 0\n  for each d in r.dice {\n"
        "    if d = 1 { set s to s + 1 }\n    if 2 = d { set t to t + 1 }\n"
        "    if d = 2 { set s to s + 2 } else if d = 4 { set t to t + 2 } else { set s to s - 1 }\n"
        "    if d = 3 { if s > 1 { set t to t + 5 } }\n"
        '    if d = 4 { require s < 3 else "too many" }\n  }',
        "s: s, t: t",
    ),
    (
        "let a = d6\n  let s = A\n  if a = 1 { set s to s + a }\n  if a = 6 { set s to s * 2 }\n"
        "  if a = 3 { set s to 0 } else if a = 3 { set s to 100 }\n  set s to s + a",
        "s: s",
    ),
    (
        "let a = d4 + 0\n  let s = 0\n  if a = 1 { set a to 2 }\n  if a = 2 { set s to s + 1 }\n"
        "  if a = 2 { set s to s + 1 }",
        "s: s",
    ),
    (
        "let h = d4 / 2\n  let s = 0\n  for each d in [1, 2] {\n"
        "    if h = 1 { set s to s + 1 }\n    if h = 2 { set s to s + 2 } else { set s to s + d }\n"
        "  }",
        "s: s",
    ),
]


@pytest.mark.parametrize("body, result", ROWS)
@pytest.mark.parametrize("switch", [True, False])
def test_a_row_by_lookup_agrees_with_every_roll(monkeypatch, body, result, switch):
    monkeypatch.setattr(switched.SWITCH, "on", switch)
    assert_counted_as_run(act(body, result), {"A": 2})


#: a row in an `if`'s block (run whole: odds.direct), whose runs count more steps where
#: the die shows 3: past the limit in some runs, at a test of the row or in its block
COUNTED = (
    "let s = 0\n  let a = d3 + 0\n  if A > 0 {\n    if a = 1 { set s to s + 1 }\n"
    "    if a = 3 { set s to s + 1  set s to s + 1  set s to s + 1 }\n"
    "    else if a = 2 { set s to s - 1 }\n"
    "    set s to s + 1\n  }"
)


@pytest.mark.parametrize("switch", [True, False])
@pytest.mark.parametrize("steps", range(32, 40))
def test_a_row_stops_where_a_run_passes_the_step_limit(monkeypatch, switch, steps):
    """Some runs pass the limit (an outcome of its own), as a real run does: the row
    taken `if` by `if` from the test not counted."""
    monkeypatch.setattr(switched.SWITCH, "on", switch)
    limits = Limits(tie_rerolls=1, steps_per_run=steps)
    assert_counted_as_run(act(COUNTED, "s: s"), {"A": 2}, limits=limits)


def _counted_tests(monkeypatch) -> list:
    """The number of times a compiled `x = k` was evaluated, as a one-item list."""
    calls = [0]
    made = expressions.compared_to

    def counting(*args):
        apply = made(*args)

        def counted(ctx):
            calls[0] += 1
            return apply(ctx)

        return counted

    monkeypatch.setattr(expressions, "compared_to", counting)
    return calls


@pytest.mark.parametrize("switch", [True, False])
def test_a_row_is_run_by_a_lookup_of_its_value(monkeypatch, switch):
    """Twelve `if d = k` over a d12's faces: on, none of the tests is evaluated (the
    faces' blocks looked up), off each face runs them all; the same answer."""
    monkeypatch.setattr(switched.SWITCH, "on", switch)
    calls = _counted_tests(monkeypatch)
    ifs = "  ".join(f"if d = {k} {{ set s to s + {k % 3} }}" for k in range(1, 13))
    text = act(f"let r = 3d12\n  let s = 0\n  for each d in r.dice {{ {ifs} }}", "s: s")
    engine = Engine(dsl.load_text(text))
    odds = engine.odds("act", engine.sheet({}), {}, "s")
    assert odds.exact
    assert (calls[0] == 0) is switch
    expected = {0: 0, 1: 0, 2: 0}
    for k in range(1, 13):
        expected[k % 3] += 1
    assert odds.probabilities[0] * 12**3 == expected[0] ** 3


def test_a_row_by_lookup_the_same_answer_and_work(monkeypatch):
    """Numbered dice counted by a loop (benchmarks/wording.py's shape: a d8 and a d12,
    a row each): the same odds, exactness and work with the switch off."""
    rows = []
    for sides in (8, 12):
        ifs = "  ".join(
            f"if d = {k} {{ set s to s + {k % 4}  set t to t + 1 }}" for k in range(2, sides)
        )
        rows.append(f"let p{sides} = 2d{sides}\n  for each d in p{sides}.dice {{ {ifs} }}")
    text = act("let s = 0\n  let t = 0\n  " + "\n  ".join(rows), "s: s - t >= 3")
    engine = Engine(dsl.load_text(text))

    def answer():
        odds = engine.odds("act", engine.sheet({}), {}, "s")
        return odds.probabilities, odds.exact, odds.work

    on = answer()
    monkeypatch.setattr(switched.SWITCH, "on", False)
    assert answer() == on


#: a row's `if`s: each (its branches' numbers, each written `x = k` or `k = x`; an else)
IFS = st.lists(
    st.tuples(
        st.lists(st.tuples(st.integers(0, 4), st.booleans()), min_size=1, max_size=3),
        st.booleans(),
    ),
    min_size=1,
    max_size=4,
)
#: what a block does: add to a counter, fail some runs, test the other counter
BLOCKS = st.sampled_from(
    [
        "set s to s + 1",
        "set t to t + 2",
        "set s to s - t",
        'require s < 2 else "no"',
        "if t > 1 { set s to s + 3 }",
        "set s to s + 1  set t to t + 1",
    ]
)


@st.composite
def rows(draw):
    """A rulebook whose action runs a row of `if`s over a die's face (in a loop over a
    pool's dice, or a die bound by a `let` in an `if`'s block: run whole, odds.direct),
    and a step limit that may stop it (or None)."""
    lines = []
    for numbers, otherwise in draw(IFS):
        tests = [(f"d = {k}" if right else f"{k} = d", draw(BLOCKS)) for k, right in numbers]
        text = " else ".join(f"if {test} {{ {block} }}" for test, block in tests)
        if otherwise:
            text += f" else {{ {draw(BLOCKS)} }}"
        lines.append(text)
    row = "\n    ".join(lines)
    if draw(st.booleans()):
        body = f"let r = 2d4\n  let s = 0\n  let t = 0\n  for each d in r.dice {{\n    {row}\n  }}"
    else:
        body = f"let d = d4 + 0\n  let s = 0\n  let t = 1\n  if A > 0 {{\n    {row}\n  }}"
    return act(body, "s: s, t: t"), draw(st.sampled_from([None, 20, 30, 40, 50, 60]))


def _answer(text: str, limits: Limits, switch: bool):
    """The odds of `s`, or the error raised, switched on or off."""
    switched.SWITCH.on = switch
    try:
        engine = Engine(dsl.load_text(text), limits)
        odds = engine.odds("act", engine.sheet({}), {}, "s")
        return odds.exact, odds.probabilities
    except Exception as error:  # (compared: the same error either way)
        return type(error), str(error)
    finally:
        switched.SWITCH.on = True


@against_brute_force(rows(), examples=80)
def test_rows_agree_with_every_roll_and_switched_off(case):
    """Without a limit, as every roll; under one, as the row run `if` by `if`."""
    text, steps = case
    if steps is None:
        assert_counted_as_run(text, {})
        return
    limits = Limits(tie_rerolls=1, steps_per_run=steps)
    assert _answer(text, limits, True) == _answer(text, limits, False)
