"""A statement nothing reads is skipped by the odds engine only if it cannot stop the run:
one that may pass the step limit (issue 23: each formula calling the one below twice),
divide by zero or fail a lookup is computed, and where it stops the run, that failure is
in every field's answer, as the run's. Each shape against every dice sequence a real run
can draw; where every run fails, the odds refuse with the run's error."""

from __future__ import annotations

import pytest
from oracle import action_outcomes, agrees_with_brute_force, counted

import dsl
from interpreter import Engine, LimitExceeded, Limits, SeededDice
from interpreter.odds.steps import MOST, StepBounds
from interpreter.odds.worlds import Liveness

#: a limit small enough that reaching it costs milliseconds
LIMITS = Limits(steps_per_run=20_000, tie_rerolls=1)
N = 30  # each definition using the one below twice: 2**30 steps unbounded


def chain(step: str, first: str) -> str:
    return "\n".join([first] + [step.format(i=i, j=i - 1) for i in range(1, N + 1)]) + "\n"


SHEET = f"""sheet {{
  attribute A in 1..10 default 1
  derived v0 = A + 1
{chain("  derived v{i} = v{j} + v{j}", "").strip()}
}}
"""

#: name → (definitions, an expression of them that passes the step limit)
COSTLY = {
    "formula": (
        chain("formula f{i}(x: int) = f{j}(x) + f{j}(x)", "formula f0(x: int) = x"),
        "f30(1)",
    ),
    "if in a formula": (
        chain(
            "formula f{i}(x: int) = if x > 0 then f{j}(x) + f{j}(x) else 0",
            "formula f0(x: int) = x + 1",
        ),
        "f30(1)",
    ),
    "yes/no": (
        chain("formula f{i}(x: int) = f{j}(x) and f{j}(x)", "formula f0(x: int) = x > 0"),
        "(if f30(1) then 1 else 0)",
    ),
    "derived field": ("", "v30"),
    "table": (
        chain("table T{i} by k {{ else: T{j}[k] + T{j}[k] }}", "table T0 by k { else: k + 1 }"),
        "T30[1]",
    ),
    "check": (
        chain(
            "check c{i}(x: int = 1) {{ roll c{j}(x).total + c{j}(x).total >= 1 }}",
            "check c0(x: int = 1) { roll x >= 1 }",
        ),
        "c30(1).total",
    ),
}

#: name → a statement nothing reads, holding `{e}`
IDLE = {
    "let": "let unread = {e}",
    "set": "set spare to {e}",
    "if": 'if {e} = 0 {{\n      note "x"\n    }}',
    "for each": 'for each k in [{e}] {{\n      note "x"\n    }}',
}


def engine_of(definitions: str, action: str) -> Engine:
    return Engine(dsl.load_text(SHEET + definitions + action, "idle.rules"), LIMITS)


@pytest.mark.parametrize("statement", list(IDLE))
@pytest.mark.parametrize("costly", list(COSTLY))
def test_an_unread_statement_past_the_step_limit_fails_where_the_run_does(costly, statement):
    definitions, expr = COSTLY[costly]
    line = IDLE[statement].format(e=expr)
    action = f"""action act() {{
  let n = d3
  let spare = 0
  if n = 3 {{
    {line}
  }}
  result {{ n: n, one: 1 }}
}}
"""
    engine = engine_of(definitions, action)
    sheet = engine.sheet({})
    agrees_with_brute_force(engine, sheet, line)  # each field's answer fails 1 time in 3
    one = counted(engine.odds("act", sheet, {}, "one"))
    assert one[1] == 1 - one[("fails", "more than 20000 steps of evaluation (limit steps_per_run)")]


@pytest.mark.parametrize("statement", list(IDLE))
def test_an_unread_statement_that_always_passes_it_stops_the_odds_as_the_run(statement):
    definitions, expr = COSTLY["formula"]
    line = IDLE[statement].format(e=expr)
    engine = engine_of(
        definitions, f"action act() {{\n  let spare = 0\n  {line}\n  result {{ v: 1 }}\n}}\n"
    )
    fails_past_the_steps_as_the_run_does(engine)


def fails_past_the_steps_as_the_run_does(engine) -> None:
    """`act` fails at the step limit when run, and its odds (whole, and of `v`) too."""
    sheet = engine.sheet({})
    with pytest.raises(LimitExceeded, match="limit steps_per_run"):
        engine.run("act", sheet, {}, SeededDice(1))
    for field in (None, "v"):
        with pytest.raises(LimitExceeded, match="limit steps_per_run"):
            engine.odds("act", sheet, {}, field)


ACTIONS = chain("action a{i}() {{ do a{j}()  do a{j}() }}", 'action a0() { note "x" }')


def test_an_action_called_past_the_step_limit_fails_as_the_run_does():
    engine = engine_of(ACTIONS, f"action act() {{\n  do a{N}()\n  result {{ v: 1 }}\n}}\n")
    fails_past_the_steps_as_the_run_does(engine)
    # behind a roll: the run's failure 1 time in 3, in every field
    behind = engine_of(
        ACTIONS,
        f"action act() {{\n  let n = d3\n  if n = 3 {{\n    do a{N}()\n  }}\n"
        "  result { n: n, v: 1 }\n}\n",
    )
    agrees_with_brute_force(behind, behind.sheet({}))


@pytest.mark.parametrize(
    "line",
    [
        "let unread = 6 / (n - 1)",  # a division by zero on one roll
        "let unread = Small[n]",  # a row the table does not have
        "let unread = n * 10 ** (n * 500)",  # a number past number_digits
    ],
)
def test_other_failures_of_an_unread_statement_are_counted(line):
    action = f"action act() {{\n  let n = d3\n  {line}\n  result {{ n: n, one: 1 }}\n}}\n"
    engine = engine_of("table Small by k {\n  1..2: 5\n}\n", action)
    sheet = engine.sheet({})
    agrees_with_brute_force(engine, sheet, line)
    assert any(isinstance(k, tuple) for k in action_outcomes(engine, "act", sheet)), line


def test_a_cheap_unread_statement_is_still_skipped_and_a_costly_one_not():
    # a chain of eight doublings: some 2**8 steps, under the limit: skipped
    definitions = "\n".join(
        ["formula g0(x: int) = x"]
        + [f"formula g{i}(x: int) = g{i - 1}(x) + g{i - 1}(x)" for i in range(1, 9)]
    )
    text = COSTLY["formula"][0] + definitions + "\naction act() { result { v: g8(1) + f30(1) } }\n"
    engine = engine_of(text, "")
    liveness = Liveness.of(engine.compiler, LIMITS)
    cheap, costly = engine.rulebook.actions["act"].body[-1].fields[0][1].left, None
    costly = engine.rulebook.actions["act"].body[-1].fields[0][1].right
    assert liveness.cannot_fail(cheap) and not liveness.cannot_fail(costly)
    # a named roll, each using the one below twice (its odds are too slow to ask here)
    rolls = chain("roll r{i} = r{j} + r{j}", "roll r0 = d2")
    named = engine_of(rolls + f"action act() {{ result {{ v: r{N} }} }}\n", "")
    read = named.rulebook.actions["act"].body[-1].fields[0][1]
    assert not Liveness.of(named.compiler, LIMITS).cannot_fail(read)
    # under a lower limit, the cheap one may pass it too
    assert not Liveness.of(engine.compiler, Limits(steps_per_run=500)).cannot_fail(cheap)


def test_the_bound_is_never_below_what_a_run_counts():
    definitions, _ = COSTLY["formula"]
    engine = engine_of(definitions, "action act() { result { v: 1 } }\n")
    bounds = StepBounds(engine.compiler, LIMITS)
    for i in (0, 3, 8, 12):
        action = f"action act() {{ let r = f{i}(1)  result {{ v: r }} }}\n"
        small = Engine(dsl.load_text(definitions + action, "idle.rules"), Limits())
        counted_steps = small.run("act", small.sheet({}), {}, SeededDice(1)).steps
        most = StepBounds(small.compiler, Limits()).most(small.rulebook.actions["act"])
        assert counted_steps <= most < MOST
    assert bounds.most(engine.rulebook.formulas["f30"]) > 2**30
