"""Every evaluation counted: one step count (`Limits.steps_per_run`) for every statement,
operation, call, table read, loop pass, branch and dice term, and the cells of the values
gone through; exponential rulebooks of every kind stop at it, where they were.

Nothing here measures time: the work is bounded by counting it (benchmarks/step_cost.py
measures what a step costs at the dearest).
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, LimitExceeded, Limits, SeededDice
from interpreter.errors import SheetError
from interpreter.runtime import STEPS_BETWEEN_CLOCKS

#: a limit small enough that stopping at it costs milliseconds
SMALL = Limits(steps_per_run=20_000, dice_per_evaluation=10**6)
N = 30  # each definition twice the one below: 2**30 evaluations unbounded


def chain(step: str, first: str) -> str:
    """`first` (line 1), then N definitions each using the one below twice (lines 2..N+1)."""
    return "\n".join([first] + [step.format(i=i, j=i - 1) for i in range(1, N + 1)]) + "\n"


SHEET = "sheet {\n  attribute A in 1..10\n}\n"
DERIVED = chain("  derived v{i} = v{j} + v{j}", "  derived v0 = A + 1")

#: name → (rulebook, the action that runs it); the chain is on lines 1..N+1
EXPONENTIAL = {
    "formula": (
        chain("formula f{i}(x: int) = f{j}(x) + f{j}(x)", "formula f0(x: int) = x + 1"),
        f"action go() {{ let r = f{N}(1) + d6  result {{ r: r }} }}",
    ),
    "if": (
        chain(
            "formula f{i}(x: int) = if x > 0 then f{j}(x) + f{j}(x) else 0",
            "formula f0(x: int) = x + 1",
        ),
        f"action go() {{ result {{ v: f{N}(1) }} }}",
    ),
    "and": (
        chain("formula f{i}(x: int) = f{j}(x) and f{j}(x)", "formula f0(x: int) = x > 0"),
        f"action go() {{ result {{ v: f{N}(1) }} }}",
    ),
    "list": (
        chain("formula f{i}(x: int) = sum([f{j}(x), f{j}(x)])", "formula f0(x: int) = x + 1"),
        f"action go() {{ result {{ v: f{N}(1) }} }}",
    ),
    "action": (
        chain("action a{i}() {{ do a{j}()  do a{j}() }}", 'action a0() { note "x" }'),
        f"action go() {{ do a{N}()  result {{ v: 1 }} }}",
    ),
    "table": (
        chain("table T{i} by k {{ else: T{j}[k] + T{j}[k] }}", "table T0 by k { else: k + 1 }"),
        f"action go() {{ result {{ v: T{N}[1] }} }}",
    ),
    "check": (
        chain(
            "check c{i}(x: int = 1) {{ roll c{j}(x).total + c{j}(x).total >= 1 }}",
            "check c0(x: int = 1) { roll d6 + x >= 1 }",
        ),
        f"action go() {{ result {{ v: c{N}(1).total }} }}",
    ),
    "opposed": (
        chain(
            "opposed o{i}(x: int = 1) {{ roll o{j}(x).margin + o{j}(x).margin  against 1 }}",
            "opposed o0(x: int = 1) { roll d6  against d6 }",
        ),
        f"action go() {{ result {{ v: o{N}(1).won }} }}",
    ),
    "roll": (
        chain("roll r{i} = r{j} + r{j}", "roll r0 = d6"),
        f"action go() {{ result {{ v: r{N} }} }}",
    ),
    "parameter default": (
        chain("formula f{i}(x: int) = f{j}(x) + f{j}(x)", "formula f0(x: int) = x + 1"),
        f"action go(p: int = f{N}(1)) {{ result {{ v: p }} }}",
    ),
}


def engine_of(text: str, limits: Limits = SMALL) -> Engine:
    return Engine(dsl.load_text(text, "exp.rules"), limits)


@pytest.mark.parametrize("kind", list(EXPONENTIAL))
def test_an_exponential_rulebook_stops_at_the_limit_where_it_was(kind):
    definitions, action = EXPONENTIAL[kind]
    engine = engine_of(definitions + action)
    with pytest.raises(LimitExceeded, match="limit steps_per_run") as stopped:
        engine.run("go", engine.sheet({}), {}, SeededDice(1))
    # the step that passed the limit: in a definition of the chain (or the action's call)
    assert 1 <= stopped.value.span.line <= N + 2
    assert stopped.value.span.source.name == "exp.rules"


@pytest.mark.parametrize("kind", ["formula", "if", "list", "table"])
def test_and_so_do_its_odds(kind):
    definitions, action = EXPONENTIAL[kind]
    engine = engine_of(definitions + action)
    with pytest.raises(LimitExceeded, match="limit steps_per_run"):
        engine.odds("go", engine.sheet({}), {})


def test_derived_fields_and_ensure_rules_stop_too():
    book = SHEET.replace("}\n", DERIVED + "}\n") + f"action go() {{ result {{ v: v{N} }} }}\n"
    engine = engine_of(book)
    with pytest.raises(LimitExceeded, match="limit steps_per_run"):
        engine.run("go", engine.sheet({"A": 2}), {}, SeededDice(1))
    # an `ensure` on it: checked when a sheet is loaded, and the load refused
    ensured = SHEET.replace("}\n", DERIVED + f'  ensure v{N} > 0 else "x"\n}}\n')
    engine = engine_of(ensured + "action go() { result { v: 1 } }\n")
    with pytest.raises(SheetError, match="limit steps_per_run"):
        engine.sheet({"A": 2})


# ─── what an ordinary action counts ─────────────────────────────────────────

ORDINARY = """
table Grade by total { ..5: "low"  6..: "high" { bonus: total * 2 } }
formula f(x: int) = if x > 2 then x * 10 else 0
action loop(n: int) { let x = n + 1  repeat n times { set x to x * 2 }  result { v: x } }
action branch(n: int) { let y = f(n)  result { y: y } }
action lookup(n: int) { let g = Grade[n]  result { g: g.label } }
"""


def steps_of(action: str, **params) -> int:
    engine = engine_of(ORDINARY)
    return engine.run(action, engine.sheet({}), params, SeededDice(1)).steps


def test_a_loop_counts_its_statements_nodes_and_passes():
    # entry: `let x = n + 1` (the let, +, n, 1: 4), `repeat n times` (the repeat, n: 2),
    # the result's `x` (1); each pass: the pass (1) and `set x to x * 2` (the set, x,
    # *, x, 2: 5); the result record, of numbers only, nothing more to go through
    for n in (0, 1, 3, 10):
        assert steps_of("loop", n=n) == 4 + 2 + 1 + n * (1 + 5)


def test_a_branch_counts_only_when_it_is_taken():
    # entry: `let y = f(n)` (the let, the call, n: 3), the result's `y` (1); the formula
    # on its call: if, >, x, 2 (4); the branch taken: `x * 10` (3) or `0` (1)
    assert steps_of("branch", n=5) == 3 + 1 + 4 + 3
    assert steps_of("branch", n=1) == 3 + 1 + 4 + 1


def test_a_table_cell_counts_when_it_is_computed():
    # entry: `let g = Grade[n]` (the let, the lookup, n: 3), `g.label` (2); a cell of
    # literals only, nothing (computed once, when compiled); a cell computing `total * 2`,
    # its parts when looked up: its label (1) and that (3)
    assert steps_of("lookup", n=3) == 3 + 2
    assert steps_of("lookup", n=7) == 3 + 2 + 1 + 3


def test_a_lower_limit_stops_what_a_higher_one_completes():
    engine = engine_of(ORDINARY)
    steps = engine.run("loop", engine.sheet({}), {"n": 10}, SeededDice(1)).steps
    exact = engine_of(ORDINARY, attrs.evolve(SMALL, steps_per_run=steps))
    assert exact.run("loop", exact.sheet({}), {"n": 10}, SeededDice(1)).steps == steps
    short = engine_of(ORDINARY, attrs.evolve(SMALL, steps_per_run=steps - 1))
    with pytest.raises(LimitExceeded, match="limit steps_per_run"):
        short.run("loop", short.sheet({}), {"n": 10}, SeededDice(1))


SHIPPED = [
    ("brujeria", "brujeria_investigadora", "asustarse", {}),
    ("brujeria", "brujeria_bruja", "pulso", {}),
    ("arcana_mundi", "menecma", "usar_numina", {"numina": "Grito Báquico"}),
]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(SHIPPED), st.integers(0, 2**16))
def test_a_shipped_run_completes_at_its_own_count_and_stops_one_below(case, seed):
    name, character, action, params = case
    book = dsl.load(name)
    engine = Engine(book)
    sheet = engine.load_sheet(f"rulebooks/characters/{character}.yaml")
    try:
        steps = engine.run(action, sheet, params, SeededDice(seed)).steps
    except RulebookError as error:  # a run the rules refuse (a `require`): counted too
        assert not isinstance(error, LimitExceeded) and error.steps > 0
        return
    assert 0 < steps < 5_000  # the shipped runs take a few hundred steps: ample room
    exact = Engine(book, Limits(steps_per_run=steps))
    assert exact.run(action, exact.load_sheet(sheet.path), params, SeededDice(seed)).steps == steps
    short = Engine(book, Limits(steps_per_run=steps - 1))
    with pytest.raises(LimitExceeded, match="steps_per_run"):  # (in the rulebook's language)
        short.run(action, short.load_sheet(sheet.path), params, SeededDice(seed))


# ─── values: building and going through them counts, and their size is bounded ─


def test_a_list_doubled_by_nesting_stops_at_value_size():
    # each pass holds the list twice: 2**60 items when written out, from a few steps each
    text = "action go() { let l = [1]  repeat 60 times { set l to [l, l] }  result { n: 1 } }"
    engine = engine_of(text, Limits())
    with pytest.raises(LimitExceeded, match="limit value_size"):
        engine.run("go", engine.sheet({}), {}, SeededDice(1))


def test_a_long_text_held_many_times_stops_at_value_size():
    text = (
        'action go() { let s = "ab"  repeat 15 times { set s to "{s}{s}" }  let l = [s]'
        "  repeat 13 times { set l to l + l }  result { l: l } }"
    )
    engine = engine_of(text, Limits())
    with pytest.raises(LimitExceeded, match="limit value_size") as stopped:
        engine.run("go", engine.sheet({}), {}, SeededDice(1))
    assert stopped.value.span.line == 1


def test_a_record_holding_a_list_counts_its_cells():
    text = (
        "action go(n: int) { let l = [1, 2, 3]  repeat n times { set l to l + l }"
        "  result { l: l } }"
    )
    engine = engine_of(text)

    def steps(n: int) -> int:
        return engine.run("go", engine.sheet({}), {"n": n}, SeededDice(1)).steps

    # one pass more: the pass, the set and its 4 nodes (6), the list built of 12 items
    # (its cells: 13), and the result record holding it: counted through, 6 items more
    assert steps(2) - steps(1) == 6 + (1 + 12) + 6


def test_going_through_a_list_counts_its_items():
    def steps(size: int) -> int:
        text = f"action go() {{ let l = [{', '.join(['1'] * size)}]  result {{ s: sum(l) }} }}"
        engine = engine_of(text)
        return engine.run("go", engine.sheet({}), {}, SeededDice(1)).steps

    # each item more: its node, its cell in the list built, its cell in the sum
    assert steps(20) - steps(10) == 10 * 3


# ─── the clock of a time bound reads the same count ─────────────────────────


def test_the_clock_is_read_once_every_so_many_steps(monkeypatch):
    import interpreter.runtime as runtime

    readings = []
    real = runtime.time.monotonic

    def clock():
        readings.append(1)
        return real()

    engine = engine_of(ORDINARY, attrs.evolve(SMALL, run_seconds=600))
    sheet = engine.sheet({})
    monkeypatch.setattr(runtime.time, "monotonic", clock)
    out = engine.run("loop", sheet, {"n": 1000}, SeededDice(1))
    # one reading when the run starts, then one each STEPS_BETWEEN_CLOCKS steps
    assert len(readings) == 1 + out.steps // STEPS_BETWEEN_CLOCKS


def test_the_odds_engine_counts_each_world_on_its_own():
    # each world of the odds takes a few dozen steps; all of them, thousands
    text = "action go() { let a = 3d6  let b = 3d6  let c = a + b  result { c: c } }"
    engine = engine_of(text, attrs.evolve(SMALL, steps_per_run=200))
    assert engine.run("go", engine.sheet({}), {}, SeededDice(1)).steps < 200
    odds = engine.odds("go", engine.sheet({}), {})
    assert odds.exact and len(odds.probabilities) == 31
